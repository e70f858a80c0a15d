"""The (C, gamma) search on a 2-worker Dask LocalCluster against the in-process search
(BENCHMARKS.md, "The search on Dask").

    python3 benches/compare/dask_search.py
"""
import os
import time, warnings
DATA = os.environ.get('FWSVM_DATA', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'data'))
import numpy as np
from distributed import Client, LocalCluster
from sklearn.model_selection import StratifiedKFold
from fwsvm import SVC, SVCSearch, load_svmlight_files
from fwsvm.dask import DaskSVCSearch
warnings.simplefilter("ignore")
import logging; logging.getLogger("distributed").setLevel(logging.ERROR)
def main():
    X, y, Xt, yt = load_svmlight_files([DATA + "/a1a", DATA + "/a1a.t"])
    cv = StratifiedKFold(5)
    t = time.perf_counter(); s1 = SVCSearch(SVC(n_jobs=1), cv=cv, n_jobs=2).fit(X, y); local = time.perf_counter() - t
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        t = time.perf_counter(); s2 = DaskSVCSearch(SVC(n_jobs=1), client=client, cv=cv).fit(X, y); remote = time.perf_counter() - t
    print(f"a1a 7x5x5-fold: in-process 2 threads {local:.2f} s, LocalCluster 2 workers {remote:.2f} s "
          f"(overhead {100*(remote/local-1):.0f}%), same cv_results_: {np.array_equal(s1.cv_results_['mean_test_score'], s2.cv_results_['mean_test_score'])}")

if __name__ == "__main__":
    main()
