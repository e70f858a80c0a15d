"""``to_sklearn()``: an equivalent fitted scikit-learn estimator (which LIBSVM then evaluates),
for tools that only know scikit-learn's classes (e.g. ONNX export through skl2onnx)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm import _core

_SKLEARN_KERNELS = ("linear", "poly", "rbf", "sigmoid")


def to_sklearn(estimator: Any) -> Any:
    """A fitted ``sklearn.svm.SVC`` / ``SVR`` / ``OneClassSVM`` that predicts exactly like
    ``estimator``.

    Our models are kernel expansions ``Σ coef k(sv, x) + b`` like LIBSVM's, so the mapping is
    exact for the kernels LIBSVM has (linear, poly, rbf, sigmoid). Raises ``ValueError`` for
    the Laplacian kernel, precomputed and callable kernels, and one-class models with a
    kernel other than rbf (their score has a k(x, x) term LIBSVM's one-class SVM lacks).
    """
    from sklearn import svm

    kind = getattr(estimator, "_libsvm_type", None)  # LIBSVM's model type of fwsvm's estimators
    kernel = estimator.kernel
    ball = kind == "one_class" and estimator.loss == "squared_hinge"
    if ball and kernel != "rbf":
        # Our score has a −k(x, x) term; only with a constant k(x, x) (rbf) is it LIBSVM's form.
        raise ValueError(f"to_sklearn maps a OneClassSVM only with the rbf kernel, not {kernel!r}")
    if callable(kernel) or kernel not in _SKLEARN_KERNELS:
        raise ValueError(f"scikit-learn's SVMs have no {kernel!r} kernel usable here; supported: {_SKLEARN_KERNELS}")
    common = dict(kernel=kernel, gamma=float(estimator._gamma) if kernel != "linear" else "scale",
                  degree=int(estimator.degree), coef0=float(estimator.coef0))
    if kind in ("c_svc", "nu_svc"):
        shape = dict(decision_function_shape=estimator.decision_function_shape, break_ties=estimator.break_ties)
        out: Any = (svm.SVC(C=float(estimator.C), **shape, **common) if kind == "c_svc"
                    else svm.NuSVC(nu=float(estimator.nu), **shape, **common))
        out.classes_ = estimator.classes_
        out.class_weight_ = np.ones(len(estimator.classes_))
        out._n_support = np.asarray(estimator.n_support_, dtype=np.int32)
        if len(estimator.classes_) == 2:
            # scikit-learn stores LIBSVM's binary model with the opposite sign (see
            # sklearn/svm/_base.py: "the intercept and dual_coef_ are flipped").
            out._dual_coef_ = -np.asarray(estimator.dual_coef_, dtype=np.float64)
            out._intercept_ = -np.asarray(estimator.intercept_, dtype=np.float64)
        else:
            out._dual_coef_ = np.asarray(estimator.dual_coef_, dtype=np.float64)
            out._intercept_ = np.asarray(estimator.intercept_, dtype=np.float64)
        out.dual_coef_ = np.asarray(estimator.dual_coef_, dtype=np.float64)
        out.intercept_ = np.asarray(estimator.intercept_, dtype=np.float64)
        out.n_iter_ = np.asarray(estimator.n_iter_, dtype=np.int32)
    elif kind in ("epsilon_svr", "nu_svr"):
        out = (svm.SVR(C=float(estimator.C), epsilon=float(estimator.epsilon_), **common) if kind == "epsilon_svr"
               else svm.NuSVR(C=float(estimator.C), nu=float(estimator.nu), **common))
        coef, intercept = _libsvm_expansion(estimator)
        out._dual_coef_, out.dual_coef_ = coef, coef
        out._intercept_, out.intercept_ = intercept, intercept.copy()
        out._n_support = np.array([len(estimator.support_), 0], dtype=np.int32)
        out.n_iter_ = int(np.sum(estimator.n_iter_))
    elif kind == "one_class":
        out = svm.OneClassSVM(nu=float(estimator.nu), **common)
        coef, intercept = _libsvm_expansion(estimator)
        out._dual_coef_, out.dual_coef_ = coef, coef
        out._intercept_, out.intercept_ = intercept, intercept.copy()
        out.offset_ = -intercept[0]
        out._n_support = np.array([len(estimator.support_), 0], dtype=np.int32)
        out.n_iter_ = int(estimator.n_iter_)
    else:
        raise ValueError(f"to_sklearn supports SVC, SVR and OneClassSVM, not {type(estimator).__name__}")
    sv = estimator.support_vectors_
    out._sparse = sp.issparse(sv)
    if out._sparse:
        # scikit-learn's sparse models keep the coefficients as a CSR matrix with every entry
        # stored (sklearn/svm/_base.py, _sparse_fit).
        out._dual_coef_ = _dense_csr(out._dual_coef_)
        out.dual_coef_ = _dense_csr(out.dual_coef_)
    out.support_vectors_ = sp.csr_matrix(sv) if out._sparse else np.ascontiguousarray(sv, dtype=np.float64)
    out.support_ = np.asarray(estimator.support_, dtype=np.int32)
    out._gamma = float(estimator._gamma)
    # Same convention as LIBSVM's internal model: pair values positive for the first class.
    out._probA = np.asarray(getattr(estimator, "probA_", np.empty(0)), dtype=np.float64)
    out._probB = np.asarray(getattr(estimator, "probB_", np.empty(0)), dtype=np.float64)
    out._effective_probability = bool(len(out._probA))
    if kind == "c_svc" and len(out._probA):
        out.probability = True
    out.fit_status_ = 0
    out.shape_fit_ = tuple(estimator.shape_fit_)
    out.n_features_in_ = int(estimator.n_features_in_)
    out._num_iter = np.atleast_1d(np.asarray(estimator.n_iter_, dtype=np.int32))
    return out


def _libsvm_expansion(estimator: Any) -> tuple[np.ndarray, np.ndarray]:
    """A one-class or regression model's coefficients and intercept in LIBSVM's form
    Σ coef k − ρ (intercept −ρ), as its LIBSVM model file holds them (computed in Rust)."""
    scale, rho = _core.libsvm_expansion_form(estimator)
    return scale * np.asarray(estimator.dual_coef_, dtype=np.float64), np.array([-rho])


def _dense_csr(a: np.ndarray) -> Any:
    rows, cols = a.shape
    return sp.csr_matrix(
        (a.ravel(), np.tile(np.arange(cols), rows), np.arange(0, rows * cols + 1, cols)), shape=(rows, cols)
    )
