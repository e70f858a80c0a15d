"""The linear squared-hinge SVC on one set: `algorithm="dcd"` against the kernel solver (`swap`)
on the same problem, and LIBLINEAR's dual solver on the same model (LinearSVC at C/2,
intercept_scaling 1), one thread (BENCHMARKS.md, "Linear models and kernel approximation").

    taskset -c 1 python3 benches/compare/dcd_check.py a9a --C 1
"""

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.svm import LinearSVC

import fwsvm

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("data")
p.add_argument("--C", type=float, default=1.0)
args = p.parse_args()
warnings.simplefilter("ignore")
X, y, Xt, yt = fwsvm.load_svmlight_files([os.path.join(DATA, args.data), os.path.join(DATA, args.data + ".t")])
decision = {}
for algorithm in ("dcd", "swap"):
    t = time.perf_counter()
    m = fwsvm.SVC(kernel="linear", loss="squared_hinge", algorithm=algorithm, C=args.C, n_jobs=1).fit(X, y)
    seconds = time.perf_counter() - t
    decision[algorithm] = m.decision_function(Xt[:2000])
    print(f"SVC(algorithm={algorithm!r}): {seconds:.2f} s, test {m.score(Xt, yt):.4f}, "
          f"relative gap {m.convergence_['relative_gap']:.2e}, {m.n_iter_[0]} steps")
print(f"max |decision dcd − swap| on 2,000 test rows: {np.abs(decision['dcd'] - decision['swap']).max():.1e}")
Xs, Xts = (x.astype(np.float64) for x in (X, Xt))
for m in (Xs, Xts):
    m.indices, m.indptr = m.indices.astype(np.int32), m.indptr.astype(np.int32)
t = time.perf_counter()
lin = LinearSVC(C=args.C / 2, loss="squared_hinge", dual=True, tol=1e-4, max_iter=10_000).fit(Xs, y)
seconds = time.perf_counter() - t
print(f"LinearSVC(C={args.C / 2}, dual=True): {seconds:.2f} s, test {lin.score(Xts, yt):.4f}, "
      f"max |decision − dcd| {np.abs(lin.decision_function(Xts[:2000]) - decision['dcd']).max():.1e}")
