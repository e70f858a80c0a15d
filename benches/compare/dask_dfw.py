"""Distributed Frank-Wolfe (fwsvm.dask.DistributedSVC) on LocalClusters of this machine, and the
scale model fitted to the measurements.

    python benches/compare/dask_dfw.py measure [--sizes 5000 10000 20000] [--workers 1 2 4]
                                               [--delay 0.05] [--out results/dask_dfw.json]
    python benches/compare/dask_dfw.py model [--out results/dask_dfw.json] [--figure PATH]

``measure``:

1. round latency: rounds that update nothing (one candidate back) on a LocalCluster of 1, 2
   and 4 worker processes (one thread each), median of 60; and rounds carrying 256 vertices of
   784 features (1.6 MB) for the bandwidth;
2. per-row costs of a shard in this process (10⁵ rows, 2 features, rbf): a kernel column
   computed (cache miss), a cached column added (hit), and the per-round scan (G, min, the
   candidates, the support's G);
3. fits of the 4×4 checkerboard (uniform on [0, 4)², seed 0; C 1, γ 1, tol 1e-2, the SVC's
   default) of each size on 2 workers, of the largest on 1, 2 and 4 workers and on 2 workers
   with ``--delay`` seconds added per round, against the in-process ``fwsvm.SVC(loss=
   "squared_hinge")`` with 1 and 2 threads: wall time, rounds, steps, vertices sent, support
   vectors, objectives.

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
    """Seconds per row of a shard: a column computed, a cached column added, the scan."""
    from fwsvm._dfw import Shard

    X, y = board(n)
    kw = dict(kernel="rbf", gamma=1.0, degree=3, coef0=0.0)
    s = Shard(X, y, 0, kw, 1.0, cache_size=4000)
    k = 64
    idx = np.arange(k)
    V = X[:k]
    # The support: 10% of the rows active.
    s.round(np.zeros((0, 2)), np.zeros(0), np.arange(0, n, 10), np.full(n // 10, 10.0 / n), 1)
    miss, hit, scan = [], [], []
    for r in range(reps):
        s.cache.clear()
        t = time.perf_counter()
        s._add_columns(idx, V, np.full(k, 1e-9))
        miss.append((time.perf_counter() - t) / (n * k))
        t = time.perf_counter()
        s._add_columns(idx, V, np.full(k, -1e-9))
        hit.append((time.perf_counter() - t) / (n * k))
        a = s.round(np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=np.intp), np.zeros(0), 64)
        scan.append(a["seconds"] / n)
    return {"column": float(np.median(miss)), "cached_column": float(np.median(hit)),
            "scan": float(np.median(scan)), "rows": n}


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
                "rounds": c["n_rounds"], "steps": c["n_iter"], "vertices_sent": float(r["n_vectors"].sum()),
                "n_sv": len(model.support_), "quadratic": c["quadratic"], "relative_gap": c["relative_gap"],
                "round_wall": float(r["wall"].sum()), "round_worker": float(r["worker_max"].sum()),
                "round_driver": float(r["driver"].sum()), "median_round": float(np.median(r["wall"])),
                "median_worker": float(np.median(r["worker_max"]))}
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
    big = max(args.sizes)
    for n in args.sizes:
        X, y = board(n)
        for threads in (1, 2):
            local.append(fit_local(X, y, threads))
            print("local", local[-1], flush=True)
        for p in (args.workers if n == big else [2]):
            fits.append(fit_distributed(X, y, p))
            print("dfw", fits[-1], flush=True)
        if n == big and args.delay > 0:
            fits.append(fit_distributed(X, y, 2, args.delay))
            print("dfw", fits[-1], flush=True)
    res["fits"], res["local"] = fits, local
    res["load_after"] = os.getloadavg()[0]
    Path(args.out).write_text(json.dumps(res, indent=1))
    print("wrote", args.out)


# ----------------------------------------------------------------------------- the model

def growth(fits: list[dict[str, float]], key: str) -> tuple[float, float]:
    """(a, b) of key ≈ a · m^b, least squares in logs over the 2-worker fits without delay."""
    pts = [(f["rows"], f[key]) for f in fits if f["workers"] == 2 and f["delay"] == 0]
    m = np.log([p[0] for p in pts])
    v = np.log([max(p[1], 1e-12) for p in pts])
    b, a = np.polyfit(m, v, 1) if len(pts) > 1 else (1.0, v[0] - m[0])
    return float(np.exp(a)), float(b)


def predict(res: dict, p: np.ndarray, m: np.ndarray, delay: float = 0.0,
            latency: float | None = None) -> dict[str, np.ndarray]:
    """Predicted seconds of a fit with p workers on m rows (the checkerboard's C 1, γ 1, tol 1e-2).

    T(p, m) = R(m) · [L + δ + (V(m)/R(m)) · (m/p) · t_col + (m/p) · t_scan + D(m)/R(m)]
              + (m/p) · d · 8 / B

    R(m), V(m) (rounds, vertices sent in all rounds) and D(m) (the driver's seconds) are power
    laws fitted to the measured 2-worker fits; the vertices a round sends are independent of p
    (the driver's steps do not depend on the sharding); L(p) is a line through the round
    latencies measured with 1, 2 and 4 worker processes, δ an added delay per round, t_col the
    measured seconds per row of a kernel column (every vertex a miss: an upper bound when
    the shard's cache holds the support), t_scan the per-row scan, B the payload bandwidth
    measured on loopback (the data are scattered once: m/p rows of d = 2 features)."""
    rounds_a, rounds_b = growth(res["fits"], "rounds")
    vert_a, vert_b = growth(res["fits"], "vertices_sent")
    drv_a, drv_b = growth(res["fits"], "round_driver")
    lat = res["latency"]
    if latency is None:
        # A line through the measured latencies of 1, 2 and 4 worker processes.
        ws = np.array([float(k) for k in lat])
        slope, base = np.polyfit(ws, [lat[k]["empty"] for k in lat], 1) if len(ws) > 1 else (0.0, lat[next(iter(lat))]["empty"])
        L = base + slope * np.asarray(p, dtype=float)
    else:
        L = latency
    bw = min(v["payload_bytes"] / max(v["payload"] - v["payload_worker"] - v["empty"], 1e-6) for v in lat.values())
    t_col, t_scan = res["rows"]["column"], res["rows"]["scan"]
    R = rounds_a * m ** rounds_b
    V = vert_a * m ** vert_b
    D = drv_a * m ** drv_b
    work = V * (m / p) * t_col + R * (m / p) * t_scan
    total = R * (L + delay) + work + D + (m / p) * 2 * 8 / bw
    return {"total": total, "rounds": R, "vertices": V, "driver": D, "work": work, "latency": R * (L + delay)}


def model(args: argparse.Namespace) -> None:
    res = json.loads(Path(args.out).read_text())
    ps = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    print(f"growth: rounds {growth(res['fits'], 'rounds')}, vertices {growth(res['fits'], 'vertices_sent')}, "
          f"driver {growth(res['fits'], 'round_driver')}")
    print("validation (measured → predicted seconds of the solve):")
    for f in res["fits"]:
        pr = predict(res, np.array([f["workers"]]), np.array([f["rows"]]), f["delay"])["total"][0]
        print(f"  m={f['rows']:>7} p={f['workers']} delay={f['delay']:.3f}: measured {f['solve_seconds']:.2f} s, "
              f"predicted {pr:.2f} s ({pr / f['solve_seconds']:.2f}×)")
    print("efficiency T(1) / (p T(p)):")
    table = {}
    for m in (1e5, 1e6, 1e7, 1e8):
        t = predict(res, ps, np.full_like(ps, m))["total"]
        eff = t[0] / (ps * t)
        table[m] = (t, eff)
        print(f"  m={m:.0e}: " + ", ".join(f"p={int(q)} {e:.2f}" for q, e in zip(ps, eff)))
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for m, (t, eff) in table.items():
            ax1.loglog(ps, t, marker="o", ms=3, label=f"m = {m:.0e}")
            ax2.semilogx(ps, eff, marker="o", ms=3, label=f"m = {m:.0e}")
        big = max(f["rows"] for f in res["fits"])
        t = predict(res, ps, np.full_like(ps, big))["total"]
        ax1.loglog(ps, t, "k--", lw=1, label=f"model, m = {big:,}")
        meas = [f for f in res["fits"] if f["rows"] == big and f["delay"] == 0]
        ax1.loglog([f["workers"] for f in meas], [f["solve_seconds"] for f in meas], "kx", ms=8,
                   label="measured (LocalCluster, 2 cores)")
        delayed = [f for f in res["fits"] if f["delay"] > 0]
        if delayed:
            d = delayed[0]
            ax1.loglog([d["workers"]], [d["solve_seconds"]], "r^", ms=7,
                       label=f"measured, +{d['delay'] * 1e3:.0f} ms per round")
            ax1.loglog([d["workers"]], predict(res, np.array([d["workers"]]), np.array([big]), d["delay"])["total"],
                       "rv", ms=7, mfc="none", label="model, same delay")
        ax1.set_xlabel("workers p")
        ax1.set_ylabel("predicted fit time (s)")
        ax1.legend(fontsize=7)
        ax2.axhline(0.7, color="grey", lw=0.8, ls=":")
        ax2.set_xlabel("workers p")
        ax2.set_ylabel("parallel efficiency T(1) / (p T(p))")
        ax2.set_ylim(0, 1.05)
        ax2.legend(fontsize=7)
        fig.suptitle("DistributedSVC scale model (checkerboard, C 1, γ 1, tol 1e-2)", fontsize=10)
        fig.tight_layout()
        fig.savefig(args.figure, dpi=110)
        print("wrote", args.figure)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["measure", "model"])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5000, 10000, 20000])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--out", default=str(HERE / "results" / "dask_dfw.json"))
    ap.add_argument("--figure", default=None)
    args = ap.parse_args()
    measure(args) if args.what == "measure" else model(args)


if __name__ == "__main__":
    sys.exit(main())
