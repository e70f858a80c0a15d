"""One-thread fit times of the default SVC (hinge loss, C = 1, the protocol's γ) on the
real-valued sets and a9a/w8a, for comparing two builds of fwsvm (run it once per installed or
PYTHONPATH'd build; BENCHMARKS.md, "Stop 24: no change in fit speed").

    taskset -c 1 python3 benches/compare/before_after.py
"""

import os
import time

import numpy as np
from sklearn.datasets import make_classification

import fwsvm
from fwsvm import SVC, load_svmlight_file

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def checkerboard(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
    return X, y


def sets():
    for name in ("shuttle.scale", "satimage.scale", "a9a", "w8a"):
        X, y = load_svmlight_file(os.path.join(DATA, name))
        yield name, X, y, 1.0 / (X.shape[1] * X.toarray().var()) if X.shape[1] < 100 else 1.0 / X.shape[1]
    X, y = load_svmlight_file(os.path.join(DATA, "mnist.scale.bz2"))
    yield "mnist (0 vs rest)", X, np.where(y == 0, 1, -1), 1.0 / (X.shape[1] * X.multiply(X).mean() - 0.0)
    X, y = make_classification(n_samples=70_000, n_features=20, n_informative=10, random_state=0)
    yield "make_classification 70k x 20", X, y, "scale"
    X, y = checkerboard(100_000)
    yield "checkerboard 100k", X, y, 2.0


print(f"fwsvm {fwsvm.__file__}")
for name, X, y, gamma in sets():
    best = np.inf
    for _ in range(2):
        start = time.perf_counter()
        model = SVC(C=1.0, gamma=gamma, n_jobs=1).fit(X, y)
        best = min(best, time.perf_counter() - start)
    print(f"{name}: {best:.2f} s, {len(model.support_)} SV, {int(np.sum(model.n_iter_))} steps")
