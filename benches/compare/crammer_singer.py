"""CrammerSingerSVC against one-vs-one SVC on the shared multiclass sets: test accuracy, fit
time, support vectors (BENCHMARKS.md, "Crammer–Singer").

    python3 benches/compare/crammer_singer.py [dna.scale satimage.scale shuttle.scale]
"""

import os
import sys
import time

from fwsvm import SVC, CrammerSingerSVC, load_svmlight_files

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))

print("| data | model | test accuracy | fit s | support vectors | steps |")
print("|---|---|---|---|---|---|")
for name in sys.argv[1:] or ["dna.scale", "satimage.scale", "shuttle.scale"]:
    X, y, Xt, yt = load_svmlight_files([os.path.join(DATA, name), os.path.join(DATA, name + ".t")])
    for est in (SVC(C=1.0, n_jobs=1), CrammerSingerSVC(C=1.0, n_jobs=1), CrammerSingerSVC(C=1.0, tol=1e-3, n_jobs=1)):
        start = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - start
        label = "SVC (one-vs-one, hinge)" if isinstance(est, SVC) else f"CrammerSingerSVC(tol={est.tol:g})"
        print(f"| {name} | {label} | {est.score(Xt, yt):.4f} | {seconds:.2f} | {len(est.support_)} | "
              f"{int(sum(est.n_iter_)) if isinstance(est, SVC) else est.n_iter_} |")
