"""Reading models back as estimators: :func:`load_model` (fwsvm's model files) and
:func:`load_libsvm_model` (LIBSVM's). This module sits above the estimators and the file formats
(``persistence``, ``libsvm_model``), which do not import the estimators: no import circle."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from fwsvm import _core, persistence
from fwsvm.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM, _remember_kernel



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
    raw = _core.read_libsvm_model(name, n_features)
    svm_type, kernel = raw["svm_type"], raw["kernel"]
    gamma = raw["gamma"] if raw["gamma"] is not None else 0.0
    common = dict(kernel=kernel, gamma=gamma if kernel != "linear" else "scale",
                  degree=int(raw["degree"]), coef0=float(raw["coef0"]))
    if svm_type in ("c_svc", "nu_svc"):
        est = (SVC(**common, loss="hinge") if svm_type == "c_svc" else NuSVC(**common))
        est.classes_ = raw["classes"]
        est.probability = len(raw["model"].part("prob_a")) > 0
        est.n_iter_ = np.zeros(max(raw["n_pairs"], 1), dtype=np.int64)
    else:
        # LIBSVM's decision value is Σ coef k − rho: intercept_ = −rho.
        est = {"one_class": OneClassSVM, "epsilon_svr": SVR, "nu_svr": NuSVR}[svm_type](**common)
        est.intercept_ = np.array([-raw["rho"]])
        est.n_iter_ = 0
        if svm_type == "one_class":
            est.offset_ = float(raw["rho"])
        else:
            est.y_mean_, est.y_scale_ = 0.0, 1.0
            est.epsilon_ = float("nan")
    n_sv = len(raw["model"].part("support"))
    est._gamma, est.fit_status_ = gamma, 0
    est.n_features_in_, est.shape_fit_ = raw["n_features"], (n_sv, raw["n_features"])
    _remember_kernel(est)
    est._hold(raw["model"], None)
    est.convergence_ = {"exit_reason": "imported", "source": name}
    return est
