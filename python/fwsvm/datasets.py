"""LIBSVM / svmlight file loading and writing, with scikit-learn's signatures and semantics,
implemented in Rust (parallel parsing, gzip/bz2 detected by content, the GIL released).

Differences from :mod:`sklearn.datasets`: the matrices come back with int32 indices whenever
they fit (so ``sklearn.svm.SVC`` accepts them as they are), and every malformed line raises
:class:`fwsvm.LibsvmFormatError` (a ``ValueError``) naming the file, line and column.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fwsvm import _core

LibsvmFormatError = _core.LibsvmFormatError


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
    options = dict(n_features=n_features, dtype=dtype, multilabel=multilabel, zero_based=zero_based,
                   query_id=query_id, offset=offset, length=length, n_threads=n_jobs,
                   max_line_length=max_line_length)
    # Options checked and file objects read here; the parse (in Rust) stops on Ctrl-C.
    return _core.SvmlightReader(files, options).load()


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

    X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=False)
    options = dict(zero_based=bool(zero_based), comment=comment, query_id=query_id, multilabel=bool(multilabel))
    _core.dump_svmlight(X, y, f, options)
