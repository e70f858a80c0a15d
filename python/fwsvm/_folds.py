"""The fold engine of the cross-validated searches (:class:`fwsvm.SVCSearch`,
:class:`fwsvm.SVCCV`, :class:`fwsvm.dask.DaskSVCSearch`): each fold split and checked once,
the fits of a fold that depend on each other (one warm-started chain along C) run in order,
independent chains on a thread pool or as Dask tasks, every fit scored on its fold's test rows.
"""

from __future__ import annotations

import copy
import os
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import _safe_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_X_y

from fwsvm import _core
from fwsvm.svm import SVC

#: The penalties a C search tries by default: LIBSVM's grid.py range 2⁻³ … 2⁹, every second
#: power of two (the benchmark protocol's grid; ``SVCCV``'s default ``Cs``, from the Rust table).
DEFAULT_CS: tuple[float, ...] = _core.DEFAULT_CS

def map_folds(X: Any, y: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], template: SVC,
              chains: list[list[tuple[float, Any, int]]], n_slots: int, warm: bool, scorer: Any,
              n_workers: int) -> np.ndarray:
    """Runs :func:`fit_points` on every (split, chain) on ``n_workers`` threads (each fit
    releases the GIL; every fit on one thread, so the results do not depend on the count):
    an (n_splits, n_slots, 5) array."""
    tasks = chain_tasks(chains, len(splits))
    folds = _Folds(template, X, y, splits)

    def run(task: tuple[int, list[tuple[float, Any, int]]]) -> np.ndarray:
        return fit_points(folds[task[0]], template, task[1], n_slots, warm, scorer)

    if n_workers > 1:
        with ThreadPoolExecutor(n_workers) as pool:
            parts = list(pool.map(run, tasks))
    else:
        parts = [run(task) for task in tasks]
    return gather_chains(parts, tasks, len(splits), n_slots)


#: Folds whose rows together take at most this many bytes are split once per search and kept;
#: larger data is split again by every task (at most one copy per thread alive).
FOLD_CACHE_BYTES = 1 << 30


class _Folds:
    """The checked (X_train, y_train, X_test, y_test) of each split, made on first use (under
    the split's lock: its other tasks wait for it) and kept while the copies of all splits fit
    in :data:`FOLD_CACHE_BYTES`. Splitting and checking the rows once per split instead of once
    per grid point, with the fits skipping scikit-learn's checks, took a small search's Python
    — which holds the GIL, so two threads wait for each other in it — from a sixth of its time
    to a twelfth (a1a: two threads 1.82× → 1.92× one; BENCHMARKS.md)."""

    def __init__(self, template: SVC, X: Any, y: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.template, self.X, self.y, self.splits = template, X, y, splits
        size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if sp.issparse(X) else np.asarray(X).nbytes
        self.keep = size * len(splits) <= FOLD_CACHE_BYTES
        self.kept: dict[int, tuple[Any, np.ndarray, Any, np.ndarray]] = {}
        self.locks = [threading.Lock() for _ in splits]

    def __getitem__(self, k: int) -> tuple[Any, np.ndarray, Any, np.ndarray]:
        if not self.keep:
            return split_fold(self.template, self.X, self.y, *self.splits[k])
        with self.locks[k]:
            if k not in self.kept:
                self.kept[k] = split_fold(self.template, self.X, self.y, *self.splits[k])
            return self.kept[k]


def split_fold(template: SVC, X: Any, y: np.ndarray, train: np.ndarray,
               test: np.ndarray) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """(X_train, y_train, X_test, y_test) of one split, checked as ``SVC.fit`` and ``predict``
    check their input (for a precomputed kernel: the train columns of the rows)."""
    X_train, y_train = _safe_split(template, X, y, train)
    X_test, y_test = _safe_split(template, X, y, test, train)
    X_train, y_train = check_X_y(X_train, y_train, accept_sparse="csr", dtype=np.float64, order="C",
                                 accept_large_sparse=True, estimator=template)
    check_classification_targets(y_train)
    X_test = check_array(X_test, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True,
                         estimator=template)
    return X_train, y_train, X_test, np.asarray(y_test)


def score_fold(X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray, template: SVC,
               points: list[tuple[float, float, int]], n_slots: int, warm: bool, scorer: Any) -> np.ndarray:
    """:func:`fit_points` on the split (``train``, ``test``) of X, y (a Dask task's work)."""
    return fit_points(split_fold(template, X, y, train, test), template, points, n_slots, warm, scorer)


def fit_points(fold: tuple[Any, np.ndarray, Any, np.ndarray], template: SVC, points: list[tuple[float, float, int]],
               n_slots: int, warm: bool, scorer: Any) -> np.ndarray:
    """Fits ``template`` on the fold's training rows at every (C, γ, slot) of ``points`` in
    order (each fit warm-started from the previous one when ``warm``) and scores it on its test
    rows (``scorer`` None: accuracy): an (n_slots, 5) array of score, fit seconds, score
    seconds, solver steps and 1.0 if the fit met its stopping rule (0.0 if it stopped at the
    template's ``max_iter``: the search reports those fits in ``cv_results_["converged"]`` and
    one warning instead of one per fit).

    The rows come checked (:func:`split_fold`) and the template unfitted with its parameters
    validated; the grid's C and γ are positive numbers (the search checked them), set directly."""
    X_train, y_train, X_test, y_test = fold
    # A copy of the unfitted, validated template: clone's and set_params' get_params were
    # a tenth of a small fit's Python.
    est = copy.copy(template)
    est.warm_start = warm
    out = np.zeros((n_slots, 5))
    for C, gamma, slot in points:
        est.C, est.gamma = C, gamma
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est._fit_validated(X_train, y_train)
        fitted = time.perf_counter()
        if scorer is None:
            score = float(np.mean(est._predict_validated(X_test) == y_test))
        else:
            score = scorer(est, X_test, y_test)
        out[slot] = (score, fitted - start, time.perf_counter() - fitted,
                     float(np.sum(est.n_iter_)), float(est.fit_status_ == 0))
    return out


def positive(values: Any, name: str) -> np.ndarray:
    out = np.asarray(values, dtype=np.float64).ravel()
    if len(out) == 0 or not np.all(np.isfinite(out) & (out > 0)):
        raise ValueError(f"{name} must be a non-empty sequence of positive finite numbers, got {values!r}")
    return out


def workers(n_jobs: int | None, n_tasks: int) -> int:
    """Threads for ``n_tasks`` independent fits at ``n_jobs`` (None or 1: the calling thread)."""
    if n_jobs is None or n_jobs == 1:
        return 1
    cores = os.cpu_count() or 1
    wanted = cores if n_jobs < 0 else n_jobs
    return max(1, min(wanted, n_tasks))


def chains_of(slot: dict[tuple[float, float], int], warm: bool) -> list[list[tuple[float, float, int]]]:
    """The grid points ``{(C, γ): slot}`` as the fits of one fold that depend on each other:
    with ``warm``, one chain per γ with its (C, γ, slot) in ascending C; cold, every point on its
    own, the largest C first (the longest fits: scheduled first, they do not end the search
    on one thread while the other waits)."""
    if not warm:
        return [[(C, gamma, k)] for (C, gamma), k in sorted(slot.items(), key=lambda p: (-p[0][0], p[0][1]))]
    gammas = sorted({gamma for _, gamma in slot})
    return [[(C, gamma, slot[(C, gamma)]) for C in sorted(C for C, g in slot if g == gamma)] for gamma in gammas]


def chain_tasks(chains: list[list[tuple[float, float, int]]], n_splits: int) -> list[tuple[int, Any]]:
    """The (split, chain) tasks of a search, in the order of ``chains`` (for cold fits: the
    largest C first)."""
    return [(k, chain) for chain in chains for k in range(n_splits)]


def gather_chains(parts: list[np.ndarray], tasks: list[tuple[int, Any]], n_splits: int, n_slots: int) -> np.ndarray:
    """The per-task (n_slots, 5) rows of :func:`score_fold` (each filled only at its chain's
    slots) as one (n_splits, n_slots, 5) array."""
    out = np.zeros((n_splits, n_slots, 5))
    for (k, _), part in zip(tasks, parts):
        out[k] += part
    return out
