"""The (C, γ) search on the issue's large sets, against GridSearchCV(LIBSVM) estimated from one
fold (issue 18's target table).

    taskset -c 1 python3 benches/compare/search_large.py a9a w8a

For each set: ``fwsvm.SVCSearch`` on its default 7 (C) × 5 (γ) grid with 5-fold stratified CV, one
thread (exhaustive, then with successive halving); then LIBSVM (``sklearn.svm.SVC``, the same C
scale) fitted on the training part of fold 0 and scored on its validation part for every grid
point. GridSearchCV(n_jobs=1) runs exactly these fits and scores five times (once per fold) plus
one refit at the best point, so its time is estimated as 5 × (fold-0 total) + the refit — an
estimate, printed as such: the full GridSearchCV would take hours per set on this machine. Test
accuracy of each chosen model and the best test accuracy any grid point reaches (every grid point
refitted by fwsvm on the full training set) are printed beside the times.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC as LibsvmSVC

from fwsvm import SVC, SVCSearch

sys.path.insert(0, str(Path(__file__).parent))
from peers import load_dataset  # noqa: E402

DATA = os.environ.get("FWSVM_DATA", str(Path(__file__).resolve().parents[3] / "shared" / "data"))
SETS = {
    "a9a": ("a9a", "a9a.t"),
    "w8a": ("w8a", "w8a.t"),
    "shuttle-1": ("shuttle.scale#1", "shuttle.scale.t#1"),
    "mnist-0": ("mnist.scale.bz2#0", "mnist.scale.t.bz2#0"),
    "make_classification": ("gen:make_classification", None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", choices=sorted(SETS))
    parser.add_argument("--skip-libsvm", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for name in args.sets:
        X, Xt, y, yt = load_dataset(DATA, *SETS[name])
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        print(f"\n# {name}: {X.shape[0]} × {X.shape[1]}, test {Xt.shape[0]}", flush=True)
        rows = []
        t = time.perf_counter()
        exhaustive = SVCSearch(SVC(n_jobs=1), cv=cv).fit(X, y)
        rows.append(("fwsvm.SVCSearch, 1 thread", time.perf_counter() - t, exhaustive.best_params_,
                     exhaustive.best_estimator_.score(Xt, yt)))
        print(rows[-1], flush=True)
        t = time.perf_counter()
        halving = SVCSearch(SVC(n_jobs=1), cv=cv, halving=True).fit(X, y)
        rows.append(("fwsvm.SVCSearch(halving=True), 1 thread", time.perf_counter() - t, halving.best_params_,
                     halving.best_estimator_.score(Xt, yt)))
        print(rows[-1], flush=True)
        params = exhaustive.cv_results_["params"]
        tests = [SVC(n_jobs=1, **p).fit(X, y).score(Xt, yt) for p in params]
        print(f"best test accuracy of any grid point: {max(tests):.4f}", flush=True)
        if not args.skip_libsvm:
            train, valid = next(cv.split(X, y))
            fold0, scores = 0.0, []
            for p in params:
                t = time.perf_counter()
                model = LibsvmSVC(**p).fit(X[train], y[train])
                scores.append(model.score(X[valid], y[valid]))
                fold0 += time.perf_counter() - t
                print(f"  LIBSVM fold 0 {p}: {scores[-1]:.4f}, {fold0:.1f} s so far", flush=True)
            best = params[int(np.argmax(scores))]
            t = time.perf_counter()
            refit = LibsvmSVC(**best).fit(X, y)
            refit_s = time.perf_counter() - t
            estimate = 5 * fold0 + refit_s
            rows.append(("GridSearchCV(sklearn.svm.SVC) [LIBSVM], estimated 5 × fold 0 + refit", estimate,
                         f"{best} (by fold 0)", refit.score(Xt, yt)))
            print("| search | seconds | vs LIBSVM | chosen | test accuracy |\n|---|---|---|---|---|")
            for label, seconds, chosen, acc in rows:
                print(f"| {label} | {seconds:.1f} | {estimate / seconds:.1f}× | {chosen} | {acc:.4f} |")


if __name__ == "__main__":
    main()
