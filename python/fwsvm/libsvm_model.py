"""LIBSVM model files (``svm-train``'s output, ``svm-predict``'s input), both ways.

Reading and writing are implemented once, in Rust (``src/model_file/libsvm.rs``): every value is
checked there (finite numbers, distinct labels, increasing feature indices, counts that match,
a line-length limit) and errors name the file and line. So is the mapping of the file's
arrays to the estimators' attributes and back (``src/python/libsvm_model.rs``).

LIBSVM evaluates ``f(x) = Σ coef_i k(sv_i, x) − rho`` per class pair and votes for the pair's
first label where ``f > 0``; fwsvm's models have the same form with ``rho = −intercept`` (the
regularised bias of the L2-SVM is a plain intercept at prediction time), so the export is exact.
A classifier read from a LIBSVM file keeps the file's label order (``_label_order``): LIBSVM
breaks vote ties and runs its probability coupling in that order, and so does fwsvm.
"""

from __future__ import annotations

import os
from typing import Any

from fwsvm import _core

LibsvmModelError = _core.LibsvmModelError


def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted :class:`fwsvm.SVC`, :class:`fwsvm.SVR` or :class:`fwsvm.OneClassSVM`
    (rbf kernel) as a LIBSVM model file, atomically (an error leaves an existing file as it
    was).

    Raises ``ValueError`` for kernels LIBSVM does not have (``laplacian``, callables) and for
    ``precomputed`` kernels (LIBSVM's precomputed format needs the training serial numbers).
    """
    _core.save_libsvm_model(estimator, os.fspath(path))
