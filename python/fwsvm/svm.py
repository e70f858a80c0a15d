"""scikit-learn estimators backed by the Rust solvers of ``fwsvm._core``: SMO for LIBSVM's models, Frank-Wolfe methods for the squared hinge."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import _ovr_decision_function, check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from fwsvm import _core
from fwsvm._convergence import Convergence
from fwsvm._parameters import parameters
from fwsvm.persistence import PersistenceMixin, SaveMixin

def _seed(random_state: Any) -> int:
    """The solver's seed. ``None`` gives a fixed seed, so the same data and parameters give the
    same model every run, as LIBSVM's; an int or a RandomState seeds it as in scikit-learn."""
    if random_state is None:
        return 0
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def fit_weights(sample_weight: Any, X: Any, class_weight: Any, classes: np.ndarray, y: np.ndarray,
                y_index: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(the caller's ``sample_weight``, checked; it times ``class_weight`` per sample): each
    None when there is nothing to weight."""
    user = None
    if sample_weight is not None:
        user = _check_sample_weight(sample_weight, X, dtype=np.float64)
        if np.any(user < 0):
            raise ValueError("sample_weight must be non-negative")
    if class_weight is None:
        return user, user
    per_sample = compute_class_weight(class_weight, classes=classes, y=y)[y_index]
    return user, per_sample if user is None else user * per_sample


def resolve_gamma(gamma: Any, X: Any) -> float:
    """γ for ``gamma="scale"`` (1/(n_features · X.var())), ``"auto"`` (1/n_features) or a number."""
    if isinstance(gamma, str):
        if gamma == "auto":
            return 1.0 / X.shape[1]
        var = _core.data_variance(X)
        return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
    return float(gamma)


def _fitted_kernel(est: Any) -> dict[str, Any]:
    """The kernel settings of the fit (``_kernel_fit_``), not today's parameters: a
    ``set_params(kernel=...)`` after ``fit`` must not change what the fitted model predicts.
    Models from files written before this attribute existed use their parameters (the fitted
    ones)."""
    fitted = getattr(est, "_kernel_fit_", None)
    if fitted is not None:
        return fitted
    return dict(kernel=est.kernel, degree=int(est.degree), coef0=float(est.coef0))


def _remember_kernel(est: Any) -> None:
    """Keep the kernel settings of this fit as fitted state (see :func:`_fitted_kernel`); a
    callable kernel is the estimator's own object and stays a parameter."""
    est._kernel_fit_ = None
    if isinstance(est.kernel, str):
        est._kernel_fit_ = dict(kernel=est.kernel, degree=int(est.degree), coef0=float(est.coef0))


def _kernel_params(est: Any, kernel: str | None = None) -> dict[str, Any]:
    """The fitted kernel as prediction takes it (``_core.decision_values``'s ``kernel`` dict)."""
    fitted = _fitted_kernel(est)
    return dict(kernel=kernel or fitted["kernel"], gamma=est._gamma, degree=fitted["degree"],
                coef0=fitted["coef0"], n_threads=est.n_jobs)


def _fit_params(est: Any, c: float, kernel: str, tol: float, **extra: Any) -> dict[str, Any]:
    """The one dict of hyper-parameters every native fit takes (``_core.FitParams``)."""
    return dict(
        c=float(c), kernel=kernel, gamma=est._gamma, degree=int(est.degree), coef0=float(est.coef0),
        algorithm=est.algorithm, tol=float(tol), stopping=est.stopping, max_iter=int(est.max_iter),
        cache_size=float(est.cache_size), init=est.init, seed=_seed(est.random_state),
        sample_size=None if est.sample_size is None else int(est.sample_size), n_threads=est.n_jobs,
        verbose=_verbosity(est.verbose), record_history=bool(est.record_history), **extra,
    )


def _single_solve_report(result: dict[str, Any], **convergence: Any) -> dict[str, Any]:
    """A single solve's result (its statistics and warnings, as the native fits return them)
    as the report :meth:`_KernelSVM._take_report` keeps; ``convergence``: entries to add to
    ``convergence_``."""
    return dict(history=result.pop("history", None), warnings=result.pop("warnings"), n_iter=int(result["n_iter"]),
                fit_status=int(result["exit_reason"] != "converged"), convergence=dict(result, **convergence))


def _check_class_labels(y: np.ndarray) -> None:
    """scikit-learn's check that ``y`` holds classes, except that finite whole-number floats
    beyond the int64 range (LIBSVM's labels may be any double, e.g. 1e300) are classes too:
    scikit-learn casts them to int and calls them "continuous"."""
    if y.dtype.kind == "f" and y.size and np.all(np.isfinite(y)) and np.all(y == np.floor(y)) \
            and np.max(np.abs(y)) >= 2.0**63:
        return
    check_classification_targets(y)


def _class_name(label: Any) -> str:
    """A class label as progress lines print it (``2`` rather than ``2.0``)."""
    return format(label, "g") if isinstance(label, (float, np.floating)) else str(label)


def _verbosity(verbose: int | bool) -> int:
    """The native fits' verbosity level (0, 1 or 2) for ``verbose``."""
    return min(max(int(verbose), 0), 2)


def _check_query(est: Any, X: Any) -> Any:
    """Validate rows to predict. A sparse X with fewer columns than the model's features (a
    LIBSVM test file whose highest index is lower than the training file's) gets zero columns
    appended, as LIBSVM treats missing features; more columns is an error naming both counts."""
    n_model = getattr(est, "n_features_in_", None)
    if sp.issparse(X) and n_model is not None and X.shape[1] < n_model and not _uses_gram(est):
        X = sp.csr_matrix(X)
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_model))
    return validate_data(est, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False,
                         accept_large_sparse=True)


def _uses_gram(est: Any) -> bool:
    """Whether the estimator's kernel is given as values (``"precomputed"`` or a callable)."""
    return callable(est.kernel) or est.kernel == "precomputed"


def _training_gram(est: Any, X: Any) -> Any:
    """The training Gram matrix for a precomputed or callable kernel (scikit-learn's rules)."""
    if callable(est.kernel):
        K = np.asarray(est.kernel(X, X), dtype=np.float64)
        if K.shape != (X.shape[0], X.shape[0]):
            raise ValueError(f"the kernel callable returned shape {K.shape}, expected ({X.shape[0]}, {X.shape[0]})")
        return np.ascontiguousarray(K)
    if X.shape[0] != X.shape[1]:
        raise ValueError(f"Precomputed matrix must be a square matrix. Input is a {X.shape[0]}x{X.shape[1]} matrix.")
    return np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)


class SparseInputMixin:
    """Tags an estimator as taking sparse input (scikit-learn's ``input_tags.sparse``)."""

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _part(name: str, doc: str | None = None) -> property:
    """A fitted attribute that reads part ``name`` of the Rust model (``_model.part``)."""
    return property(lambda self: self._model.part(name), doc=doc)


class _KernelSVM(SparseInputMixin, SaveMixin, BaseEstimator):
    """What :class:`SVC`, :class:`SVR` and :class:`OneClassSVM` share: sparse and precomputed
    input, γ and the fitted kernel, the training data the native fits take, the kernel
    expansion at prediction and the warnings of a fit that did not converge."""

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _resolve_gamma(self, X: Any) -> float:
        return resolve_gamma(self.gamma, X)

    def _prepare(self, X: Any) -> tuple[Any, str]:
        """Fix γ and the kernel of this fit; the training data for the native fit (the Gram
        matrix of a precomputed or callable kernel) and the kernel's name there."""
        gram = _uses_gram(self)
        self._gamma = 0.0 if gram else self._resolve_gamma(X)
        _remember_kernel(self)
        if gram:
            return _training_gram(self, X), "precomputed"
        return X, self.kernel

    def _fit_expansion(self, X: Any, y: Any, sample_weight: Any, dual: str, c: float, warm: np.ndarray | None = None,
                       **extra: Any) -> dict[str, Any]:
        """Fit a single kernel expansion in Rust (``_core.fit_dual``): LIBSVM's one-class,
        ε-SVR or ν-SVR, or the L2 models (``"l2_svr"``, ``"ball"``); set the attributes they
        share and warn if the fit stopped early. Returns the rest of the result."""
        libsvm = dual in ("one_class", "epsilon_svr", "nu_svr")
        if sample_weight is not None and not libsvm:  # before scikit-learn's checks of the weights
            raise ValueError(f"sample_weight applies to LIBSVM's models, not to loss={self.loss!r}")
        weights = None
        if sample_weight is not None:
            weights = np.ascontiguousarray(_check_sample_weight(sample_weight, X, dtype=np.float64))
        X_core, kernel = self._prepare(X)
        params = _fit_params(self, c, kernel, self.tol, dual=dual, **extra, **({"loss": "hinge"} if libsvm else {}))
        y = None if y is None else np.ascontiguousarray(y, dtype=np.float64)
        model, result = _core.fit_dual(X_core, y, params, sample_weight=weights, warm_start=warm)
        self._hold(model, X)
        self.shape_fit_ = X.shape
        self._take_report(_single_solve_report(result), stacklevel=5)
        return result

    def _take_report(self, report: dict[str, Any], stacklevel: int) -> None:
        """Keep what a fit reports (``history_``, ``n_iter_``, ``fit_status_``, ``convergence_``)
        and raise its warnings (found in Rust: early stops, no progress, a kernel that is not
        positive semi-definite)."""
        self.history_, self.n_iter_, self.fit_status_ = report["history"], report["n_iter"], report["fit_status"]
        self.convergence_ = Convergence(report["convergence"])
        for convergence, message in report["warnings"]:
            warnings.warn(message, ConvergenceWarning if convergence else UserWarning, stacklevel=stacklevel)

    def _keep_for_warm_start(self, n_samples: int) -> None:
        """With ``warm_start``, remember what the next fit needs to start from this one's model."""
        self._warm_from = (n_samples, self.loss, float(self.C)) if self.warm_start else None

    def _warm_start_for(self, n_samples: int) -> np.ndarray | None:
        """The previous fit's weights as this fit's start (``warm_start``), padded with zeros for
        rows appended since; the hinge losses' weights scaled by the new C over the old (the
        squared hinge's simplex weights need no scaling). None: a cold start (no previous fit,
        another loss, fewer rows, or a one-vs-one model)."""
        previous = getattr(self, "_warm_from", None)
        if not self.warm_start or previous is None or previous[0] > n_samples or previous[1] != self.loss:
            return None
        return self._model.warm_start(n_samples, 1.0 if self.loss == "squared_hinge" else float(self.C) / previous[2])

    # The fitted model is Rust's (``_model``: ``_core.SvcModel`` or ``_core.KernelExpansion``);
    # these attributes are views of it. ``_PARTS``: its parts under scikit-learn's names, as
    # pickles and model files keep them.
    _PARTS: tuple[str, ...] = ("support_", "support_vectors_", "dual_coef_")
    support_ = _part("support", "Indices of the support vectors in the training data.")
    dual_coef_ = _part("dual_coef", "Coefficients of the support vectors.")

    @property
    def support_vectors_(self) -> Any:
        """The support vectors (empty for a precomputed kernel, as scikit-learn's)."""
        kernel = _fitted_kernel(self)["kernel"]
        if callable(kernel):
            return self._support_rows
        if kernel == "precomputed":
            return np.empty((0, 0))
        vectors = self._model.part("vectors")
        if isinstance(vectors, tuple):
            data, indices, indptr, n_features = vectors
            return sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, n_features))
        return vectors

    def _hold(self, model: Any, X: Any) -> None:
        """Keep the fitted Rust model (and a callable kernel's support rows, which it calls)."""
        self._model = model
        self._support_rows = X[model.part("support")] if callable(self.kernel) else None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())  # BaseEstimator's is the instance's own __dict__
        if state.pop("_model", None) is not None:
            parts = {name: getattr(self, name) for name in self._PARTS}
            # As before the model was Rust's: no label order of a fitted model, no α of a one-vs-one one.
            state.update({name: value for name, value in parts.items()
                          if not (name in ("_label_order", "_alpha") and len(value) == 0)})
            state.pop("_support_rows", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        parts = {name: state.pop(name) for name in self._PARTS if name in state}
        super().__setstate__(state)
        if parts:
            self._set_parts(parts)

    def _set_parts(self, parts: dict[str, Any]) -> None:
        """Build the Rust model from its parts (a pickle, a model file, a LIBSVM file, or a
        fit assembled elsewhere), after the other fitted attributes are set."""
        vectors, kernel = parts.get("support_vectors_"), _fitted_kernel(self)["kernel"]
        gram = callable(kernel) or kernel == "precomputed"
        if callable(kernel):
            self._support_rows = vectors
        common = dict(kernel=_kernel_params(self, "precomputed" if gram else None),
                      vectors=None if gram else vectors, n_training=int(self.shape_fit_[0]) if gram else 0,
                      support=[int(s) for s in parts["support_"]])
        self._model = self._model_from_parts(common, parts)

    def _model_from_parts(self, common: dict[str, Any], parts: dict[str, Any]) -> Any:
        coef = np.atleast_2d(np.asarray(parts["dual_coef_"], dtype=np.float64))
        return _core.KernelExpansion.from_parts(dict(common, coef=np.ascontiguousarray(coef.ravel()),
                                                     n_outputs=coef.shape[0]))

    def _query(self, X: Any, method: str) -> Any:
        """``method`` of the Rust model on checked rows (kernel values for a precomputed or
        callable kernel); Ctrl-C stops it."""
        columns, kernel = "features", _fitted_kernel(self)["kernel"]
        if callable(kernel):
            X, columns = np.ascontiguousarray(kernel(X, self.support_vectors_), dtype=np.float64), "support_kernel"
        elif kernel == "precomputed":
            if X.shape[1] != self.shape_fit_[0]:
                raise ValueError(f"X.shape[1] = {X.shape[1]} should be equal to {self.shape_fit_[0]}, "
                                 "the number of samples at training time")
            X, columns = (X.toarray() if sp.issparse(X) else X), "training_kernel"
        return self._model.query(method, X, columns=columns, n_threads=self.n_jobs)


@parameters()
class SVC(ClassifierMixin, PersistenceMixin, _KernelSVM):
    """Kernel support vector classifier: LIBSVM's hinge-loss model by SMO (the default), or the L2-SVM by Frank-Wolfe methods.

    Two models (``loss``). ``"squared_hinge"`` is the L2-SVM of the Core Vector Machine
    described below. The default, ``"hinge"``, is LIBSVM's model — the one of
    :class:`sklearn.svm.SVC` with the same ``C``, the same support vectors and decision values
    — ``min ½‖w‖² + C Σ_i max(0, 1 − y_i (⟨w, φ(x_i)⟩ + b))``, solved by pairwise steps with
    second-order partners on its polytope {0 ≤ α ≤ C, yᵀα = 0} (SMO), with shrinking; its
    ``tol`` is LIBSVM's ``-e``, the largest violation of the optimality conditions.

    The squared hinge solves, with
    ``Q_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C`` it maximises ``-αᵀQα`` over the unit
    simplex. This is the squared-hinge SVM with a regularised bias,

        min ½(‖w‖² + b²) + (C/2) Σ_i max(0, 1 − y_i (⟨w, φ(x_i)⟩ + b))²,

    so ``C`` here penalises *squared* slacks: it is not on the same scale as the hinge-loss ``C``
    of :class:`sklearn.svm.SVC` (for the linear kernel the model equals
    ``LinearSVC(loss="squared_hinge", C=C/2, intercept_scaling=1)``). Each solver step touches one
    or two kernel columns; only the columns of recently used points are kept
    (``cache_size``), never the full kernel matrix.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the slacks (squared slacks with ``loss="squared_hinge"``), > 0.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The model (see above). ``"hinge"`` takes ``algorithm`` ``"swap"`` or ``"swap2o"``
        (both: second-order partners) and no ``sample_size``.
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian", "precomputed"} or callable, default="rbf"
        The kernel: ``exp(-γ‖x−z‖²)``, ``⟨x,z⟩``, ``(γ⟨x,z⟩ + coef0)^degree``,
        ``tanh(γ⟨x,z⟩ + coef0)`` or ``exp(-γ‖x−z‖₁)``. ``"precomputed"``: X is the Gram matrix
        (n_samples × n_samples in fit, n_test × n_train at prediction). A callable
        ``kernel(X, Y)`` returns the Gram matrix (scikit-learn's conventions; the full training
        Gram matrix is then formed, so this is for small data).
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient: ``"scale"`` is ``1 / (n_features · X.var())``, ``"auto"`` is
        ``1 / n_features`` (as in scikit-learn).
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=0.0
        Constant of the polynomial and sigmoid kernels.
    probability : bool, default=False
        Enable ``predict_proba`` and ``predict_log_proba``, as LIBSVM's ``-b 1``: after the fit,
        5-fold cross-validation (five more fits) gives out-of-fold decision values, a sigmoid
        (Platt scaling, Lin–Lin–Weng's Newton method) is fitted per pair of classes, and
        pairwise probabilities are coupled into class probabilities (Wu–Lin–Weng method 2).
        ``predict`` still follows the decision values, so it can disagree with the argmax of
        ``predict_proba`` on a few rows, as in scikit-learn.
    algorithm : {"swap", "swap2o", "mfw", "fw", "bc", "ky"}, default="swap"
        The Frank-Wolfe variant: SWAP (toward or pairwise steps chosen by exact gains),
        SWAP-2o (second-order pairwise partner), MFW (Wolfe away steps), plain FW, ``"bc"``
        (fully corrective: Bădoiu–Clarkson, the Core Vector Machine's solver: each toward
        vertex joins the coreset, which is then re-solved) or ``"ky"`` (Kumar–Yildirim: away
        steps on the two-simplex nearest-point problem). ``"ky"`` solves a different
        formulation: the squared-hinge SVM with an *unregularised* bias,
        ``min ½‖w‖² + (C/2) Σ ξ_i²`` s.t. ``y_i (⟨w, φ(x_i)⟩ + b) ≥ 1 − ξ_i`` (its penalty χ
        of paper 001 is ``C``; the kernel is augmented by ``δ_ij / C`` as for the others). Its
        stopping test is the paper's ``max(ε₊, ε₋) ≤ tol``.
    tol : float or None, default=None
        Tolerance of the stopping rule; ``None`` is 1e-2 for the squared hinge and 1e-3 (LIBSVM's
        and scikit-learn's default) for the hinge loss, whose ``tol`` bounds the largest
        violation of the optimality conditions, ``max(-y∇) over I_up − min(-y∇) over I_low``.
        The squared hinge's default comes from a study on nine shared
        datasets (``benches/compare/tol_study.py``, BENCHMARKS.md): from 1e-2 down to 1e-4
        the test accuracy moved by at most 0.01 points, while 1e-2 needs about 30% fewer
        steps than 1e-3. Use 1e-3 or tighter when the dual solution itself matters.
    stopping : {"gap", "absolute_gap", "meb"}, default="gap"
        ``"gap"``: duality gap ≤ ``tol·|objective|`` (scale-free; bounds margin violations
        relative to the margin). ``"absolute_gap"``: duality gap ≤ tol. ``"meb"``: the CVM
        rule ``1 + δ⁺ ≤ (1 + tol)²`` (only for rbf/laplacian kernels without weights).
    max_iter : int, default=-1
        Maximum number of solver steps, -1 for no limit. Hitting it raises a
        :class:`~sklearn.exceptions.ConvergenceWarning`.
    cache_size : float, default=200
        Memory for cached kernel columns, in MB. Columns are stored as float32 when this
        cannot hold all n_samples columns as float64.
    class_weight : dict or "balanced", default=None
        Multiplies C per class (``"balanced"``: by ``n_samples / (n_classes · count)``); a
        weighted problem has a non-constant diagonal, so ``stopping="meb"`` is refused.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Multiclass decision values: one per pair (``"ovo"``, LIBSVM's) or one per class
        built from the pairs as scikit-learn does (``"ovr"``).
    break_ties : bool, default=False
        With ``decision_function_shape="ovr"`` and more than two classes, predict the argmax
        of the decision function instead of the one-vs-one vote.
    init : {"random", "farthest", "closest_pair"}, default="random"
        Initial iterate: exact solution on 20 random points (CVM), a point and its farthest
        point, or the closest pair of opposite-class points.
    sample_size : int or None, default=None
        The Core Vector Machine's "probabilistic speedup": search each step's toward vertex
        over this many random points plus the current support vectors instead of all points
        (59 finds one of the best 5% with probability 0.95). A step then costs about
        ``sample_size × n_support`` kernel evaluations instead of one kernel column, which pays
        while the support is smaller than about ``n_samples / (4 · sample_size)`` (an entry
        computed on its own costs about four of a column's); past that, or when
        three samples in a row show no violator, the solver continues with full passes, which
        also certify convergence (so the model meets ``tol`` either way). Only with
        ``algorithm`` ``"swap"``, ``"mfw"`` or ``"fw"``. ``convergence_["sampled_steps"]``
        counts the sampled steps.
    random_state : int, RandomState instance or None, default=None
        Seeds the random initialisation (and the samples of ``sample_size``). ``None`` uses a
        fixed seed: the same data and parameters give the same model every run.
    n_jobs : int or None, default=None
        Threads for fitting and prediction. ``None`` uses the ``FWSVM_NUM_THREADS`` environment
        variable or all cores; ``-1`` all cores. The model does not depend on it.
    verbose : int or bool, default=False
        Progress on stderr. ``1`` (or ``True``): a fit longer than 2 s shows a live line while
        stderr is a terminal (steps, the gap against ``tol``, support vectors, elapsed time;
        one-vs-one shows the pairs done with a line per running pair), and each fit, or each
        pair, ends with a summary line. ``2``: also the solver's log (a status line per second,
        shrinking, coreset rounds), each line labelled with its pair.
        When ``sys.stderr`` is not the process's stderr (``contextlib.redirect_stderr``, a Jupyter cell)
        the lines go to ``sys.stderr``; in Jupyter, with ``tqdm`` installed, a fit longer than 2 s also
        shows an updating bar.
    record_history : bool, default=False
        Keep a per-step record of the solve in ``history_`` (about 40 bytes per step).
    warm_start : bool, default=False
        Start the next binary ``fit`` from this fit's solution. The simplex weights stay
        feasible when ``C``, ``gamma`` or the kernel change, so a sweep over C (see
        :func:`fwsvm.svc_path` and :class:`fwsvm.SVCCV`) pays for far fewer steps than cold
        fits; the hinge loss's weights are scaled by the ratio of the new C to the old (then
        made feasible: equal class sums, at most C). Rows added at the end of X start with
        weight 0; with fewer rows, other classes or another loss the fit starts cold.
        One-vs-one (multiclass) fits always start cold.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels. Binary: ``classes_[1]`` is predicted where the decision function is ≥ 0.
        More classes: one binary model per pair (i, j), trained in parallel, voting ``i``
        where its decision value is ≥ 0 (ties in the vote go to the lower class).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data, grouped by class.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors.
    n_support_ : ndarray of shape (n_classes,), dtype=int32
        Support vectors per class.
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        ``y_i α_i / ρ`` of each pair's support vectors (``y_i α_i`` for the hinge loss), in LIBSVM's layout (binary: the
        decision function is ``Σ dual_coef_ k(sv, x) + intercept_``).
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The bias ``b = Σ y_i α_i / ρ`` of each pair (LIBSVM's ``-ρ`` for the hinge loss).
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,), dtype=int
        Solver steps taken for each pair.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        With ``probability=True``: the sigmoid ``1 / (1 + exp(A f + B))`` of each pair, where
        ``f`` is the pair's one-vs-one decision value (positive for its first class; for two
        classes ``f = -decision_function``). Empty otherwise.
    convergence_ : dict
        How the solver stopped: ``exit_reason``, ``gap``, ``relative_gap``, ``objective``,
        ``steps`` (counts of toward/away/drop/swap_add/swap_drop/corrective steps and the
        ``inner`` steps of coreset rounds), ``n_active``, ``columns_computed``,
        ``cache_precision`` (``"float64"``, or ``"float32"`` when ``cache_size`` could not hold
        every column as float64), ``sampled_steps`` (see ``sample_size``), ``shrinks`` and
        ``rejoins`` (problems of 2,000 samples or more shrink: samples far outside the margin
        leave the problem and are checked again before the fit ends), ``kernel_evaluations``,
        ``seconds`` and more. A one-vs-one fit sums ``n_iter`` and ``seconds``, reports the
        worst ``relative_gap`` and ``exit_reason`` over the pairs, and keeps every pair's
        values in ``convergence_["pairs"]``: a dict of arrays with one entry per pair in
        ``intercept_``'s order (``i``, ``j``, the fields above, and ``steps`` as a dict of
        arrays), ready for ``pandas.DataFrame(...)`` after popping ``steps``.
    fit_status_ : int
        0 if the stopping rule was met, 1 otherwise.
    history_ : dict, list of dict or None
        With ``record_history=True`` (its last entry, kind ``"final"``, is the state the fit
        ended in): arrays ``iteration``, ``objective`` (before the step),
        ``gap`` (Frank-Wolfe duality gap before the step; for the hinge loss, the largest
        violation of the optimality conditions), ``kind`` (toward, away, drop,
        swap_add, swap_drop, corrective), ``coreset_size`` (after the step) and ``seconds``;
        one dict per pair (LIBSVM's order) for more than two classes. ``None`` otherwise. See
        :func:`fwsvm.plot_convergence`.
    n_features_in_ : int
        Number of features seen in ``fit``.
    shape_fit_ : tuple of int
        Shape of the training data.

    References
    ----------
    .. [1] I. W. Tsang, J. T. Kwok, P.-M. Cheung, "Core Vector Machines: Fast SVM Training on
       Very Large Data Sets", JMLR 6, 2005.
    .. [2] H. Allende, E. Frandi, R. Ñanculef, C. Sartori, "A Novel Frank-Wolfe Algorithm.
       Analysis and Applications to Large-Scale SVM Training", arXiv:1304.1014, 2013.
    .. [3] E. Frandi, R. Ñanculef, M. G. Gasparo, S. Lodi, C. Sartori, "Training Support Vector
       Machines Using Frank-Wolfe Optimization Methods", IJPRAI 27(3), 2013.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from fwsvm import SVC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = SVC(C=1.0, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    #: The LIBSVM model type of this estimator (its model files, ``to_sklearn``).
    _libsvm_type = "c_svc"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SVC:
        """Fit the classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR without densifying.
        y : array-like of shape (n_samples,)
            Class labels: two or more classes (more than two are fitted one-vs-one).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: sample i's penalty is ``C * sample_weight[i]``; samples with
            weight 0 are ignored.

        Returns
        -------
        self : SVC
            The fitted estimator.
        """
        self._validate_params()
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True
        )
        _check_class_labels(y)
        return self._fit_validated(X, y, sample_weight)

    def _fit_validated(self, X: Any, y: np.ndarray, sample_weight: Any = None) -> SVC:
        """:meth:`fit` on rows ``validate_data`` and ``check_classification_targets`` have
        already checked (CSR or C-contiguous float64, y 1-D), with the parameters validated.
        :class:`fwsvm.SVCSearch` checks each fold once and fits its grid points through here: on
        small sets scikit-learn's checks were a sixth of a fit, all of it under the GIL."""
        self.n_features_in_ = X.shape[1]
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"The number of classes has to be greater than one; got {len(classes)} class"
            )
        _, weights = fit_weights(sample_weight, X, self.class_weight, classes, y, y_index)
        X_core, _ = self._prepare(X)
        tol = self._effective_tol()
        kwargs = self._fit_kwargs(tol)
        kwargs.update(probability=bool(self.probability),
                      class_names=[_class_name(c) for c in classes] if self.verbose else None)
        sample_weight = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        same_classes = np.array_equal(getattr(self, "classes_", None), classes)
        warm = self._warm_start_for(X.shape[0]) if len(classes) == 2 and same_classes else None
        model, stats = self._fit_core(X_core, y_index, len(classes), kwargs, sample_weight, warm)
        self._hold(model, X)
        # The classes the model has (a class whose samples all weigh 0 takes no part).
        self.classes_ = classes[self._model.part("classes").astype(np.intp)]
        report = _core.summarize_fit(stats, tol, self.loss, self._core_kernel())
        self._take_report(report, stacklevel=4)
        self._keep_for_warm_start(X.shape[0])
        self.shape_fit_ = X.shape
        return self

    def _fit_core(self, X_core: Any, y_index: np.ndarray, n_classes: int, kwargs: dict[str, Any],
                  sample_weight: np.ndarray | None, warm: np.ndarray | None) -> tuple[Any, dict[str, Any]]:
        """The fitted Rust model (``_core.SvcModel``: one-vs-one pairs solved in parallel) and
        its solves' statistics as columns. :func:`fwsvm.dask.fit` overrides it to solve the
        pairs as tasks on a Dask cluster."""
        model = _core.fit_svc_model((X_core, y_index.astype(np.float64), sample_weight), kwargs,
                                    warm_start=warm)
        return model, model.statistics()

    _PARTS = ("support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_", "probA_", "probB_",
              "_alpha", "_label_order")
    n_support_ = _part("n_support", "Support vectors per class.")
    intercept_ = _part("intercept", "One intercept per pair of classes.")
    probA_ = _part("prob_a", "Platt's A per pair (empty without probabilities).")
    probB_ = _part("prob_b", "Platt's B per pair.")
    _alpha = _part("alpha")
    _label_order = _part("label_order")

    def _model_from_parts(self, common: dict[str, Any], parts: dict[str, Any]) -> Any:
        return _core.SvcModel.from_parts(dict(
            common, n_classes=len(self.classes_), n_support=[int(n) for n in parts["n_support_"]],
            dual_coef=np.ascontiguousarray(np.ravel(parts["dual_coef_"]), dtype=np.float64),
            intercept=[float(b) for b in parts["intercept_"]], alpha=[float(a) for a in parts.get("_alpha", [])],
            prob_a=[float(a) for a in parts.get("probA_", [])], prob_b=[float(b) for b in parts.get("probB_", [])],
            label_order=[int(c) for c in parts.get("_label_order", [])],
        ))

    def _check_proba(self) -> bool:
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (Platt scaling and pairwise coupling, as LIBSVM's ``-b 1``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples whose class probabilities to estimate.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.
        """
        check_is_fitted(self)
        if len(self.probA_) == 0:
            raise NotFittedError("predict_proba needs a fit with probability=True (refit the model)")
        return self._query(_check_query(self, X), "predict_proba")

    @available_if(_check_proba)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def _fit_kwargs(self, tol: float) -> dict[str, Any]:
        """The native fits' parameters (:class:`NuSVC` adds ν)."""
        return _fit_params(self, self.C, self._core_kernel(), tol, loss=self.loss)

    def _effective_tol(self) -> float:
        """``tol``, or the loss's default when it is None (1e-2 squared hinge, 1e-3 hinge)."""
        if self.tol is not None:
            return float(self.tol)
        return 1e-3 if self.loss == "hinge" else 1e-2

    def _core_kernel(self) -> str:
        return "precomputed" if _uses_gram(self) else self.kernel

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed decision values; positive means ``classes_[1]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to score (for ``kernel="precomputed"``: their kernel values with the
            training samples).

        Returns
        -------
        dec : ndarray of shape (n_samples,), or (n_samples, n_classes · (n_classes − 1) / 2)
            One column for two classes; with more, one per pair in LIBSVM's order
            (``decision_function_shape="ovo"``) or one per class (``"ovr"``, the default).
        """
        check_is_fitted(self)
        return self._decision_validated(_check_query(self, X))

    def _decision_validated(self, X: Any) -> np.ndarray:
        """:meth:`decision_function` on rows ``_check_query`` has already checked."""
        dec = self._query(X, "decision_function")
        if len(self.classes_) > 2 and self.decision_function_shape == "ovr":
            return _ovr_decision_function(dec < 0, -dec, len(self.classes_))
        return dec

    @property
    def coef_(self) -> np.ndarray:
        """Weights of the linear kernel's model: shape (1, n_features) for two classes,
        (n_classes·(n_classes − 1)/2, n_features) for one-vs-one, as in scikit-learn. Only
        for ``kernel="linear"``."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        return self._model.linear_weights()

    def predict(self, X: Any) -> np.ndarray:
        """Predict class labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to classify (for ``kernel="precomputed"``: kernel values with the
            training samples, one column each).

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels from ``classes_`` (one-vs-one votes, ties to the first class, unless
            ``break_ties``).
        """
        check_is_fitted(self)
        return self._predict_validated(_check_query(self, X))

    def _predict_validated(self, X: Any) -> np.ndarray:
        """:meth:`predict` on rows ``_check_query`` has already checked."""
        if len(self.classes_) > 2 and self.break_ties:
            if self.decision_function_shape == "ovo":
                raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
            return self.classes_[np.argmax(self._decision_validated(X), axis=1)]
        return self.classes_[self._query(X, "predict")]


@parameters()
class OneClassSVM(OutlierMixin, PersistenceMixin, _KernelSVM):
    """Novelty and outlier detection: LIBSVM's one-class ν-SVM, or the minimum enclosing ball.

    With ``loss="hinge"`` (the default) this is LIBSVM's one-class ν-SVM (Schölkopf et al.
    2001; ``svm-train -s 2``, :class:`sklearn.svm.OneClassSVM`) solved by the box SMO: the same
    model, attributes and predictions as scikit-learn's, with ``nu`` (default 0.5) an upper
    bound on the fraction of training outliers and a lower bound on that of support vectors;
    ``decision_function = Σ α k(sv, x) − offset_``, ``predict`` is +1 where it is positive.
    ``tol`` bounds the largest violation of the optimality conditions (LIBSVM's ``-e``);
    ``C``, ``algorithm``, ``stopping``, ``init`` and ``sample_size`` apply to the ball only.

    With ``loss="squared_hinge"`` it is the minimum enclosing ball described next.

    The ball finds the smallest ball around the points in kernel feature space, with squared slacks
    penalised by ``C`` (the L2 analogue of Tax & Duin's SVDD; for the RBF kernel it is
    equivalent to scikit-learn's one-class SVM up to the parametrisation). With
    ``Q = K + I/C`` it maximises ``diag(Q)ᵀα − αᵀQα`` on the unit simplex with the same
    Frank-Wolfe solvers as :class:`SVC`.

    ``score_samples(x) = R² − ‖φ(x) − c‖²`` is positive inside the ball. ``nu`` is the fraction
    of training points to call outliers: ``offset_`` is set to the ``nu``-quantile of the
    training scores, so ``predict`` flags exactly that fraction of the training data (as
    scikit-learn's ``nu`` does approximately, being an upper bound on the outlier fraction
    there). ``C`` defaults to ``1 / (nu · n_samples)``, scikit-learn's implied penalty.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Hinge: LIBSVM's ν. Ball: the fraction of training outliers (in (0, 1)).
    loss : {"hinge", "squared_hinge"}, default="hinge"
        LIBSVM's one-class ν-SVM, or the minimum enclosing ball with squared slacks.
    C : float, default=None
        The ball's penalty of the squared slacks; ``None``: ``1 / (nu · n_samples)``.
    kernel, gamma, degree, coef0, algorithm, tol, stopping, max_iter, cache_size, init, sample_size,
    random_state, n_jobs, verbose, record_history
        As in :class:`SVC` (``init="closest_pair"`` needs classes and is not available, and
        ``algorithm="ky"`` solves the two-class problem only). For the ball, ``tol`` bounds the
        duality gap relative to αᵀQα, the part of the objective R̃² = bᵀα − αᵀQα that the fit
        changes (the rest, 1 + 1/C for the rbf kernel, is about ν·n_samples at the default C;
        measured against it, a relative gap of 1e-3 stopped the fit after about two thousand
        steps whatever the size, 82% agreement with the optimum on 10⁵ rows).

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        The weights α of the support vectors (they sum to 1): the ball's centre is
        ``Σ α_i φ(x_i)``.
    radius_ : float
        R, the radius of the fitted ball.
    offset_ : float
        Threshold subtracted from ``score_samples`` in ``decision_function``.
    n_iter_ : int
    convergence_ : dict
    n_features_in_ : int
    """

    #: The LIBSVM model type of this estimator (its model files, ``to_sklearn``).
    _libsvm_type = "one_class"

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> OneClassSVM:
        """Fit the model to X (y is ignored). ``sample_weight`` (hinge only) scales each
        sample's bound, as scikit-learn's; samples of weight 0 are left out."""
        self._validate_params()
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True)
        if self.loss == "hinge":
            self.offset_ = float(self._fit_expansion(X, None, sample_weight, "one_class", 1.0, nu=float(self.nu))["rho"])
            self.intercept_ = np.array([-self.offset_])
            return self
        if _uses_gram(self):
            raise ValueError("the ball (loss='squared_hinge') needs k(x, x): use a named kernel, or loss='hinge' "
                             "for a precomputed or callable one")
        if self.nu >= 1.0:
            raise ValueError(f"the ball's nu must be below 1, got {self.nu}")
        self._C = float(self.C) if self.C is not None else 1.0 / (self.nu * X.shape[0])
        # The ball, its score constant and the offset (the ν-quantile of the training scores) in Rust.
        result = self._fit_expansion(X, None, sample_weight, "ball", self._C, nu=float(self.nu))
        self._score_constant, self.radius_, self.offset_ = result["score_constant"], result["radius"], result["offset"]
        return self

    def score_samples(self, X: Any) -> np.ndarray:
        """Hinge: Σ α k(sv, x). Ball: R² − ‖φ(x) − c‖², positive inside the fitted ball."""
        check_is_fitted(self)
        X = _check_query(self, X)
        values = self._query(X, "values")
        if self.loss == "hinge":
            return values
        return 2.0 * values + self._score_constant - _core.kernel_diagonal(X, _kernel_params(self))

    def decision_function(self, X: Any) -> np.ndarray:
        """``score_samples(X) − offset_``: negative for outliers."""
        return self.score_samples(X) - self.offset_

    def predict(self, X: Any) -> np.ndarray:
        """+1 for inliers, −1 for outliers (hinge: LIBSVM's rule, +1 where the decision
        value is positive)."""
        values = self.decision_function(X)
        return np.where(values > 0 if self.loss == "hinge" else values >= 0, 1, -1)


@parameters()
class SVR(RegressorMixin, PersistenceMixin, _KernelSVM):
    """Kernel support vector regression: LIBSVM's ε-SVR, or the L2-SVR with a learned tube.

    With ``loss="epsilon_insensitive"`` (the default) this is LIBSVM's ε-SVR (``svm-train
    -s 3``, :class:`sklearn.svm.SVR`) solved by the box SMO: no loss inside the tube
    ``|y − f(x)| ≤ epsilon``, ``C`` times the absolute deviation outside it; the same model,
    attributes and predictions as scikit-learn's. ``tol`` bounds the largest violation of the
    optimality conditions (LIBSVM's ``-e``); ``nu``, ``algorithm``, ``stopping``, ``init`` and
    ``sample_size`` apply to the L2 model only.

    With ``loss="squared_epsilon_insensitive"`` it is the L2-SVR described next, which solves::

        min ½(‖w‖² + b² + C Σ (ξ_i² + ξ_i*²)) + ν ε   s.t.   |y_i − f(x_i)| ≤ ε + ξ_i (ξ_i*)

    as a simplex problem on 2·n_samples slots (Tsang et al.'s CVR construction). Relation to
    :class:`sklearn.svm.SVR`: ``C`` penalises *squared* deviations outside the tube (not
    absolute ones), and the tube width ε is not set but **learned**; ``nu`` prices it (larger
    ``nu``: narrower tube, as in ν-SVR), and the fitted width is ``epsilon_``. Targets are
    standardised internally (centred and scaled to unit variance; the regularised bias
    ``b²`` would otherwise shrink predictions toward 0), so ``C`` and ``nu`` do not depend on
    the units of y.

    Parameters
    ----------
    C : float, default=1.0
        ε-SVR: penalty of the deviations outside the tube. L2: of the squared slacks (on
        standardised targets).
    epsilon : float, default=0.1
        ε-SVR: the tube's half-width (in the units of y).
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, default="epsilon_insensitive"
        LIBSVM's ε-SVR, or the L2-SVR with a learned tube.
    nu : float or "auto", default="auto"
        L2 only: price of the tube width ε in the primal (larger: narrower tube). ``"auto"`` is
        ``0.2 · n_samples``, which balances it against the sum of squared slacks on
        standardised targets (chosen on scikit-learn's diabetes data, where it matches
        ``sklearn.svm.SVR``'s R²; tune it like C).
    kernel, gamma, degree, coef0, algorithm, tol, stopping, max_iter, cache_size, init, sample_size,
    random_state, n_jobs, verbose, record_history
        As in :class:`SVC` (``init="closest_pair"`` and ``algorithm="ky"`` are two-class
        methods and not available).
    warm_start : bool, default=False
        ε-SVR only: start the next ``fit`` from this fit's coefficients, scaled to the new ``C``
        (LIBSVM's warm start along a C path; rows appended since start at 0). The model is the
        same; steps are saved on fine paths (C × 1.25: about a fifth fewer; C × 2 or × 4 as in
        grid.py's grid: none, measured in ``tests/libsvm_family.rs``).

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        Coefficients of the standardised model ``Σ dual_coef_ k(sv, x) + intercept_``; the
        prediction is that times ``y_scale_`` plus ``y_mean_``.
    intercept_ : ndarray of shape (1,)
    epsilon_ : float
        The fitted tube half-width, in the units of y.
    y_mean_, y_scale_ : float
        The standardisation of the targets.
    n_iter_ : int
    convergence_ : dict
    n_features_in_ : int
    """

    #: The LIBSVM model type of this estimator (its model files, ``to_sklearn``).
    _libsvm_type = "epsilon_svr"

    def _dual(self) -> str | None:
        """The LIBSVM model this estimator fits (``None``: the L2-SVR)."""
        return "epsilon_svr" if self.loss == "epsilon_insensitive" else None

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SVR:
        """Fit the regression model. ``sample_weight`` (LIBSVM's models only) scales each
        sample's C, as scikit-learn's; samples of weight 0 are left out."""
        self._validate_params()
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, order="C", accept_large_sparse=True, y_numeric=True
        )
        dual = self._dual()
        if self.warm_start and dual != "epsilon_svr":
            raise ValueError(f"warm_start applies to loss='epsilon_insensitive' (LIBSVM's epsilon-SVR), not to "
                             f"{'nu-SVR' if dual else repr(self.loss)}")
        if dual is not None:
            self.y_mean_, self.y_scale_ = 0.0, 1.0
            extra = dict(epsilon=float(self.epsilon)) if dual == "epsilon_svr" else dict(nu=float(self.nu))
            result = self._fit_expansion(X, y, sample_weight, dual, float(self.C),
                                         warm=self._warm_start_for(X.shape[0]), **extra)
            self.intercept_, self.epsilon_ = np.array([-result["rho"]]), float(result["epsilon"])
            self._keep_for_warm_start(X.shape[0])
            return self
        self._nu = 0.2 * X.shape[0] if self.nu == "auto" else float(self.nu)
        # Standardised targets, the tube (from the optimality conditions) and ε in Rust.
        result = self._fit_expansion(X, y, sample_weight, "l2_svr", float(self.C), nu=self._nu)
        self.intercept_ = np.array([result["intercept"]])
        self.y_mean_, self.y_scale_, self.epsilon_ = result["y_mean"], result["y_scale"], result["epsilon"]
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predicted targets."""
        check_is_fitted(self)
        return (self._query(_check_query(self, X), "values") + self.intercept_[0]) * self.y_scale_ + self.y_mean_


@parameters()
class NuSVC(SVC):
    """ν-support vector classification: LIBSVM's ν-SVC (``svm-train -s 1``), the model of
    :class:`sklearn.svm.NuSVC`, solved by the box SMO.

    ``nu`` ∈ (0, 1] replaces ``C``: an upper bound on the fraction of margin errors and a lower
    bound on the fraction of support vectors (per pair of classes). A ν larger than twice the
    smaller class's share of a pair is infeasible and raises ``ValueError``, as LIBSVM does.
    More than two classes are fitted one-vs-one as :class:`SVC`; ``probability=True`` fits
    Platt's sigmoids the same way. Decision values are LIBSVM's (``Σ y α/r k − ρ/r``).

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
    kernel, gamma, degree, coef0, probability, tol, max_iter, cache_size, class_weight,
    decision_function_shape, break_ties, random_state, n_jobs, verbose, record_history
        As in :class:`SVC` (``tol`` bounds the largest violation of the optimality conditions,
        LIBSVM's ``-e``; default 1e-3). ``class_weight`` and ``sample_weight`` scale each
        sample's bound as in scikit-learn's weighted LIBSVM.

    Attributes
    ----------
    As :class:`SVC`.
    """

    _libsvm_type = "nu_svc"

    # The C-SVC's settings this model does not have.
    C = 1.0
    loss = "hinge"
    algorithm = "swap"
    stopping = "gap"
    init = "random"
    sample_size = None
    warm_start = False

    def _fit_kwargs(self, tol: float) -> dict[str, Any]:
        return _fit_params(self, 1.0, self._core_kernel(), tol, loss="hinge", nu=float(self.nu))


@parameters()
class NuSVR(SVR):
    """ν-support vector regression: LIBSVM's ν-SVR (``svm-train -s 4``), the model of
    :class:`sklearn.svm.NuSVR`, solved by the box SMO.

    ``nu`` ∈ (0, 1] replaces ``epsilon``: the tube's width is learned (``epsilon_``), with
    ``nu`` an upper bound on the fraction of training errors and a lower bound on that of
    support vectors.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
    C : float, default=1.0
        Penalty of the deviations outside the tube.
    kernel, gamma, degree, coef0, tol, max_iter, cache_size, random_state, n_jobs, verbose,
    record_history
        As in :class:`SVR`.

    Attributes
    ----------
    As :class:`SVR`; ``epsilon_`` is the learned half-width of the tube.
    """

    _libsvm_type = "nu_svr"

    # The L2-SVR's and the ε-SVR's settings this model does not have.
    loss = "epsilon_insensitive"
    epsilon = 0.0
    warm_start = False
    algorithm = "swap"
    stopping = "gap"
    init = "random"
    sample_size = None

    def _dual(self) -> str | None:
        return "nu_svr"
