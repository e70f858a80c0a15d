"""DistributedSVC against the in-process SVC on the checkerboard (BENCHMARKS.md, "Distributed
Frank-Wolfe on Dask"): one fit on a LocalCluster of 2 worker processes (one thread each), its
phases (the shards' local solves, the driver's solve on their union, the rounds), then
SVC(loss="squared_hinge", n_jobs=2) in this process; one JSON line each.

    PYTHONPATH=<build> python3 benches/compare/dfw_driver.py 100000 [--init local|pair] [--workers 2]
        [--out results/dfw_driver.jsonl]

The 4×4 checkerboard (uniform on [0, 4)², seed 0), C 1, γ 1, tol 1e-2 (the squared hinge's
default): the same problem for both, and both certify a relative duality gap ≤ tol, so their
objectives αᵀQα agree within 1%.
"""
import argparse
import json
import time
import warnings

import numpy as np
from distributed import Client, LocalCluster

import fwsvm
from fwsvm.dask import DistributedSVC


def checkerboard(n: int) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(0).uniform(0, 4, size=(n, 2))
    return X, np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--init", default="local", choices=["local", "pair"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-in-process", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    X, y = checkerboard(args.n)
    rows = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as client:
        t = time.perf_counter()
        m = DistributedSVC(C=1.0, gamma=1.0, init=args.init, client=client).fit(X, y)
        wall = time.perf_counter() - t
        r, c = m.rounds_, m.convergence_
        rows.append({"tool": f"DistributedSVC, {args.workers} workers", "n": args.n, "init": args.init,
                     "seconds": wall, "local_seconds": c["local_seconds"], "start_seconds": c["start_seconds"], "start_size": c["start_size"],
                     "rounds": int(c["n_rounds"]), "round_seconds": float(r["wall"].sum()),
                     "driver_round_seconds": float(r["driver"].sum()),
                     "worker_max_seconds": float(r["worker_max"].sum()),
                     "n_sv": int(len(m.support_)), "steps": int(c["n_iter"]), "relative_gap": c["relative_gap"],
                     "quadratic": c["quadratic"]})
        print(json.dumps(rows[-1]), flush=True)
    if not args.skip_in_process:
        t = time.perf_counter()
        s = fwsvm.SVC(C=1.0, gamma=1.0, loss="squared_hinge", n_jobs=2).fit(X, y)
        rows.append({"tool": "SVC(loss='squared_hinge', n_jobs=2)", "n": args.n, "seconds": time.perf_counter() - t,
                     "n_sv": int(len(s.support_)), "steps": int(s.convergence_["n_iter"]),
                     "relative_gap": s.convergence_["relative_gap"], "quadratic": s.convergence_["quadratic"]})
        print(json.dumps(rows[-1]), flush=True)
    if args.out:
        with open(args.out, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
