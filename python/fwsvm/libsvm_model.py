"""Export to LIBSVM's model-file format, so LIBSVM's own ``svm-predict`` (or
``libsvm.svmutil``) can use fwsvm models.

LIBSVM evaluates ``f(x) = Σ coef_i k(sv_i, x) − rho`` per class pair and votes for the pair's
first label where ``f > 0``; fwsvm's models have the same form with ``rho = −intercept`` (the
regularised bias of the L2-SVM is a plain intercept at prediction time), so the export is exact.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

# fwsvm's kernel names → LIBSVM's `kernel_type` names.
_KERNEL_TYPES = {"linear": "linear", "poly": "polynomial", "rbf": "rbf", "sigmoid": "sigmoid"}


def _fmt(v: float) -> str:
    return repr(float(v))


def _sv_lines(support_vectors: Any, coefs: np.ndarray) -> list[str]:
    rows = sp.csr_matrix(support_vectors)
    lines = []
    for r in range(rows.shape[0]):
        lo, hi = rows.indptr[r], rows.indptr[r + 1]
        feats = " ".join(
            f"{int(i) + 1}:{_fmt(v)}" for i, v in zip(rows.indices[lo:hi], rows.data[lo:hi]) if v != 0
        )
        lines.append(" ".join(_fmt(c) for c in coefs[r]) + (" " + feats if feats else "") + " ")
    return lines


def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted :class:`fwsvm.SVC` or :class:`fwsvm.SVR` as a LIBSVM model file.

    Raises ``ValueError`` for kernels LIBSVM does not have (``laplacian``, callables) and for
    ``precomputed`` kernels (LIBSVM's precomputed format needs the training serial numbers).
    """
    from fwsvm.svm import SVC, SVR

    kernel = estimator.kernel
    if callable(kernel) or kernel not in _KERNEL_TYPES:
        raise ValueError(f"LIBSVM has no {kernel!r} kernel; export supports {sorted(_KERNEL_TYPES)}")
    header = []
    if isinstance(estimator, SVC):
        classes = estimator.classes_
        if not np.issubdtype(np.asarray(classes).dtype, np.number):
            raise ValueError("LIBSVM model files need numeric class labels")
        sv = estimator.support_vectors_
        if len(classes) == 2:
            # Our f ≥ 0 means classes_[1]; LIBSVM's first label wins where f > 0.
            y_sv = np.searchsorted(classes, classes[np.r_[np.zeros(estimator.n_support_[0], int), np.ones(estimator.n_support_[1], int)]])
            order = np.argsort(-y_sv, kind="stable")
            labels = [classes[1], classes[0]]
            nr_sv = [estimator.n_support_[1], estimator.n_support_[0]]
            coefs = estimator.dual_coef_[0][order].reshape(-1, 1)
            sv = sv[order]
            rho = [-estimator.intercept_[0]]
        else:
            labels = list(classes)
            nr_sv = list(estimator.n_support_)
            coefs = estimator.dual_coef_.T
            rho = list(-estimator.intercept_)
        header += ["svm_type c_svc"]
    elif isinstance(estimator, SVR):
        # Standardised targets: prediction = (Σ coef k + b)·scale + mean.
        coefs = (estimator.dual_coef_[0] * estimator.y_scale_).reshape(-1, 1)
        rho = [-(estimator.intercept_[0] * estimator.y_scale_ + estimator.y_mean_)]
        sv = estimator.support_vectors_
        labels, nr_sv = None, None
        header += ["svm_type epsilon_svr"]
    else:
        raise ValueError(f"LIBSVM export supports SVC and SVR, not {type(estimator).__name__}")
    header.append(f"kernel_type {_KERNEL_TYPES[kernel]}")
    if kernel == "poly":
        header.append(f"degree {int(estimator.degree)}")
    if kernel != "linear":
        header.append(f"gamma {_fmt(estimator._gamma)}")
    if kernel in ("poly", "sigmoid"):
        header.append(f"coef0 {_fmt(estimator.coef0)}")
    header.append(f"nr_class {len(labels) if labels is not None else 2}")
    header.append(f"total_sv {coefs.shape[0]}")
    header.append("rho " + " ".join(_fmt(r) for r in rho))
    if labels is not None:
        header.append("label " + " ".join(str(int(lab)) if float(lab).is_integer() else _fmt(lab) for lab in labels))
        header.append("nr_sv " + " ".join(str(int(n)) for n in nr_sv))
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\n".join(header + ["SV"] + _sv_lines(sv, coefs)) + "\n")
