"""LIBSVM model files (``svm-train``'s output, ``svm-predict``'s input), both ways.

Reading and writing are implemented once, in Rust (``src/model_file/libsvm.rs``): every value is
checked there (finite numbers, distinct labels, increasing feature indices, counts that match,
a line-length limit) and errors name the file and line. This module maps the file's arrays to
the estimators' attributes and back.

LIBSVM evaluates ``f(x) = Σ coef_i k(sv_i, x) − rho`` per class pair and votes for the pair's
first label where ``f > 0``; fwsvm's models have the same form with ``rho = −intercept`` (the
regularised bias of the L2-SVM is a plain intercept at prediction time), so the export is exact.
A classifier read from a LIBSVM file keeps the file's label order (``_label_order``): LIBSVM
breaks vote ties and runs its probability coupling in that order, and so does fwsvm.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm import _core
from fwsvm._native import features_arg

LibsvmModelError = _core.LibsvmModelError

# The kernels LIBSVM has (scikit-learn's names).
_KERNELS = ("linear", "poly", "rbf", "sigmoid")

# Imported support vectors are densified up to this many values (128 MB), kept sparse beyond.
_MAX_DENSE_SV_VALUES = 1 << 24


def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted :class:`fwsvm.SVC`, :class:`fwsvm.SVR` or :class:`fwsvm.OneClassSVM`
    (rbf kernel) as a LIBSVM model file, atomically (an error leaves an existing file as it
    was).

    Raises ``ValueError`` for kernels LIBSVM does not have (``laplacian``, callables) and for
    ``precomputed`` kernels (LIBSVM's precomputed format needs the training serial numbers).
    """
    from fwsvm.svm import SVC, SVR, OneClassSVM

    kernel = estimator.kernel
    if callable(kernel) or kernel not in _KERNELS:
        raise ValueError(f"LIBSVM has no {kernel!r} kernel; export supports {sorted(_KERNELS)}")
    model: dict[str, Any] = dict(
        kernel=kernel, gamma=float(estimator._gamma) if kernel != "linear" else 1.0,
        degree=int(estimator.degree), coef0=float(estimator.coef0),
        vectors=features_arg(estimator.support_vectors_),
    )
    if isinstance(estimator, SVC):
        if not np.issubdtype(np.asarray(estimator.classes_).dtype, np.number):
            raise ValueError("LIBSVM model files need numeric class labels")
        model.update(
            svm_type="c_svc", classes=estimator.classes_.astype(np.float64).tolist(),
            n_support=[int(n) for n in estimator.n_support_],
            dual_coef=np.ravel(estimator.dual_coef_).tolist(), intercept=list(estimator.intercept_),
            prob_a=list(getattr(estimator, "probA_", [])), prob_b=list(getattr(estimator, "probB_", [])),
            label_order=[int(c) for c in getattr(estimator, "_label_order", [])],
        )
    elif isinstance(estimator, SVR):
        # Standardised targets: prediction = (Σ coef k + b)·scale + mean.
        model.update(
            svm_type="epsilon_svr", sv_coef=(estimator.dual_coef_[0] * estimator.y_scale_).tolist(),
            rho=[-(estimator.intercept_[0] * estimator.y_scale_ + estimator.y_mean_)],
        )
    elif isinstance(estimator, OneClassSVM):
        if kernel != "rbf":
            # decision = Σ 2α k(sv, x) + constant − k(x, x) − offset_: LIBSVM's Σ coef k − rho
            # only when k(x, x) is constant.
            raise ValueError(f"LIBSVM export of a OneClassSVM needs the rbf kernel, not {kernel!r}")
        model.update(
            svm_type="one_class", sv_coef=(2.0 * estimator.dual_coef_[0]).tolist(),
            rho=[1.0 + estimator.offset_ - estimator._score_constant],
        )
    else:
        raise ValueError(f"LIBSVM export supports SVC, SVR and OneClassSVM, not {type(estimator).__name__}")
    _core.write_libsvm_model(os.fspath(path), model)


def load_libsvm_model(path: str | os.PathLike[str], n_features: int | None = None) -> Any:
    """Read a LIBSVM model file (``c_svc`` or ``epsilon_svr`` with a linear, polynomial, rbf or
    sigmoid kernel; ``one_class`` with the rbf kernel) as a fitted :class:`fwsvm.SVC`,
    :class:`fwsvm.SVR` or :class:`fwsvm.OneClassSVM` that predicts like LIBSVM (probabilities
    too, when the file has ``probA``/``probB``; vote ties and coupling in the file's label
    order).

    LIBSVM does not store the number of features: it is the largest index in the support
    vectors unless ``n_features`` says more. ``support_`` (training indices) is not in the file
    and is set to ``arange(n_SV)``. Raises :class:`LibsvmModelError` naming the line for
    anything that is not a valid model.
    """
    from fwsvm.svm import SVC, SVR, OneClassSVM

    name = os.fspath(path)
    raw = _core.read_libsvm_model(name)
    svm_type, kernel = raw["svm_type"], raw["kernel"]
    data, indices, indptr, d = raw["vectors"]
    if n_features is not None:
        if n_features < d:
            raise LibsvmModelError(f"{name}: support vectors use {d} features, more than n_features={n_features}")
        d = n_features
    total_sv = len(indptr) - 1
    sv = sp.csr_matrix((data, indices, indptr), shape=(total_sv, max(d, 1)))
    if total_sv * max(d, 1) <= _MAX_DENSE_SV_VALUES:
        sv = sv.toarray()  # LIBSVM's models are usually small and dense enough
    # else: kept sparse (an SV index of 10⁸ asked for 160 GiB densified)
    gamma = raw["gamma"] if raw["gamma"] is not None else 0.0
    common = dict(kernel=kernel, gamma=gamma if kernel != "linear" else "scale",
                  degree=int(raw["degree"]), coef0=float(raw["coef0"]))
    if svm_type == "c_svc":
        est = SVC(**common, loss="hinge", decision_function_shape="ovr")
        est.classes_ = raw["classes"]
        est.n_support_ = raw["n_support"]
        est.dual_coef_ = raw["dual_coef"]
        est.intercept_ = raw["intercept"]
        est._label_order = raw["label_order"]
        est.fit_status_ = 0
        est.probability = len(raw["prob_a"]) > 0
        est.probA_, est.probB_ = raw["prob_a"], raw["prob_b"]
    elif svm_type == "one_class" and kernel == "rbf":
        # Σ coef k − rho as fwsvm's ball score with k(x, x) = 1: α = coef/2, offset = rho − 1.
        est = OneClassSVM(**common)
        est.dual_coef_ = (raw["sv_coef"][:, 0] / 2.0).reshape(1, -1)
        est._score_constant = 0.0
        est.offset_ = float(raw["rho"][0]) - 1.0
        est.radius_ = float("nan")
        est._C = float("nan")
    elif svm_type == "epsilon_svr":
        est = SVR(**common)
        est.y_mean_, est.y_scale_ = 0.0, 1.0
        est.dual_coef_ = raw["sv_coef"][:, 0].reshape(1, -1)
        est.intercept_ = np.array([-raw["rho"][0]])
        est.epsilon_ = float("nan")
        est._nu = float("nan")
    elif svm_type == "one_class":
        raise LibsvmModelError(f"{name}: one_class models are imported with the rbf kernel only, not {kernel!r}")
    else:
        raise LibsvmModelError(
            f"{name}: svm_type {svm_type!r} is read, but fwsvm imports only c_svc, epsilon_svr and one_class models"
        )
    est.support_ = np.arange(total_sv, dtype=np.int32)
    est.support_vectors_ = sv
    est._gamma = gamma
    est.n_features_in_ = sv.shape[1]
    est.shape_fit_ = (total_sv, sv.shape[1])
    est.n_iter_ = np.zeros(max(len(est.intercept_) if svm_type == "c_svc" else 1, 1), dtype=np.int64) \
        if svm_type == "c_svc" else 0
    est.convergence_ = {"exit_reason": "imported", "source": name}
    return est
