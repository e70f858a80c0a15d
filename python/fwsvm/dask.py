"""fwsvm on a Dask cluster (``pip install fwsvm[dask]``; the rest of fwsvm never imports Dask).

- :class:`DaskSVCSearch` is :class:`fwsvm.SVCSearch` with its cross-validation folds run as
  tasks on a ``distributed.Client``: the data are scattered to every worker once per search
  round (not once per task), each task fits its fold's walk through the grid with the Rust
  solver (GIL released), and the results are identical to the in-process search.
- :func:`fit` fits an :class:`fwsvm.SVC` with its one-vs-one pairs as tasks: the data
  scattered to every worker once, one task per pair (the Rust binary fit, GIL released), the
  same model as the in-process fit, bit for bit.
- :func:`predict` and :func:`decision_function` apply a fitted estimator to a ``dask.array``
  or ``dask.dataframe`` block by block (``map_blocks`` / ``map_partitions``); the model is one
  node of the graph, sent to each worker once.
- :class:`DistributedSVC` fits one binary squared-hinge SVC whose rows are sharded over the
  workers (Dask actors), by distributed Frank-Wolfe: per round the driver sends the vertices
  whose weight changed and receives a few scalars and candidates from every shard; it stops
  on the same certified duality gap as :class:`fwsvm.SVC` (see :mod:`fwsvm._dfw`).
  :class:`DistributedOneClassSVM` does the same for :class:`fwsvm.OneClassSVM`'s ball.
- :class:`DaskApproxSVC` approximates a kernel SVM for data beyond one machine: coreset
  Nyström landmarks from one pass over the blocks, the feature map applied block by block, and
  a linear hinge SVM trained by CoCoA+ (one vector per worker per round), stopped on a
  certified duality gap (see :mod:`fwsvm.dask_approx`).

A worker that dies mid-search is handled by Dask's scheduler: its tasks run again on another
worker (up to the scheduler's ``allowed-failures``), and since every task is a deterministic
function of its inputs the search completes with the same results; when the tasks keep failing,
Dask's ``KilledWorker`` error says which task and worker. Point the same code at an existing
cluster with ``distributed.Client("tcp://scheduler:8786")``.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, check_is_fitted

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
    from distributed import Client, default_client
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "fwsvm.dask needs Dask: pip install 'fwsvm[dask]' (dask[array,dataframe] and distributed)"
    ) from exc

from fwsvm import _core, _dfw
from fwsvm._dfw import LostShardError
from fwsvm._folds import chain_tasks, gather_chains, score_fold
from fwsvm._parameters import parameters
from fwsvm.search import SVCSearch
from fwsvm.svm import SVC, OneClassSVM, _remember_kernel

__all__ = ["DaskApproxSVC", "DaskSVCSearch", "DistributedOneClassSVM", "DistributedSVC", "LostShardError", "fit", "predict", "decision_function"]


def _client(client: Client | None) -> Client:
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise ValueError(
            "no Dask client: pass client=distributed.Client(...) or create one first "
            "(e.g. Client(LocalCluster()) or Client('tcp://scheduler:8786'))"
        ) from None


@parameters(estimator=[SVC, None])
class DaskSVCSearch(SVCSearch):
    """:class:`fwsvm.SVCSearch` with its fits (or warm-started chains) as tasks on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client, default=None
        The cluster; ``None`` uses the current default client.
    **params
        As :class:`fwsvm.SVCSearch` (``n_jobs`` is not used: the cluster decides; every fit
        inside a task runs on one thread unless the template's ``n_jobs`` says otherwise).
    """

    def _map_folds(self, X: Any, y: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], template: SVC,
                   chains: list[list[tuple[float, float, int]]], n_slots: int, warm: bool, scorer: Any,
                   workers: int) -> np.ndarray:
        client = _client(self.client)
        if template.n_jobs is None:
            template = template.set_params(n_jobs=1)  # one task per worker thread
        # The data go to every worker once; the tasks get references (keys of their own: a
        # search right after another on the same data must not share keys being released).
        X_ref, y_ref = client.scatter([X, y], broadcast=True, hash=False)
        tasks = chain_tasks(chains, len(splits))
        futures = [
            client.submit(score_fold, X_ref, y_ref, *splits[k], template, chain, n_slots, warm, scorer,
                          key=f"fwsvm-fold-{k}-{t}-{id(self)}-{len(chains)}-{len(y)}", pure=False)
            for t, (k, chain) in enumerate(tasks)
        ]
        try:
            return gather_chains(client.gather(futures), tasks, len(splits), n_slots)
        finally:
            client.cancel(futures + [X_ref, y_ref])


def _broadcast(estimator: Any, client: Client | None) -> Any:
    """The estimator as one node of the task graph (``dask.delayed``): every block depends on
    it, so the scheduler sends it to each worker once, and it lives as long as the collection
    that needs it (a scattered future would be released when this function returns)."""
    if client is not None and not isinstance(client, Client):
        raise TypeError(f"client must be a distributed.Client, not {type(client).__name__}")
    return dask.delayed(estimator, pure=True)


def _apply(method: str, estimator: Any, X: Any, client: Client | None) -> Any:
    n_out = None  # columns of a multiclass decision function
    classes = getattr(estimator, "classes_", None)
    if method == "decision_function" and classes is not None and len(classes) > 2:
        k = len(classes)
        n_out = k if estimator.decision_function_shape == "ovr" else k * (k - 1) // 2
    model = _broadcast(estimator, client)

    def block(chunk: Any, est: Any) -> np.ndarray:
        return getattr(est, method)(chunk)

    if isinstance(X, dd.DataFrame):
        if n_out is not None:
            raise ValueError("multiclass decision_function on a dask DataFrame: convert it with .to_dask_array(lengths=True)")
        dtype = np.float64 if method == "decision_function" else np.asarray(estimator.predict(
            np.zeros((1, estimator.n_features_in_)))).dtype
        return X.map_partitions(lambda df, est: _series(block(df.to_numpy(dtype=np.float64), est), df.index),
                                model, meta=(method, dtype))
    if not isinstance(X, da.Array):
        raise TypeError(f"X must be a dask array or dask DataFrame, not {type(X).__name__}; "
                        "for in-memory data call the estimator directly")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got {X.ndim} dimensions")
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})  # every block needs all the features of its rows
    if n_out is None:
        dtype = np.float64 if method == "decision_function" else np.asarray(estimator.predict(
            np.zeros((1, estimator.n_features_in_)))).dtype
        return X.map_blocks(block, model, drop_axis=1, dtype=dtype, meta=np.empty((0,), dtype=dtype))
    return X.map_blocks(block, model, chunks=(X.chunks[0], (n_out,)), dtype=np.float64,
                        meta=np.empty((0, 0), dtype=np.float64))


def _series(values: np.ndarray, index: Any) -> Any:
    import pandas as pd

    return pd.Series(values, index=index)


def predict(estimator: Any, X: Any, *, client: Client | None = None) -> Any:
    """``estimator.predict`` on a dask array (one label per row, a dask array) or a dask
    DataFrame (a dask Series), block by block on the cluster; the fitted estimator is sent to
    each worker once. Compute the result (``.compute()``) to run it."""
    return _apply("predict", estimator, X, client)


def decision_function(estimator: Any, X: Any, *, client: Client | None = None) -> Any:
    """``estimator.decision_function`` block by block, as :func:`predict` (multiclass values
    are (n_rows, n_classes) for ``decision_function_shape="ovr"``)."""
    return _apply("decision_function", estimator, X, client)


def fit(estimator: SVC, X: Any, y: Any, sample_weight: Any = None, *, client: Client | None = None) -> SVC:
    """Fit ``estimator`` (an :class:`fwsvm.SVC`) with its one-vs-one pairs as tasks on a Dask
    cluster and return it.

    The training data go to every worker once (``Client.scatter(broadcast=True)``); each
    pair of classes is one task that runs the Rust binary fit on the pair's rows with one
    thread, in the same row order, labels and settings as the in-process fit, so the model is
    identical (support vectors, coefficients, intercepts and step counts). Two classes are one
    fit in this process. A worker lost mid-fit is handled by the scheduler: its pairs run again
    elsewhere (a pair is a deterministic function of its inputs), or Dask's ``KilledWorker``
    names the pair that kept failing.

    Parameters
    ----------
    estimator : fwsvm.SVC
        Unfitted or fitted; its parameters are used as they are.
    X, y, sample_weight
        As :meth:`fwsvm.SVC.fit` (in memory: the pairs are the distributed unit).
    client : distributed.Client, default=None
        ``None`` uses the current default client.

    Returns
    -------
    estimator : fwsvm.SVC
        Fitted.
    """
    from fwsvm import _dask_ovo

    return _dask_ovo.fit(estimator, X, y, sample_weight, _client(client))


class _ShardedFit(BaseEstimator):
    """What :class:`DistributedSVC` and :class:`DistributedOneClassSVM` share: the checks of
    the common parameters, the shards (Dask actors) and the fit's loop with its retries."""

    _one_class = False
    # Seconds slept per round: the benchmarks' simulated network latency (not a user setting).
    _round_delay: float = 0.0
    #: Called with the round number before each round is sent (tests: lose a worker mid-fit).
    _on_round: Any = None

    def _check_common(self) -> None:
        if callable(self.kernel) or self.kernel not in _DFW_KERNELS:
            raise ValueError(f"kernel must be one of {sorted(_DFW_KERNELS)} for {type(self).__name__}, got "
                             f"{self.kernel!r} (precomputed and callable kernels need the whole Gram matrix in "
                             "one place)")
        if self.stopping not in ("gap", "absolute_gap"):
            raise ValueError(f"stopping must be 'gap' or 'absolute_gap', got {self.stopping!r}")
        if not (self.tol > 0):
            raise ValueError(f"tol must be positive, got {self.tol!r}")
        if self.block is not None and int(self.block) < 1:
            raise ValueError(f"block must be None or at least 1, got {self.block!r}")
        if self.init not in ("local", "pair"):
            raise ValueError(f"init must be 'local' or 'pair', got {self.init!r}")
        if int(self.n_candidates) < 1:
            raise ValueError(f"n_candidates must be at least 1, got {self.n_candidates!r}")
        if int(self.retries) < 0:
            raise ValueError(f"retries must be non-negative, got {self.retries!r}")

    @staticmethod
    def _check_rows(X: Any) -> tuple[Any, bool]:
        """X as the fit takes it (a NumPy array, a CSR matrix or a dask array) and whether it is
        dask."""
        is_dask = isinstance(X, da.Array)
        if is_dask:
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got {X.ndim} dimensions")
            if any(np.isnan(c) for c in X.chunks[0]):
                raise ValueError("X has unknown chunk sizes: call X.compute_chunk_sizes() first")
            return X, True
        # Sparse rows stay CSR on the shards and in the driver's vectors.
        return check_array(X, accept_sparse="csr", dtype=np.float64, order="C"), False

    def _run(self, X: Any, y_pm: np.ndarray, C: float, is_dask: bool,
             finish: Any = None) -> tuple[Any, float, int, float, Any]:
        """The distributed solve of the problem on (X, y_pm) with penalty C: (the result, γ, the
        retries used, the seconds of the local solves, ``finish(shards, actors, result)`` run on
        the shards before they are released — None without ``finish``)."""
        client = _client(self.client)
        n = X.shape[0]
        gamma = self._resolve_gamma(X, is_dask)
        kernel_kw = dict(kernel=self.kernel, gamma=gamma, degree=int(self.degree), coef0=float(self.coef0))
        block = None if self.block is None else int(self.block)
        n_cand = int(self.n_candidates)
        max_rounds = int(self.max_iter) if int(self.max_iter) > 0 else np.iinfo(np.int64).max
        # The start of init="pair": half the mass on the first row of each class (the ball: all
        # of it on the first row).
        first = np.array([0]) if self._one_class else np.array([int(np.argmax(y_pm < 0)), int(np.argmax(y_pm > 0))])
        start_rows = X[first].compute() if is_dask else X[first]
        if _dfw.is_sparse_block(start_rows):
            start_rows = _dfw.as_csr(start_rows)
        else:
            start_rows = np.asarray(start_rows, dtype=np.float64)
        start = (first, np.full(len(first), 1.0 / len(first)), start_rows)
        warm = None
        attempt = 0
        local_seconds = 0.0
        while True:
            try:
                shards, actors, keep, shard_rows = self._make_shards(client, X, y_pm, kernel_kw, is_dask, C)
            except LostShardError as exc:
                # A worker lost while the shards were created: the same retry policy.
                self._check_retry(exc, attempt)
                attempt += 1
                client.wait_for_workers(1, timeout=60)
                continue
            try:
                if warm is None and self.init == "local":
                    t0 = time.perf_counter()
                    warm = _dfw.local_start(
                        lambda requests, s=shards, f=actors: _call(s, f, requests, "local_fit"), len(shards),
                        [int(k) for k in shard_rows], n, float(self.tol), self.stopping)
                    local_seconds = time.perf_counter() - t0
                result = _dfw.solve(
                    shards, lambda requests, s=shards, f=actors: _call(s, f, requests), y_pm, start, C=C,
                    kernel_kw=kernel_kw, tol=float(self.tol), stopping=self.stopping, max_rounds=max_rounds,
                    block=block, n_candidates=n_cand, round_delay=self._round_delay, warm_alpha=warm,
                    on_round=self._on_round, solve_first=warm is not None, one_class=self._one_class,
                )
                extra = None
                if finish is not None:
                    try:
                        extra = finish(shards, actors, result)
                    except LostShardError as exc:
                        exc.iterate = {int(i): (float(a), v) for i, a, v in
                                       zip(result.support, result.alpha, result.vectors)}
                        raise
                break
            except LostShardError as exc:
                self._check_retry(exc, attempt)
                attempt += 1
                warm = getattr(exc, "iterate", None)
                client.wait_for_workers(1, timeout=60)
            finally:
                del shards, actors
                client.cancel(keep)
        return result, gamma, attempt, local_seconds, extra

    def _make_shards(self, client: Client, X: Any, y_pm: np.ndarray, kernel_kw: dict[str, Any],
                     is_dask: bool, C: float) -> tuple[list[Any], list[Any], list[Any], list[int]]:
        """The shard actors (one per worker unless ``n_shards`` says otherwise), their futures,
        all the futures to release after the fit, and the shards' numbers of rows. Each shard
        computes with its worker's threads."""
        workers = _live_workers(client)
        if not workers:
            raise RuntimeError("the Dask cluster has no workers")
        n = X.shape[0]
        n_shards = int(self.n_shards) if self.n_shards is not None else len(workers)
        if n_shards < 1:
            raise ValueError(f"n_shards must be at least 1, got {self.n_shards!r}")
        n_shards = min(n_shards, n)
        inv_c = 1.0 / C
        keep: list[Any] = []
        futures = []
        rows: list[int] = []
        if is_dask:
            if X.numblocks[1] != 1:
                X = X.rechunk({1: -1})
            bounds = np.concatenate([[0], np.cumsum(X.chunks[0])])
            if X.numblocks[0] < n_shards:
                sizes = np.diff(np.linspace(0, n, n_shards + 1).astype(int))
                X = X.rechunk({0: tuple(int(s) for s in sizes)})
                bounds = np.concatenate([[0], np.cumsum(X.chunks[0])])
            blocks = client.compute(list(X.to_delayed().ravel()))
            keep += blocks
            # Contiguous groups of blocks, as equal in rows as the chunks allow.
            cut = np.searchsorted(bounds, np.linspace(0, n, n_shards + 1), side="left")
            cut[0], cut[-1] = 0, len(blocks)
            for k in range(n_shards):
                lo, hi = int(bounds[cut[k]]), int(bounds[cut[k + 1]])
                if hi <= lo:
                    continue
                # Keys of their own (hash=False): a fit right after another on the same rows would
                # otherwise share the keys the first one is releasing ("lost dependencies").
                y_ref = client.scatter(y_pm[lo:hi], direct=True, hash=False)
                keep.append(y_ref)
                rows.append(hi - lo)
                futures.append(client.submit(_dfw.Shard, blocks[cut[k]:cut[k + 1]], y_ref, lo, kernel_kw, inv_c,
                                             float(self.cache_size), None, self._one_class, actor=True, pure=False))
        else:
            bounds = np.linspace(0, n, n_shards + 1).astype(int)
            for k in range(n_shards):
                lo, hi = int(bounds[k]), int(bounds[k + 1])
                w = workers[k % len(workers)]
                x_ref, y_ref = client.scatter([X[lo:hi], y_pm[lo:hi]], workers=[w], direct=True, hash=False)
                keep += [x_ref, y_ref]
                rows.append(hi - lo)
                futures.append(client.submit(_dfw.Shard, x_ref, y_ref, lo, kernel_kw, inv_c, float(self.cache_size),
                                             None, self._one_class, actor=True, pure=False, workers=[w]))
        keep += futures
        try:
            shards = [f.result(timeout=_TIMEOUT) for f in futures]
        except ValueError:  # the shard's rows are bad (NaN, say): the data's fault, not the cluster's
            client.cancel(keep)
            raise
        except Exception as exc:  # a worker lost while the shards were created
            client.cancel(keep)
            raise LostShardError(f"could not create the shards of the distributed fit: {exc!r}") from exc
        return shards, futures, keep, rows

    def _resolve_gamma(self, X: Any, is_dask: bool) -> float:
        if not isinstance(self.gamma, str):
            return float(self.gamma)
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        if self.gamma != "scale":
            raise ValueError(f"gamma must be 'scale', 'auto' or a float, got {self.gamma!r}")
        if is_dask:
            # Per-block moments, combined here: works for sparse chunks too (X.var() does not).
            parts = dask.compute(*[dask.delayed(_dfw.block_moments)(b) for b in X.to_delayed().ravel()])
            var = _dfw.combine_moments(list(parts))
        else:
            var = float(_core.data_variance(X))
        return 1.0 / (X.shape[1] * var) if var != 0 else 1.0

    def _check_retry(self, exc: LostShardError, attempt: int) -> None:
        """Raises the final LostShardError when ``attempt`` retries are all ``retries`` allows."""
        if attempt >= int(self.retries):
            raise LostShardError(
                f"{exc} — after {attempt} retr{'y' if attempt == 1 else 'ies'} (retries={self.retries}); "
                "no model was fitted. Check the workers (client.scheduler_info()) and fit again."
            ) from exc

    def _convergence(self, result: Any, retries: int, local_seconds: float, loss: str) -> dict[str, Any]:
        return {
            "exit_reason": "converged" if result.converged else "max_iterations",
            "gap": result.gap,
            "relative_gap": result.relative_gap,
            "objective": result.objective,
            "quadratic": result.rho,
            "n_iter": result.n_steps,
            "n_rounds": result.n_rounds,
            "n_active": len(result.support),
            "resyncs": result.resyncs,
            "retries": retries,
            "local_seconds": local_seconds,
            "start_seconds": result.start_seconds,
            "start_size": result.start_size,
            "seconds": result.seconds + local_seconds,
            "tol": float(self.tol),
            "loss": loss,
        }

    def _warn_unconverged(self, result: Any, stacklevel: int = 4) -> None:
        if not result.converged:
            warnings.warn(
                f"{type(self).__name__} stopped after max_iter={self.max_iter} rounds with relative duality gap "
                f"{result.relative_gap:.3g}, before meeting tol={self.tol}. Consider increasing max_iter.",
                ConvergenceWarning, stacklevel=stacklevel)


@parameters()
class DistributedSVC(ClassifierMixin, _ShardedFit):
    """A binary squared-hinge SVC fitted by distributed Frank-Wolfe, rows sharded over Dask workers.

    The model is :class:`fwsvm.SVC` with ``loss="squared_hinge"`` (the Core Vector Machine's
    dual on the unit simplex, regularised bias): at the same ``C``, kernel and ``tol`` it
    reaches the same certified optimum, and the fitted :attr:`model_` *is* such an SVC (save
    it, predict with it in one process or with :func:`predict` over Dask collections).

    Each shard of rows lives in a Dask actor on one worker with its slice of α and of the
    gradient. With ``init="local"`` every shard first solves the problem on its own rows
    (the in-process engine, in parallel), and the global rounds start from the union of
    those solutions (a cascade SVM's first layer). A round sends the vertices whose weight
    changed (their feature vectors and coefficients); every worker updates its slice with
    the engine's kernel expansion and returns a few scalars and its best toward/away
    candidates; the driver computes the global duality gap and solves the problem restricted
    to the support and the candidates with the in-process engine (see :mod:`fwsvm._dfw` and
    the "Scaling out" guide). The fit stops when the relative duality gap is at most ``tol``,
    certified after every shard recomputed its gradient from the full support — the same
    certificate as :class:`fwsvm.SVC`.

    Parameters
    ----------
    C : float, default=1.0
        Penalty on the squared slacks (``SVC(loss="squared_hinge")``'s scale).
    kernel : {"rbf", "linear", "poly", "sigmoid", "laplacian"}, default="rbf"
    gamma : "scale", "auto" or float, default="scale"
        As :class:`fwsvm.SVC` ("scale" computes the variance of X, on the cluster for dask input).
    degree, coef0 : as :class:`fwsvm.SVC`.
    tol : float, default=1e-2
        The relative duality gap to reach (``stopping="absolute_gap"``: the gap).
    stopping : {"gap", "absolute_gap"}, default="gap"
    max_iter : int, default=-1
        Maximum number of rounds (-1: no limit); a fit that stops on it warns.
    block : int or None, default=None
        Most pairwise steps the driver takes per round on its working set (the support and
        the candidates; None: no limit); it stops earlier when the working set's relative
        gap is a quarter of the global one. ``block=1`` is textbook pairwise Frank-Wolfe
        (one round per step); more steps per round amortise its latency, and every worker
        then applies the columns of all the vertices whose weight changed.
    init : {"local", "pair"}, default="local"
        The start of the global rounds: ``"local"``, the union of the shards' own solutions,
        each weighted by its share of the rows (every shard solves its rows first, in
        parallel: on the checkerboard at 10⁵ rows the first global round is then within
        tol); ``"pair"``, half the weight on one row of each class (the working set then
        grows by ``n_candidates`` per shard and round).
    n_candidates : int, default=256
        Toward candidates (rows of least gradient, with their feature vectors) each shard
        returns per round.
    client : distributed.Client, default=None
        The cluster (None: the default client).
    n_shards : int, default=None
        Shards of rows (None: one per worker). A dask array's row chunks are grouped into
        contiguous shards; a NumPy array is split evenly.
    cache_size : float, default=1000
        MB of kernel columns each shard keeps between rounds for data of 16 features or more
        (every round applies the columns of the vertices that moved, mostly the same support;
        a miss costs a pass over the shard's rows; enough for the support's columns: n_SV ·
        rows per shard · 8 bytes). Below 16 features the engine's kernel expansion costs
        about what reading a cached column does, and nothing is cached.
    retries : int, default=1
        How many times a fit whose worker died is resumed on new shards, from the last
        iterate the driver holds (it keeps α and the support vectors); after that
        :class:`LostShardError` is raised. No model is set by a failed fit.

    Attributes
    ----------
    model_ : fwsvm.SVC
        The fitted model as an in-process SVC (``loss="squared_hinge"``).
    classes_, support_, support_vectors_, dual_coef_, intercept_, n_support_ :
        As :class:`fwsvm.SVC` (``support_`` indexes the rows of the X given to fit).
    convergence_ : dict
        ``exit_reason``, ``gap``, ``relative_gap``, ``objective`` (−αᵀQα), ``quadratic``,
        ``n_iter`` (pairwise steps of the driver's solves), ``n_rounds``, ``resyncs``,
        ``retries``, ``local_seconds`` (the shards' own solves of ``init="local"``),
        ``start_seconds`` and ``start_size`` (the driver's solve on the start's support —
        with ``init="local"`` the union of the shards' supports — before the first round),
        ``seconds`` (all of the fit's solving).
    rounds_ : dict of ndarray
        Per-round measurements: ``wall`` (round trip), ``worker_max`` (slowest shard's
        compute), ``kernel_max``, ``driver`` (the driver's own work), ``steps``,
        ``n_vectors`` (vertices sent), ``rel_gap``.
    """

    def _check_params(self) -> None:
        if not (np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be positive and finite, got {self.C!r}")
        self._check_common()

    def fit(self, X: Any, y: Any) -> DistributedSVC:
        """Fit on a NumPy array, a sparse matrix or a dask array of rows and their two labels.

        Parameters
        ----------
        X : ndarray, sparse matrix or dask.array.Array of shape (n_samples, n_features)
            Training rows. A dask array (dense chunks, or scipy sparse chunks) stays
            on the cluster (its row chunks become the shards); a NumPy array or a sparse
            matrix is split into ``n_shards`` parts and scattered. Sparse rows stay CSR on the
            shards, in the driver's vectors and in ``support_vectors_``.
        y : array-like or dask.array.Array of shape (n_samples,)
            Two class labels (the labels are gathered on the driver: one value per row).

        Returns
        -------
        self : DistributedSVC

        Raises
        ------
        ValueError
            For more or fewer than two classes (fit multiclass problems with
            :class:`fwsvm.SVC` or one :class:`DistributedSVC` per pair), mismatched
            lengths, or a NaN/infinity in the rows (naming the row).
        LostShardError
            When workers die more often than ``retries`` allows.
        """
        self._check_params()
        if isinstance(y, (da.Array, dd.Series)):
            y = y.compute()
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
        X, is_dask = self._check_rows(X)
        n = X.shape[0]
        if n != len(y):
            raise ValueError(f"X has {n} rows but y has {len(y)} labels")
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) != 2:
            raise ValueError(
                f"DistributedSVC fits binary problems only; y has {len(classes)} class"
                f"{'es' if len(classes) != 1 else ''}. Fit multiclass problems with fwsvm.SVC "
                "(one-vs-one) or one DistributedSVC per pair of classes."
            )
        y_pm = np.where(y_index == 1, 1.0, -1.0)
        result, gamma, attempt, local_seconds, _ = self._run(X, y_pm, float(self.C), is_dask)
        self._set_model(result, classes, y_pm, X.shape, gamma, attempt, local_seconds)
        return self

    def _set_model(self, result: Any, classes: np.ndarray, y_pm: np.ndarray, shape: tuple[int, int],
                   gamma: float, retries: int, local_seconds: float) -> None:
        rho = result.rho
        order = np.lexsort((result.support, y_pm[result.support] > 0))  # negative class first
        support = result.support[order]
        alpha = result.alpha[order]
        ys = y_pm[support]
        scale = 1.0 / rho if np.isfinite(rho) and rho > 0 else 1.0
        model = SVC(C=float(self.C), loss="squared_hinge", kernel=self.kernel, gamma=self.gamma,
                    degree=self.degree, coef0=self.coef0, tol=float(self.tol), stopping=self.stopping)
        model.classes_ = classes
        model._gamma = gamma
        model.n_iter_ = np.array([result.n_steps], dtype=np.int64)
        model.history_ = None
        model.n_features_in_ = shape[1]
        model.shape_fit_ = shape
        model.fit_status_ = int(not result.converged)
        model._warm_from = None
        _remember_kernel(model)
        model._set_parts(dict(
            support_=support, support_vectors_=_support_vectors(result.vectors[order]),
            dual_coef_=(ys * alpha * scale).reshape(1, -1), intercept_=[float(np.sum(ys * alpha)) * scale],
            n_support_=[int(np.sum(ys < 0)), int(np.sum(ys > 0))], _alpha=alpha,
        ))
        model.convergence_ = self._convergence(result, retries, local_seconds, "squared_hinge")
        self._warn_unconverged(result)
        self.model_ = model
        for name in ("classes_", "support_", "support_vectors_", "dual_coef_", "intercept_", "n_support_",
                     "n_iter_", "n_features_in_", "fit_status_", "convergence_"):
            setattr(self, name, getattr(model, name))
        self.rounds_ = result.rounds

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed decision values of in-memory rows (positive: ``classes_[1]``); for dask
        collections use :func:`fwsvm.dask.decision_function`."""
        check_is_fitted(self)
        return self.model_.decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """Class labels of in-memory rows; for dask collections use :func:`fwsvm.dask.predict`."""
        check_is_fitted(self)
        return self.model_.predict(X)


@parameters()
class DistributedOneClassSVM(OutlierMixin, _ShardedFit):
    """:class:`fwsvm.OneClassSVM` — the minimum enclosing ball of the data with squared slacks
    — fitted by distributed Frank-Wolfe, rows sharded over Dask workers.

    The same rounds as :class:`DistributedSVC` (see :mod:`fwsvm._dfw`) on the one-class
    problem: maximise ``diag(Q)ᵀα − αᵀQα`` on the unit simplex, ``Q = K + I/C``. With
    ``init="local"`` every shard first fits the ball of its own rows with ``C`` scaled by the
    shard's share of the rows (``C = 1 / (nu · n_samples)`` becomes ``1 / (nu · its rows)``),
    and the rounds start from the union of those solutions. The fit stops on the same certified
    relative duality gap as :class:`fwsvm.OneClassSVM`, and :attr:`model_` *is* such a model:
    ``offset_`` is the ``nu``-quantile of the training scores, computed from every shard's
    scores of its rows after the last round (one value per row gathered on the driver).

    Parameters
    ----------
    nu : float in (0, 1), default=0.1
        The fraction of training rows to call outliers (as :class:`fwsvm.OneClassSVM`).
    C : float, default=None
        Penalty of the squared slacks; ``None``: ``1 / (nu · n_samples)``.
    kernel, gamma, degree, coef0 : as :class:`fwsvm.OneClassSVM`.
    tol : float, default=1e-3
        The relative duality gap to reach (:class:`fwsvm.OneClassSVM`'s default).
    stopping, max_iter, block, init, n_candidates, client, n_shards, cache_size, retries :
        As :class:`DistributedSVC` (``init="pair"`` starts from the first row alone).

    Attributes
    ----------
    model_ : fwsvm.OneClassSVM
        The fitted model as an in-process estimator.
    support_, support_vectors_, dual_coef_, radius_, offset_, n_iter_, n_features_in_,
    convergence_ :
        As :class:`fwsvm.OneClassSVM` (``convergence_`` with the rounds' entries of
        :class:`DistributedSVC`).
    rounds_ : dict of ndarray
        Per-round measurements, as :class:`DistributedSVC`.
    """

    _one_class = True

    def _check_params(self) -> None:
        if not (0.0 < self.nu < 1.0):
            raise ValueError(f"nu must be in (0, 1), got {self.nu!r}")
        if self.C is not None and not (np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be None or positive and finite, got {self.C!r}")
        self._check_common()

    def fit(self, X: Any, y: Any = None) -> DistributedOneClassSVM:
        """Fit the ball to a NumPy array, a sparse matrix or a dask array of rows (as
        :meth:`DistributedSVC.fit`); y is ignored.

        Raises
        ------
        ValueError
            For empty input, bad parameters, or a NaN/infinity in the rows (naming the row).
        LostShardError
            When workers die more often than ``retries`` allows.
        """
        self._check_params()
        X, is_dask = self._check_rows(X)
        n = X.shape[0]
        if n == 0:  # a dask array (check_array refuses an empty NumPy one)
            raise ValueError("X has 0 samples: the ball of nothing is not defined")
        C = float(self.C) if self.C is not None else 1.0 / (self.nu * n)

        def finish(shards: list[Any], actors: list[Any], result: Any) -> tuple[float, float, np.ndarray]:
            # R², the score constant, and every shard's scores of its rows (s is that of the
            # final weights: the last round applied them).
            r2, constant = _core.ball_constants(result.objective, result.rho, np.ascontiguousarray(result.alpha, dtype=np.float64), C)
            parts = _call(shards, actors, [(constant,)] * len(shards), "scores")
            return r2, constant, np.concatenate(parts)

        result, gamma, attempt, local_seconds, (r2, constant, scores) = self._run(X, np.ones(n), C, is_dask, finish)
        alpha = result.alpha
        model = OneClassSVM(loss="squared_hinge", nu=self.nu, C=self.C, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                            coef0=self.coef0, tol=float(self.tol), stopping=self.stopping)
        model._gamma = gamma
        model._C = C
        model._score_constant = constant
        model.radius_ = float(np.sqrt(max(r2, 0.0)))
        model.n_iter_ = int(result.n_steps)
        model.history_ = None
        model.n_features_in_ = X.shape[1]
        model.shape_fit_ = X.shape
        _remember_kernel(model)
        model._set_parts(dict(support_=result.support, support_vectors_=_support_vectors(result.vectors),
                              dual_coef_=alpha.reshape(1, -1)))
        model.convergence_ = self._convergence(result, attempt, local_seconds, "squared_hinge")
        model.offset_ = float(np.quantile(scores, self.nu))
        self._warn_unconverged(result, stacklevel=3)
        self.model_ = model
        for name in ("support_", "support_vectors_", "dual_coef_", "radius_", "offset_", "n_iter_",
                     "n_features_in_", "convergence_"):
            setattr(self, name, getattr(model, name))
        self.rounds_ = result.rounds
        return self

    def score_samples(self, X: Any) -> np.ndarray:
        """R² − ‖φ(x) − c‖² of in-memory rows (positive inside the ball); for dask collections
        apply :attr:`model_` with :func:`fwsvm.dask.decision_function`."""
        check_is_fitted(self)
        return self.model_.score_samples(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """``score_samples(X) − offset_``: negative for outliers."""
        check_is_fitted(self)
        return self.model_.decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """+1 for inliers, −1 for outliers (in-memory rows)."""
        check_is_fitted(self)
        return self.model_.predict(X)


def _support_vectors(vectors: Any) -> Any:
    """``support_vectors_`` as the in-process estimators keep them: CSR for sparse data."""
    return vectors.tocsr() if sp.issparse(vectors) else np.ascontiguousarray(vectors)


_DFW_KERNELS = frozenset({"rbf", "linear", "poly", "sigmoid", "laplacian"})
# Seconds to wait for one round's answers before the fit is declared lost (a healthy round
# takes milliseconds to seconds; a dead worker's actor may never answer).
_TIMEOUT = 300.0
_POLL = 0.25  # seconds between checks that the shards' workers are alive


def _live_workers(client: Client) -> list[str]:
    """The workers the scheduler knows now (``client.scheduler_info()`` may be seconds old and
    still list a worker that died)."""
    return sorted(client.run_on_scheduler(_scheduler_workers))


def _scheduler_workers(dask_scheduler: Any) -> list[str]:
    return list(dask_scheduler.workers)


def _call(shards: list[Any], futures: list[Any], requests: list[tuple[Any, ...]],
          method: str = "round") -> list[dict[str, Any]]:
    """One round: ``method`` called with request k on shard k, all at once; the answers in
    shard order.

    An actor's call on a worker that died never answers, so the answers are awaited in short
    slices between which the shards' futures are checked: a shard whose worker was lost is no
    longer ``finished`` (the scheduler forgets or recomputes it). Any failure — a lost shard,
    a closed connection, no answer within ``_TIMEOUT`` — becomes a :class:`LostShardError`
    naming the shard; a ValueError the shard raised (its input is bad) is raised as it is."""
    k = 0
    try:
        pending = []
        for k, (shard, request) in enumerate(zip(shards, requests)):
            pending.append(getattr(shard, method)(*request))
        answers = []
        deadline = time.monotonic() + _TIMEOUT
        for k, p in enumerate(pending):
            while True:
                try:
                    answers.append(p.result(timeout=_POLL))
                    break
                except TimeoutError:
                    lost = [j for j, f in enumerate(futures) if f.status != "finished"]
                    if lost:
                        k = lost[0]
                        raise RuntimeError(f"its actor is {futures[k].status}") from None
                    if time.monotonic() > deadline:
                        raise
        return answers
    except ValueError:
        raise  # the shard rejected its input (NaN, say): no retry can help
    except Exception as exc:
        raise LostShardError(
            f"shard {k} of the distributed fit was lost (its worker died or did not answer): "
            f"{type(exc).__name__}: {exc}"
        ) from exc


from fwsvm.dask_approx import DaskApproxSVC  # noqa: E402  (it uses this module's helpers)
