"""Single fits at chosen (C, γ) grid points on fold 0 of a9a, fwsvm or LIBSVM (BENCHMARKS.md,
"The search on a9a: fold-0 spot checks").

    taskset -c 0 python3 benches/compare/search_spot.py fwsvm 2,1 32,1 512,1

Arguments: the tool, then C,factor pairs (γ = scale · factor)."""
import sys, time, numpy as np, warnings
warnings.simplefilter("ignore")
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC as L
import fwsvm
X, y = fwsvm.load_svmlight_file("/work/shared/data/a9a")
tr, va = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
scale = fwsvm.SVC()._resolve_gamma(X)
for C, gf in [(float(a), float(b)) for a, b in (p.split(",") for p in sys.argv[2:])]:
    g = scale * gf
    Tool = fwsvm.SVC if sys.argv[1] == "fwsvm" else L
    kw = dict(n_jobs=1) if sys.argv[1] == "fwsvm" else {}
    t = time.perf_counter(); m = Tool(C=C, gamma=g, **kw).fit(X[tr], y[tr]); ft = time.perf_counter() - t
    t = time.perf_counter(); s = m.score(X[va], y[va]); st = time.perf_counter() - t
    print(sys.argv[1], f"C={C} gamma=scale*{gf}: fit {ft:.1f} s, score {st:.1f} s, val acc {s:.4f}", flush=True)
