"""One-vs-one pairs as Dask tasks against the in-process parallel fit (issue 19's OVO target).

    python3 benches/compare/dask_ovo.py [--data mnist] [--workers 2] [--malloc-trim BYTES]

Fits fwsvm.SVC (hinge loss, C = 1, γ = scale) on the training file in this process with
n_jobs = workers (the pairs on a rayon pool), then with ``fwsvm.dask.fit`` on a
``LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)`` (started outside the
timing; the scatter of the data is inside it), checks that every fitted array is identical and
prints the wall times (the cluster's first fit, which imports fwsvm on the workers, and a
second one) and the overhead of the second. ``--malloc-trim``: as in dask_search.py."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from peers import load_dataset  # noqa: E402

FILES = {"mnist": ("mnist.scale.bz2", "mnist.scale.t.bz2"), "satimage": ("satimage.scale", "satimage.scale.t"),
         "dna": ("dna.scale", "dna.scale.t")}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default="mnist", choices=sorted(FILES))
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--malloc-trim", type=int, default=None)
    p.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = p.parse_args()
    from distributed import Client, LocalCluster

    import fwsvm
    from fwsvm.dask import fit

    X, Xt, y, yt = load_dataset(args.data_dir, *FILES[args.data])
    t = time.perf_counter()
    local = fwsvm.SVC(n_jobs=args.workers).fit(X, y)
    local_s = time.perf_counter() - t
    import dask
    from dask_search import cluster_environ

    with dask.config.set(cluster_environ(args.malloc_trim)), \
            LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        t = time.perf_counter()
        fit(fwsvm.SVC(), X, y, client=client)
        cold_s = time.perf_counter() - t  # includes importing fwsvm on the workers
        t = time.perf_counter()
        remote = fit(fwsvm.SVC(), X, y, client=client)
        remote_s = time.perf_counter() - t
    same = all(np.array_equal(getattr(local, a), getattr(remote, a))
               for a in ("support_", "dual_coef_", "intercept_", "n_support_", "n_iter_"))
    acc = remote.score(Xt, yt)
    print(f"{args.data}: {X.shape[0]} × {X.shape[1]}, {len(local.classes_)} classes, "
          f"{len(local.intercept_)} pairs, {local.support_.size} SV, test accuracy {acc:.4f}")
    print(f"| in-process, n_jobs={args.workers} | {local_s:.1f} s |")
    print(f"| fwsvm.dask.fit, LocalCluster {args.workers} × 1 thread, first fit (workers import fwsvm) | {cold_s:.1f} s |")
    print(f"| fwsvm.dask.fit, LocalCluster {args.workers} × 1 thread, second fit | {remote_s:.1f} s |")
    print(f"identical model: {same}; overhead {100 * (remote_s / local_s - 1):+.0f}%")


if __name__ == "__main__":
    main()
