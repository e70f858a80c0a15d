"""fwsvm: kernel SVMs trained by Frank-Wolfe methods on the unit simplex.

The estimators follow scikit-learn's conventions; the solvers run in Rust with the GIL
released. See ``fwsvm.SVC``.
"""

from fwsvm._core import __version__
from fwsvm.crammer_singer import CrammerSingerSVC
from fwsvm.datasets import (
    LibsvmFormatError,
    dump_svmlight_file,
    load_svmlight_file,
    load_svmlight_files,
)
from fwsvm.kernel_approximation import Nystroem, RandomFourierFeatures
from fwsvm.libsvm_model import LibsvmModelError, load_libsvm_model
from fwsvm.persistence import ModelFormatError, load_model
from fwsvm.linear import SGDSVC
from fwsvm.plotting import plot_convergence
from fwsvm.svm import SVC, SVR, OneClassSVM
from fwsvm.search import SVCSearch
from fwsvm.tuning import SVCCV, svc_path

__all__ = [
    "SVC",
    "CrammerSingerSVC",
    "SGDSVC",
    "Nystroem",
    "RandomFourierFeatures",
    "OneClassSVM",
    "SVR",
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
