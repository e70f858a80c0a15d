"""Steps, free and bounded support vectors of the hinge loss along C on a1a (BENCHMARKS.md,
"The (C, gamma) search": why the large-C end costs).

    python3 benches/compare/large_c.py
"""
import os
import numpy as np, time, warnings
from fwsvm import SVC, load_svmlight_files
warnings.simplefilter("ignore")
DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
X, y, Xt, yt = load_svmlight_files([os.path.join(DATA, "a1a"), os.path.join(DATA, "a1a.t")])
print("| C | steps | SV | free SV (0 < α < C) | bounded SV (α = C) | shrinks | fit s | test acc |")
print("|---|---|---|---|---|---|---|---|")
for C in [0.125, 0.5, 2, 8, 32, 128, 512, 2048]:
    t = time.perf_counter(); m = SVC(C=C, gamma=0.02, n_jobs=1).fit(X, y); s = time.perf_counter() - t
    a = np.abs(m.dual_coef_).ravel()
    free = int(np.sum(a < C * (1 - 1e-9))); bounded = len(a) - free
    print(f"| {C:g} | {int(m.n_iter_.sum())} | {len(a)} | {free} | {bounded} | {m.convergence_['shrinks']} | {s:.3f} | {m.score(Xt, yt):.4f} |")
