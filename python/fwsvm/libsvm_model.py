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
    from fwsvm.svm import SVC, SVR, OneClassSVM

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
    elif isinstance(estimator, OneClassSVM):
        if kernel != "rbf":
            # decision = Σ 2α k(sv, x) + constant − k(x, x) − offset_: LIBSVM's Σ coef k − rho
            # only when k(x, x) is constant.
            raise ValueError(f"LIBSVM export of a OneClassSVM needs the rbf kernel, not {kernel!r}")
        coefs = (2.0 * estimator.dual_coef_[0]).reshape(-1, 1)
        rho = [1.0 + estimator.offset_ - estimator._score_constant]
        sv = estimator.support_vectors_
        labels, nr_sv = None, None
        header += ["svm_type one_class"]
    else:
        raise ValueError(f"LIBSVM export supports SVC, SVR and OneClassSVM, not {type(estimator).__name__}")
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
        prob_a, prob_b = np.asarray(getattr(estimator, "probA_", [])), np.asarray(getattr(estimator, "probB_", []))
        if len(prob_a):
            # Our pair values are positive for the pair's first sorted class; the binary file
            # lists classes_[1] first, so its decision value is −f and B changes sign.
            if len(labels) == 2:
                prob_b = -prob_b
            header.append("probA " + " ".join(_fmt(a) for a in prob_a))
            header.append("probB " + " ".join(_fmt(b) for b in prob_b))
        header.append("nr_sv " + " ".join(str(int(n)) for n in nr_sv))
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\n".join(header + ["SV"] + _sv_lines(sv, coefs)) + "\n")


class LibsvmModelError(ValueError):
    """A LIBSVM model file that cannot be read or is of a type fwsvm does not import."""


def _parse(path: str | os.PathLike[str]) -> tuple[dict[str, list[str]], list[str]]:
    header: dict[str, list[str]] = {}
    with open(path, encoding="ascii", errors="replace") as fh:
        lines = fh.read().splitlines()
    for k, line in enumerate(lines):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "SV":
            return header, lines[k + 1 :]
        header[parts[0]] = parts[1:]
    raise LibsvmModelError(f"{os.fspath(path)}: no 'SV' section: not a LIBSVM model file (or truncated)")


# Imported support vectors are densified up to this many values (128 MB), kept sparse beyond.
_MAX_DENSE_SV_VALUES = 1 << 24


def load_libsvm_model(path: str | os.PathLike[str], n_features: int | None = None) -> Any:
    """Read a LIBSVM model file (``c_svc`` or ``epsilon_svr`` with a linear, polynomial, rbf or
    sigmoid kernel; ``one_class`` with the rbf kernel) as a fitted :class:`fwsvm.SVC`,
    :class:`fwsvm.SVR` or :class:`fwsvm.OneClassSVM` that predicts like LIBSVM (probabilities
    too, when the file has ``probA``/``probB``).

    LIBSVM does not store the number of features: it is the largest index in the support
    vectors unless ``n_features`` says more. ``support_`` (training indices) is not in the file
    and is set to ``arange(n_SV)``.
    """
    from fwsvm.svm import SVC, SVR, OneClassSVM

    name = os.fspath(path)
    header, sv_lines = _parse(path)

    def field(key: str, n: int | None = None) -> list[str]:
        if key not in header:
            raise LibsvmModelError(f"{name}: missing '{key}' line")
        if n is not None and len(header[key]) != n:
            raise LibsvmModelError(f"{name}: '{key}' has {len(header[key])} values, expected {n}")
        return header[key]

    svm_type = field("svm_type", 1)[0]
    kernel_type = field("kernel_type", 1)[0]
    kernels = {v: k for k, v in _KERNEL_TYPES.items()}
    if kernel_type not in kernels:
        raise LibsvmModelError(f"{name}: kernel_type {kernel_type!r} is not supported (linear, polynomial, rbf, sigmoid)")
    kernel = kernels[kernel_type]
    if svm_type not in ("c_svc", "epsilon_svr", "one_class"):
        raise LibsvmModelError(f"{name}: svm_type {svm_type!r} is not supported (c_svc, epsilon_svr, one_class)")
    if kernel != "linear" and "gamma" not in header:
        raise LibsvmModelError(f"{name}: missing 'gamma' line (the {kernel_type} kernel needs it)")
    try:
        gamma = float(header.get("gamma", ["0"])[0])
        degree = int(header.get("degree", ["3"])[0])
        coef0 = float(header.get("coef0", ["0"])[0])
        nr_class = int(field("nr_class", 1)[0])
        total_sv = int(field("total_sv", 1)[0])
        rho = np.array([float(v) for v in field("rho")])
    except (ValueError, IndexError) as exc:
        if isinstance(exc, LibsvmModelError):
            raise
        raise LibsvmModelError(f"{name}: malformed header ({exc or 'a line without its value'})") from exc
    # Header values drive allocations: check them against what the file contains first.
    if not 0 <= degree <= 2**31 - 1:
        raise LibsvmModelError(f"{name}: 'degree {degree}' is out of range (0 to 2^31 - 1)")
    if not (np.isfinite(gamma) and np.isfinite(coef0)):
        raise LibsvmModelError(f"{name}: 'gamma' and 'coef0' must be finite")
    sv_lines = [line for line in sv_lines if line.strip()]
    if total_sv < 0 or len(sv_lines) != total_sv:
        raise LibsvmModelError(f"{name}: {len(sv_lines)} support vector lines, 'total_sv {total_sv}' says otherwise")
    expected_rho = nr_class * (nr_class - 1) // 2 if svm_type == "c_svc" else 1
    if nr_class < (2 if svm_type == "c_svc" else 1) or len(rho) != expected_rho:
        raise LibsvmModelError(
            f"{name}: 'nr_class {nr_class}' needs {expected_rho} 'rho' values, the file has {len(rho)}"
        )
    n_coef = max(nr_class - 1, 1)
    try:
        coefs = np.zeros((total_sv, n_coef))
        rows, cols, vals = [], [], []
        for r, line in enumerate(sv_lines):
            parts = line.split()
            if len(parts) < n_coef:
                raise LibsvmModelError(
                    f"{name}: support vector {r + 1} has {len(parts)} fields, fewer than its {n_coef} coefficients"
                )
            coefs[r] = [float(v) for v in parts[:n_coef]]
            for tok in parts[n_coef:]:
                idx, _, val = tok.partition(":")
                rows.append(r)
                cols.append(int(idx) - 1)
                vals.append(float(val))
    except (ValueError, IndexError) as exc:
        if isinstance(exc, LibsvmModelError):
            raise
        raise LibsvmModelError(f"{name}: malformed model file ({exc})") from exc
    if cols and min(cols) < 0:
        raise LibsvmModelError(f"{name}: feature index below 1 in the support vectors")
    d = max(cols, default=-1) + 1
    if n_features is not None:
        if n_features < d:
            raise LibsvmModelError(f"{name}: support vectors use {d} features, more than n_features={n_features}")
        d = n_features
    sv = sp.csr_matrix((vals, (rows, cols)), shape=(total_sv, max(d, 1)))
    if total_sv * max(d, 1) <= _MAX_DENSE_SV_VALUES:
        sv = sv.toarray()  # LIBSVM's models are usually small and dense enough
    # else: kept sparse (an SV index of 10⁸ asked for 160 GiB densified)
    common = dict(kernel=kernel, gamma=gamma if kernel != "linear" else "scale", degree=degree, coef0=coef0)

    if svm_type == "one_class":
        if kernel != "rbf":
            raise LibsvmModelError(f"{name}: one_class models are imported with the rbf kernel only, not {kernel!r}")
        # Σ coef k − rho as fwsvm's ball score with k(x, x) = 1: α = coef/2, offset = rho − 1.
        est = OneClassSVM(**common)
        est.dual_coef_ = (coefs[:, 0] / 2.0).reshape(1, -1)
        est._score_constant = 0.0
        est.offset_ = float(rho[0]) - 1.0
        est.radius_ = float("nan")
        est._C = float("nan")
    elif svm_type == "epsilon_svr":
        est = SVR(**common)
        est.y_mean_, est.y_scale_ = 0.0, 1.0
        est.dual_coef_ = coefs[:, 0].reshape(1, -1)
        est.intercept_ = np.array([-rho[0]])
        est.epsilon_ = float(header.get("p", ["nan"])[0]) if "p" in header else float("nan")
        est._nu = float("nan")
    elif svm_type == "c_svc":
        labels = np.array([float(v) for v in field("label", nr_class)])
        nr_sv = np.array([int(v) for v in field("nr_sv", nr_class)])
        if np.any(nr_sv < 0):
            raise LibsvmModelError(f"{name}: 'nr_sv' has a negative count ({nr_sv.min()})")
        if nr_sv.sum() != total_sv or len(rho) != nr_class * (nr_class - 1) // 2:
            raise LibsvmModelError(f"{name}: nr_sv/rho do not match nr_class and total_sv")
        est = SVC(**common, loss="hinge", decision_function_shape="ovr")
        order = np.argsort(labels, kind="stable")  # sorted class k is file class order[k]
        rank = np.empty(nr_class, dtype=int)
        rank[order] = np.arange(nr_class)
        file_starts = np.r_[0, np.cumsum(nr_sv)]
        # Support vectors regrouped by sorted class.
        perm = np.concatenate([np.arange(file_starts[c], file_starts[c + 1]) for c in order])
        sorted_starts = np.r_[0, np.cumsum(nr_sv[order])]
        n_pairs = nr_class * (nr_class - 1) // 2
        dual = np.zeros((max(nr_class - 1, 1), total_sv))
        intercept = np.zeros(n_pairs)
        try:
            file_a = np.array([float(v) for v in field("probA", n_pairs)]) if "probA" in header else None
            file_b = np.array([float(v) for v in field("probB", n_pairs)]) if file_a is not None else None
        except ValueError as exc:
            if isinstance(exc, LibsvmModelError):
                raise
            raise LibsvmModelError(f"{name}: malformed 'probA'/'probB' line ({exc})") from exc
        if file_a is not None and not (np.all(np.isfinite(file_a)) and np.all(np.isfinite(file_b))):
            raise LibsvmModelError(f"{name}: 'probA'/'probB' must be finite")
        prob_a, prob_b = np.zeros(n_pairs), np.zeros(n_pairs)
        pair_index = {}
        p = 0
        for i in range(nr_class):
            for j in range(i + 1, nr_class):
                pair_index[(i, j)] = p
                p += 1
        p = 0
        for i in range(nr_class):  # file order
            for j in range(i + 1, nr_class):
                # File pair (i, j): class-i coefs in column j−1, class-j coefs in column i.
                ci = coefs[file_starts[i] : file_starts[i + 1], j - 1]
                cj = coefs[file_starts[j] : file_starts[j + 1], i]
                b = -rho[p]
                a, bb = rank[i], rank[j]
                sign = 1.0
                if a > bb:  # the sorted pair is (j, i): flip the decision
                    a, bb, sign = bb, a, -1.0
                    ci, cj = cj, ci
                q = pair_index[(a, bb)]
                intercept[q] = sign * b
                if file_a is not None:
                    # P(first | f) = 1/(1 + exp(A f + B)); flipping the pair flips f and B.
                    prob_a[q], prob_b[q] = file_a[p], sign * file_b[p]
                dual[bb - 1, sorted_starts[a] : sorted_starts[a + 1]] = sign * ci
                dual[a, sorted_starts[bb] : sorted_starts[bb + 1]] = sign * cj
                p += 1
        sv = sv[perm]
        est.classes_ = labels[order]
        est.n_support_ = nr_sv[order].astype(np.int32)
        if nr_class == 2:
            # fwsvm's binary convention: f ≥ 0 means classes_[1], LIBSVM's pair (0, 1) votes
            # for class 0 where f > 0.
            est.dual_coef_ = -dual
            est.intercept_ = -intercept
        else:
            est.dual_coef_ = dual
            est.intercept_ = intercept
        est.fit_status_ = 0
        est.probability = file_a is not None
        est.probA_, est.probB_ = (prob_a, prob_b) if file_a is not None else (np.empty(0), np.empty(0))
    else:
        raise LibsvmModelError(f"{name}: svm_type {svm_type!r} is not supported (c_svc, epsilon_svr)")
    est.support_ = np.arange(total_sv, dtype=np.int32)
    est.support_vectors_ = sv
    est._gamma = gamma
    est.n_features_in_ = sv.shape[1]
    est.shape_fit_ = (total_sv, sv.shape[1])
    est.n_iter_ = np.zeros(max(len(rho), 1), dtype=np.int64) if svm_type == "c_svc" else 0
    est.convergence_ = {"exit_reason": "imported", "source": name}
    return est
