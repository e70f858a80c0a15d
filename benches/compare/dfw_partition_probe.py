"""Issue 19 probe: does sharding the rows by region (principal-axis median splits) instead of at
random shrink the driver's serial solve of DistributedSVC's ``init="local"`` start?

    python3 benches/compare/dfw_partition_probe.py [rows] [shards ...]

In one process, for each number of shards p and each partition (``random``: a permutation cut
in p parts, as the fit scatters rows today; ``spatial``: recursive median splits of each part
along its first principal axis): every shard's problem is solved alone (the engine, the
shards' local tolerance), the union of the solutions weighted by the shards' row shares starts
the driver's solve on the union's rows (``_dfw._inner_solve``, 0.5 · tol), and the in-process
engine warm-started from the driver's solution on all the rows measures what the global rounds
still have to do (its steps and seconds). Prints one line per (p, partition): the slowest
local solve, the union's size W, the driver's seconds and what is left; and the one-thread
in-process fit of all the rows for reference. Checkerboard (uniform on [0, 4)², seed 0),
C 1, γ 1, tol 1e-2 — the scale model's problem.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from fwsvm import _core
from fwsvm._dfw import LOCAL_TOL_FACTOR, LOCAL_TOL_MAX, _inner_solve

C, GAMMA, TOL = 1.0, 1.0, 1e-2
KERNEL = {"kernel": "rbf", "gamma": GAMMA, "degree": 3, "coef0": 0.0}


def checkerboard(m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(m, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
    return X, y


def principal_splits(X: np.ndarray, rows: np.ndarray, parts: int) -> list[np.ndarray]:
    """``rows`` cut into ``parts`` (a power of two) by median splits along each part's first
    principal axis (a few power iterations)."""
    if parts == 1:
        return [rows]
    Z = X[rows] - X[rows].mean(axis=0)
    v = np.random.default_rng(0).standard_normal(X.shape[1])
    for _ in range(20):
        v = Z.T @ (Z @ v)
        v /= np.linalg.norm(v) or 1.0
    order = rows[np.argsort(Z @ v, kind="stable")]
    half = len(order) // 2
    return principal_splits(X, order[:half], parts // 2) + principal_splits(X, order[half:], parts // 2)


def fit(X: np.ndarray, y: np.ndarray, tol: float, warm: np.ndarray | None = None, threads: int = 1) -> dict:
    return _core.fit_svc(X, y, c=C, algorithm="swap", tol=tol, stopping="gap", max_iter=-1, cache_size=200.0,
                         init="random", seed=0, n_threads=threads, loss="squared_hinge", warm_start=warm,
                         kernel="rbf", gamma=GAMMA, degree=3, coef0=0.0)


def main() -> None:
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    ps = [int(p) for p in sys.argv[2:]] or [2, 4, 8, 16]
    X, y = checkerboard(m)
    t = time.perf_counter()
    ref = fit(X, y, TOL)
    print(f"# {m} rows: in-process one thread {time.perf_counter() - t:.1f} s, {len(ref['support'])} SV, "
          f"{ref['n_iter']} steps", flush=True)
    local_tol = max(TOL, min(LOCAL_TOL_FACTOR * TOL, LOCAL_TOL_MAX))
    print("| p | partition | slowest local solve (s) | local SV (sum) | W | driver (s) | left: steps / s |")
    print("|---|---|---|---|---|---|---|")
    for p in ps:
        for name in ("random", "spatial"):
            if name == "random":
                shards = np.array_split(np.random.default_rng(1).permutation(m), p)
            else:
                shards = principal_splits(X, np.arange(m), p)
            alpha = np.zeros(m)
            slowest, n_local = 0.0, 0
            for rows in shards:
                t = time.perf_counter()
                r = fit(X[rows], y[rows], local_tol)
                slowest = max(slowest, time.perf_counter() - t)
                sup = rows[np.asarray(r["support"], dtype=np.intp)]
                alpha[sup] = np.asarray(r["alpha"]) * len(rows) / m
                n_local += len(sup)
            W = np.flatnonzero(alpha > 0)
            t = time.perf_counter()
            a_w, _ = _inner_solve(X[W], y[W], alpha[W], C, KERNEL, 0.5 * TOL, "gap", None)
            driver = time.perf_counter() - t
            start = np.zeros(m)
            start[W] = a_w
            t = time.perf_counter()
            rest = fit(X, y, TOL, warm=start / start.sum())
            left = time.perf_counter() - t
            print(f"| {p} | {name} | {slowest:.2f} | {n_local} | {len(W)} | {driver:.2f} | "
                  f"{rest['n_iter']} / {left:.2f} |", flush=True)


if __name__ == "__main__":
    main()
