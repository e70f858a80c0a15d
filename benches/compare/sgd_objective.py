"""SGDSVC's final primal objective against (an approximation of) the optimum on a9a, for several
settings (BENCHMARKS.md, "Linear models and kernel approximation"). The reference optimum is
LIBLINEAR's hinge-loss dual at tol 1e-6 with intercept_scaling 100 (its bias is regularised
only by 1/100², close to 004's free bias).

    taskset -c 1 python3 benches/compare/sgd_objective.py
"""

import os
import time
import warnings

import numpy as np
from sklearn.svm import LinearSVC

from fwsvm import SGDSVC, load_svmlight_file

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
warnings.simplefilter("ignore")
X, y = load_svmlight_file(os.path.join(DATA, "a9a"))
X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
ref = LinearSVC(C=1, loss="hinge", dual=True, max_iter=200_000, tol=1e-6, intercept_scaling=100).fit(X, y)
probe = SGDSVC(C=1, random_state=0).fit(X, y)
probe.coef_, probe.intercept_ = ref.coef_, ref.intercept_
print(f"reference optimum ≈ {probe.objective(X, y):.1f}")
for kw in [{}, {"tol": 1e-4}, {"learning_rate": "exponential"}, {"learning_rate": "step"}, {"average": False}]:
    t = time.perf_counter()
    m = SGDSVC(C=1, random_state=0, **kw).fit(X, y)
    print(f"SGDSVC({kw}): objective {m.objective(X, y):.1f}, {m.n_iter_[0]} epochs, {time.perf_counter() - t:.2f} s")
