"""A versioned binary model format: ``est.save(path)``, ``fwsvm.load_model(path)``.

Layout (little-endian)::

    magic      8 bytes   b"FWSVMMOD"
    version    u16       format version (FORMAT_VERSION)
    reserved   u16       0
    length     u64       payload length in bytes
    crc32      u32       CRC-32 of the payload
    payload    length    a NumPy .npz archive: "__meta__" (JSON: estimator class, parameters,
                         fwsvm version, scalar attributes) and one array per array attribute

The format is implemented once, in Rust (``src/model_file``: the Rust models' ``save`` and
``load`` use it too); this module only maps an estimator's attributes to its arrays and JSON
and back. Truncated files, corrupted payloads, unknown estimator classes or attributes,
invalid parameters, inconsistent shapes and files written by a newer format version are
refused with :class:`ModelFormatError` (a ``ValueError``) saying which. Pickle and joblib work
too; this format is for long-term storage and exchange: it holds no code, only arrays and JSON.
"""

from __future__ import annotations

import os
import struct
from typing import Any

import numpy as np
import scipy.sparse as sp

from fwsvm import _core

MAGIC = b"FWSVMMOD"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sHHQI")

ModelFormatError = _core.ModelFormatError


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _array_entry(name: str, value: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    if value.dtype == object:
        raise ValueError(f"attribute {name} has object dtype and cannot be saved; use pickle")
    value = np.ascontiguousarray(value) if value.ndim else value
    return value.dtype.str, value.shape, value.tobytes()


def save(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted estimator to ``path`` in the versioned binary format."""
    from fwsvm import __version__

    if callable(getattr(estimator, "kernel", None)):
        raise ValueError("models with a callable kernel cannot be saved (the callable is code); use pickle")
    if not hasattr(estimator, "n_features_in_"):
        raise ValueError(f"this {type(estimator).__name__} is not fitted yet")
    arrays: dict[str, tuple[str, tuple[int, ...], bytes]] = {}
    scalars: dict[str, Any] = {}
    # The estimator's fitted state as it pickles (a Rust model handle as its parts).
    state = dict(estimator.__getstate__())
    state.pop("_sklearn_version", None)
    for name, value in state.items():
        if not (name.endswith("_") or name.startswith("_")) or name in estimator.get_params():
            continue
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            for part in ("data", "indices", "indptr"):
                arrays[f"{name}.csr.{part}"] = _array_entry(name, getattr(csr, part))
            arrays[f"{name}.csr.shape"] = _array_entry(name, np.asarray(csr.shape, dtype=np.int64))
        elif isinstance(value, np.ndarray):
            arrays[name] = _array_entry(name, value)
        else:
            scalars[name] = _jsonable(value)
    params = _jsonable(estimator.get_params())
    _core.write_model_file(os.fspath(path), type(estimator).__name__, params, scalars, arrays, __version__)


def read(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The file's estimator class name, parameters, scalar and array attributes (checked in
    Rust)."""
    return _core.read_model_file(os.fspath(path))


# The L2 models' loss, for files written before SVR and OneClassSVM defaulted to LIBSVM's.
_L2_BEFORE_LOSS = {"SVR": "squared_epsilon_insensitive", "OneClassSVM": "squared_hinge"}


def restore(cls: type, path: str | os.PathLike[str],
            parts: tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]] | None = None) -> Any:
    """A ``cls`` estimator from the model file at ``path`` (``parts``: what :func:`read`
    returned, if already read); the file must hold ``cls`` or one of its base classes."""
    name = os.fspath(path)
    estimator, params, scalars, arrays = parts if parts is not None else read(path)
    matches = [c for c in cls.__mro__ if c.__name__ == estimator]
    if not matches:
        raise ModelFormatError(f"{name} holds a {estimator}, not a {cls.__name__}")
    cls = matches[0]
    if estimator in _L2_BEFORE_LOSS and "loss" not in params:
        # Files from before these estimators had a loss hold the L2 models.
        params = dict(params, loss=_L2_BEFORE_LOSS[estimator])
    try:
        est = cls(**params)
        # scikit-learn's constraints of the Python class, on top of the checks in Rust.
        est._validate_params()
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{name}: invalid parameters: {exc}") from exc
    state: dict[str, Any] = dict(scalars)
    sparse: dict[str, dict[str, np.ndarray]] = {}
    for key, (descr, shape, fortran, data) in arrays.items():
        value = np.frombuffer(data, dtype=np.dtype(descr)).reshape(shape, order="F" if fortran else "C").copy()
        attr, _, part = key.partition(".csr.")
        if part:
            sparse.setdefault(attr, {})[part] = value
        else:
            state[key] = value
    for attr, parts in sparse.items():
        # Rust checked the CSR invariants (scipy's routines trust them).
        state[attr] = sp.csr_matrix((parts["data"], parts["indices"], parts["indptr"]), shape=tuple(parts["shape"]))
    try:
        # As unpickling restores it (an estimator holding a Rust model rebuilds it from its parts).
        est.__setstate__(state)
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{name}: inconsistent model: {exc}") from exc
    return est


class SaveMixin:
    """``save(path)`` and ``load(path)`` in the versioned format (``fwsvm.load_model`` reads
    them too)."""

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write this fitted estimator in fwsvm's versioned binary model format."""
        save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Any:
        """Read a model written by ``save``; it must be of this class."""
        return restore(cls, path)


class PersistenceMixin(SaveMixin):
    """``save``/``load``, LIBSVM model files and scikit-learn conversion for the kernel SVMs."""

    def save_libsvm_model(self, path: str | os.PathLike[str]) -> None:
        """Write this fitted SVC, SVR or (rbf) OneClassSVM as a LIBSVM model file (for ``svm-predict``)."""
        from fwsvm.libsvm_model import save_libsvm_model

        save_libsvm_model(self, path)

    def to_sklearn(self) -> Any:
        """An equivalent fitted ``sklearn.svm`` estimator (see :func:`fwsvm.interop.to_sklearn`)."""
        from fwsvm.interop import to_sklearn

        return to_sklearn(self)
