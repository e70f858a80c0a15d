"""Fast C selection: regularisation paths warm-started along C.

A Frank-Wolfe iterate is a point of the unit simplex whatever C is, so the solution for one C
is a feasible (and usually close) starting point for the next. :func:`svc_path` fits a grid of
C values in ascending order, each fit warm-started from the previous one; :class:`SVCCV`
selects C by cross-validation with one path per fold.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, indexable

from fwsvm._folds import DEFAULT_CS, map_folds, positive
from fwsvm._parameters import parameters
from fwsvm.svm import SVC

__all__ = ["DEFAULT_CS", "SVCCV", "svc_path"]


def svc_path(
    X: Any,
    y: Any,
    Cs: Any = DEFAULT_CS,
    *,
    estimator: SVC | None = None,
    X_val: Any = None,
    y_val: Any = None,
) -> tuple[list[SVC], np.ndarray | None]:
    """Fit one :class:`SVC` per C, in ascending C, each warm-started from the previous one.

    Parameters
    ----------
    X, y : training data (binary labels for the warm start to apply; multiclass fits run cold)
    Cs : sequence of float
        The penalties; fitted in ascending order, returned in the given order.
    estimator : SVC, default=None
        Template for every other parameter (cloned; ``C`` and ``warm_start`` are overridden).
    X_val, y_val : validation data, optional
        When given, the accuracy of each model on it is returned too.

    Returns
    -------
    models : list of SVC, aligned with ``Cs``
    scores : ndarray of shape (len(Cs),) or None
    """
    Cs = np.asarray(Cs, dtype=np.float64)
    if Cs.ndim != 1 or len(Cs) == 0 or not np.all(Cs > 0):
        raise ValueError("Cs must be a non-empty sequence of positive numbers")
    template = clone(estimator) if estimator is not None else SVC()
    current = clone(template).set_params(warm_start=True)
    models: list[SVC | None] = [None] * len(Cs)
    for k in np.argsort(Cs, kind="stable"):
        current.set_params(C=float(Cs[k])).fit(X, y)
        models[k] = _detached(current, template)
    scores = None
    if X_val is not None:
        scores = np.array([m.score(X_val, y_val) for m in models])  # type: ignore[union-attr]
    return models, scores  # type: ignore[return-value]


def _detached(model: SVC, template: SVC) -> SVC:
    """A copy of a fitted path model that no longer carries the warm-start state."""
    out = clone(template).set_params(C=model.C)
    out.__dict__.update({k: v for k, v in model.__dict__.items() if k.endswith("_") or k.startswith("_")})
    out._warm_from = None
    return out


class BestEstimatorMixin:
    """What the searches share: their start (checked parameters and data, the template SVC) and
    prediction by the refitted ``best_estimator_``."""

    if TYPE_CHECKING:  # the searches' __init__ comes from the Rust table (fwsvm._parameters)

        def __init__(self, *args: Any, **params: Any) -> None: ...

    def _start(self, X: Any, y: Any) -> tuple[Any, np.ndarray, Any, SVC]:
        """The search's parameters checked; X and y (an array) as given, X checked once as CSR or
        C-ordered float64 (no copy when it already is: every fold's rows are split from it, the
        refit gets X as given), and the template SVC (a checked clone of ``estimator``)."""
        self._validate_params()  # type: ignore[attr-defined]
        X, y = indexable(X, y)
        X_checked = check_array(X, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True)
        estimator = self.estimator  # type: ignore[attr-defined]
        template = clone(estimator) if estimator is not None else SVC()
        template._validate_params()
        return X, np.asarray(y), X_checked, template

    def _best(self) -> SVC:
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of ``best_estimator_``."""
        return self._best().predict(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Decision values of ``best_estimator_``."""
        return self._best().decision_function(X)


@parameters(estimator=[SVC, None])
class SVCCV(BestEstimatorMixin, ClassifierMixin, BaseEstimator):
    """SVC with C chosen by cross-validation, one warm-started regularisation path per fold.

    Parameters
    ----------
    estimator : SVC, default=None
        Template for all other parameters (default ``SVC()``).
    Cs : sequence of float, default=(2⁻³, 2⁻¹, 2¹, 2³, 2⁵, 2⁷, 2⁹)
        Candidate penalties (the benchmark protocol's grid).
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn (stratified folds for classification); an iterable of one
        ``(train, validation)`` pair gives a single validation split.
    refit : bool, default=True
        Fit ``best_estimator_`` on all the data with the chosen C.

    Attributes
    ----------
    C_ : float
        The chosen C (ties: the smaller C).
    scores_ : ndarray of shape (n_splits, len(Cs))
        Validation accuracy of every C on every split.
    best_estimator_ : SVC
        The refitted model (when ``refit``).
    search_seconds_ : float
        Wall time of the search (the paths), without the refit.
    classes_ : ndarray
    n_features_in_ : int
    """

    def fit(self, X: Any, y: Any) -> SVCCV:
        """Run the per-fold paths, pick C, refit."""
        X, y, X_checked, template = self._start(X, y)
        Cs = positive(self.Cs, "Cs")
        splits = list(check_cv(self.cv, y, classifier=type_of_target(y) in ("binary", "multiclass")).split(X, y))
        start = time.perf_counter()
        # One chain per fold: the Cs in ascending order, each fit warm-started from the previous.
        path = [[(float(Cs[k]), template.gamma, int(k)) for k in np.argsort(Cs, kind="stable")]]
        per_fold = map_folds(X_checked, y, splits, template, path, len(Cs), True, None, 1)
        self.search_seconds_ = time.perf_counter() - start
        self.scores_ = per_fold[:, :, 0]
        mean = self.scores_.mean(axis=0)
        best = [k for k in np.argsort(Cs, kind="stable") if mean[k] == mean.max()][0]
        self.C_ = float(Cs[best])
        if self.refit:
            self.best_estimator_ = clone(template).set_params(C=self.C_, warm_start=False).fit(X, y)
            self.classes_ = self.best_estimator_.classes_
            self.n_features_in_ = self.best_estimator_.n_features_in_
        return self
