"""The (C, gamma) search on a 2-worker Dask LocalCluster against the in-process search
(BENCHMARKS.md, "The search on Dask").

    python3 benches/compare/dask_search.py [a1a a3a ...]

For each data set (training file of ../shared/data): SVCSearch's default 7 × 5 grid with
5-fold StratifiedKFold, in process with two threads (``SVCSearch(SVC(n_jobs=1), n_jobs=2)``)
and as DaskSVCSearch on a LocalCluster of 2 worker processes with one thread each (started
outside the timing). The cluster's first search includes the workers importing fwsvm; the
second is the steady state. Checks that the cross-validation scores are identical.
"""
import logging
import os
import sys
import time
import warnings

import numpy as np
from distributed import Client, LocalCluster
from sklearn.model_selection import StratifiedKFold

from fwsvm import SVC, SVCSearch, load_svmlight_file
from fwsvm.dask import DaskSVCSearch

DATA = os.environ.get('FWSVM_DATA', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'data'))
warnings.simplefilter("ignore")
logging.getLogger("distributed").setLevel(logging.ERROR)


def main() -> None:
    names = sys.argv[1:] or ["a1a"]
    cv = StratifiedKFold(5)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        for name in names:
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
