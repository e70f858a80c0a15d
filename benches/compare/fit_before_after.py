"""Fit and prediction times on one thread for a before/after table across wheels: the median of
3 fits of a9a (rbf, hinge), make_classification 20k × 20, w8a (linear `dcd`) and dna with
probabilities; then the median of 3 predictions of the fitted models on their test files
(a9a.t, w8a.t, dna.scale.t with probabilities, satimage.scale.t: six classes one-vs-one) and
the time of 200 fits of heart_scale (the per-call overhead of small problems).

    FWSVM_NUM_THREADS=1 python benches/compare/fit_before_after.py   # in each wheel's venv

Needs a9a, w8a, dna.scale, satimage.scale (with their .t files) and heart_scale in
../shared/data (or FWSVM_DATA).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from sklearn.datasets import make_classification

from fwsvm import SVC, load_svmlight_file

DATA = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))


def main() -> None:
    X, y = load_svmlight_file(str(DATA / "a9a"), n_features=123)
    Xm, ym = make_classification(n_samples=20000, n_features=20, n_informative=10, random_state=0)
    Xm = (Xm - Xm.mean(0)) / Xm.std(0)
    Xw, yw = load_svmlight_file(str(DATA / "w8a"), n_features=300)
    Xd, yd = load_svmlight_file(str(DATA / "dna.scale"), n_features=180)
    cases = {
        "a9a rbf C=1 g=0.05 (hinge)": lambda: SVC(C=1, gamma=0.05, n_jobs=1).fit(X, y),
        "make_classification 20k rbf C=1 g=0.05": lambda: SVC(C=1, gamma=0.05, n_jobs=1).fit(Xm, ym),
        "w8a linear dcd squared hinge C=1": lambda: SVC(C=1, kernel="linear", loss="squared_hinge",
                                                        algorithm="dcd", n_jobs=1).fit(Xw, yw),
        "dna rbf C=4 g=0.01 probability": lambda: SVC(C=4, gamma=0.01, probability=True, n_jobs=1).fit(Xd, yd),
    }
    models = {}
    for name, fit in cases.items():
        times = []
        for _ in range(3):
            start = time.perf_counter()
            model = fit()
            times.append(time.perf_counter() - start)
        models[name] = model
        print(f"{name}\t{statistics.median(times):.3f} s\t{len(model.support_)} SV")
    Xs, ys = load_svmlight_file(str(DATA / "satimage.scale"), n_features=36)
    models["satimage"] = SVC(C=10, gamma=0.5, n_jobs=1).fit(Xs, ys)
    tests = {
        "predict a9a.t (16,281 rows)": (models["a9a rbf C=1 g=0.05 (hinge)"], "a9a.t", 123, "predict"),
        "predict w8a.t (linear)": (models["w8a linear dcd squared hinge C=1"], "w8a.t", 300, "predict"),
        "predict_proba dna.scale.t": (models["dna rbf C=4 g=0.01 probability"], "dna.scale.t", 180, "predict_proba"),
        "predict satimage.scale.t (6 classes)": (models["satimage"], "satimage.scale.t", 36, "predict"),
    }
    for name, (model, file, d, method) in tests.items():
        Xt, _ = load_svmlight_file(str(DATA / file), n_features=d)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            getattr(model, method)(Xt)
            times.append(time.perf_counter() - start)
        print(f"{name}\t{statistics.median(times):.3f} s")
    Xh, yh = load_svmlight_file(str(DATA / "heart_scale"))
    start = time.perf_counter()
    for _ in range(200):
        SVC(n_jobs=1).fit(Xh, yh)
    print(f"200 fits of heart_scale\t{time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
