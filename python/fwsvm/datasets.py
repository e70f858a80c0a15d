"""LIBSVM / svmlight file loading and writing, with scikit-learn's signatures and semantics,
implemented in Rust (parallel parsing, gzip/bz2 detected by content, the GIL released).

Differences from :mod:`sklearn.datasets`: the matrices come back with int32 indices whenever
they fit (so ``sklearn.svm.SVC`` accepts them as they are), and every malformed line raises
:class:`fwsvm.LibsvmFormatError` (a ``ValueError``) naming the file, line and column.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm import _core
from fwsvm._native import features_arg, n_threads, run_interruptible

LibsvmFormatError = _core.LibsvmFormatError

_INT32_MAX = np.iinfo(np.int32).max


def _source(f: Any) -> tuple[Any, str]:
    """A path for the core to open, or the bytes of an open file / file descriptor."""
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f), os.fspath(f)
    if isinstance(f, (int, np.integer)):
        with open(int(f), "rb", closefd=False) as fh:
            return fh.read(), f"<fd {int(f)}>"
    if hasattr(f, "read"):
        data = f.read()
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode ('rb')")
        return bytes(data), getattr(f, "name", "<file object>")
    raise TypeError(f"expected a path, a file descriptor or a binary file object, got {type(f).__name__}")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_narrowed(wide: np.ndarray, narrow: np.ndarray, indptr: np.ndarray, name: str) -> None:
    """Refuses finite values that a narrower dtype (float32, float16) turns into ±inf."""
    overflow = np.isinf(narrow) & np.isfinite(wide)
    if not overflow.any():
        return
    k = int(np.argmax(overflow))
    row = int(np.searchsorted(indptr, k, side="right")) - 1
    raise ValueError(
        f"{name}: data row {row + 1}: the value {float(wide[k])!r} does not fit in {narrow.dtype} "
        f"(largest {float(np.finfo(narrow.dtype).max):.8g}); load with dtype=np.float64"
    )


def _zero_based_arg(zero_based: Any) -> str:
    if isinstance(zero_based, str):
        if zero_based != "auto":
            raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
        return "auto"
    return "true" if bool(zero_based) else "false"


def load_svmlight_files(
    files: Any,
    *,
    n_features: int | None = None,
    dtype: Any = np.float64,
    multilabel: bool = False,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    offset: int = 0,
    length: int = -1,
    n_jobs: int | None = None,
    max_line_length: int | None = None,
) -> list[Any]:
    """Load several LIBSVM/svmlight files with a shared number of features.

    Parameters
    ----------
    files : array-like of str, os.PathLike, file descriptors or binary file objects
        The files; gzip and bz2 content is decompressed (detected from the first bytes).
    n_features : int, default=None
        Number of columns; at least what the files need. ``None`` infers it from all files.
    dtype : numpy dtype, default=np.float64
        Type of the feature values.
    multilabel : bool, default=False
        Labels are comma-separated lists (returned as tuples).
    zero_based : bool or "auto", default="auto"
        Whether indices start at 0; ``"auto"`` means one-based unless some file uses index 0
        (decided over all files together).
    query_id : bool, default=False
        Also return the ``qid:`` of every row (0 where absent).
    offset, length : int, default=0 and -1
        Read only the lines that start in the byte range ``[offset, offset + length)``
        (after skipping the partial line at ``offset``); ``n_features`` is then required.
    n_jobs : int, default=None
        Parser threads (``None``: ``FWSVM_NUM_THREADS`` or all cores).
    max_line_length : int, default=None
        The longest line accepted, in bytes; ``None`` is 64 MiB (far above real data lines).
        A longer line raises :class:`LibsvmFormatError` naming it, instead of being buffered
        whole (a compressed file of gigabytes without a newline). Parsed data that do not fit
        in memory raise ``MemoryError``.

    Returns
    -------
    list
        ``[X1, y1, X2, y2, ...]`` (with ``q1, q2, ...`` after each ``y`` when
        ``query_id=True``); each ``X`` a ``scipy.sparse.csr_matrix``.
    """
    if isinstance(files, (str, os.PathLike, int)) or hasattr(files, "read"):
        files = [files]
    if n_features is not None and (not _is_int(n_features) or n_features < 1):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    if not _is_int(offset) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer (a byte position), got {offset!r}")
    if not _is_int(length):
        raise ValueError(f"length must be an integer (a byte count; -1 or 0: to the end), got {length!r}")
    if max_line_length is not None and (not _is_int(max_line_length) or max_line_length < 1):
        raise ValueError(f"max_line_length must be a positive integer or None, got {max_line_length!r}")
    if (offset != 0 or length > 0) and zero_based == "auto":
        # Byte ranges may not see the whole file, so "auto" cannot be decided (scikit-learn).
        zero_based = True
    if (offset != 0 or length > 0) and n_features is None:
        raise ValueError("n_features is required when offset or length is specified.")
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a floating point type, got {dtype}")
    sources, names = zip(*(_source(f) for f in files)) if files else ((), ())
    parsed = run_interruptible(
        _core.load_svmlight,
        list(sources),
        list(names),
        dict(n_features=n_features, multilabel=bool(multilabel), zero_based=_zero_based_arg(zero_based),
             offset=int(offset), length=int(length), n_threads=n_threads(n_jobs),
             max_line_length=None if max_line_length is None else int(max_line_length)),
    )
    result: list[Any] = []
    for part, name in zip(parsed, names):
        indptr = part["indptr"]
        n_rows = len(indptr) - 1
        indptr = indptr.astype(np.int32) if indptr[-1] <= _INT32_MAX else indptr.view(np.int64)
        with np.errstate(over="ignore"):  # an overflow is refused below, naming the row
            values = part["data"].astype(dtype, copy=False)
        if dtype.itemsize < 8:
            _check_narrowed(part["data"], values, indptr, name)
        X = sp.csr_matrix(
            (values, part["indices"].view(np.int32), indptr),
            shape=(n_rows, part["n_features"]),
            copy=False,
        )
        if multilabel:
            bounds, values = part["y_indptr"], part["y_values"]
            y: Any = [tuple(values[bounds[i] : bounds[i + 1]]) for i in range(n_rows)]
        else:
            y = part["y"]
        result += [X, y]
        if query_id:
            result.append(part["qid"])
    return result


def load_svmlight_file(f: Any, **options: Any) -> tuple[Any, ...]:
    """Load one LIBSVM/svmlight file into a CSR matrix and labels.

    Same keyword parameters as :func:`load_svmlight_files` (``n_features``, ``dtype``,
    ``multilabel``, ``zero_based``, ``query_id``, ``offset``, ``length``, ``n_jobs``,
    ``max_line_length``); returns ``(X, y)`` or ``(X, y, qid)``.

    Examples
    --------
    >>> import io
    >>> from fwsvm import load_svmlight_file
    >>> X, y = load_svmlight_file(io.BytesIO(b"+1 1:0.5 3:1\\n-1 2:2\\n"))
    >>> X.shape, y.tolist()
    ((2, 3), [1.0, -1.0])
    """
    return tuple(load_svmlight_files([f], **options))


def dump_svmlight_file(
    X: Any,
    y: Any,
    f: Any,
    *,
    zero_based: bool = True,
    comment: str | bytes | None = None,
    query_id: Any = None,
    multilabel: bool = False,
) -> None:
    """Write a data set in LIBSVM/svmlight format (scikit-learn's signature and defaults:
    note ``zero_based=True``; LIBSVM's own tools expect ``zero_based=False``).

    Dense rows are written without their zeros, sparse rows with their stored entries; values
    are written in the shortest form that reads back exactly.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), or (n_samples, n_labels) indicator matrix when
        ``multilabel=True`` (each row written as the list of its non-zero columns)
    f : str, os.PathLike or binary file object
    zero_based : bool, default=True
    comment : str or bytes, default=None
        Written as ``#`` lines after a header naming fwsvm and the index base.
    query_id : array-like of shape (n_samples,), default=None
    multilabel : bool, default=False
    """
    from sklearn.utils import check_array

    if comment is not None:
        if isinstance(comment, bytes):
            comment = comment.decode("ascii")
        if "\0" in comment:
            raise ValueError("comment string contains NUL byte")
    X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=False)
    kwargs: dict[str, Any] = {}
    if multilabel:
        Y = sp.csr_matrix(y) if not sp.issparse(y) else y.tocsr()
        Y.sort_indices()
        Y.eliminate_zeros()
        kwargs["y_indptr"] = Y.indptr.astype(np.uintp)
        kwargs["y_values"] = Y.indices.astype(np.float64)
        n_y = Y.shape[0]
    else:
        yv = np.asarray(y.toarray() if sp.issparse(y) else y, dtype=np.float64)
        if yv.ndim == 2 and yv.shape[1] == 1:
            yv = yv[:, 0]
        if yv.ndim != 1:
            raise ValueError(f"expected y of shape (n_samples,), got {yv.shape!r}")
        kwargs["y"] = np.ascontiguousarray(yv)
        n_y = yv.shape[0]
    if X.shape[0] != n_y:
        raise ValueError(
            f"X.shape[0] and y.shape[0] should be the same, got {X.shape[0]} and {n_y} instead."
        )
    if query_id is not None:
        q = np.asarray(query_id, dtype=np.int64)
        if q.shape != (X.shape[0],):
            raise ValueError(f"expected query_id of shape ({X.shape[0]},), got {q.shape!r}")
        kwargs["query_id"] = np.ascontiguousarray(q)
    path = os.fspath(f) if isinstance(f, (str, os.PathLike)) else None
    out = _core.dump_svmlight(features_arg(X), dict(kwargs, zero_based=bool(zero_based), comment=comment, path=path))
    if path is None:
        if not hasattr(f, "write"):
            raise TypeError("f must be a path or a binary file object")
        f.write(out)
