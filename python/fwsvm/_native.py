"""Passing data to the native core and running long native calls interruptibly."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm._interrupt import run_interruptible

__all__ = ["features_arg", "n_threads", "run_interruptible"]


def features_arg(X: Any) -> Any:
    """Dense float64 C-contiguous arrays pass through; CSR matrices become the
    (data, indices, indptr, n_features) tuple the core reads. The data is borrowed without a
    copy; ``indices`` (as uint32) and ``indptr`` (as uintp) are always copied: the core checks
    them once and then indexes with them, so a thread that rewrites the caller's arrays during
    a fit must not reach them (it made the fit index out of range). Arrays on unaligned
    buffers (e.g. unpickled from a network stream, as Dask's workers receive them) are copied:
    the core reads aligned float64."""
    if not sp.issparse(X):
        return np.require(X, dtype=np.float64, requirements=["C", "A"])
    X = X.tocsr()
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    data = np.require(X.data, dtype=np.float64, requirements=["C", "A"])
    indices = X.indices
    if indices.dtype != np.int32 and indices.size and int(indices.max()) >= 2**32:
        raise ValueError("sparse column indices must be below 2**32")
    # Copies (astype copies by default); negative int32 indices wrap and are refused by the core.
    indices = indices.astype(np.uint32)
    indptr = X.indptr.astype(np.uintp)
    return (data, indices, indptr, int(X.shape[1]))


def n_threads(n_jobs: int | None) -> int | None:
    """scikit-learn's ``n_jobs`` to a thread count (None: the core's default, which is
    ``FWSVM_NUM_THREADS`` or all cores)."""
    if n_jobs is None:
        return None
    cpus = os.cpu_count() or 1
    if n_jobs < 0:
        return max(1, cpus + 1 + n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 is not a valid number of threads; use None, -1 or a positive number")
    return n_jobs
