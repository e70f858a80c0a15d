"""fwsvm: kernel support vector machines trained in a Rust engine, as scikit-learn estimators.

- :class:`SVC` — classification. ``loss="hinge"`` (the default) is LIBSVM's and scikit-learn's
  model, the same ``C``, solved by SMO (pairwise second-order steps); ``loss="squared_hinge"``
  is the L2-SVM of the Core Vector Machine, solved by Frank-Wolfe methods on the unit simplex
  (``algorithm=``). Multiclass by one-vs-one; :class:`CrammerSingerSVC` is the joint model;
  :class:`NuSVC` is LIBSVM's ν-SVC.
- :class:`OneClassSVM` and :class:`SVR`, :class:`NuSVR`: LIBSVM's one-class ν-SVM, ε-SVR and
  ν-SVR by SMO, or (``loss=``) the minimum enclosing ball and the L2-SVR by Frank-Wolfe.
- Linear models and kernel approximation: ``SVC(kernel="linear", algorithm="dcd")``,
  :class:`SGDSVC`, :class:`Nystroem`, :class:`RandomFourierFeatures`.
- Tuning: :class:`SVCSearch`, :class:`SVCCV`, :func:`svc_path`; files:
  :func:`load_svmlight_file`, :func:`load_model`, :func:`load_libsvm_model`; Dask:
  ``fwsvm.dask`` (``pip install fwsvm[dask]``).

Every fit releases the GIL, stops on a certificate and reports how in ``convergence_``.

The names are imported on first use (``fwsvm.SVC`` imports scikit-learn then), so that
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
