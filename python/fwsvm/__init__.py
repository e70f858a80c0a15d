"""fwsvm: kernel SVMs trained by Frank-Wolfe methods on the unit simplex.

The estimators follow scikit-learn's conventions; the solvers run in Rust with the GIL
released. See ``fwsvm.SVC``.
"""

from fwsvm._core import __version__
from fwsvm.svm import SVC

__all__ = ["SVC", "__version__"]
