"""LIBSVM's ν-SVC, one-class, ε-SVR and ν-SVR: fwsvm against scikit-learn's LIBSVM and
oneDAL (scikit-learn-intelex, where it has the model), same parameters, one thread.

    taskset -c 1 env OMP_NUM_THREADS=1 python benches/compare/libsvm_family.py [--quick]

Prints one row per (model, data set): fit seconds (best of `--repeats`), support vectors, the
largest difference of fwsvm's decision values from scikit-learn's (relative to their largest
magnitude), and the speed-ups. Sets: make_friedman1 (20k × 10, noise 1) for the regressions
and one-class, make_classification (20k × 20) and a9a (LIBSVM's, when ../shared/data has it)
for ν-SVC, and heart_scale (270 rows) for all four (the small-set check).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from sklearn import svm
from sklearn.datasets import load_svmlight_file, make_classification, make_friedman1

import fwsvm

DATA = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))


def _sets(quick: bool):
    n = 5000 if quick else 20000
    Xr, yr = make_friedman1(n, noise=1.0, random_state=0)
    Xc, yc = make_classification(n, 20, random_state=0)
    out = {"friedman1": (Xr, yr), "make_classification": (Xc, yc)}
    if (DATA / "heart_scale").exists():
        X, y = load_svmlight_file(str(DATA / "heart_scale"))
        out["heart_scale"] = (X.toarray(), y)
    if not quick and (DATA / "a9a").exists():
        X, y = load_svmlight_file(str(DATA / "a9a"))
        X = X.tocsr()
        X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)  # scikit-learn's LIBSVM
        out["a9a"] = (X, y)
    return out


CASES = [
    ("SVR", dict(C=10.0, epsilon=0.1), ["friedman1", "heart_scale"]),
    ("NuSVR", dict(C=10.0, nu=0.3), ["friedman1", "heart_scale"]),
    ("OneClassSVM", dict(nu=0.3), ["friedman1", "heart_scale"]),
    ("NuSVC", dict(nu=0.3), ["make_classification", "a9a", "heart_scale"]),
]


def _timed(make, X, y, repeats: int):
    best, model = float("inf"), None
    for _ in range(repeats):
        est = make()
        t = time.perf_counter()
        est.fit(X) if isinstance(est, (svm.OneClassSVM, fwsvm.OneClassSVM)) else est.fit(X, y)
        best = min(best, time.perf_counter() - t)
        model = est
    return best, model


def _values(est, X):
    return np.ravel(est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=1,
                    help="best of this many fits (use 3+ for the small sets: first calls pay imports)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", nargs="*", help="data sets to run (default: all)")
    args = ap.parse_args()
    try:
        import sklearnex.svm as onedal
    except ImportError:
        onedal = None
    sets = _sets(args.quick)
    rows = []
    print(f"{'model':<12} {'data':<20} {'fwsvm s':>8} {'LIBSVM s':>9} {'oneDAL s':>9} {'xLIBSVM':>8} {'xoneDAL':>8} {'nSV':>12} {'max rel df':>10}")
    for name, params, names in CASES:
        for data in names:
            if data not in sets or (args.only and data not in args.only):
                continue
            X, y = sets[data]
            gamma = "scale"
            t_f, ours = _timed(lambda: getattr(fwsvm, name)(gamma=gamma, n_jobs=1, **params), X, y, args.repeats)
            t_s, ref = _timed(lambda: getattr(svm, name)(gamma=gamma, **params), X, y, args.repeats)
            t_o = float("nan")
            if onedal is not None and hasattr(onedal, name):
                t_o, _ = _timed(lambda: getattr(onedal, name)(gamma=gamma, **params), X, y, args.repeats)
            Xq = X[:2000]
            f, g = _values(ours, Xq), _values(ref, Xq)
            rel = float(np.max(np.abs(f - g)) / max(np.max(np.abs(g)), 1e-300))
            row = dict(model=name, data=data, rows=X.shape[0], fwsvm=t_f, libsvm=t_s, onedal=t_o,
                       nsv=len(ours.support_), nsv_libsvm=len(ref.support_), max_rel_diff=rel)
            rows.append(row)
            print(f"{name:<12} {data:<20} {t_f:8.3f} {t_s:9.3f} {t_o:9.3f} {t_s / t_f:8.1f} {t_o / t_f:8.1f} "
                  f"{len(ours.support_):>5}/{len(ref.support_):<6} {rel:10.1e}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
