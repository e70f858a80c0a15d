"""Every point of SVCSearch's default 7 × 5 grid fitted on one fold, by fwsvm or LIBSVM: the
per-fold cost of a GridSearchCV-style search (BENCHMARKS.md, "The search on a9a").

    taskset -c 1 python3 benches/compare/search_fold0.py libsvm a9a [--shuffled] [--resume done.jsonl] >> libsvm.jsonl
    taskset -c 1 python3 benches/compare/search_fold0.py fwsvm a9a > fwsvm.jsonl

The fold is the first of ``StratifiedKFold(5)`` (unshuffled: the folds ``GridSearchCV`` and
``SVCSearch`` use with ``cv=5``). For each (C, γ) — C = 2⁻³, 2⁻¹, …, 2⁹ and γ = scale · 2⁻⁴,
2⁻², 1, 2², 2⁴ with ``scale`` = 1 / (n_features · Var X) — one JSON line: the fit and score
seconds on that fold, the validation accuracy, the support vectors. Both tools use the hinge
loss at the same C (``sklearn.svm.SVC()`` defaults: tol 1e-3, 200 MB cache; ``fwsvm.SVC(n_jobs=1)``).
Points are fitted from the cheapest expected (small C) to the most expensive, or with
``--shuffled`` in a fixed random order (a run cut short is then a sample of the whole grid,
not its cheap end); ``--resume`` skips the points already in a file of earlier lines. Five
folds cost about five times one.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np

from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC as LibsvmSVC

import fwsvm
from fwsvm.search import DEFAULT_GAMMA_FACTORS
from fwsvm.tuning import DEFAULT_CS

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool", choices=["fwsvm", "libsvm"])
    parser.add_argument("data")
    parser.add_argument("--shuffled", action="store_true")
    parser.add_argument("--resume", default=None)
    args = parser.parse_args()
    tool, name = args.tool, args.data
    warnings.simplefilter("ignore")
    done = set()
    if args.resume and os.path.exists(args.resume):
        with open(args.resume) as f:
            done = {(d["C"], d["gamma_factor"]) for d in map(json.loads, f) if d["tool"] == tool}
    X, y = fwsvm.load_svmlight_file(os.path.join(DATA, name))
    train, valid = next(StratifiedKFold(5).split(X, y))
    scale = fwsvm.SVC()._resolve_gamma(X)
    points = [(C, factor) for C in DEFAULT_CS for factor in DEFAULT_GAMMA_FACTORS]
    if args.shuffled:
        points = [points[k] for k in np.random.default_rng(0).permutation(len(points))]
    for C, factor in points:
        if (C, factor) in done:
            continue
        gamma = scale * factor
        model = fwsvm.SVC(C=C, gamma=gamma, n_jobs=1) if tool == "fwsvm" else LibsvmSVC(C=C, gamma=gamma)
        start = time.perf_counter()
        model.fit(X[train], y[train])
        fit = time.perf_counter() - start
        start = time.perf_counter()
        accuracy = model.score(X[valid], y[valid])
        score = time.perf_counter() - start
        print(json.dumps({"tool": tool, "data": name, "C": C, "gamma_factor": factor, "gamma": gamma,
                          "fit_s": round(fit, 3), "score_s": round(score, 3), "valid_accuracy": accuracy,
                          "n_sv": int(sum(model.n_support_))}), flush=True)


if __name__ == "__main__":
    main()
