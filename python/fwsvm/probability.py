"""Class probabilities for SVC: Platt scaling on cross-validated decision values and pairwise
coupling, as LIBSVM computes them.

For each pair of classes (i, j) in LIBSVM's order, a sigmoid ``P(class i | f) = 1 / (1 +
exp(A f + B))`` is fitted to decision values ``f`` that the rows of classes i and j received
from models trained without them (5-fold cross-validation), by the Newton method with
backtracking of Lin, Lin & Weng (2007, "A note on Platt's probabilistic outputs"), LIBSVM's
``sigmoid_train``. Predictions clip the pairwise probabilities to [1e-7, 1 − 1e-7] and couple
them into class probabilities by method 2 of Wu, Lin & Weng (2004, "Probability estimates for
multi-class classification by pairwise coupling"), LIBSVM's ``multiclass_probability``,
vectorised over rows here.

Sign convention: a pair's value ``f`` is positive for its first class i (LIBSVM's layout;
``decision_function_shape="ovo"`` values), so for two classes ``f = -decision_function``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from fwsvm import _core


def sigmoid_train(dec: Any, positive: Any) -> tuple[float, float]:
    """Fit (A, B) of ``1 / (1 + exp(A f + B))`` to decision values ``dec`` whose label is
    ``positive`` (a boolean array), with Platt's regularised targets; LIBSVM's
    ``sigmoid_train`` step for step (in Rust)."""
    return _core.sigmoid_train(np.ascontiguousarray(dec, dtype=np.float64), np.ascontiguousarray(positive, dtype=bool))


def sigmoid_predict(dec: Any, a: Any, b: Any) -> np.ndarray:
    """``1 / (1 + exp(A f + B))``, without overflow (broadcasting over pairs)."""
    dec, a, b = np.broadcast_arrays(np.asarray(dec, dtype=np.float64), np.asarray(a, dtype=np.float64),
                                    np.asarray(b, dtype=np.float64))
    flat = [np.ascontiguousarray(v).ravel() for v in (dec, a, b)]
    return _core.sigmoid_predict(*flat).reshape(dec.shape)


def couple(pairwise: np.ndarray, n_classes: int, order: Any = ()) -> np.ndarray:
    """Class probabilities (n, k) from pairwise ones (n, k(k−1)/2), ``pairwise[:, p]`` being
    P(class i | i or j) for pair p = (i, j) in LIBSVM's order, clipped to [1e-7, 1 − 1e-7].
    Two classes: the pair's probability itself; more: Wu, Lin & Weng's method 2 (LIBSVM's
    ``multiclass_probability``), sweeping the classes in ``order`` (a LIBSVM file's label order;
    empty: sorted), in Rust."""
    return _core.couple(np.ascontiguousarray(pairwise, dtype=np.float64), int(n_classes), [int(c) for c in order])


def fit_platt(est: Any, X: Any, y_index: np.ndarray, sample_weight: np.ndarray | None,
              n_folds: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """(probA, probB) per pair in LIBSVM's order for the fitted SVC ``est``, from decision
    values of ``n_folds``-fold cross-validation (stratified and shuffled with the estimator's
    seed, one model per fold for all pairs at once). A pair whose two classes are not both in
    a fold's training part scores that fold's rows ±1 (or 0), as LIBSVM does."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    k = len(est.classes_)
    first, second = np.triu_indices(k, k=1)
    n = len(y_index)
    dec = np.zeros((n, len(first)))
    split = StratifiedKFold(n_splits=min(n_folds, n), shuffle=True, random_state=_seed(est.random_state))
    sub = clone(est).set_params(probability=False, warm_start=False, verbose=False, record_history=False)
    gram = est.kernel == "precomputed"
    with warnings.catch_warnings():
        # "The least populated class has only m members": such folds are handled below.
        warnings.simplefilter("ignore", UserWarning)
        splits = list(split.split(np.zeros(n), y_index))
    for train, test in splits:
        present = np.zeros(k, dtype=bool)
        present[y_index[train]] = True
        # Pairs missing a class in this fold: +1 (only i seen), −1 (only j) or 0 (neither).
        dec[test] = np.where(present[first], 1.0, np.where(present[second], -1.0, 0.0))
        if present.sum() < 2:
            continue
        weights = None if sample_weight is None else sample_weight[train]
        X_train, X_test = (X[train][:, train], X[test][:, train]) if gram else (X[train], X[test])
        model = clone(sub).fit(X_train, est.classes_[y_index[train]], sample_weight=weights)
        values = pair_values(model, X_test)  # over the fold's own classes, in their order
        seen = np.flatnonzero(present)
        fold_first, fold_second = np.triu_indices(len(seen), k=1)
        for fp, (i, j) in enumerate(zip(seen[fold_first], seen[fold_second])):
            dec[test, _pair_index(i, j, k)] = values[:, fp]
    prob_a, prob_b = np.empty(len(first)), np.empty(len(first))
    for p, (i, j) in enumerate(zip(first, second)):
        rows = (y_index == i) | (y_index == j)
        prob_a[p], prob_b[p] = sigmoid_train(dec[rows, p], y_index[rows] == i)
    return prob_a, prob_b


def pair_values(model: Any, X: Any) -> np.ndarray:
    """One-vs-one decision values (n, n_pairs), positive for each pair's first class."""
    if len(model.classes_) == 2:
        return -np.asarray(model.decision_function(X)).reshape(-1, 1)
    shape = model.decision_function_shape
    try:
        model.decision_function_shape = "ovo"
        return np.asarray(model.decision_function(X))
    finally:
        model.decision_function_shape = shape


def _pair_index(i: int, j: int, k: int) -> int:
    """Position of pair (i, j), i < j, in LIBSVM's order (0,1), (0,2), …, (1,2), …"""
    return i * (2 * k - i - 1) // 2 + (j - i - 1)


def _seed(random_state: Any) -> Any:
    """The folds' seed: the estimator's, or 0 (reproducible by default, as the fit is)."""
    return 0 if random_state is None else random_state
