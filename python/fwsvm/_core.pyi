"""Type stubs for the native module ``fwsvm._core`` (private; use ``fwsvm``)."""

import os
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

__version__: str

# A dense matrix (made float64, C-contiguous and aligned: copied only when it is not), a SciPy
# sparse matrix or array (read as CSR; duplicates summed on a copy), or the CSR parts
# (data, indices, indptr, n_features) with indices and indptr of any int32/int64/uint32/uint64.
# Every "n_threads" entry below follows scikit-learn's n_jobs (None, -1 all cores, -2 all but one).
Features = Any  # any of the above: SciPy's sparse types are not ArrayLike
# Training samples: (x, y) or (x, y, sample_weight), one float64 target (a classifier's class
# index 0..K as a float) and weight per row; sample_weight None: all 1.
Samples = (
    tuple[Features, npt.NDArray[np.float64]]
    | tuple[Features, npt.NDArray[np.float64], npt.NDArray[np.float64] | None]
)

# Every long call (fits, queries, loads, cli_main) runs its work on a thread of its own: Ctrl-C
# stops it (KeyboardInterrupt) and, when sys.stderr is redirected, its progress is written there
# through fwsvm._progress.StreamProgress, which drains a ProgressQueue.
class ProgressQueue:
    def __init__(self, live: bool = False) -> None: ...
    def drain(self) -> list[tuple[str, str, int, int, list[str]]]: ...

class KernelParams(TypedDict, total=False):
    """A kernel for prediction: scikit-learn's names, and the threads to use."""

    kernel: str
    gamma: float
    degree: int
    coef0: float
    n_threads: int | None

class FitParams(TypedDict, total=False):
    """The hyper-parameters every fit function takes, as one dict (``fwsvm.svm`` builds it)."""

    c: float
    kernel: str
    gamma: float
    degree: int
    coef0: float
    algorithm: str
    tol: float
    stopping: str
    max_iter: int
    cache_size: float
    init: str
    seed: int
    sample_size: int | None
    n_threads: int | None
    verbose: int
    time_limit: float | None
    record_history: bool
    loss: str | None
    nu: float | None
    epsilon: float | None
    dual: str | None
    probability: bool
    class_names: list[str] | None

class SvcModel:
    """A fitted SVC (binary or one-vs-one), classes numbered 0..K; the model of fwsvm.SVC."""
    @staticmethod
    def from_parts(parts: dict[str, Any]) -> SvcModel: ...
    # "classes", "support", "n_support", "dual_coef", "intercept", "alpha", "prob_a", "prob_b",
    # "label_order", "vectors"
    def part(self, name: str) -> Any: ...
    def query(  # what: "decision_function", "predict" or "predict_proba"
        self, what: str, x: Features, *, columns: str = "features", n_threads: int | None = None
    ) -> Any: ...
    def linear_weights(self) -> npt.NDArray[np.float64]: ...
    def warm_start(self, n_samples: int, scale: float) -> npt.NDArray[np.float64] | None: ...
    def statistics(self) -> dict[str, Any]: ...
    def save_libsvm(self, path: str, svm_type: str, labels: list[float]) -> None: ...

class KernelExpansion:
    """Σ_s coef_s k(x_s, x): one expansion, or one per class (CrammerSingerSVC)."""
    @staticmethod
    def from_parts(parts: dict[str, Any]) -> KernelExpansion: ...
    def part(self, name: str) -> Any: ...  # "support", "dual_coef", "vectors"
    def query(  # what: "values" or "predict" (the largest output)
        self, what: str, x: Features, *, columns: str = "features", n_threads: int | None = None
    ) -> Any: ...
    def warm_start(self, n_samples: int, scale: float) -> npt.NDArray[np.float64] | None: ...
    def save_libsvm(self, path: str, svm_type: str, scale: float, rho: float) -> None: ...

def read_libsvm_model(path: str, n_features: int | None = None) -> dict[str, Any]: ...
def save_libsvm_model(estimator: Any, path: str | os.PathLike[str]) -> None: ...
# (scale, rho): a fitted one-class or regression estimator in LIBSVM's form Σ coef k − ρ.
def libsvm_expansion_form(estimator: Any) -> tuple[float, float]: ...
def fit_svc_model(
    samples: Samples, params: FitParams, *, warm_start: npt.NDArray[np.float64] | None = None
) -> SvcModel: ...
def svc_model_from_pairs(
    samples: Samples,
    pairs: dict[str, Any],  # columns i, j, offsets, support, coef, intercept
    params: FitParams,
) -> SvcModel: ...
# LIBSVM's one-class, ε-SVR or ν-SVR (params["dual"]), or the L2 models ("l2_svr", "ball").
def fit_dual(
    x: Features,
    y: npt.NDArray[np.float64] | None,
    params: FitParams,
    *,
    sample_weight: npt.NDArray[np.float64] | None = None,
    warm_start: npt.NDArray[np.float64] | None = None,
) -> tuple[KernelExpansion, dict[str, Any]]: ...
def fit_one_class(
    x: Features, params: FitParams, *, warm_start: npt.NDArray[np.float64] | None = None
) -> dict[str, Any]: ...
def decision_values(
    x: Features, support_vectors: Features, coef: npt.NDArray[np.float64], intercept: float, kernel: KernelParams
) -> npt.NDArray[np.float64]: ...
def sigmoid_train(dec: npt.NDArray[np.float64], positive: npt.NDArray[np.bool_]) -> tuple[float, float]: ...
def sigmoid_predict(
    f: npt.NDArray[np.float64], a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]: ...
# Class probabilities (n × k) from pairwise ones (n × k(k−1)/2, LIBSVM's pair order).
def couple(pairwise: npt.NDArray[np.float64], n_classes: int, order: Any = ...) -> npt.NDArray[np.float64]: ...
def instruction_set() -> str: ...
def data_variance(x: Features) -> float: ...
# The report of an SVC fit from its statistics columns: convergence, n_iter, fit_status, history
# and the warnings, (is_convergence_warning, message) pairs.
def summarize_fit(table: dict[str, Any], tol: float, loss: str, kernel: str) -> dict[str, Any]: ...
def ball_constants(
    objective: float, quadratic: float, alpha: npt.NDArray[np.float64], c: float
) -> tuple[float, float]: ...
class SvmlightReader:
    def __init__(
        self,
        files: Any,
        options: dict[str, Any],  # n_features, dtype, multilabel, zero_based, query_id, offset, length,
        # n_threads, max_line_length
    ) -> None: ...
    def load(self) -> list[Any]: ...

def dump_svmlight(
    x: Features,
    y: Any,
    f: str | os.PathLike[str] | Any,
    options: dict[str, Any],  # zero_based, comment, query_id, multilabel
) -> None: ...
def fit_crammer_singer(
    samples: Samples, params: FitParams, n_classes: int
) -> tuple[KernelExpansion, dict[str, Any]]: ...
def fit_sgd_svc(
    samples: Samples,
    params: dict[str, Any],  # SGDSVC.get_params() with seed, n_threads, verbose, n_classes
) -> dict[str, Any]: ...
def cli_main(command: str, argv: list[str], prog: str, out: Any, err: Any) -> int: ...

class LibsvmFormatError(ValueError): ...
class LibsvmModelError(ValueError): ...
class ModelFormatError(ValueError): ...

MODEL_MAGIC: bytes
MODEL_FORMAT_VERSION: int
DEFAULT_CS: tuple[float, ...]

# (name, default, positional, rules); a rule is ("interval", "real" | "int", low, high, closed),
# ("options", [str, ...]), ("tag", str) or ("type", str).
def estimator_parameters(name: str) -> list[tuple[str, Any, bool, list[tuple[Any, ...]]]]: ...

def read_model_file(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any], dict[str, Any]]: ...
def restore_model(
    cls: type, path: str | os.PathLike[str], parts: tuple[str, dict[str, Any], dict[str, Any]] | None = None
) -> Any: ...
def write_model_file(path: str | os.PathLike[str], estimator: Any, fwsvm_version: str) -> None: ...
def sgd_objective(
    samples: Samples,  # y: class indices, −1 for a label of no class
    model: dict[str, Any],  # loss, C, coef_, intercept_
) -> npt.NDArray[np.float64]: ...

NumpyState = tuple[str, npt.NDArray[np.uint32], int, int, float]  # RandomState.get_state()

def fit_nystroem(
    x: Features,
    state: NumpyState,
    n_components: int,
    *,
    landmarks: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.int64], NumpyState]: ...
# The Frank-Wolfe coreset's landmarks (rows) for Nystroem(landmarks="coreset").
def coreset_rows(
    samples: Samples, params: dict[str, Any], state: NumpyState
) -> tuple[npt.NDArray[np.int64] | None, NumpyState]: ...
def transform_features(
    x: Features,
    map: dict[str, Any],  # kernel_args, components_ (Features), normalization_; or random_weights_, random_offset_
    *,
    dtype: str = "float64",  # or "float32", "float16"
) -> npt.NDArray[np.float64] | npt.NDArray[np.float32] | npt.NDArray[np.float16]: ...
def fit_random_fourier(
    params: dict[str, Any],  # kernel, gamma, n_features, n_components
    state: NumpyState,
) -> tuple[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]], NumpyState]: ...
def kernel_values(x: Features, columns: Features, kernel: KernelParams) -> npt.NDArray[np.float64]: ...
def kernel_diagonal(x: Features, kernel: KernelParams) -> npt.NDArray[np.float64]: ...
CocoaShard = tuple[Features, npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]

# params: sigma, passes, seed, and optionally reach (the last round's next_reach) and start (default w);
# returns the round (alpha, delta_w, delta_alpha_sum, steps, next_reach) and the gap's pieces at w
# (alpha_sum, loss, violations).
def cocoa_local_round(shard: CocoaShard, params: dict[str, Any]) -> dict[str, Any]: ...
def cocoa_gap_pieces(shard: CocoaShard) -> dict[str, Any]: ...
def cocoa_shard_weights(
    x: Features, yc: npt.NDArray[np.float64], alpha: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]: ...
def fit_linear_hinge(samples: Samples, params: dict[str, Any]) -> dict[str, Any]: ...  # samples (x, y·C)

# Newton rounds (solver="newton"): one shard's pieces over its blocks [(x, y·C), ...] for the
# driver's request (w, p, mu_line, mu, rate, seed): line, loss, alpha_sum, violations, w_alpha,
# hessian (packed upper triangle), band, sampled.
def newton_pieces(
    blocks: list[tuple[Features, npt.NDArray[np.float64]]], request: dict[str, Any]
) -> dict[str, Any]: ...

class NewtonDriver:
    """One binary problem's Newton rounds on the smoothed hinge (src/solver/linear/newton.rs)."""

    def __init__(self, width: int, rows: int, params: dict[str, Any]) -> None: ...  # tol, max_rounds, seed, ...
    def request(self) -> dict[str, Any]: ...
    # the shards' answers summed: primal, dual, relative_gap, step, mu, band, converged
    def advance(self, answers: list[dict[str, Any]]) -> dict[str, Any]: ...
    def best(self) -> tuple[npt.NDArray[np.float64], float]: ...
    @property
    def rounds(self) -> int: ...
