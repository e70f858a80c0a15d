"""(C, γ) search by cross-validation that reuses what a grid search throws away.

:class:`SVCSearch` scores every (C, γ) of a grid on k folds like scikit-learn's
``GridSearchCV(SVC(), {"C": ..., "gamma": ...})`` and reports in its layout (``cv_results_``,
``best_params_``, ``best_estimator_``), but it does not fit the grid points independently:

- **Warm starts through the grid.** On each fold the grid is walked as a snake — C ascending at
  the first γ, descending at the next, … — and every fit starts from the solution of its
  neighbour. For the hinge loss α ∈ [0, C]ⁿ with yᵀα = 0 is feasible whatever the kernel, and
  the step along C scales α by C_new/C_old (LIBSVM's warm start); for the squared hinge α stays
  on the simplex whatever C and γ are.
- **Folds in parallel.** The folds are independent: with ``n_jobs`` > 1 they run on a thread
  pool (each fit releases the GIL), every fit on one thread, so the results do not depend on
  ``n_jobs``.
- **A data-driven default grid.** γ around ``"scale"`` (1 / (n_features · Var X)) times
  2⁻⁴ … 2⁴, and C over LIBSVM's grid.py range 2⁻³ … 2⁹ (every second power of two); the same
  numeric γ values are used on every fold.

Multiclass problems are fitted one-vs-one from cold starts (the warm start is binary only).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, indexable

from fwsvm.svm import SVC
from fwsvm.tuning import DEFAULT_CS

#: Default γ grid: these multiples of ``gamma="scale"``.
DEFAULT_GAMMA_FACTORS = tuple(2.0**k for k in (-4, -2, 0, 2, 4))


class SVCSearch(ClassifierMixin, BaseEstimator):
    """SVC with C and γ chosen by k-fold cross-validation over a grid, warm-started.

    Parameters
    ----------
    estimator : SVC, default=None
        Template for every other parameter (default ``SVC()``; ``C``, ``gamma`` and
        ``warm_start`` are set by the search).
    Cs : sequence of float, default=None
        Candidate penalties; ``None``: 2⁻³, 2⁻¹, …, 2⁹.
    gammas : sequence of float, default=None
        Candidate kernel widths; ``None``: ``gamma="scale"`` of the training data times
        2⁻⁴, 2⁻², 1, 2², 2⁴.
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (stratified k-fold for classification).
    scoring : str, callable or None, default=None
        As in scikit-learn; ``None`` is accuracy.
    refit : bool, default=True
        Fit ``best_estimator_`` on all the data with the best parameters.
    n_jobs : int or None, default=None
        Folds fitted at the same time (threads; ``None`` or 1: one at a time, each fit then
        uses the template's ``n_jobs``; -1: all cores). The results do not depend on it.
    warm_start : bool or "auto", default="auto"
        Start each fit from its grid neighbour's solution (binary problems); ``False`` fits
        every grid point from scratch, as ``GridSearchCV`` does. ``"auto"``: warm for the
        squared hinge (about half the steps along C), cold for the hinge loss, whose SMO steps
        did not drop from a neighbour's α (a1a, 35 × 5 fits: 581k warm against 613k cold steps,
        and slower; BENCHMARKS.md, "The (C, γ) search").

    Attributes
    ----------
    cv_results_ : dict of ndarray
        In ``GridSearchCV``'s layout: ``params``, ``param_C``, ``param_gamma``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score``, ``rank_test_score``,
        ``mean_fit_time``, ``std_fit_time``, ``mean_score_time``, ``std_score_time``, and
        ``n_iter`` (solver steps summed over the folds).
    best_index_ : int
    best_params_ : dict
        ``{"C": ..., "gamma": ...}`` (ties: the first candidate in ``cv_results_`` order).
    best_score_ : float
    best_estimator_ : SVC
        Refitted on all the data (when ``refit``).
    refit_time_ : float
    search_seconds_ : float
        Wall time of the cross-validation (without the refit).
    n_splits_ : int
    classes_ : ndarray
    n_features_in_ : int
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "estimator": [SVC, None],
        "Cs": ["array-like", None],
        "gammas": ["array-like", None],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object"],
        "scoring": [str, callable, None],
        "refit": ["boolean"],
        "n_jobs": [Integral, None],
        "warm_start": ["boolean", StrOptions({"auto"})],
    }

    def __init__(
        self,
        estimator: SVC | None = None,
        *,
        Cs: Any = None,
        gammas: Any = None,
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        n_jobs: int | None = None,
        warm_start: bool | str = "auto",
    ) -> None:
        self.estimator = estimator
        self.Cs = Cs
        self.gammas = gammas
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.warm_start = warm_start

    def fit(self, X: Any, y: Any) -> SVCSearch:
        """Score the grid on every fold, pick the best (C, γ), refit."""
        self._validate_params()
        X, y = indexable(X, y)
        y = np.asarray(y)
        template = clone(self.estimator) if self.estimator is not None else SVC()
        if template.kernel not in ("rbf", "poly", "sigmoid"):
            raise ValueError(f"SVCSearch searches gamma: the kernel must be rbf, poly or sigmoid, not {template.kernel!r}")
        Cs = _positive(DEFAULT_CS if self.Cs is None else self.Cs, "Cs")
        if self.gammas is None:
            scale = clone(template).set_params(gamma="scale")._resolve_gamma(
                check_array(X, accept_sparse="csr", dtype=np.float64))
            gammas = np.array([scale * f for f in DEFAULT_GAMMA_FACTORS])
        else:
            gammas = _positive(self.gammas, "gammas")
        candidates = list(ParameterGrid({"C": [float(c) for c in Cs], "gamma": [float(g) for g in gammas]}))
        index = {(p["C"], p["gamma"]): k for k, p in enumerate(candidates)}
        cv = check_cv(self.cv, y, classifier=type_of_target(y) in ("binary", "multiclass"))
        splits = list(cv.split(X, y))
        scorer = check_scoring(template, self.scoring)
        workers = _workers(self.n_jobs, len(splits))
        if workers > 1:
            template.set_params(n_jobs=1)
        warm = self.warm_start if self.warm_start != "auto" else template.loss == "squared_hinge"
        order = _snake(sorted(set(float(c) for c in Cs)), sorted(set(float(g) for g in gammas)))

        def run_fold(split: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
            train, test = split
            X_train, y_train = _safe_indexing(X, train), y[train]
            X_test, y_test = _safe_indexing(X, test), y[test]
            est = clone(template).set_params(warm_start=warm)
            out = np.zeros((len(candidates), 4))  # score, fit seconds, score seconds, steps
            for C, gamma in order:
                k = index[(C, gamma)]
                start = time.perf_counter()
                est.set_params(C=C, gamma=gamma).fit(X_train, y_train)
                fitted = time.perf_counter()
                out[k] = (scorer(est, X_test, y_test), fitted - start, time.perf_counter() - fitted,
                          float(np.sum(est.n_iter_)))
            return out

        start = time.perf_counter()
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                per_fold = list(pool.map(run_fold, splits))
        else:
            per_fold = [run_fold(s) for s in splits]
        self.search_seconds_ = time.perf_counter() - start
        self.n_splits_ = len(splits)
        self.cv_results_ = _results(candidates, np.stack(per_fold))
        self.best_index_ = int(np.argmin(self.cv_results_["rank_test_score"]))
        self.best_params_ = dict(candidates[self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        if self.refit:
            start = time.perf_counter()
            best = clone(self.estimator) if self.estimator is not None else SVC()
            self.best_estimator_ = best.set_params(**self.best_params_, warm_start=False).fit(X, y)
            self.refit_time_ = time.perf_counter() - start
            self.classes_ = self.best_estimator_.classes_
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _best(self) -> SVC:
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of ``best_estimator_``."""
        return self._best().predict(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values of ``best_estimator_``."""
        return self._best().decision_function(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Score of ``best_estimator_`` with the search's ``scoring`` (accuracy by default)."""
        best = self._best()
        if self.scoring is None:
            return best.score(X, y, sample_weight=sample_weight)
        return check_scoring(best, self.scoring)(best, X, y)


def _positive(values: Any, name: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64).ravel()
    if len(out) == 0 or not np.all(np.isfinite(out) & (out > 0)):
        raise ValueError(f"{name} must be a non-empty sequence of positive finite numbers, got {values!r}")
    return out


def _workers(n_jobs: int | None, n_splits: int) -> int:
    import os

    if n_jobs is None or n_jobs == 1:
        return 1
    cores = os.cpu_count() or 1
    wanted = cores if n_jobs < 0 else n_jobs
    return max(1, min(wanted, n_splits))


def _snake(Cs: list[float], gammas: list[float]) -> list[tuple[float, float]]:
    """The grid walked so that consecutive points are neighbours: C up at the first γ, down
    at the second, …"""
    order = []
    for k, gamma in enumerate(gammas):
        for C in (Cs if k % 2 == 0 else Cs[::-1]):
            order.append((C, gamma))
    return order


def _results(candidates: list[dict[str, float]], per_fold: np.ndarray) -> dict[str, Any]:
    """``cv_results_`` in ``GridSearchCV``'s layout from per-fold (score, fit s, score s,
    steps) rows."""
    scores, fit_s, score_s, steps = (per_fold[:, :, j] for j in range(4))
    results: dict[str, Any] = {
        "mean_fit_time": fit_s.mean(axis=0),
        "std_fit_time": fit_s.std(axis=0),
        "mean_score_time": score_s.mean(axis=0),
        "std_score_time": score_s.std(axis=0),
    }
    for name in ("C", "gamma"):
        results[f"param_{name}"] = np.ma.MaskedArray([p[name] for p in candidates], mask=False, dtype=object)
    results["params"] = [dict(p) for p in candidates]
    for k in range(scores.shape[0]):
        results[f"split{k}_test_score"] = scores[k]
    mean = scores.mean(axis=0)
    results["mean_test_score"] = mean
    results["std_test_score"] = scores.std(axis=0)
    # scikit-learn's ranking: ties share the smallest rank.
    results["rank_test_score"] = (np.searchsorted(np.sort(-mean), -mean) + 1).astype(np.int32)
    results["n_iter"] = steps.sum(axis=0).astype(np.int64)
    return results
