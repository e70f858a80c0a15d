"""One SVC fit on the 4×4 checkerboard (uniform on [0, 4)², seed 0; the same data as
``before_after.py``), γ 1, one thread: time, support vectors, steps, columns and the step kinds
(BENCHMARKS.md, "Stop 26").

    PYTHONPATH=<build> taskset -c 0 python3 benches/compare/checkerboard_fit.py 30000 100 squared_hinge
"""
import sys, time, warnings
import fwsvm, numpy as np
def make_checkerboard(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 4, size=(n, 2))
    return X, np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
n=int(sys.argv[1]); C=float(sys.argv[2]); loss=sys.argv[3]
X,y = make_checkerboard(n)
t=time.perf_counter(); m=fwsvm.SVC(C=C, gamma=1.0, loss=loss, n_jobs=1).fit(X,y); ft=time.perf_counter()-t
c=m.convergence_
print(f"n={n} C={C} {loss}: fit {ft:.2f} s nsv {m.n_support_.sum()} steps {c['n_iter']} cols {c['columns_computed']}", c.get('steps'), flush=True)
