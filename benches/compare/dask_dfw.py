"""Distributed Frank-Wolfe (fwsvm.dask.DistributedSVC) on LocalClusters of this machine, and the
scale model fitted to the measurements.

    python benches/compare/dask_dfw.py measure [--sizes 30000 100000 300000] [--workers 1 2 4]
                                               [--delay 0.05] [--out results/dask_dfw.json]
    python benches/compare/dask_dfw.py model [--out results/dask_dfw.json] [--figure PATH]

``measure``:

1. round latency: rounds that update nothing (one candidate back) on a LocalCluster of 1, 2
   and 4 worker processes (one thread each), median of 60; and rounds carrying 256 vertices of
   784 features (1.6 MB) for the bandwidth;
2. per-row costs of a shard in this process (10⁵ rows, 2 features, rbf): the engine's kernel
   expansion per row and vertex, and the per-round scan (G, min, the candidates, the support's G);
3. fits of the 4×4 checkerboard (uniform on [0, 4)², seed 0; C 1, γ 1, tol 1e-2, the SVC's
   default) of each size on 2 workers, of the smallest on 1, 2 and 4 workers and on 2 workers
   with ``--delay`` seconds added per round, against the in-process ``fwsvm.SVC(loss=
   "squared_hinge")`` with 1 and 2 threads: wall time, the shards' local solves, the driver's
   solve and its working set, rounds, support vectors, objectives.

``model`` predicts the time of a fit with p workers on m rows (the assumptions are in
docs/guide/scaling.rst and in :func:`predict`), checks it against the measured fits and draws
the figure of the docs' "Scaling out" page.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def board(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(seed).uniform(0.0, 4.0, size=(n, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
    return X, y


def cluster(p: int):  # type: ignore[no-untyped-def]
    import distributed

    c = distributed.LocalCluster(n_workers=p, threads_per_worker=1, processes=True, dashboard_address=None,
                                 host="127.0.0.1")
    return c, distributed.Client(c)


def measure_latency(p: int, reps: int = 60) -> dict[str, float]:
    """Median wall time of a round that carries nothing, and of one carrying 256 × 784 floats."""
    from fwsvm._dfw import Shard

    cl, client = cluster(p)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        kw = dict(kernel="rbf", gamma=1.0, degree=3, coef0=0.0)
        shards = []
        for k, w in enumerate(workers):
            X = np.random.default_rng(k).normal(size=(100, 784))
            fut = client.submit(Shard, X, np.ones(100), 100 * k, kw, 1.0, actor=True, workers=[w], pure=False)
            shards.append(fut.result())
        empty = (np.zeros((0, 784)), np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0), 1, False)
        V = np.random.default_rng(9).normal(size=(256, 784))
        heavy = (V, np.zeros(256), np.arange(256) + 10**9, np.zeros(256), 1, False)
        out = {}
        for name, req in (("empty", empty), ("payload", heavy)):
            walls, work = [], []
            for _ in range(reps):
                t = time.perf_counter()
                answers = [f.result() for f in [s.round(*req) for s in shards]]
                walls.append(time.perf_counter() - t)
                work.append(max(a["seconds"] for a in answers))
            out[name] = float(np.median(walls))
            out[name + "_worker"] = float(np.median(work))
        out["payload_bytes"] = float(V.nbytes)
        return out
    finally:
        client.close()
        cl.close()


def measure_rows(n: int = 100_000, reps: int = 5) -> dict[str, float]:
    """Seconds per row of a shard: the engine's kernel expansion per row and vertex (2-d rbf:
    no column cache), and the per-round scan (G, min, the candidates, the support's G)."""
    from fwsvm._dfw import Shard

    X, y = board(n)
    kw = dict(kernel="rbf", gamma=1.0, degree=3, coef0=0.0)
    s = Shard(X, y, 0, kw, 1.0, n_threads=1)
    k = 512
    idx = np.arange(k)
    V = X[:k]
    # The support: 10% of the rows active.
    s.round(np.zeros((0, 2)), np.zeros(0), np.arange(0, n, 10), np.full(n // 10, 10.0 / n), 1)
    expansion, scan = [], []
    for r in range(reps):
        t = time.perf_counter()
        s._add_columns(idx, V, np.full(k, 1e-9))
        expansion.append((time.perf_counter() - t) / (n * k))
        a = s.round(np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0), 64)
        scan.append(a["seconds"] / n)
    return {"expansion": float(np.median(expansion)), "scan": float(np.median(scan)), "rows": n}


def fit_distributed(X: np.ndarray, y: np.ndarray, p: int, delay: float = 0.0) -> dict[str, float]:
    from fwsvm.dask import DistributedSVC

    cl, client = cluster(p)
    try:
        model = DistributedSVC(C=1.0, gamma=1.0, client=client)
        model._round_delay = delay
        t = time.perf_counter()
        model.fit(X, y)
        wall = time.perf_counter() - t
        c, r = model.convergence_, model.rounds_
        return {"workers": p, "rows": len(y), "delay": delay, "seconds": wall, "solve_seconds": c["seconds"],
                "local_seconds": c["local_seconds"], "start_seconds": c["start_seconds"],
                "start_size": c["start_size"], "rounds": c["n_rounds"], "steps": c["n_iter"],
                "vertices_sent": float(r["n_vectors"].sum()), "n_sv": len(model.support_),
                "quadratic": c["quadratic"], "relative_gap": c["relative_gap"],
                "round_wall": float(r["wall"].sum()), "round_worker": float(r["worker_max"].sum()),
                "round_driver": float(r["driver"].sum())}
    finally:
        client.close()
        cl.close()


def fit_local(X: np.ndarray, y: np.ndarray, threads: int) -> dict[str, float]:
    import fwsvm

    t = time.perf_counter()
    m = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=1.0, n_jobs=threads).fit(X, y)
    return {"threads": threads, "rows": len(y), "seconds": time.perf_counter() - t, "n_sv": len(m.support_),
            "quadratic": m.convergence_["quadratic"], "relative_gap": m.convergence_["relative_gap"]}


def measure(args: argparse.Namespace) -> None:
    res: dict[str, object] = {"machine": os.uname().nodename, "cores": os.cpu_count(),
                              "load_before": os.getloadavg()[0]}
    res["latency"] = {str(p): measure_latency(p) for p in args.workers}
    print("latency", json.dumps(res["latency"], indent=1), flush=True)
    res["rows"] = measure_rows()
    print("per-row", res["rows"], flush=True)
    fits, local = [], []
    vary = min(args.sizes)
    for n in args.sizes:
        X, y = board(n)
        for threads in (1, 2):
            local.append(fit_local(X, y, threads))
            print("local", local[-1], flush=True)
        for p in (args.workers if n == vary else [2]):
            fits.append(fit_distributed(X, y, p))
            print("dfw", fits[-1], flush=True)
        if n == vary and args.delay > 0:
            fits.append(fit_distributed(X, y, 2, args.delay))
            print("dfw", fits[-1], flush=True)
    res["fits"], res["local"] = fits, local
    res["load_after"] = os.getloadavg()[0]
    Path(args.out).write_text(json.dumps(res, indent=1))
    print("wrote", args.out)


# ----------------------------------------------------------------------------- the model

def power_law(xs: list[float], vs: list[float]) -> tuple[float, float]:
    """(a, b) of v ≈ a · x^b, least squares in logs."""
    x, v = np.log(xs), np.log(np.maximum(vs, 1e-12))
    b, a = np.polyfit(x, v, 1) if len(xs) > 1 else (1.0, v[0] - x[0])
    return float(np.exp(a)), float(b)


def laws(res: dict) -> dict[str, tuple[float, float]]:
    """The power laws of the model, from the 2-worker fits without delay (rows m, shard rows
    r = m/2) and the in-process one-thread fits."""
    two = [f for f in res["fits"] if f["workers"] == 2 and f["delay"] == 0]
    one = [f for f in res["local"] if f["threads"] == 1]
    m = [f["rows"] for f in two]
    return {
        # a shard's local solve of r rows (one thread)
        "local": power_law([r / 2 for r in m], [f["local_seconds"] for f in two]),
        # a shard's local support: the start's support is the union of p of them
        "shard_support": power_law([r / 2 for r in m], [f["start_size"] / 2 for f in two]),
        # the driver's solve on a start of W vectors (the driver's 2 threads here)
        "driver": power_law([f["start_size"] for f in two], [f["start_seconds"] for f in two]),
        # the final support and the rounds
        "support": power_law(m, [f["n_sv"] for f in two]),
        "rounds": power_law(m, [f["rounds"] for f in two]),
        # the in-process fit on one thread: the baseline of the efficiency
        "in_process": power_law([f["rows"] for f in one], [f["seconds"] for f in one]),
    }


def predict(res: dict, p: np.ndarray, m: np.ndarray, delay: float = 0.0) -> dict[str, np.ndarray]:
    """Predicted seconds of a fit with p workers on m rows (the checkerboard's C 1, γ 1, tol 1e-2).

    T(p, m) = T_loc(m/p) + T_drv(W(m, p)) + R(m) · [L(p) + δ + n_SV(m) · (m/p) · t_exp + (m/p) · t_scan]
              + (m/p) · d · 8 / B

    T_loc: a shard's local solve of m/p rows (power law in its rows, fitted to the 2-worker
    fits); W(m, p) = p · w(m/p), the union of p local supports of w(r) vectors each; T_drv:
    the driver's solve on W vectors (power law in W); n_SV(m) and R(m): the final support and
    the rounds (power laws in m); L(p): a line through the round latencies measured with 1, 2
    and 4 worker processes; δ: a delay added per round; t_exp: seconds per row and vertex of the
    engine's kernel expansion; t_scan: the per-row scan; B: the payload bandwidth on loopback
    (the data are scattered once: m/p rows of d = 2 features). Every vertex of every round is
    expanded over every shard's rows (a round sends the support)."""
    L_ = laws(res)
    lat = res["latency"]
    L = latency(res, p)
    bw = min(v["payload_bytes"] / max(v["payload"] - v["payload_worker"] - v["empty"], 1e-6) for v in lat.values())
    t_exp, t_scan = res["rows"]["expansion"], res["rows"]["scan"]
    r = m / p
    f = lambda key, x: L_[key][0] * x ** L_[key][1]  # noqa: E731
    local = f("local", r)
    W = p * f("shard_support", r)
    driver = f("driver", W)
    R = f("rounds", m)
    rounds = R * (L + delay + f("support", m) * r * t_exp + r * t_scan)
    total = local + driver + rounds + r * 2 * 8 / bw
    return {"total": total, "local": local, "driver": driver, "rounds": rounds, "W": W,
            "in_process": f("in_process", m)}


def records(name: str) -> list[dict]:
    """The JSON lines of ``results/<name>`` (none if the file is absent)."""
    path = HERE / "results" / name
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def latency(res: dict, p: np.ndarray) -> np.ndarray:
    """L(p): a line through the measured round latencies."""
    lat = res["latency"]
    ws = np.array([float(k) for k in lat])
    slope, base = (np.polyfit(ws, [lat[k]["empty"] for k in lat], 1) if len(ws) > 1
                   else (0.0, lat[next(iter(lat))]["empty"]))
    return base + slope * np.asarray(p, dtype=float)


def bounds(res: dict, p: np.ndarray, m: np.ndarray) -> dict[str, np.ndarray] | None:
    """Two lower bounds on the fit time of designs other than the one :func:`predict` models.

    ``serial_support``: any design whose support is solved on one machine costs at least the
    shards' local solves of m/p rows, the driver's solve of the final support alone (no extra
    vectors: W = n_SV(m)) and one expansion of the support over every shard; no latency, no
    border rows.

    ``distributed_support``: a design that distributes the support's solve in rounds (batched
    working sets, block-Jacobi) pays per round a latency L(p) and, on every shard, the
    expansion of the vertices the round moved over its m/p rows. ``dfw_batch_probe.py``
    measured, per step of the in-process engine, the rounds (r) and moved vertices (c) such a
    method needs for each batch size q; with steps(m) the engine's steps (a power law through
    the probe's and the 10⁶-row fit's counts from 10⁴ rows on), a batch size costs
    steps(m) · (r · L(p) + c · (m/p) · t_exp) with r and c from the largest size the probe
    reached the gap at with it, and the bound is the cheapest batch size. ``distributed_flat``:
    the same with the one-worker latency L(1) for every p. None without the probe's results."""
    probe = records("dfw_batch_probe.jsonl")
    if not probe:
        return None
    counts = {r["rows"]: r["engine_steps"] for r in probe}
    for r in records("dfw_driver.jsonl"):
        if r.get("tool", "").startswith("SVC(") and "steps" in r:
            counts[r["n"]] = r["steps"]
    # Per batch size and inner solve, the largest size it reached the gap at.
    best: dict[tuple[int, str], dict] = {}
    for r in probe:
        key = (r["q"], r["inner"])
        if r["reached"] and (key not in best or r["rows"] > best[key]["rows"]):
            best[key] = r
    per_step = [(r["rounds"] / r["engine_steps"], r["columns"] / r["engine_steps"], f"{r['q']} {r['inner']}", r["rows"])
                for _, r in sorted(best.items())]
    # The law through sizes from 10⁴ rows on: the steps grow more slowly there (3·10³ → 3·10⁴:
    # ×10; 3·10⁴ → 10⁶: m^0.73), so the smallest probe would steepen the law, not bound it.
    sizes = sorted(k for k in counts if k >= 10_000)
    steps_law = power_law(sizes, [counts[k] for k in sizes])
    L_ = laws(res)
    f = lambda key, x: L_[key][0] * x ** L_[key][1]  # noqa: E731
    r = m / p
    t_exp = res["rows"]["expansion"]
    support = f("support", m)
    serial = f("local", r) + f("driver", support) + support * r * t_exp
    steps = steps_law[0] * m ** steps_law[1]

    def cheapest(lat: np.ndarray) -> np.ndarray:
        return np.min([steps * (rr * lat + cc * r * t_exp) for rr, cc, _, _ in per_step], axis=0)

    return {"serial_support": serial, "distributed_support": cheapest(latency(res, p)),
            "distributed_flat": cheapest(latency(res, np.ones_like(p))), "steps": steps,
            "per_step": per_step, "steps_law": steps_law}


def model(args: argparse.Namespace) -> None:
    res = json.loads(Path(args.out).read_text())
    ps = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    for key, (a, b) in laws(res).items():
        print(f"law {key}: {a:.3g} · x^{b:.2f}")
    print("validation (measured → predicted seconds of the solve):")
    for f in res["fits"]:
        pr = predict(res, np.array([f["workers"]]), np.array([f["rows"]]), f["delay"])["total"][0]
        print(f"  m={f['rows']:>8} p={f['workers']} delay={f['delay']:.3f}: measured {f['solve_seconds']:.2f} s, "
              f"predicted {pr:.2f} s ({pr / f['solve_seconds']:.2f}×)")
    driver = records("dfw_driver.jsonl")
    for r in driver:
        if r.get("tool", "").endswith("n_jobs=1)"):
            pr = predict(res, np.array([1.0]), np.array([float(r["n"])]))["in_process"][0]
            print(f"  in process, one thread, m={r['n']:>8} (not fitted): measured {r['seconds']:.1f} s, "
                  f"predicted {pr:.1f} s ({pr / r['seconds']:.2f}×)")
    print("efficiency against the in-process one-thread fit, T_inproc(m) / (p T(p, m)), and T(1) / (p T(p)):")
    table = {}
    for m in (1e5, 1e6, 1e7, 1e8):
        pr = predict(res, ps, np.full_like(ps, m))
        t = pr["total"]
        eff = pr["in_process"] / (ps * t)
        table[m] = (t, eff)
        print(f"  m={m:.0e}: " + ", ".join(f"p={int(q)} {e:.2f}" for q, e in zip(ps, eff))
              + "  |  " + ", ".join(f"{e:.2f}" for e in t[0] / (ps * t))
              + f"  (at p=16: local {pr['local'][4]:.3g} s, driver {pr['driver'][4]:.3g} s on W = {pr['W'][4]:.3g}, "
              f"rounds {pr['rounds'][4]:.3g} s; in-process {pr['in_process'][0]:.3g} s)")
    bd = bounds(res, ps, np.full_like(ps, 1e7))
    if bd is not None:
        a, b = bd["steps_law"]
        print(f"bounds for other designs (engine steps {a:.3g} · m^{b:.2f}; per engine step, rounds / moved vertices: "
              + ", ".join(f"q={q} {rr:.2f} / {cc:.2f} ({rows:.0e} rows)" for rr, cc, q, rows in bd["per_step"]) + "):")
        for m in (1e6, 1e7, 1e8):
            bm = bounds(res, ps, np.full_like(ps, m))
            t_in = predict(res, ps, np.full_like(ps, m))["in_process"]
            print(f"  m={m:.0e}: support solved on one machine, E ≤ "
                  + ", ".join(f"p={int(q)} {e:.2f}" for q, e in zip(ps, t_in / (ps * bm["serial_support"])))
                  + f"\n          support's solve distributed ({bm['steps'][0]:.3g} engine steps), E ≤ "
                  + ", ".join(f"p={int(q)} {e:.2g}" for q, e in zip(ps, t_in / (ps * bm["distributed_support"])))
                  + "\n          the same with L(1) for every p, E ≤ "
                  + ", ".join(f"p={int(q)} {e:.2g}" for q, e in zip(ps, t_in / (ps * bm["distributed_flat"]))))
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for m, (t, eff) in table.items():
            ax1.loglog(ps, t, marker="o", ms=3, label=f"m = {m:.0e}")
            ax2.semilogx(ps, eff, marker="o", ms=3, label=f"m = {m:.0e}")
        meas = [f for f in res["fits"] if f["delay"] == 0]
        ax1.loglog([f["workers"] for f in meas], [f["solve_seconds"] for f in meas], "kx", ms=8,
                   label="measured (LocalCluster, 2 cores)")
        for f in meas:
            ax1.annotate(f"{f['rows']:.0e}", (f["workers"], f["solve_seconds"]), fontsize=6, xytext=(3, -8),
                         textcoords="offset points")
        # the 10⁶-row fit (dfw_driver.py), not used in fitting the laws
        big = [r for r in driver if r.get("tool", "").startswith("DistributedSVC") and r.get("init") == "local"]
        if big:
            ax1.loglog([2] * len(big), [r["seconds"] for r in big], "k+", ms=9,
                       label="measured, not fitted (dfw_driver.py)")
            for r in big:
                ax1.annotate(f"{r['n']:.0e}", (2, r["seconds"]), fontsize=6, xytext=(3, -8),
                             textcoords="offset points")
        delayed = [f for f in res["fits"] if f["delay"] > 0]
        if delayed:
            d = delayed[0]
            ax1.loglog([d["workers"]], [d["solve_seconds"]], "r^", ms=7,
                       label=f"measured, +{d['delay'] * 1e3:.0f} ms per round")
            ax1.loglog([d["workers"]], predict(res, np.array([d["workers"]]), np.array([d["rows"]]), d["delay"])["total"],
                       "rv", ms=7, mfc="none", label="model, same delay")
        ax1.set_xlabel("workers p")
        ax1.set_ylabel("predicted fit time (s)")
        ax1.legend(fontsize=7)
        if bd is not None:
            m7 = np.full_like(ps, 1e7)
            t_in = predict(res, ps, m7)["in_process"]
            b7 = bounds(res, ps, m7)
            ax2.semilogx(ps, t_in / (ps * b7["serial_support"]), "k--", lw=1,
                         label="m = 1e+07, bound: support solved on one machine")
            ax2.semilogx(ps, t_in / (ps * b7["distributed_flat"]), "k-.", lw=1,
                         label="m = 1e+07, bound: support's solve in rounds, L(1)")
        ax2.axhline(0.7, color="grey", lw=0.8, ls=":")
        ax2.set_xlabel("workers p")
        ax2.set_ylabel("efficiency T_in-process(m) / (p T(p, m))")
        ax2.set_ylim(0, 1.6)
        ax2.legend(fontsize=7)
        fig.suptitle("DistributedSVC scale model (checkerboard, C 1, γ 1, tol 1e-2)", fontsize=10)
        fig.tight_layout()
        fig.savefig(args.figure, dpi=110)
        print("wrote", args.figure)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["measure", "model"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[30000, 100000, 300000])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--out", default=str(HERE / "results" / "dask_dfw.json"))
    ap.add_argument("--figure", default=None)
    args = ap.parse_args()
    measure(args) if args.what == "measure" else model(args)


if __name__ == "__main__":
    sys.exit(main())
