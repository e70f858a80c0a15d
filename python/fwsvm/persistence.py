"""A versioned binary model format: ``est.save(path)``, ``fwsvm.load_model(path)``.

Layout (little-endian)::

    magic      8 bytes   b"FWSVMMOD"
    version    u16       format version (FORMAT_VERSION)
    reserved   u16       0
    length     u64       payload length in bytes
    crc32      u32       CRC-32 of the payload
    payload    length    a NumPy .npz archive: "__meta__" (JSON: estimator class, parameters,
                         fwsvm version, scalar attributes) and one array per array attribute

Truncated files, corrupted payloads, unknown estimator classes and files written by a newer
format version are refused with :class:`ModelFormatError` (a ``ValueError``) saying which.
Pickle and joblib work too; this format is for long-term storage and exchange: it holds no
code, only arrays and JSON.
"""

from __future__ import annotations

import io
import json
import os
import struct
import zlib
from typing import Any

import numpy as np
import scipy.sparse as sp

MAGIC = b"FWSVMMOD"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sHHQI")


class ModelFormatError(ValueError):
    """A model file that is not a valid fwsvm model of a supported version."""


def _classes() -> dict[str, type]:
    from fwsvm.svm import SVC, SVR, OneClassSVM

    return {cls.__name__: cls for cls in (SVC, SVR, OneClassSVM)}


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


def save(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted estimator to ``path`` in the versioned binary format."""
    from fwsvm import __version__

    if callable(getattr(estimator, "kernel", None)):
        raise ValueError("models with a callable kernel cannot be saved (the callable is code); use pickle")
    if not hasattr(estimator, "n_features_in_"):
        raise ValueError(f"this {type(estimator).__name__} is not fitted yet")
    arrays: dict[str, np.ndarray] = {}
    scalars: dict[str, Any] = {}
    for name, value in vars(estimator).items():
        if not (name.endswith("_") or name.startswith("_")) or name in estimator.get_params():
            continue
        if sp.issparse(value):
            csr = sp.csr_matrix(value)
            for part in ("data", "indices", "indptr"):
                arrays[f"{name}.csr.{part}"] = getattr(csr, part)
            arrays[f"{name}.csr.shape"] = np.asarray(csr.shape, dtype=np.int64)
        elif isinstance(value, np.ndarray):
            if value.dtype == object:
                raise ValueError(f"attribute {name} has object dtype and cannot be saved; use pickle")
            arrays[name] = value
        else:
            scalars[name] = _jsonable(value)
    meta = {
        "estimator": type(estimator).__name__,
        "fwsvm_version": __version__,
        "params": _jsonable(estimator.get_params()),
        "scalars": scalars,
    }
    buf = io.BytesIO()
    np.savez(buf, __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    payload = buf.getvalue()
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload), zlib.crc32(payload))
    with open(path, "wb") as fh:
        fh.write(header + payload)


def load_model(path: str | os.PathLike[str]) -> Any:
    """Read an estimator written by :func:`save` (or ``est.save``)."""
    with open(path, "rb") as fh:
        blob = fh.read()
    name = os.fspath(path)
    if len(blob) < _HEADER.size:
        raise ModelFormatError(f"{name}: truncated: {len(blob)} bytes, shorter than the {_HEADER.size}-byte header")
    magic, version, reserved, length, crc = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise ModelFormatError(f"{name}: not an fwsvm model file (bad magic bytes {magic!r})")
    if version > FORMAT_VERSION:
        raise ModelFormatError(
            f"{name}: written in model format version {version}, newer than this fwsvm supports "
            f"({FORMAT_VERSION}); upgrade fwsvm to read it"
        )
    if version < 1 or reserved != 0:
        raise ModelFormatError(f"{name}: invalid header (version {version}, reserved bytes {reserved})")
    payload = blob[_HEADER.size :]
    if len(payload) != length:
        raise ModelFormatError(f"{name}: truncated or padded: payload has {len(payload)} bytes, header says {length}")
    if zlib.crc32(payload) != crc:
        raise ModelFormatError(f"{name}: corrupted: payload checksum does not match")
    try:
        archive = np.load(io.BytesIO(payload), allow_pickle=False)
        files = {k: archive[k] for k in archive.files}
        meta = json.loads(files.pop("__meta__").tobytes().decode())
    except Exception as exc:  # a valid checksum over an invalid archive: written by a broken tool
        raise ModelFormatError(f"{name}: unreadable payload ({exc})") from exc
    if not isinstance(meta, dict) or not isinstance(meta.get("params"), dict) or not isinstance(meta.get("scalars"), dict):
        raise ModelFormatError(f"{name}: malformed metadata")
    cls = _classes().get(meta.get("estimator"))
    if cls is None:
        raise ModelFormatError(f"{name}: unknown estimator class {meta.get('estimator')!r}")
    try:
        est = cls(**meta["params"])
        # The same checks as fit: a rewritten parameter (an unknown kernel, a negative C) is refused.
        est._validate_params()
    except (TypeError, ValueError) as exc:
        raise ModelFormatError(f"{name}: invalid parameters: {exc}") from exc
    sparse_parts: dict[str, dict[str, np.ndarray]] = {}
    for key, value in files.items():
        if ".csr." in key:
            attr, _, part = key.partition(".csr.")
            _check_attribute_name(name, cls, attr, meta["params"])
            if part not in ("data", "indices", "indptr", "shape"):
                raise ModelFormatError(f"{name}: unknown sparse part {key!r}")
            sparse_parts.setdefault(attr, {})[part] = value
        else:
            _check_attribute_name(name, cls, key, meta["params"])
            setattr(est, key, value)
    for attr, parts in sparse_parts.items():
        setattr(est, attr, _checked_csr(name, attr, parts))
    for key, value in meta["scalars"].items():
        _check_attribute_name(name, cls, key, meta["params"])
        if key in _NUMBERS and not _finite_number(value):
            raise ModelFormatError(f"{name}: attribute {key!r} must be a finite number, got {value!r}")
        setattr(est, key, value)
    _check_fitted_shapes(name, est)
    return est


# Scalar attributes the estimators compute with: a number each.
_NUMBERS = frozenset(
    ["_gamma", "_nu", "_score_constant", "n_features_in_", "fit_status_", "y_mean_", "y_scale_",
     "epsilon_", "radius_", "offset_", "n_iter_"]
)


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and bool(np.isfinite(value))


def _check_attribute_name(name: str, cls: type, attr: str, params: dict[str, Any]) -> None:
    """Only what ``save`` writes may be set: fitted (``name_``) or private (``_name``)
    attributes, never a parameter, a dunder, or anything the class defines (a method such as
    ``predict``, a property, the parameter constraints)."""
    plain = attr.strip("_")
    if (
        not plain.replace("_", "").isalnum()
        or not plain.isascii()
        or attr.startswith("__")
        or not (attr.endswith("_") or attr.startswith("_"))
        or attr in params
        or hasattr(cls, attr)
    ):
        raise ModelFormatError(f"{name}: unexpected attribute {attr!r} in the model file")


def _checked_csr(name: str, attr: str, parts: dict[str, np.ndarray]) -> sp.csr_matrix:
    """A CSR matrix from saved parts, after the checks scipy skips (its routines trust the
    structure and may corrupt memory on a bad one)."""
    try:
        data, indices, indptr, shape = (parts[k] for k in ("data", "indices", "indptr", "shape"))
    except KeyError as exc:
        raise ModelFormatError(f"{name}: sparse attribute {attr!r} lacks its {exc.args[0]!r} part") from exc
    bad = lambda why: ModelFormatError(f"{name}: sparse attribute {attr!r} is corrupt: {why}")  # noqa: E731
    if shape.shape != (2,) or shape.dtype.kind not in "iu" or np.any(shape < 0):
        raise bad(f"shape {shape!r}")
    n_rows, n_cols = (int(v) for v in shape)
    if indptr.ndim != 1 or indices.ndim != 1 or data.ndim != 1:
        raise bad("parts are not one-dimensional")
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu" or data.dtype.kind != "f":
        raise bad("wrong dtypes")
    if len(indptr) != n_rows + 1 or (len(indptr) and indptr[0] != 0):
        raise bad(f"indptr has {len(indptr)} entries for {n_rows} rows")
    if len(indices) != len(data) or (len(indptr) and indptr[-1] != len(indices)):
        raise bad("indptr, indices and data disagree on the number of stored values")
    if np.any(np.diff(indptr) < 0):
        raise bad("indptr decreases")
    if len(indices) and (indices.min() < 0 or indices.max() >= n_cols):
        raise bad(f"a column index is outside [0, {n_cols})")
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols))


def _check_fitted_shapes(name: str, est: Any) -> None:
    """The fitted arrays agree with each other (LIBSVM's layout), so prediction indexes within
    bounds."""

    def fail(why: str) -> ModelFormatError:
        return ModelFormatError(f"{name}: inconsistent model: {why}")

    if not hasattr(est, "dual_coef_") or not hasattr(est, "support_"):
        raise fail("dual_coef_ or support_ is missing")
    dual, support = np.asarray(est.dual_coef_), np.asarray(est.support_)
    intercept = np.asarray(getattr(est, "intercept_", np.zeros(0)))
    if dual.ndim != 2 or support.ndim != 1 or dual.shape[1] != len(support):
        raise fail(f"dual_coef_ {dual.shape} against {len(support)} support vectors")
    if not np.all(np.isfinite(dual)) or not np.all(np.isfinite(intercept)):
        raise fail("non-finite coefficients")
    vectors = getattr(est, "support_vectors_", None)
    if vectors is not None and getattr(est, "kernel", None) != "precomputed":
        if vectors.shape[0] != len(support) or vectors.shape[1] != getattr(est, "n_features_in_", vectors.shape[1]):
            raise fail(f"support_vectors_ {vectors.shape} against {len(support)} support vectors")
    if hasattr(est, "n_support_") and hasattr(est, "classes_"):
        n_support = np.asarray(est.n_support_)
        k = len(est.classes_)
        if len(n_support) != k or n_support.sum() != len(support) or np.any(n_support < 0):
            raise fail(f"n_support_ {n_support.tolist()} against {k} classes and {len(support)} support vectors")
        if dual.shape[0] != max(k - 1, 1) or len(intercept) != k * (k - 1) // 2:
            raise fail(f"dual_coef_ {dual.shape} or intercept_ {intercept.shape} against {k} classes")
    elif hasattr(est, "intercept_") and (dual.shape[0] != 1 or intercept.shape != (1,)):
        # SVR: one expansion and one bias.
        raise fail(f"dual_coef_ {dual.shape} or intercept_ {intercept.shape} for a single model")


class PersistenceMixin:
    """``save(path)`` and ``load(path)`` for the estimators."""

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write this fitted estimator in fwsvm's versioned binary model format."""
        save(self, path)

    def save_libsvm_model(self, path: str | os.PathLike[str]) -> None:
        """Write this fitted SVC, SVR or (rbf) OneClassSVM as a LIBSVM model file (for ``svm-predict``)."""
        from fwsvm.libsvm_model import save_libsvm_model

        save_libsvm_model(self, path)

    def to_sklearn(self) -> Any:
        """An equivalent fitted ``sklearn.svm`` estimator (see :func:`fwsvm.interop.to_sklearn`)."""
        from fwsvm.interop import to_sklearn

        return to_sklearn(self)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Any:
        """Read a model written by ``save``; it must be of this class."""
        est = load_model(path)
        if not isinstance(est, cls):
            raise ModelFormatError(f"{os.fspath(path)} holds a {type(est).__name__}, not a {cls.__name__}")
        return est
