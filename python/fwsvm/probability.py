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
