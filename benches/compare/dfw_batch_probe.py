"""Issue 19 probe: can the support's own solve be distributed as batched working sets?

    python3 benches/compare/dfw_batch_probe.py [rows] [q ...] [--rounds N] [--inner exact|short|both]

A decomposition method of the kind ThunderSVM runs on a GPU, simulated in one process: the
gradient G = Qα over all rows is kept exactly (as the shards would keep their slices), and
each round picks a working set of q rows — the q/2 of least G and the q/2 of largest G among
the support — and solves the problem restricted to it with the other weights fixed (a simplex
QP with a linear term, pairwise Frank-Wolfe steps with exact line search; ``exact``: to
1e-3 · ρ, ``short``: at most q/2 steps), then updates G with the moved columns. On a cluster
a round is one latency and q columns over every shard's rows; the question is how many
rounds the certificate needs. q = 2 is one pairwise step per round (the one-vertex rounds of
Bellet et al.). Start: the union of p = 4 random shards' local solutions, as
``DistributedSVC(init="local")``. Checkerboard (uniform on [0, 4)², seed 0), C 1, γ 1, target
relative gap 1e-2. Prints one line per (q, inner): rounds, inner steps, columns, ρ/ρ*, and
appends them to ``results/dfw_batch_probe.jsonl`` with the engine's own steps, from which
``dask_dfw.py model`` bounds a distributed solve of the support.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from fwsvm import _core

HERE = Path(__file__).resolve().parent
C = 1.0
KERNEL = {"kernel": "rbf", "gamma": 1.0, "degree": 3, "coef0": 0.0}


def checkerboard(m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(m, 2))
    return X, np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)


def fit(X: np.ndarray, y: np.ndarray, tol: float) -> dict:
    """The engine's solution: support, alpha, and the statistics (n_iter, quadratic, ...)."""
    model = _core.fit_svc_model((np.ascontiguousarray(X), np.ascontiguousarray(y)), dict(
        c=C, algorithm="swap", tol=tol, stopping="gap", max_iter=-1, cache_size=200.0, init="random", seed=0,
        n_threads=1, loss="squared_hinge", **KERNEL))
    stats = {key: value[0] for key, value in model.statistics().items() if key not in ("steps", "history")}
    return {"support": model.part("support"), "alpha": model.part("alpha"), **stats}


def gradient(X: np.ndarray, y: np.ndarray, rows: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """y ∘ Σ_j coef_j (k(·, x_j) + 1): the kernel part of Q times a weight change."""
    return y * _core.decision_values(X, np.ascontiguousarray(X[rows]), np.ascontiguousarray(coef * y[rows]),
                                       float(coef @ y[rows]), dict(KERNEL, n_threads=1))


def subproblem(Qb: np.ndarray, c: np.ndarray, x0: np.ndarray, tol: float, cap: int) -> tuple[np.ndarray, int]:
    """min xᵀQb x + 2cᵀx over {x ≥ 0, Σx = Σx0}: pairwise steps between the least gradient and
    the largest gradient with positive weight."""
    x = x0.copy()
    g = Qb @ x + c
    for n in range(cap):
        i = int(np.argmin(g))
        act = np.flatnonzero(x > 0)
        j = act[np.argmax(g[act])]
        if g[j] - g[i] <= tol:
            return x, n
        d2 = Qb[i, i] + Qb[j, j] - 2 * Qb[i, j]
        lam = min((g[j] - g[i]) / max(d2, 1e-300), x[j])
        x[i] += lam
        x[j] -= lam
        g += lam * (Qb[:, i] - Qb[:, j])
    return x, cap


def run(X: np.ndarray, y: np.ndarray, start: np.ndarray, q: int, inner: str, max_rounds: int,
        rho_star: float) -> dict:
    a = start.copy()
    S = np.flatnonzero(a > 0)
    G = np.zeros(len(y))
    G += gradient(X, y, S, a[S])
    G += a / C
    steps = columns = 0
    t = time.perf_counter()
    for rnd in range(max_rounds + 1):
        rho = float(a @ G)
        rel = 2 * (rho - G.min()) / rho
        if rel <= 1e-2 or rnd == max_rounds:
            break
        low = np.argpartition(G, q // 2)[: q // 2]
        act = np.setdiff1d(np.flatnonzero(a > 0), low)
        high = act[np.argpartition(-G[act], min(q // 2, len(act)) - 1)[: q // 2]]
        B = np.concatenate([low, high])
        K = _core.kernel_values(X[B], X[B], n_threads=1, **KERNEL)
        Qb = np.outer(y[B], y[B]) * (K + 1.0) + np.eye(len(B)) / C
        tol, cap = (1e-3 * rho, 20 * len(B)) if inner == "exact" else (0.0, max(1, len(B) // 2))
        x, n = subproblem(Qb, G[B] - Qb @ a[B], a[B], tol, cap)
        steps += n
        d = x - a[B]
        moved = d != 0
        G += gradient(X, y, B[moved], d[moved])
        G[B[moved]] += d[moved] / C
        a[B] = x
        columns += int(moved.sum())
    return {"q": q, "inner": inner, "rounds": rnd, "reached": bool(rel <= 1e-2), "relative_gap": rel,
            "inner_steps": steps, "columns": columns, "rho_ratio": rho / rho_star,
            "seconds": time.perf_counter() - t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=int, nargs="?", default=3000)
    ap.add_argument("q", type=int, nargs="*", default=[2, 16, 64, 256])
    ap.add_argument("--rounds", type=int, default=6000)
    ap.add_argument("--inner", choices=["exact", "short", "both"], default="both")
    ap.add_argument("--out", default=str(HERE / "results" / "dfw_batch_probe.jsonl"),
                    help="JSON lines appended, one per (q, inner solve); the scale model reads them")
    args = ap.parse_args()
    X, y = checkerboard(args.rows)
    ref = fit(X, y, 1e-2)
    opt = fit(X, y, 1e-6)
    print(f"# {args.rows} rows: the engine in process reaches 1e-2 in {ref['n_iter']} steps "
          f"({len(ref['support'])} SV)")
    start = np.zeros(args.rows)
    for rows in np.array_split(np.random.default_rng(1).permutation(args.rows), 4):
        r = fit(X[rows], y[rows], 0.3)
        start[rows[np.asarray(r["support"], dtype=np.intp)]] = np.asarray(r["alpha"]) * len(rows) / args.rows
    start /= start.sum()
    print("| q | inner solve | rounds to 1e-2 | inner steps | columns over all rows | ρ/ρ* at the end | seconds |")
    print("|---|---|---|---|---|---|---|")
    for q in args.q:
        modes = ("exact", "short") if args.inner == "both" else (args.inner,)
        for inner in (("exact",) if q == 2 else modes):
            r = run(X, y, start, q, inner, args.rounds, opt["quadratic"])
            reached = "reached" if r["reached"] else "not reached"
            print(f"| {q} | {inner} | {r['rounds']} ({reached}; gap {r['relative_gap']:.3f}) | {r['inner_steps']} | "
                  f"{r['columns']} | {r['rho_ratio']:.6f} | {r['seconds']:.1f} |", flush=True)
            with open(args.out, "a") as f:
                f.write(json.dumps({"rows": args.rows, "engine_steps": int(ref["n_iter"]), **r}) + "\n")


if __name__ == "__main__":
    main()
