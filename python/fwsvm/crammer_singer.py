"""The joint multiclass SVM of Crammer and Singer (seed 004 §7.1), kernelised, solved by
block-coordinate Frank-Wolfe: :class:`CrammerSingerSVC`."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fwsvm import _core
from fwsvm._parameters import parameters
from fwsvm.svm import _KernelSVM, _check_query, _seed, _single_solve_report, _verbosity


@parameters()
class CrammerSingerSVC(ClassifierMixin, _KernelSVM):
    """Multiclass SVM with one joint problem for all classes (Crammer & Singer 2001).

    Where :class:`SVC` trains one binary SVM per pair of classes, this model learns one score
    function per class at once,

        min ½ Σ_k ‖w_k‖² + C Σ_i max_k [1 − δ(k, y_i) + ⟨w_k − w_{y_i}, φ(x_i)⟩],

    and predicts the class with the highest score (there is no bias). Its dual is a product of
    one simplex per sample, solved by block-coordinate Frank-Wolfe (Lacoste-Julien et al.,
    ICML 2013) with exact line search: each block step moves one sample's weights toward the
    class its current scores violate most and costs one kernel column. The fit stops on the
    duality gap: ``gap ≤ tol · primal``.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the per-sample multiclass hinge.
    kernel : {"linear", "poly", "rbf", "sigmoid"}, default="rbf"
    gamma : {"scale", "auto"} or float, default="scale"
        As in :class:`SVC`.
    degree : int, default=3
    coef0 : float, default=0.0
    tol : float, default=1e-2
        Relative duality gap at which the fit stops.
    max_iter : int, default=-1
        Cap on block steps (-1: none).
    cache_size : float, default=200
        Kernel-column cache in MB.
    random_state : int, RandomState or None, default=None
        Seeds the order of the samples in each pass (``None``: a fixed seed, so fits repeat).
    n_jobs : int or None, default=None
        Threads for kernel columns and prediction.
    verbose : int or bool, default=False
        As in :class:`SVC`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Training rows with a non-zero coefficient for some class.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_classes, n_SV)
        w_k = Σ_s dual_coef_[k, s] φ(support_vectors_[s]).
    n_iter_ : int
        Block steps taken.
    convergence_ : dict
        Solver statistics (``exit_reason``, ``gap``, ``relative_gap``, ``objective`` (dual), …).
    n_features_in_ : int
    """

    def fit(self, X: Any, y: Any) -> CrammerSingerSVC:
        """Fit the joint multiclass model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two or more classes.

        Returns
        -------
        self : CrammerSingerSVC
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"The number of classes has to be greater than one; got {len(classes)} class")
        X_core, kernel = self._prepare(X)
        model, result = _core.fit_crammer_singer(
            (X_core, y_index.astype(np.float64)),
            dict(c=float(self.C), kernel=kernel, gamma=self._gamma, degree=int(self.degree),
                 coef0=float(self.coef0), tol=float(self.tol), max_iter=int(self.max_iter),
                 cache_size=float(self.cache_size), seed=_seed(self.random_state), n_threads=self.n_jobs,
                 verbose=_verbosity(self.verbose)),
            len(classes),
        )
        self._hold(model, X)
        self.classes_ = classes
        self._take_report(_single_solve_report(result, tol=float(self.tol)), stacklevel=3)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The class scores ⟨w_k, φ(x)⟩.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to score, in the training data's feature space.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes)
            One column per class of ``classes_``; the largest wins.
        """
        check_is_fitted(self)
        return self._query(_check_query(self, X), "values")

    def predict(self, X: Any) -> np.ndarray:
        """The class with the highest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to classify; each gets the class of its largest score.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        return self.classes_[self._query(_check_query(self, X), "predict")]
