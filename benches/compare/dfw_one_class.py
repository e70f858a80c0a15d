"""DistributedOneClassSVM against the in-process OneClassSVM (BENCHMARKS.md, "Distributed
Frank-Wolfe on Dask"): one fit on a LocalCluster of 2 worker processes (one thread each), then
``OneClassSVM(n_jobs=2)`` in this process, on the same rows and parameters; one JSON line each.

    python3 benches/compare/dfw_one_class.py blobs 100000 [--gamma 1] [--nu 0.1] [--C 1] [--tol 1e-3]
    python3 benches/compare/dfw_one_class.py shuttle          # ../shared/data/shuttle.scale, all rows

``blobs``: a mixture of three 2-d Gaussians (seed 0); ``shuttle``: the 43,500 × 9 rows of the
LIBSVM shuttle training file (skipped with a message when absent). Both fits certify the same
relative duality gap ``tol``; the line reports the seconds, the phases of the distributed fit,
the support, the objective (R̃², within both gaps of each other) and the share of training
rows both models flag as outliers.
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
from distributed import Client, LocalCluster

import fwsvm
from fwsvm.dask import DistributedOneClassSVM

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def rows(name: str, n: int) -> np.ndarray:
    if name == "blobs":
        rng = np.random.default_rng(0)
        centres = np.array([[0.0, 0.0], [4.0, 1.0], [1.0, 4.0]])
        return centres[rng.integers(0, 3, n)] + rng.standard_normal((n, 2))
    path = os.path.join(DATA, "shuttle.scale")
    if not os.path.exists(path):
        sys.exit(f"skipped: {path} is absent")
    X, _ = fwsvm.load_svmlight_file(path)
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", choices=["blobs", "shuttle"])
    ap.add_argument("n", type=int, nargs="?", default=100_000)
    ap.add_argument("--gamma", default="scale")
    ap.add_argument("--nu", type=float, default=0.1)
    ap.add_argument("--C", type=float, default=None, help="None: 1 / (nu · n), the estimators' default")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    X = rows(args.data, args.n)
    gamma = args.gamma if args.gamma in ("scale", "auto") else float(args.gamma)
    params = dict(nu=args.nu, C=args.C, gamma=gamma, tol=args.tol)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cl, \
            Client(cl) as client:
        t = time.perf_counter()
        m = DistributedOneClassSVM(client=client, **params).fit(X)
        wall = time.perf_counter() - t
        c = m.convergence_
        print(json.dumps({"tool": f"DistributedOneClassSVM, {args.workers} workers", "data": args.data,
                          "n": len(X), "seconds": wall, "local_seconds": c["local_seconds"],
                          "start_seconds": c["start_seconds"], "start_size": c["start_size"],
                          "rounds": int(c["n_rounds"]), "round_seconds": float(m.rounds_["wall"].sum()),
                          "n_sv": int(len(m.support_)), "objective": c["objective"], "gap": c["gap"],
                          "relative_gap": c["relative_gap"], "outliers": float(np.mean(m.predict(X) == -1))}),
              flush=True)
    t = time.perf_counter()
    s = fwsvm.OneClassSVM(n_jobs=2, **params).fit(X)
    wall = time.perf_counter() - t
    c = s.convergence_
    print(json.dumps({"tool": "OneClassSVM(n_jobs=2)", "data": args.data, "n": len(X), "seconds": wall,
                      "n_sv": int(len(s.support_)), "objective": c["objective"], "gap": c["gap"],
                      "relative_gap": c["relative_gap"], "outliers": float(np.mean(s.predict(X) == -1)),
                      "same_predictions": float(np.mean(s.predict(X) == m.predict(X)))}), flush=True)


if __name__ == "__main__":
    main()
