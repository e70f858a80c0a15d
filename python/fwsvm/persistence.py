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
``load`` use it too), and so is the mapping of an estimator's fitted state to its arrays and
JSON and back (``src/python/persistence.rs``). Truncated files, corrupted payloads, unknown estimator classes or attributes,
invalid parameters, inconsistent shapes and files written by a newer format version are
refused with :class:`ModelFormatError` (a ``ValueError``) saying which. Pickle and joblib work
too; this format is for long-term storage and exchange: it holds no code, only arrays and JSON.
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, Any

from fwsvm import _core

MAGIC = _core.MODEL_MAGIC
FORMAT_VERSION = _core.MODEL_FORMAT_VERSION
# The header (magic, version, reserved, payload length, CRC-32), for tools that read the parts.
_HEADER = struct.Struct("<8sHHQI")

ModelFormatError = _core.ModelFormatError


def save(estimator: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted estimator to ``path`` in the versioned binary format (its parameters and
    its fitted state as it pickles, mapped to arrays and JSON in Rust)."""
    from fwsvm import __version__

    _core.write_model_file(os.fspath(path), estimator, __version__)


def read(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The file's estimator class name, parameters and fitted state (checked in Rust; sparse
    attributes rebuilt as CSR matrices)."""
    return _core.read_model_file(os.fspath(path))


def restore(cls: type, path: str | os.PathLike[str],
            parts: tuple[str, dict[str, Any], dict[str, Any]] | None = None) -> Any:
    """A ``cls`` estimator from the model file at ``path`` (``parts``: what :func:`read`
    returned, if already read); the file must hold ``cls`` or one of its base classes."""
    return _core.restore_model(cls, os.fspath(path), parts)


class SaveMixin:
    """``save(path)`` and ``load(path)`` in the versioned format (``fwsvm.load_model`` reads
    them too)."""

    if TYPE_CHECKING:  # the estimators' __init__ comes from the Rust table (fwsvm._parameters)

        def __init__(self, *args: Any, **params: Any) -> None: ...

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
