"""fwsvm: kernel SVMs trained by Frank-Wolfe methods on the unit simplex.

The estimators follow scikit-learn's conventions; the solvers run in Rust with the GIL
released. See ``fwsvm.SVC``.

The names below are imported on first use (``fwsvm.SVC`` imports scikit-learn then), so that
``import fwsvm`` and the command-line scripts start in milliseconds.
"""

from __future__ import annotations

import importlib
from typing import Any

from fwsvm._core import LibsvmFormatError, LibsvmModelError, ModelFormatError, __version__

# Public name → the module that defines it.
_LAZY = {
    "SVC": "fwsvm.svm",
    "SVR": "fwsvm.svm",
    "NuSVC": "fwsvm.svm",
    "NuSVR": "fwsvm.svm",
    "OneClassSVM": "fwsvm.svm",
    "CrammerSingerSVC": "fwsvm.crammer_singer",
    "SGDSVC": "fwsvm.linear",
    "Nystroem": "fwsvm.kernel_approximation",
    "RandomFourierFeatures": "fwsvm.kernel_approximation",
    "SVCCV": "fwsvm.tuning",
    "svc_path": "fwsvm.tuning",
    "SVCSearch": "fwsvm.search",
    "load_model": "fwsvm.loading",
    "load_libsvm_model": "fwsvm.loading",
    "dump_svmlight_file": "fwsvm.datasets",
    "load_svmlight_file": "fwsvm.datasets",
    "load_svmlight_files": "fwsvm.datasets",
    "plot_convergence": "fwsvm.plotting",
}

__all__ = [
    "SVC",
    "CrammerSingerSVC",
    "SGDSVC",
    "Nystroem",
    "RandomFourierFeatures",
    "NuSVC",
    "OneClassSVM",
    "SVR",
    "NuSVR",
    "SVCCV",
    "SVCSearch",
    "svc_path",
    "LibsvmFormatError",
    "ModelFormatError",
    "load_model",
    "LibsvmModelError",
    "load_libsvm_model",
    "dump_svmlight_file",
    "load_svmlight_file",
    "load_svmlight_files",
    "plot_convergence",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'fwsvm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
