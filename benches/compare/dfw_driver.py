"""DistributedSVC against the in-process SVC on the checkerboard (BENCHMARKS.md, DFW section,
"Stop 26: the driver's inner solve without a Gram"): one fit on a 2-worker LocalCluster, with
its rounds, driver and slowest-worker seconds, then SVC(loss="squared_hinge", n_jobs=2).

    PYTHONPATH=<build> python3 benches/compare/dfw_driver.py 10000
"""
import time, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from distributed import Client, LocalCluster
import fwsvm
from fwsvm.dask import DistributedSVC
n = int(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.uniform(0, 4, size=(n, 2)); y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl) as client:
        t = time.perf_counter(); m = DistributedSVC(C=1.0, gamma=1.0, client=client).fit(X, y); dt = time.perf_counter() - t
        r = m.rounds_
        print(fwsvm.__file__, f"n={n}: {dt:.2f} s, rounds {len(r['wall'])}, driver {r['driver'].sum():.2f} s, worker max {r['worker_max'].sum():.2f} s, SV {len(m.support_)}")
        t = time.perf_counter(); s = fwsvm.SVC(C=1.0, gamma=1.0, loss="squared_hinge", n_jobs=2).fit(X, y); print(f"in-process 2 threads {time.perf_counter()-t:.2f} s SV {len(s.support_)}")
