"""The (C, γ) search against scikit-learn's GridSearchCV (BENCHMARKS.md, "The (C, γ) search").

    python3 benches/compare/search.py a1a svmguide1 [--folds 5]
    python3 benches/compare/search.py a9a --only exhaustive halving   # the large sets: fwsvm only

``--only`` runs a subset of: ``exhaustive`` (SVCSearch, one thread), ``threads`` (two threads),
``halving``, ``grid-fwsvm`` (GridSearchCV(fwsvm.SVC)), ``grid-libsvm``; the ratios are then
against GridSearchCV(LIBSVM) only when it ran (on the large sets it takes hours:
the ``fold0`` stage of ``benches/compare/search_large.py`` bounds its cost from one fold).

For each LIBSVM set (train file and its ``.t`` test file in ../shared/data or $FWSVM_DATA):
the 7 (C) × 5 (γ) default grid of ``fwsvm.SVCSearch`` (γ = scale · 2⁻⁴…2⁴, C = 2⁻³…2⁹), scored
by k-fold CV with

- ``GridSearchCV(sklearn.svm.SVC(), grid, n_jobs=1)`` (LIBSVM; the hinge loss, same C scale),
- ``GridSearchCV(fwsvm.SVC(), grid, n_jobs=1)``,
- ``fwsvm.SVCSearch`` exhaustive, one thread and two, and with successive halving,

printing the wall time, the chosen parameters, their test accuracy, and the best test accuracy
any grid point reaches (from refitting every grid point of the exhaustive run).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC as LibsvmSVC

from fwsvm import SVC, SVCSearch, load_svmlight_files
from fwsvm.search import DEFAULT_GAMMA_FACTORS
from fwsvm.tuning import DEFAULT_CS

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--only", nargs="+", default=["exhaustive", "threads", "halving", "grid-fwsvm", "grid-libsvm"],
                        choices=["exhaustive", "threads", "halving", "grid-fwsvm", "grid-libsvm"])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for name in args.sets:
        X, y, Xt, yt = load_svmlight_files([os.path.join(DATA, name), os.path.join(DATA, name + ".t")])
        cv = StratifiedKFold(args.folds)
        runs = {}
        if "exhaustive" in args.only:
            t = time.perf_counter()
            exhaustive = SVCSearch(SVC(n_jobs=1), cv=cv).fit(X, y)
            runs["fwsvm.SVCSearch, 1 thread"] = (time.perf_counter() - t, exhaustive)
        if "threads" in args.only:
            t = time.perf_counter()
            s = SVCSearch(SVC(n_jobs=1), cv=cv, n_jobs=2).fit(X, y)
            runs["fwsvm.SVCSearch, 2 threads"] = (time.perf_counter() - t, s)
        if "halving" in args.only:
            t = time.perf_counter()
            s = SVCSearch(SVC(n_jobs=1), cv=args.folds, halving=True).fit(X, y)
            runs["fwsvm.SVCSearch, halving, 1 thread"] = (time.perf_counter() - t, s)
        # SVCSearch's default grid, as it computes it.
        scale = SVC()._resolve_gamma(X)
        grid = {"C": list(DEFAULT_CS), "gamma": [scale * f for f in DEFAULT_GAMMA_FACTORS]}
        if "grid-fwsvm" in args.only:
            t = time.perf_counter()
            s = GridSearchCV(SVC(n_jobs=1), grid, cv=cv, n_jobs=1).fit(X, y)
            runs["GridSearchCV(fwsvm.SVC)"] = (time.perf_counter() - t, s)
        if "grid-libsvm" in args.only:
            t = time.perf_counter()
            s = GridSearchCV(LibsvmSVC(), grid, cv=cv, n_jobs=1).fit(X, y)
            runs["GridSearchCV(sklearn.svm.SVC) [LIBSVM]"] = (time.perf_counter() - t, s)
        params = [dict(C=C, gamma=g) for C in grid["C"] for g in grid["gamma"]]
        tests = {}
        for p in params:
            tests[(p["C"], p["gamma"])] = SVC(n_jobs=1, **p).fit(X, y).score(Xt, yt)
            print(f"  test accuracy at C={p['C']:g}, gamma={p['gamma']:.4g}: {tests[(p['C'], p['gamma'])]:.4f}", flush=True)
        best_test = max(tests.values())
        reference = runs.get("GridSearchCV(sklearn.svm.SVC) [LIBSVM]", (None,))[0]
        print(f"\n{name}: {X.shape[0]} train / {Xt.shape[0]} test, {args.folds}-fold, 35 grid points; "
              f"best test accuracy of any grid point {best_test:.4f}")
        print("| search | seconds | vs GridSearchCV(LIBSVM) | chosen C, γ | test accuracy |")
        print("|---|---|---|---|---|")
        for label, (seconds, s) in runs.items():
            p = s.best_params_
            ratio = f"{reference / seconds:.1f}×" if reference else "—"
            print(f"| {label} | {seconds:.2f} | {ratio} | {p['C']:g}, {p['gamma']:.3g} | "
                  f"{s.score(Xt, yt):.4f} |")


if __name__ == "__main__":
    main()
