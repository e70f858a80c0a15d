"""fwsvm.dask.DaskApproxSVC (coreset Nyström + CoCoA+ linear hinge SVM on Dask) against the exact
fwsvm.SVC, its scale model, and the distributed solver against the in-process DCD (issue 35;
BENCHMARKS.md, "Approximate kernel SVM on Dask").

    # the trade-off at 10⁶ rows: exact SVC (hinge, C 1, γ scale, 2 threads) vs DaskApproxSVC on a
    # 2-worker LocalCluster (1 thread each), the checkerboard of peers.py (20,000 test rows)
    python benches/compare/dask_approx.py tradeoff --rows 1000000 --exact
    # the scale-model runs: 1, 2 and 4 workers on the same rows (JSON lines appended to --out);
    # `--data dense20 --gamma scale --components 1000` for the dense 20-feature set (scale, shards)
    python benches/compare/dask_approx.py scale --rows 1000000 --workers 1 2 4 --out /tmp/scale.jsonl
    # rounds against the number of shards K, both aggregations (simulated in process by the
    # Rust solver on the mapped rows: the local solver, the gap and the combination of the fit)
    python benches/compare/dask_approx.py shards --rows 1000000 --shards 1 2 4 8 16 --out /tmp/scale.jsonl
    # the prediction from those records: efficiency at 16 workers for 10⁷ rows
    python benches/compare/dask_approx.py model --out /tmp/scale.jsonl --rows 10000000 --predict 16
    # 10⁷ rows generated block by block on the workers (no process holds more than its shard)
    python benches/compare/dask_approx.py generated --rows 10000000 --workers 2 --components 100
    # the distributed linear solver alone against the in-process DCD and LIBLINEAR
    python benches/compare/dask_approx.py solver --rows 100000

The approximate model's defaults here: 200 coreset landmarks, γ 1, C 1, tol 1e-2 (relative
gap), one local sweep per round, DaskApproxSVC's aggregation "auto" (`--aggregation`). Every line prints `uptime`'s load: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def load() -> str:
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def checkerboard(n: int):
    from peers import generated

    return generated(f"gen:checkerboard:{n}")


def block_rows(seed: int, i: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Block i of the generated checkerboard: its own seeded stream."""
    rng = np.random.default_rng([seed, i])
    X = rng.uniform(0.0, 4.0, size=(rows, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
    return X, y


def cluster(workers: int):
    import distributed

    c = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                                 host="127.0.0.1")
    client = distributed.Client(c)
    client.run(_warm)  # the workers import fwsvm before the clock starts
    return c, client


def _warm() -> None:
    import fwsvm.dask  # noqa: F401


def approx_params(args) -> dict:
    return dict(n_components=args.components, gamma=args.gamma, C=args.C, tol=args.tol, landmarks=args.landmarks,
                local_passes=args.passes, random_state=0, max_rounds=args.max_rounds, aggregation=args.aggregation,
                map_dtype=args.map_dtype, rank=args.rank, solver=args.solver)


def fit_approx(client, X, y, args, chunk: int):
    import dask.array as da

    from fwsvm.dask import DaskApproxSVC

    Xd = da.from_array(X, chunks=(chunk, X.shape[1]))
    yd = da.from_array(y, chunks=chunk)
    t0 = time.perf_counter()
    model = DaskApproxSVC(client=client, **approx_params(args)).fit(Xd, yd)
    return model, time.perf_counter() - t0


def record(model, seconds: float, n: int, workers: int, acc: float | None, extra: dict | None = None) -> dict:
    c = model.convergence_
    r = model.rounds_
    return dict(n=n, workers=workers, shards=c["n_shards"], seconds=seconds, accuracy=acc, rounds=int(c["n_rounds"]),
                check=c["check_seconds"], coreset=c["coreset_seconds"], map=c["map_seconds"],
                rounds_seconds=c["rounds_seconds"], round_wall=float(np.mean(r["wall"])),
                round_local=float(np.mean(r["local"])), relative_gap=float(np.max(c["relative_gap"])),
                aggregation=model.aggregation, solver=model.solver_, load=os.getloadavg()[0], **(extra or {}))


def dense20(n: int):
    """make_classification with 20 features (10 informative), n training rows and 20,000 test
    rows, standardised with the training rows' moments: the dense 20-feature set of the issue."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n + 20_000, n_features=20, n_informative=10, random_state=0)
    y = 2.0 * y - 1.0
    mean, std = X[:n].mean(0), X[:n].std(0)
    X = (X - mean) / std
    return X[:n], X[n:], y[:n], y[n:]


def data(args):
    """The training and test rows of `--data` at `--rows` rows."""
    return checkerboard(args.rows) if args.data == "checkerboard" else dense20(args.rows)


def tradeoff(args) -> None:
    X, Xt, y, yt = data(args)
    print(f"# {args.data} {args.rows} rows, test {len(yt)}; {load()}", flush=True)
    print("| model | fit s | test accuracy | detail |\n|---|---|---|---|", flush=True)
    if args.exact:
        import fwsvm

        t0 = time.perf_counter()
        gamma = "scale" if args.exact_gamma == "scale" else float(args.exact_gamma)
        svc = fwsvm.SVC(C=args.exact_C, gamma=gamma, n_jobs=2).fit(X, y)
        t = time.perf_counter() - t0
        print(f"| exact fwsvm.SVC (hinge, C {args.exact_C:g}, γ {args.exact_gamma}, 2 threads) | {t:.1f} | "
              f"{svc.score(Xt, yt):.4f} | "
              f"{len(svc.support_)} SVs; {load()} |", flush=True)
    if args.exact_only:
        return
    c, client = cluster(2)
    with client:
        model, t = fit_approx(client, X, y, args, args.chunk)
        acc = model.score(Xt, yt)
        rec = record(model, t, args.rows, 2, acc)
        print(f"| DaskApproxSVC, 2 workers × 1 thread ({args.components} {args.landmarks} landmarks, rank {args.rank}, "
              f"{args.map_dtype} map, γ {args.gamma}, "
              f"C {args.C}, tol {args.tol}) | {t:.1f} | {acc:.4f} | {rec['rounds']} rounds; "
              f"check {rec['check']:.1f} s, "
              f"coreset {rec['coreset']:.1f} s, map {rec['map']:.1f} s, rounds {rec['rounds_seconds']:.1f} s; "
              f"relative gap {rec['relative_gap']:.2g}; {load()} |", flush=True)
    c.close()
    _append(args.out, dict(kind="tradeoff", **rec))


def scale(args) -> None:
    X, Xt, y, yt = data(args)
    for p in args.workers:
        c, client = cluster(p)
        with client:
            model, t = fit_approx(client, X, y, args, args.chunk)
            rec = record(model, t, args.rows, p, model.score(Xt, yt))
        c.close()
        print(json.dumps(rec), flush=True)
        _append(args.out, dict(kind="scale", **rec))


def shards(args) -> None:
    """Rounds to the tolerance against K shards for both aggregations (CoCoA+'s σ′ = K added;
    σ′ = 1 line-searched), simulated in process by the Rust solver (`fit_linear_hinge` with
    `shards`: the local solver, gap and combination of the fit) on the mapped rows of the
    landmarks a small in-process coreset fit chooses."""
    import fwsvm
    from fwsvm import _core

    X, Xt, y, yt = data(args)
    gamma = 1.0 / (X.shape[1] * X.var()) if args.gamma == "scale" else args.gamma  # DaskApproxSVC's "scale"
    ny = fwsvm.Nystroem(n_components=args.components, gamma=gamma, landmarks=args.landmarks, C=1.0,
                        random_state=0).fit(X[:20 * args.components], y[:20 * args.components])
    # the rows mapped as the fit maps them (--map-dtype), 100,000 at a time
    Z = np.concatenate([ny._map(np.ascontiguousarray(X[i:i + 100_000]), args.map_dtype)
                        for i in range(0, len(X), 100_000)])
    print(f"# {args.rows} rows, {Z.shape[1]} features, C {args.C}, tol {args.tol}, {args.passes} sweep(s) a round; "
          f"{load()}")
    if args.solver == "newton":  # Newton's rounds, simulated the same way (no aggregation)
        for K in args.shards:
            t0 = time.perf_counter()
            out = _core.fit_linear_hinge((Z, y * args.C), dict(tol=args.tol, max_rounds=args.max_rounds, seed=0,
                                                               shards=K, solver="newton"))
            _append(args.out, dict(kind="shards", n=args.rows, K=K, solver="newton", rounds=int(out["rounds"]),
                                   seconds=time.perf_counter() - t0, primal=out["primal"], dual=out["dual"],
                                   load=os.getloadavg()[0]))
            print(f"| {K} | Newton: {out['rounds']} rounds, relative gap {out['relative_gap']:.2g} |", flush=True)
        return
    print("| shards K | CoCoA+ (σ′ = K, added) | σ′ = 1, line search | mean γ |\n|---|---|---|---|", flush=True)
    for K in args.shards:
        rounds = {"add": {"rounds": "–"}, "line_search": {"rounds": "–", "steps": [1.0]}}
        for agg in args.compare:
            t0 = time.perf_counter()
            out = _core.fit_linear_hinge((Z, y * args.C), dict(tol=args.tol, max_rounds=args.max_rounds, seed=0,
                                                               shards=K, aggregation=agg, passes=args.passes))
            rounds[agg] = out
            rec = dict(kind="shards", n=args.rows, K=K, aggregation=agg, passes=args.passes, rounds=int(out["rounds"]),
                       seconds=time.perf_counter() - t0, primal=out["primal"], dual=out["dual"],
                       load=os.getloadavg()[0])
            _append(args.out, rec)
        mean_step = float(np.mean(rounds["line_search"]["steps"])) if len(rounds["line_search"]["steps"]) else 1.0
        print(f"| {K} | {rounds['add']['rounds']} | {rounds['line_search']['rounds']} | {mean_step:.2f} |",
              flush=True)


def model(args) -> None:
    """T(n, p) = pass·n/q + driver + map·n/q + R(p)·(ℓ + local·n/q), q = min(p, cores): per-row
    costs from the 1-worker run, ℓ from the 2- and 4-worker runs, R(p) the measured rounds (the
    simulated ones beyond)."""
    recs = [json.loads(line) for line in open(args.out)]
    agg = args.aggregation
    solver = "newton" if args.solver == "newton" else "cocoa"
    runs = {r["workers"]: r for r in recs if r.get("kind") == "scale" and r.get("solver", "cocoa") == solver
            and (solver == "newton" or r.get("aggregation", "add") == agg)}

    def simulated(K: int) -> str:  # the aggregation a fit with K shards runs ("auto": as DaskApproxSVC)
        return agg if agg != "auto" else ("add" if K <= 2 else "line_search")

    sim = {r["K"]: r["rounds"] for r in recs if r.get("kind") == "shards" and (
        r.get("solver") == "newton" if solver == "newton" else r.get("aggregation", "add") == simulated(r["K"]))}
    one = runs[1]
    n1 = one["n"]
    # per-row seconds of the passes (check + coreset, minus the driver's selection, folded
    # in as a constant), the map and one local sweep; the round latency ℓ
    per_pass = (one["check"] + one["coreset"]) / n1
    per_map = one["map"] / n1
    per_local = one["round_local"] / n1
    lat = [r["round_wall"] - r["round_local"] for p, r in runs.items() if p > 1]
    ell = float(np.median(lat)) if lat else one["round_wall"] - one["round_local"]
    cores = args.cores

    def rounds(p: int) -> float:
        if p in runs:  # measured on the cluster (rounds do not depend on the cores): preferred
            return runs[p]["rounds"]
        if p in sim:  # simulated in process (unscaled)
            return sim[p]
        return runs[max(runs)]["rounds"]

    def T(n: int, p: int, q: float | None = None) -> float:
        q = q or min(p, cores)
        return (per_pass + per_map) * n / q + rounds(p) * (ell + per_local * n / q)

    print(f"# per row: passes {per_pass * 1e6:.2f} µs, map {per_map * 1e6:.2f} µs, local sweep "
          f"{per_local * 1e6:.2f} µs; round latency ℓ {ell * 1e3:.1f} ms; cores {cores}")
    print("| workers | rounds | measured s | model s, q = min(p, cores) | ratio | cores delivered q (map pass) "
          "| model s at q | ratio |\n|---|---|---|---|---|---|---|---|")
    for p, r in sorted(runs.items()):
        pred = T(r["n"], p)
        # the cores the shared machine delivered, from the map pass (no communication in it)
        q = one["map"] / r["map"] if p > 1 else 1.0
        pred_q = T(r["n"], p, q)
        print(f"| {p} | {r['rounds']} | {r['seconds']:.1f} | {pred:.1f} | {r['seconds'] / pred:.2f} | {q:.2f} | "
              f"{pred_q:.1f} | {r['seconds'] / pred_q:.2f} |")
    n = args.rows
    for p in args.predict:
        for latency in sorted({ell, 0.001, 0.01}):
            saved = ell
            ell = latency
            t1 = T(n, 1, 1)
            tp = T(n, p, p)
            ell = saved
            print(f"predicted at {n} rows, {p} workers (one core each), ℓ = {latency * 1e3:.1f} ms: "
                  f"T(1) {t1:.0f} s, T({p}) {tp:.1f} s (rounds {rounds(p)}), efficiency {t1 / (p * tp):.2f}")
    # The rounds vary by a few from run to run (a sampled Hessian, a landmark set): the efficiency
    # with the fewest rounds measured on any cluster for one worker and the most for p.
    fewest, most = min(r["rounds"] for r in runs.values()), max(r["rounds"] for r in runs.values())
    for p in args.predict:
        t1 = (per_pass + per_map) * n + fewest * (ell + per_local * n)
        tp = (per_pass + per_map) * n / p + most * (ell + per_local * n / p)
        print(f"conservative at {n} rows, {p} workers: T(1) {t1:.0f} s with {fewest} rounds, T({p}) {tp:.1f} s with "
              f"{most} rounds, efficiency {t1 / (p * tp):.2f}")


def generated(args) -> None:
    """10⁷ rows generated block by block on the workers: no process holds more than its shard."""
    import dask
    import dask.array as da

    from fwsvm.dask import DaskApproxSVC

    n, chunk = args.rows, args.chunk
    sizes = [min(chunk, n - s) for s in range(0, n, chunk)]
    blocks = [dask.delayed(block_rows)(7, i, s) for i, s in enumerate(sizes)]
    X = da.concatenate([da.from_delayed(b[0], shape=(s, 2), dtype=np.float64) for b, s in zip(blocks, sizes)])
    y = da.concatenate([da.from_delayed(b[1], shape=(s,), dtype=np.float64) for b, s in zip(blocks, sizes)])
    Xt, yt = block_rows(8, 0, 20_000)
    c, client = cluster(args.workers[0])
    with client:
        t0 = time.perf_counter()
        m = DaskApproxSVC(client=client, **approx_params(args)).fit(X, y)
        t = time.perf_counter() - t0
        acc = m.score(Xt, yt)
        rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        rec = record(m, t, n, args.workers[0], acc, dict(
            worker_peak_rss_mb=[v / 1024 for v in rss.values()],
            driver_peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            shard_mb=n / len(rss) * (args.components + 2 + 1) * 8 / 2**20))
    c.close()
    print(json.dumps(rec), flush=True)
    _append(args.out, dict(kind="generated", **rec))


def solver(args) -> None:
    """The distributed linear solver (2 workers) against the in-process DCD (K = 1) and
    LIBLINEAR on the same mapped rows: objectives and gaps."""
    from sklearn.svm import LinearSVC

    from fwsvm import _core
    from fwsvm.dask_approx import linear_hinge_objective

    X, Xt, y, yt = checkerboard(args.rows)
    c, client = cluster(2)
    with client:
        args.tol = args.solver_tol
        m, t = fit_approx(client, X, y, args, args.chunk)
    c.close()
    Z = m.nystroem_.transform(X)
    cw = np.full(len(y), args.C)
    w = np.r_[m.coef_[0], m.intercept_[0]]
    cc = m.convergence_
    t0 = time.perf_counter()
    ref = _core.fit_linear_hinge((Z, y * args.C), dict(tol=args.solver_tol, max_rounds=100_000, seed=0))
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    lin = LinearSVC(loss="hinge", C=args.C, tol=1e-6, max_iter=100_000, intercept_scaling=1.0).fit(Z, y)
    t_lin = time.perf_counter() - t0
    p_lin = linear_hinge_objective(Z, y, cw, np.r_[lin.coef_[0], lin.intercept_[0]])
    print(f"# {args.rows} rows, {Z.shape[1]} mapped features, C {args.C}, tol {args.solver_tol}; {load()}")
    print("| solver | primal P(w) | dual D(α) | gap | rounds (sweeps) | s |\n|---|---|---|---|---|---|")
    print(f"| CoCoA+ on 2 workers | {linear_hinge_objective(Z, y, cw, w):.8g} (reported {cc['primal'][0]:.8g}) | "
          f"{cc['dual'][0]:.8g} | {cc['gap'][0]:.3g} | {cc['n_rounds']} | {cc['rounds_seconds']:.1f} |")
    print(f"| in-process DCD (K = 1) | {ref['primal']:.8g} | {ref['dual']:.8g} | {ref['gap']:.3g} | {ref['rounds']} | "
          f"{t_ref:.1f} |")
    print(f"| LIBLINEAR (scikit-learn LinearSVC, hinge, tol 1e-6) | {p_lin:.8g} | – | – | {lin.n_iter_} | "
          f"{t_lin:.1f} |")


def _append(path: str | None, rec: dict) -> None:
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["tradeoff", "scale", "shards", "model", "generated", "solver"])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--data", choices=["checkerboard", "dense20"], default="checkerboard",
                   help="tradeoff: the checkerboard, or make_classification with 20 features")
    p.add_argument("--chunk", type=int, default=100_000, help="rows per dask block")
    p.add_argument("--workers", type=int, nargs="+", default=[2])
    p.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    p.add_argument("--components", type=int, default=200)
    p.add_argument("--landmarks", default="coreset", choices=["coreset", "uniform"])
    p.add_argument("--gamma", default=1.0, type=lambda v: v if v == "scale" else float(v),
                   help="γ of the approximate model ('scale' or a number)")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--rank", type=int, default=None, help="DaskApproxSVC's rank (None: all components)")
    p.add_argument("--map-dtype", choices=["float16", "float32", "float64"], default="float32",
                   help="DaskApproxSVC's map_dtype (float64: the map before 2026-11-27)")
    p.add_argument("--tol", type=float, default=1e-2)
    p.add_argument("--solver-tol", type=float, default=1e-4)
    p.add_argument("--passes", type=int, default=1)
    p.add_argument("--compare", nargs="+", choices=["add", "line_search"], default=["add", "line_search"],
                   help="shards: the aggregations simulated")
    p.add_argument("--aggregation", choices=["auto", "line_search", "add"], default="auto",
                   help="DaskApproxSVC's aggregation (the fits; model: which records)")
    p.add_argument("--solver", choices=["auto", "cocoa", "newton"], default="auto",
                   help="DaskApproxSVC's solver (the fits; shards: newton simulates Newton's rounds; model: which records)")
    p.add_argument("--max-rounds", type=int, default=2000)
    p.add_argument("--exact", action="store_true", help="also fit the exact fwsvm.SVC (tradeoff)")
    p.add_argument("--exact-only", action="store_true", help="the exact fit alone (tradeoff)")
    p.add_argument("--exact-gamma", default="1.0", help="γ of the exact fit ('scale' or a number)")
    p.add_argument("--exact-C", type=float, default=1.0)
    p.add_argument("--predict", type=int, nargs="+", default=[16])
    p.add_argument("--cores", type=int, default=2, help="cores of this machine (model)")
    p.add_argument("--out", default=None, help="JSON lines to append to (and read, for model)")
    args = p.parse_args()
    globals()[args.what](args)


if __name__ == "__main__":
    main()
