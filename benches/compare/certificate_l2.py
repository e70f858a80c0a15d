"""The squared hinge's certificate recomputed independently on every row: the relative
Frank-Wolfe gap 2(αᵀG − min G)/αᵀG from the fitted simplex weights, with G = Qα from
scikit-learn's rbf_kernel in float64, against the reported one (BENCHMARKS.md, "Stop 26").

    PYTHONPATH=<build> python3 benches/compare/certificate_l2.py
"""
import sys, numpy as np
from sklearn.metrics.pairwise import rbf_kernel
import fwsvm
rng = np.random.default_rng(0)
def cb(n):
    X = rng.uniform(0, 4, size=(n, 2)); return X, np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
for n, C in [(30000, 10.0), (30000, 100.0)]:
    X, y = cb(n)
    m = fwsvm.SVC(C=C, gamma=1.0, loss="squared_hinge", n_jobs=1).fit(X, y)
    yp = np.where(y == m.classes_[1], 1.0, -1.0)
    a = np.zeros(n); a[m.support_] = m._alpha
    S = m.support_
    G = np.empty(n)
    for lo in range(0, n, 4096):
        K = rbf_kernel(X[lo:lo+4096], X[S], gamma=1.0) + 1.0
        G[lo:lo+4096] = yp[lo:lo+4096] * (K @ (a[S] * yp[S]))
    G += a / C
    rho = a @ G
    rel = 2 * (rho - G.min()) / rho
    print(f"checkerboard {n}, C {C}: sum alpha {a.sum():.6f}, relative gap recomputed on all rows {rel:.3e} (reported {m.convergence_['relative_gap']:.3e}, tol {m.convergence_['tol']})")
