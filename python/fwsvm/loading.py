"""Reading models back as estimators: :func:`load_model` (fwsvm's model files) and
:func:`load_libsvm_model` (LIBSVM's). This module sits above the estimators and the file formats
(``persistence``, ``libsvm_model``), which do not import the estimators: no import circle."""

from __future__ import annotations

import os
from typing import Any

from fwsvm import _core, persistence
from fwsvm.svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM, _remember_kernel


def _classes() -> dict[str, type]:
    """The estimators a model file can hold, by class name."""
    from fwsvm.crammer_singer import CrammerSingerSVC
    from fwsvm.kernel_approximation import Nystroem, RandomFourierFeatures
    from fwsvm.linear import SGDSVC

    estimators = (SVC, SVR, NuSVC, NuSVR, OneClassSVM, CrammerSingerSVC, SGDSVC, Nystroem,
                  RandomFourierFeatures)
    return {cls.__name__: cls for cls in estimators}


def load_model(path: str | os.PathLike[str]) -> Any:
    """Read an estimator written by ``est.save`` (or a Rust model's ``save``), whatever its
    class."""
    parts = persistence.read(path)
    classes = _classes()
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
    estimator, params, attributes, model = _core.read_libsvm_model(os.fspath(path), n_features)
    est = _classes()[estimator](**params)
    for name, value in attributes.items():
        setattr(est, name, value)
    _remember_kernel(est)
    est._hold(model, None)
    return est
