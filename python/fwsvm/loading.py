"""Reading models back as estimators: :func:`load_model` (fwsvm's model files) and
:func:`load_libsvm_model` (LIBSVM's). This module sits above the estimators and the file formats
(``persistence``, ``libsvm_model``), which do not import the estimators: no import circle."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm import _core, persistence
from fwsvm.libsvm_model import LibsvmModelError
from fwsvm.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM, _remember_kernel

# Imported support vectors are densified up to this many values (128 MB), kept sparse beyond.
_MAX_DENSE_SV_VALUES = 1 << 24


def load_model(path: str | os.PathLike[str]) -> Any:
    """Read an estimator written by ``est.save`` (or a Rust model's ``save``), whatever its
    class."""
    from fwsvm.crammer_singer import CrammerSingerSVC
    from fwsvm.kernel_approximation import Nystroem, RandomFourierFeatures
    from fwsvm.linear import SGDSVC

    parts = persistence.read(path)
    estimators = (SVC, SVR, NuSVC, NuSVR, OneClassSVM, CrammerSingerSVC, SGDSVC, Nystroem,
                  RandomFourierFeatures)
    classes = {cls.__name__: cls for cls in estimators}
    if parts[0] not in classes:
        raise persistence.ModelFormatError(f"{os.fspath(path)}: unknown estimator class {parts[0]!r}")
    return persistence.restore(classes[parts[0]], path, parts)


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
    if svm_type in ("c_svc", "nu_svc"):
        est = (SVC(**common, loss="hinge") if svm_type == "c_svc" else NuSVC(**common))
        est.classes_ = raw["classes"]
        est.fit_status_ = 0
        est.probability = len(raw["prob_a"]) > 0
    else:
        # LIBSVM's one-class, ε-SVR and ν-SVR: Σ coef k − ρ.
        est = {"one_class": OneClassSVM, "epsilon_svr": SVR, "nu_svr": NuSVR}[svm_type](**common)
        est.intercept_ = np.array([-raw["rho"][0]])
        est.fit_status_ = 0
        if svm_type == "one_class":
            est.offset_ = float(raw["rho"][0])
        else:
            est.y_mean_, est.y_scale_ = 0.0, 1.0
            est.epsilon_ = float("nan")
    est._gamma = gamma
    est.n_features_in_ = sv.shape[1]
    est.shape_fit_ = (total_sv, sv.shape[1])
    _remember_kernel(est)
    parts = dict(support_=np.arange(total_sv), support_vectors_=sv)
    if svm_type in ("c_svc", "nu_svc"):
        est.n_iter_ = np.zeros(max(len(raw["intercept"]), 1), dtype=np.int64)
        parts.update(n_support_=raw["n_support"], dual_coef_=raw["dual_coef"], intercept_=raw["intercept"],
                     probA_=raw["prob_a"], probB_=raw["prob_b"], _label_order=raw["label_order"])
    else:
        est.n_iter_ = 0
        parts.update(dual_coef_=raw["sv_coef"][:, 0].reshape(1, -1))
    est._set_parts(parts)
    est.convergence_ = {"exit_reason": "imported", "source": name}
    return est
