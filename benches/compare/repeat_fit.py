"""Median and minimum of 15 one-thread fits of the default SVC on satimage, for comparing two
builds when a single before/after run looks systematic (BENCHMARKS.md, "Stop 25").

    PYTHONPATH=<build> taskset -c 1 python3 benches/compare/repeat_fit.py
"""
import time, os, fwsvm
X, y = fwsvm.load_svmlight_file(os.path.join(os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data")), "satimage.scale"))
g = 1.0 / (X.shape[1] * X.toarray().var())
fwsvm.SVC(gamma=g, n_jobs=1).fit(X, y)
ts = []
for _ in range(15):
    t = time.perf_counter(); fwsvm.SVC(gamma=g, n_jobs=1).fit(X, y); ts.append(time.perf_counter() - t)
ts.sort(); print(fwsvm.__file__, f"median {ts[7]*1000:.1f} ms, min {ts[0]*1000:.1f} ms")
