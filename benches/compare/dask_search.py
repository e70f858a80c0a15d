"""The (C, gamma) search on a 2-worker Dask LocalCluster against the in-process search
(BENCHMARKS.md, "The search on Dask").

    python3 benches/compare/dask_search.py [a1a a3a ...] [--malloc-trim BYTES]

For each data set (training file of ../shared/data): SVCSearch's default 7 × 5 grid with
5-fold StratifiedKFold, in process with two threads (``SVCSearch(SVC(n_jobs=1), n_jobs=2)``)
and as DaskSVCSearch on a LocalCluster of 2 worker processes with one thread each (started
outside the timing). The cluster's first search includes the workers importing fwsvm; the
second is the steady state. Checks that the cross-validation scores are identical.
``--malloc-trim BYTES`` starts the workers with ``MALLOC_TRIM_THRESHOLD_=BYTES`` instead of
Dask's 65536 (docs/guide/scaling.rst, "Workers and freed memory").
"""
import argparse
import logging
import os
import time
import warnings

import dask
import numpy as np
from distributed import Client, LocalCluster
from sklearn.model_selection import StratifiedKFold

from fwsvm import SVC, SVCSearch, load_svmlight_file
from fwsvm.dask import DaskSVCSearch

DATA = os.environ.get('FWSVM_DATA', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'data'))
warnings.simplefilter("ignore")
logging.getLogger("distributed").setLevel(logging.ERROR)


def cluster_environ(malloc_trim: int | None) -> dict:
    """The workers' environment: Dask's pre-spawn settings, with ``MALLOC_TRIM_THRESHOLD_``
    replaced when ``malloc_trim`` is given (for ``dask.config.set`` before the cluster starts)."""
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    if malloc_trim is not None:
        environ["MALLOC_TRIM_THRESHOLD_"] = malloc_trim
    return {"distributed.nanny.pre-spawn-environ": environ}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", default=["a1a"])
    ap.add_argument("--malloc-trim", type=int, default=None)
    args = ap.parse_args()
    cv = StratifiedKFold(5)
    with dask.config.set(cluster_environ(args.malloc_trim)), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        trim = set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values())
        print(f"workers' MALLOC_TRIM_THRESHOLD_: {', '.join(map(str, trim))}")
        for name in args.names:
            X, y = load_svmlight_file(os.path.join(DATA, name))
            t = time.perf_counter()
            s1 = SVCSearch(SVC(n_jobs=1), cv=cv, n_jobs=2).fit(X, y)
            local = time.perf_counter() - t
            remote = []
            for _ in range(2):
                t = time.perf_counter()
                s2 = DaskSVCSearch(SVC(n_jobs=1), client=client, cv=cv).fit(X, y)
                remote.append(time.perf_counter() - t)
            same = np.array_equal(s1.cv_results_["mean_test_score"], s2.cv_results_["mean_test_score"])
            print(f"{name} 7x5x5-fold: in-process 2 threads {local:.2f} s, LocalCluster 2 workers "
                  f"{remote[0]:.2f} s first / {remote[1]:.2f} s second (overhead {100 * (remote[1] / local - 1):.0f}%), "
                  f"same cv_results_: {same}", flush=True)


if __name__ == "__main__":
    main()
