"""One fwsvm fit on generated dense data, with the kernel-column count (issue 36's A/B runs).

    taskset -c 1 python benches/compare/blocked_ab.py mc100000 [threads]     # make_classification
    taskset -c 1 python benches/compare/blocked_ab.py cb100000c10 [threads]  # checkerboard, C 10

``mcN``: ``make_classification(n_samples=N, n_features=20, n_informative=10, random_state=0)``,
the first 70% for training (γ "scale", C 1). ``cbNcC``: the 4×4 checkerboard on [0, 4)², N
training rows (seed 0) and 20,000 test rows (seed 1), γ 2, C as given. Prints the fit time,
test accuracy, support vectors, kernel columns computed, kernel values / (#SV · m) and steps.
Run it with two installs side by side (e.g. two virtual environments) for before/after.
"""
import sys, time, numpy as np
import fwsvm
from sklearn.datasets import make_classification

def checkerboard(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
    return X, y

name = sys.argv[1]; threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
if name.startswith("mc"):
    n = int(name[2:] or 100000)
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=0)
    k = int(0.7 * n); Xt, yt, X, y = X[k:], y[k:], X[:k], y[:k]
    params = dict(C=1.0, gamma="scale")
elif name.startswith("cb"):
    parts = name[2:].split("c"); n = int(parts[0]); C = float(parts[1]) if len(parts) > 1 else 10.0
    X, y = checkerboard(n, 0); Xt, yt = checkerboard(20000, 1)
    params = dict(C=C, gamma=2.0)
t = time.perf_counter()
clf = fwsvm.SVC(n_jobs=threads, **params).fit(X, y)
fit = time.perf_counter() - t
acc = (clf.predict(Xt) == yt).mean()
st = clf.convergence_
cols = st["columns_computed"]; ev = st["kernel_evaluations"]
nsv = int(clf.n_support_.sum())
print(f"{name} threads={threads} fit={fit:.2f}s acc={acc:.4f} nSV={nsv} cols={cols} cols/SV={cols/nsv:.2f} evals/(SV*m)={ev/(nsv*len(y)):.2f} iters={st['n_iter']}")
