"""(C, γ) search by cross-validation that reuses what a grid search throws away.

:class:`SVCSearch` scores every (C, γ) of a grid on k folds like scikit-learn's
``GridSearchCV(SVC(), {"C": ..., "gamma": ...})`` and reports in its layout (``cv_results_``,
``best_params_``, ``best_estimator_``), but it does not fit the grid points independently:

- **Warm starts along C.** On each fold the Cs of one γ are fitted in ascending order, every
  fit starting from the solution at the previous C. For the hinge loss α ∈ [0, C]ⁿ with
  yᵀα = 0 is feasible whatever the kernel, and the step along C scales α by C_new/C_old
  (LIBSVM's warm start); for the squared hinge α stays on the simplex whatever C is.
- **Folds and grid points in parallel.** Each fold's fits that do not depend on each other are
  separate tasks — every grid point when the fits start cold (the hinge loss's default), one
  chain per γ when they are warm-started along C: with ``n_jobs`` > 1 the tasks run on a
  thread pool (each fit releases the GIL), every fit on one thread, so the results do not
  depend on ``n_jobs``. With 175 tasks (or 25 chains) rather than 5 folds the threads stay
  busy to the end: two threads on five folds idle one thread for a fifth of the search.
- **A data-driven default grid.** γ around ``"scale"`` (1 / (n_features · Var X)) times
  2⁻⁴ … 2⁴, and C over LIBSVM's grid.py range 2⁻³ … 2⁹ (every second power of two); the same
  numeric γ values are used on every fold.

Multiclass problems are fitted one-vs-one from cold starts (the warm start is binary only).
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv, train_test_split
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.metaestimators import _safe_split

from fwsvm._folds import DEFAULT_CS, chains_of, map_folds, positive, workers
from fwsvm._parameters import parameters
from fwsvm.svm import SVC
from fwsvm.tuning import BestEstimatorMixin

#: Default γ grid: these multiples of ``gamma="scale"``.
DEFAULT_GAMMA_FACTORS = tuple(2.0**k for k in (-4, -2, 0, 2, 4))


@parameters(estimator=[SVC, None])
class SVCSearch(BestEstimatorMixin, ClassifierMixin, BaseEstimator):
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
        2⁻⁴, 2⁻², 1, 2², 2⁴ (for a kernel without γ — linear, precomputed — only C is
        searched).
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (stratified k-fold for classification).
    scoring : str, callable or None, default=None
        As in scikit-learn; ``None`` is accuracy.
    refit : bool, default=True
        Fit ``best_estimator_`` on all the data with the best parameters.
    n_jobs : int or None, default=None
        Fits (or warm-started chains of fits) run at the same time (threads; ``None`` or 1: one at a time, each
        fit then uses the template's ``n_jobs``; -1: all cores). The results do not depend on
        it.
    halving : bool, default=False
        Successive halving (as scikit-learn's ``HalvingGridSearchCV`` with the number of
        samples as the resource): every candidate is scored on a stratified subsample, the best
        1/``factor`` go on to a ``factor`` times larger one, and only the last round uses all
        the data. ``cv`` must be a number of folds or a splitter (it splits every subsample),
        not fixed index lists. Data stored in a meaningful order (w8a's training file: its
        unshuffled 5-fold CV accuracy is 0.969 where shuffled folds and the test set give
        0.988–0.991) needs shuffled folds, ``StratifiedKFold(k, shuffle=True)``, here as in
        any cross-validation.
    factor : float, default=3
        The halving rate.
    local_search : bool, default=False
        With ``halving``: after the last round, climb the grid on all the data — score the
        best candidate's grid neighbours (one step along C or along γ) that the rounds
        eliminated, move to a better one, repeat — so the choice is a local maximum of the
        full-data CV score, as the exhaustive search's choice is a global one. It costs
        rounds on all the data: measured 2.4–3× the time of the rounds (w8a, a9a,
        make_classification 70k × 20), where it moved the choice to the exhaustive search's on
        w8a and left it unchanged on the other two (BENCHMARKS.md, "The search on the large
        sets").
    min_resources : int, default=500
        Samples of the first round (at least two per fold and class). Rounds are as many as
        this and the candidates allow; smaller first rounds were measured to pick worse
        parameters (a1a from 59 samples: test accuracy 0.833 against 0.843).
    warm_start : bool or "auto", default="auto"
        Start each fit from the solution at the next smaller C of its γ (binary problems); ``False`` fits
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
        ``n_iter`` (solver steps summed over the folds) and ``converged`` (the fraction of
        folds whose fit met its stopping rule; a budget per grid point is the template's
        ``max_iter``, and fits it stops are reported there and in one ConvergenceWarning);
        with ``halving``, one row per
        candidate and round with ``iter`` and ``n_resources`` as in ``HalvingGridSearchCV``.
    best_index_ : int
    best_params_ : dict
        ``{"C": ..., "gamma": ...}`` (ties: the first candidate in ``cv_results_`` order).
    best_score_ : float
    best_estimator_ : SVC
        Refitted on all the data (when ``refit``).
    refit_time_ : float
    search_seconds_ : float
        Wall time of the cross-validation (without the refit).
    n_resources_, n_candidates_ : list of int
        With ``halving``: the samples and the candidates of each round (the local search's
        steps are rounds on all the data).
    n_splits_ : int
    classes_ : ndarray
    n_features_in_ : int
    """

    def fit(self, X: Any, y: Any) -> SVCSearch:
        """Score the grid on every fold, pick the best (C, γ), refit."""
        X, y, X_checked, template = self._start(X, y)
        has_gamma = template.kernel in ("rbf", "poly", "sigmoid")
        if not has_gamma and self.gammas is not None:
            raise ValueError(f"gammas were given but the kernel {template.kernel!r} has no gamma: "
                             "the kernel must be rbf, poly or sigmoid")
        Cs = positive(DEFAULT_CS if self.Cs is None else self.Cs, "Cs")
        if not has_gamma:
            gammas = np.array([1.0])  # not used by the kernel: the search is over C
        elif self.gammas is None:
            scale = clone(template).set_params(gamma="scale")._resolve_gamma(X_checked)
            gammas = np.array([scale * f for f in DEFAULT_GAMMA_FACTORS])
        else:
            gammas = positive(self.gammas, "gammas")
        candidates = list(ParameterGrid({"C": [float(c) for c in Cs], "gamma": [float(g) for g in gammas]}))
        classifier = type_of_target(y) in ("binary", "multiclass")
        # None: accuracy, computed in score_fold without scikit-learn's scorer machinery (the
        # same value; its checks cost a millisecond a fit, a sixth of a small search's Python).
        scorer = check_scoring(template, self.scoring) if self.scoring is not None else None
        n_splits = check_cv(self.cv, y, classifier=classifier).get_n_splits(X, y)
        n_workers = workers(self.n_jobs, len(candidates) * n_splits)
        if n_workers > 1:
            template.set_params(n_jobs=1)
        warm = self.warm_start if self.warm_start != "auto" else template.loss == "squared_hinge"

        def score(rows: np.ndarray | None, alive: list[int]) -> np.ndarray:
            """(n_splits, len(alive), 4) per-fold score, fit s, score s, steps of the alive
            candidates on the rows (None: all)."""
            X_r, y_r = (X_checked, y) if rows is None else _safe_split(template, X_checked, y, rows)
            splits = list(check_cv(self.cv, y_r, classifier=classifier).split(X_r, y_r))
            slot = {(candidates[k]["C"], candidates[k]["gamma"]): a for a, k in enumerate(alive)}
            return self._map_folds(X_r, y_r, splits, template, chains_of(slot, warm), len(alive), warm, scorer,
                                   n_workers)

        start = time.perf_counter()
        if not self.halving:
            self.cv_results_ = _results(candidates, score(None, list(range(len(candidates)))))
            self.best_index_ = int(np.argmin(self.cv_results_["rank_test_score"]))
        else:
            if not (isinstance(self.cv, Integral) or hasattr(self.cv, "split")):
                raise ValueError("halving draws its own subsamples, which fixed (train, test) index lists cannot "
                                 "split: give cv as a number of folds or a splitter such as "
                                 "StratifiedKFold(5, shuffle=True, random_state=0)")
            blocks, alive, n = [], list(range(len(candidates))), len(y)
            smallest = max(self.min_resources, 2 * n_splits * (len(np.unique(y)) if classifier else 1))
            rounds = 1 + int(np.floor(min(np.log(len(candidates)), np.log(max(n / smallest, 1.0)))
                                      / np.log(self.factor) + 1e-9))
            for k in range(rounds):
                size = n if k == rounds - 1 else max(smallest, int(n / self.factor ** (rounds - 1 - k)))
                rows = None
                if size < n:
                    rows, _ = train_test_split(np.arange(n), train_size=size, random_state=k,
                                               stratify=y if classifier else None)
                    rows = np.sort(rows)
                block = _results([candidates[a] for a in alive], score(rows, alive))
                block["iter"] = np.full(len(alive), k)
                block["n_resources"] = np.full(len(alive), size)
                blocks.append(block)
                if k < rounds - 1:
                    keep = int(np.ceil(len(alive) / self.factor))
                    ranked = np.argsort(-block["mean_test_score"], kind="stable")[:keep]
                    alive = [alive[a] for a in sorted(ranked)]
            if self.local_search:
                blocks += self._local_search(candidates, Cs, gammas, alive, blocks[-1]["mean_test_score"],
                                             lambda idx: score(None, idx), rounds, n)
            self.cv_results_ = _concat(blocks)
            # The choice: the best score on all the data (the last round and the local search).
            full = np.flatnonzero(self.cv_results_["n_resources"] == n)
            self.best_index_ = int(full[np.argmax(self.cv_results_["mean_test_score"][full])])
            self.n_resources_ = [int(b["n_resources"][0]) for b in blocks]
            self.n_candidates_ = [len(b["params"]) for b in blocks]
        self.search_seconds_ = time.perf_counter() - start
        self.n_splits_ = n_splits
        short = self.cv_results_["converged"] < 1.0
        if short.any():
            warnings.warn(
                f"{int(short.sum())} of {short.size} candidates had folds stopped at max_iter="
                f"{template.max_iter} before meeting tol (their scores are those of the iterate "
                "reached): see cv_results_['converged'] (the fraction of folds that converged).",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.best_params_ = dict(self.cv_results_["params"][self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        if self.refit:
            start = time.perf_counter()
            best = clone(self.estimator) if self.estimator is not None else SVC()
            self.best_estimator_ = best.set_params(**self.best_params_, warm_start=False).fit(X, y)
            self.refit_time_ = time.perf_counter() - start
            self.classes_ = self.best_estimator_.classes_
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _local_search(self, candidates: list[dict[str, float]], Cs: np.ndarray, gammas: np.ndarray,
                      alive: list[int], scores: np.ndarray, score_all: Any, rounds: int,
                      n: int) -> list[dict[str, Any]]:
        """Hill climbing on all the data after the halving rounds: the grid neighbours of the
        best candidate (one step along C or γ) not yet scored on all the data are scored,
        and the best moves there, until no neighbour is better. The result rows, one block
        per step (``iter`` after the rounds', ``n_resources`` all the data)."""
        c_rank = {c: i for i, c in enumerate(sorted(set(float(c) for c in Cs)))}
        g_rank = {g: i for i, g in enumerate(sorted(set(float(g) for g in gammas)))}
        at = {(c_rank[p["C"]], g_rank[p["gamma"]]): k for k, p in enumerate(candidates)}
        scored = {k: float(v) for k, v in zip(alive, scores)}
        best = max(scored, key=lambda k: (scored[k], -k))
        blocks: list[dict[str, Any]] = []
        while True:
            i, j = c_rank[candidates[best]["C"]], g_rank[candidates[best]["gamma"]]
            near = sorted(at[q] for q in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1))
                          if q in at and at[q] not in scored)
            if not near:
                return blocks
            block = _results([candidates[k] for k in near], score_all(near))
            block["iter"] = np.full(len(near), rounds + len(blocks))
            block["n_resources"] = np.full(len(near), n)
            blocks.append(block)
            scored.update(zip(near, map(float, block["mean_test_score"])))
            # Ties keep the incumbent: a move needs a strictly better score.
            challenger = max(near, key=lambda k: (scored[k], -k))
            if scored[challenger] <= scored[best]:
                return blocks
            best = challenger

    def _map_folds(self, X: Any, y: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], template: SVC,
                   chains: list[list[tuple[float, float, int]]], n_slots: int, warm: bool, scorer: Any,
                   n_workers: int) -> np.ndarray:
        """The (n_splits, n_slots, 5) scores of every (split, chain): here on a thread pool
        (:func:`fwsvm._folds.map_folds`); :class:`fwsvm.dask.DaskSVCSearch` runs them as tasks
        on a Dask cluster."""
        return map_folds(X, y, splits, template, chains, n_slots, warm, scorer, n_workers)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Score of ``best_estimator_`` with the search's ``scoring`` (accuracy by default)."""
        best = self._best()
        if self.scoring is None:
            return best.score(X, y, sample_weight=sample_weight)
        return check_scoring(best, self.scoring)(best, X, y)


def _concat(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """The rounds of a halving search as one ``cv_results_`` (HalvingGridSearchCV's layout:
    one row per candidate and round, ``iter`` and ``n_resources`` columns, ranks over all)."""
    out: dict[str, Any] = {}
    n_splits = min(sum(key.startswith("split") for key in b) for b in blocks)
    for key in blocks[0]:
        if key.startswith("split") and int(key[5:].split("_")[0]) >= n_splits:
            continue
        if key == "params":
            out[key] = [p for b in blocks for p in b[key]]
        elif key.startswith("param_"):
            out[key] = np.ma.MaskedArray([v for b in blocks for v in b[key].data], mask=False, dtype=object)
        elif key != "rank_test_score":
            out[key] = np.concatenate([b[key] for b in blocks])
    mean = out["mean_test_score"]
    out["rank_test_score"] = (np.searchsorted(np.sort(-mean), -mean) + 1).astype(np.int32)
    return out


def _results(candidates: list[dict[str, float]], per_fold: np.ndarray) -> dict[str, Any]:
    """``cv_results_`` in ``GridSearchCV``'s layout from per-fold (score, fit s, score s,
    steps, converged) rows."""
    scores, fit_s, score_s, steps, converged = (per_fold[:, :, j] for j in range(5))
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
    results["converged"] = converged.mean(axis=0)
    return results
