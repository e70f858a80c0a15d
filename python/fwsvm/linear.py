"""Linear SVMs trained by mini-batch stochastic gradient descent on the primal (seed 004
§5.2–5.3): :class:`SGDSVC`."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from fwsvm import _core
from fwsvm._parameters import parameters
from fwsvm.persistence import SaveMixin
from fwsvm.svm import SparseInputMixin, _seed, _verbosity, fit_weights


@parameters()
class SGDSVC(SaveMixin, SparseInputMixin, LinearClassifierMixin, BaseEstimator):
    """Linear SVM trained by mini-batch stochastic subgradient descent (seed 004, Algorithm 2).

    Minimises the primal of the soft-margin SVM with an unregularised bias,

        ½‖w‖² + C Σ_i s_i ℓ(y_i (⟨w, x_i⟩ + b)),

    ℓ the hinge max(0, 1 − t) (LIBSVM's, LinearSVC's ``loss="hinge"`` and the same ``C``) or the
    squared hinge. Each epoch shuffles the rows and takes one step per batch of ``batch_size``
    rows J along the stochastic subgradient ``ĝ = [w; 0] − (N C/|J|) Σ_{j∈J} s_j (−ℓ′) [y_j x_j; y_j]``
    (004 (5.7)); a step costs O(nnz of the batch), whatever the number of features, so it suits
    large sparse data. More than two classes are fitted one-vs-rest, one problem per class
    (in parallel threads with ``n_jobs``).

    Parameters
    ----------
    C : float, default=1.0
        Penalty on the summed loss (the scale of LIBSVM, LinearSVC and :class:`fwsvm.SVC` with
        ``loss="hinge"``).
    loss : {"hinge", "squared_hinge"}, default="hinge"
    batch_size : int, default=32
        Rows per step.
    max_epochs : int, default=50
        Most passes over the data.
    learning_rate : {"inverse", "exponential", "step"}, default="inverse"
        The step-size schedule of 004 (5.6): t_k = η₀/(1 + βk), t_k = η₀ e^{−βk}, or η₀ times
        ``step_factor`` every ``step_every`` epochs (piecewise constant). Steps are capped at ½.
    eta0 : float or "auto", default="auto"
        η₀. ``"auto"`` calibrates it as Bottou's ``sgd`` does: one pass over a 1,000-row
        subsample for each of ten candidates around (N·C)^{−3/4}, keeping the lowest objective.
    decay : float or None, default=None
        β. None: β = η₀ for ``"inverse"`` (then t_k = 1/(k + 1/η₀), Pegasos's rate for this
        1-strongly convex objective) and ln(100)/(steps in ``max_epochs``) for
        ``"exponential"``.
    step_every, step_factor : int, float, default=5, 0.5
        The ``"step"`` schedule.
    average : bool, default=True
        Return the average of the iterates from the second epoch on (Polyak–Ruppert), kept with
        sparse updates; it removes most of the noise of the last iterate.
    tol : float, default=1e-3
        Stopping rule (004 leaves it open; this is ours): after each epoch the exact primal
        objective of the returned iterate is computed (one pass, in parallel); the fit stops
        when it has not fallen by more than ``tol`` times its value below the best so far for
        ``n_iter_no_change`` epochs in a row.
    n_iter_no_change : int, default=3
    fit_intercept : bool, default=True
        Fit the unregularised bias b.
    class_weight : dict, "balanced" or None, default=None
        Multiplies C per class, as in :class:`fwsvm.SVC`.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffles and the calibration sample; fits are reproducible for a fixed seed.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems and the objective passes.
    verbose : int, default=0
        1: a line per epoch.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : ndarray of int
        Epochs per problem.
    objective_ : list of ndarray
        Per problem, the primal objective after each epoch.
    converged_ : ndarray of bool
        Per problem, whether the stopping rule (not ``max_epochs``) ended it.
    eta0_ : ndarray
        The η₀ used per problem.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from fwsvm import SGDSVC
    >>> X, y = make_classification(n_samples=2000, random_state=0)
    >>> clf = SGDSVC(C=1.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.85
    True
    """

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SGDSVC:
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is used as CSR without densifying.
        y : array-like of shape (n_samples,)
            Two or more classes (more are fitted one-vs-rest).
        sample_weight : array-like of shape (n_samples,), default=None
            Multiplies each sample's loss.

        Returns
        -------
        self : SGDSVC
        """
        self._validate_params()
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True
        )
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        _, weights = fit_weights(sample_weight, X, self.class_weight, classes, y, y_index)
        # Two classes: one problem; more: one-vs-rest side by side in Rust, problem k seeded seed + k.
        weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        fitted = _core.fit_sgd_svc(
            (X, y_index.astype(np.float64), weights),
            dict(self.get_params(), seed=_seed(self.random_state), n_threads=self.n_jobs,
                 verbose=_verbosity(self.verbose), n_classes=len(classes)),
        )
        self.classes_ = classes
        for name, value in fitted.items():  # coef_, intercept_, n_iter_, objective_, converged_, eta0_
            setattr(self, name, value)
        if not self.converged_.all():
            warnings.warn(
                f"SGD ran max_epochs={self.max_epochs} epochs without meeting the stopping rule "
                f"(tol={self.tol}); raise max_epochs or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def objective(self, X: Any, y: Any, sample_weight: Any = None) -> float | np.ndarray:
        """The primal objective ½‖w‖² + C Σ s_i ℓ(y_i f(x_i)) of the fitted model on (X, y):
        a float for two classes, one value per one-vs-rest problem otherwise."""
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        y = np.asarray(y)
        # Each label's class index (−1: a label of no class), the objectives in Rust.
        index = np.searchsorted(self.classes_, y).clip(max=len(self.classes_) - 1)
        index = np.where(self.classes_[index] == y, index, -1).astype(np.float64)
        weights = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
        values = _core.sgd_objective((X, index, weights), self.__dict__ | self.get_params())
        return float(values[0]) if len(values) == 1 else values
