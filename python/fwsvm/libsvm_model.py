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

from fwsvm import _core

LibsvmModelError = _core.LibsvmModelError

# The kernels LIBSVM has (scikit-learn's names).
_KERNELS = ("linear", "poly", "rbf", "sigmoid")


def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted :class:`fwsvm.SVC`, :class:`fwsvm.SVR` or :class:`fwsvm.OneClassSVM`
    (rbf kernel) as a LIBSVM model file, atomically (an error leaves an existing file as it
    was).

    Raises ``ValueError`` for kernels LIBSVM does not have (``laplacian``, callables) and for
    ``precomputed`` kernels (LIBSVM's precomputed format needs the training serial numbers).
    """
    kind = getattr(estimator, "_libsvm_type", None)
    # The fitted kernel (a set_params after fit does not change the model that is written).
    fitted = getattr(estimator, "_kernel_fit_", None)
    kernel = fitted["kernel"] if fitted else estimator.kernel
    if callable(kernel) or kernel not in _KERNELS:
        raise ValueError(f"LIBSVM has no {kernel!r} kernel; export supports {sorted(_KERNELS)}")
    path, model = os.fspath(path), estimator._model
    if kind in ("c_svc", "nu_svc"):
        if not np.issubdtype(np.asarray(estimator.classes_).dtype, np.number):
            raise ValueError("LIBSVM model files need numeric class labels")
        model.save_libsvm(path, kind, estimator.classes_.astype(np.float64).tolist())
    elif kind in ("epsilon_svr", "nu_svr", "one_class") and getattr(estimator, "loss", "") in (
            "epsilon_insensitive", "hinge"):
        # LIBSVM's own models: Σ coef k − ρ with intercept_ = −ρ.
        model.save_libsvm(path, kind, 1.0, -float(estimator.intercept_[0]))
    elif kind == "epsilon_svr":
        # The L2-SVR on standardised targets: prediction = (Σ coef k + b)·scale + mean.
        model.save_libsvm(path, kind, float(estimator.y_scale_),
                          -(estimator.intercept_[0] * estimator.y_scale_ + estimator.y_mean_))
    elif kind == "one_class":
        if kernel != "rbf":
            # decision = Σ 2α k(sv, x) + constant − k(x, x) − offset_: LIBSVM's Σ coef k − rho
            # only when k(x, x) is constant.
            raise ValueError(f"LIBSVM export of a OneClassSVM needs the rbf kernel, not {kernel!r}")
        model.save_libsvm(path, kind, 2.0, 1.0 + estimator.offset_ - estimator._score_constant)
    else:
        raise ValueError(f"LIBSVM export supports SVC, SVR and OneClassSVM, not {type(estimator).__name__}")
