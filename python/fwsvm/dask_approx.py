"""The approximate path beyond one machine (:class:`DaskApproxSVC`, exported by
:mod:`fwsvm.dask`): coreset Nyström features and a linear hinge SVM trained by CoCoA+ or by
Newton rounds on Dask, certified by the primal–dual gap.

The fit, on a dask array (dense or scipy-sparse chunks), a dask DataFrame or in-memory rows:

1. **Check pass** (one task per block): the entries' moments (for ``gamma="scale"``), the
   classes' counts (for ``class_weight="balanced"``), and NaN/infinity, which raise a
   ValueError naming the global row.
2. **Coreset pass** (one task per block, then the driver): each block fits a small
   Frank-Wolfe SVC (:func:`fwsvm.kernel_approximation.coreset_indices`) on a uniform sample
   of its rows and sends its support vectors with the largest weights, about
   ``2 · n_components`` candidates in all; the driver runs the same selection once on the
   candidates (merge and reduce) and keeps ``n_components`` landmarks S.
3. **The map**: z(x) = L⁻¹ k(S, x) with K_SS = L Lᵀ the landmarks' pivoted Cholesky
   factorisation (:func:`fwsvm.kernel_approximation.triangular_inverse`; landmarks in the
   others' span are dropped): :class:`fwsvm.Nystroem`'s K_SS^{−1/2} k(S, x) up to a rotation,
   which the linear SVM does not see, at half the matrix product (``rank``: the leading
   eigen-directions instead). Applied block by block with ``map_blocks``, the fitted map one
   node of the graph.
4. **CoCoA rounds** (Ma et al. 2015): the mapped rows stay on K shards (Dask actors, one per
   worker by default). Per round the driver sends w (one vector of ``n_components + 1``
   numbers per class); each shard reads its rows once in storage order — its pieces of the
   duality gap at w, and which rows can move: a weight at a bound whose margin is further from
   1 than the shard's last round moved a row's margin (LIBLINEAR's shrinking) is skipped —,
   then takes ``local_passes`` sweeps of dual coordinate steps on its local subproblem over
   the other rows, in a random order, and returns Δw_k and Σ_{i∈k} Δα_i. With ``aggregation="line_search"`` the subproblems have
   σ′ = 1 and the driver sets w ← w + γ Σ_k Δw_k with γ ∈ [0, 1] the exact maximiser of the
   dual along the combined update (a one-dimensional concave quadratic whose coefficients are
   ‖Σ_k Δw_k‖², ⟨w, Σ_k Δw_k⟩ and Σ Δα_i: no extra message); the shards scale their update by
   the same γ when the next round commits it. With ``aggregation="add"`` it is CoCoA+'s
   additive aggregation (σ′ = K, γ = 1). The default ``"auto"`` takes ``"add"`` for one or two
   shards and the line search for more (measured: fewer rounds from 4 shards on, more at 2). The local solver is Rust
   (``src/solver/linear/cocoa.rs``, which gives the formulas).

5. **Newton rounds** (``solver="newton"``; ``src/solver/linear/newton.rs`` gives the formulas):
   the driver minimises the smoothed hinge (Huber, width μ shrinking from 2 to 0.05) by
   Newton steps. Per round it sends w and the last direction p; each shard returns, from one
   pass over its rows, the surrogate's losses along p on a grid of steps, and at w + p the
   hinge loss, Σα_i and Σ α_i y_i z_i for α_i = C_i clip((1 − y_i⟨w + p, z_i⟩)/μ, 0, 1) —
   a feasible dual point, so the certificate is exact every round — and the Hessian of the
   rows in the band 0 < 1 − y⟨w + p, z⟩ < μ from a sample of about 100 (m + 1) of them
   (a packed triangle of (m + 1)(m + 2)/2 numbers per class and shard: 80 MB at m = 4,500). The driver
   solves the (m + 1)-dimensional Newton system. The shards only sum, so the rounds are the
   same for any number of shards; they hold no weights, so a lost shard is made again and the
   round rerun.

The problem is LIBLINEAR's C-form with the bias a regularised constant feature (z_i = [z(x_i); 1]):
P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − y_i⟨w, z_i⟩), dual D(α) = Σα_i − ½‖Σα_i y_i z_i‖² with
0 ≤ α_i ≤ C_i and w = Σ α_i y_i z_i, C_i = C × the class weight of row i's class. The
certificate is P(w) − D(α) from the shards' pieces (Σα_i and Σ C_i hinge_i per shard, ‖w‖² on
the driver); the fit stops when P − D ≤ ``tol`` · P for every class, and the model is the w the
certificate is for (the round's update is discarded).

A shard lost with its worker: the round's answers are dropped, the lost shards are created
again from their blocks (Dask recomputes the mapped blocks from the graph) with α = 0, the
surviving shards drop their uncommitted update, w is recomputed as Σ_k A_k α_k (one vector per
shard), and the round runs again from there: the certificate stays exact.
"""

from __future__ import annotations

import copy
import sys
import time
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

import dask
import dask.array as da
import dask.dataframe as dd

from fwsvm import _core, _dfw
from fwsvm._parameters import parameters
from fwsvm.kernel_approximation import Nystroem, coreset_indices, top_inverse_sqrt, triangular_inverse

__all__ = ["DaskApproxSVC", "LinearShard", "linear_hinge_objective"]


def _as_block(b: Any) -> Any:
    """A block as the engine takes it: CSR float64 for sparse chunks, aligned C-contiguous
    float64 else (a block that crossed the network may be misaligned)."""
    if _dfw.is_sparse_block(b):
        return _dfw.as_csr(b)
    return np.require(b, dtype=np.float64, requirements=["C", "A"])


def _check_block(b: Any, y: np.ndarray, offset: int) -> tuple[tuple[int, float, float], np.ndarray, np.ndarray]:
    """Pass 1 on a worker: NaN/inf named by global row, the entries' moments, the labels' counts."""
    b = _as_block(b)
    _dfw._check_finite(b, int(offset))
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    return _dfw.block_moments(b), labels, counts


def _block_candidates(b: Any, y: Any, offset: int, k: int, size: int, svc_params: dict[str, Any],
                      seed: int) -> tuple[np.ndarray, Any, np.ndarray]:
    """Pass 2 on a worker: the block's coreset candidates (global rows, the rows, their labels);
    a block whose sample holds one class sends a uniform sample."""
    b = _as_block(b)
    y = np.asarray(y)
    rng = np.random.RandomState(seed)
    k = min(k, b.shape[0])
    if k == 0:
        return np.empty(0, dtype=np.int64), b[:0], y[:0]
    try:
        idx = coreset_indices(b, y, k, size, dict(svc_params, n_jobs=1), rng)
    except ValueError:
        idx = np.sort(rng.choice(b.shape[0], size=k, replace=False))
    return idx + int(offset), b[idx], y[idx]


def _map_block(b: Any, nystroem: Nystroem, dtype: str) -> np.ndarray:
    return nystroem._map(_as_block(b), dtype)


def linear_hinge_objective(Z: np.ndarray, y_pm: np.ndarray, c: np.ndarray, w: np.ndarray) -> float:
    """P(w) = ½‖w‖² + Σ c_i max(0, 1 − y_i(⟨w[:-1], z_i⟩ + w[-1])) in process (tests, benches)."""
    margin = y_pm * (np.asarray(Z) @ w[:-1] + w[-1])
    return float(0.5 * w @ w + np.sum(c * np.maximum(0.0, 1.0 - margin)))


class LinearShard:
    """One worker's mapped rows and their dual weights (a Dask actor).

    Parameters
    ----------
    blocks : list of ndarray
        The shard's mapped row blocks (n_b, n_components), kept as they are (no copy).
    labels : list of ndarray
        Their labels.
    classes : ndarray
        All classes, sorted (to index the penalties).
    positive : list
        One binary problem per entry: its positive class (the other rows are −1).
    penalties : ndarray
        C times the class weight, per class.
    """

    def __init__(self, blocks: list[Any], labels: list[Any], classes: np.ndarray, positive: list[Any],
                 penalties: np.ndarray) -> None:
        # Aligned C-contiguous float16 or float32 (a float16 or float32 map's blocks) or
        # float64 (arrays that crossed the network may be misaligned).
        self.blocks = [np.require(b, dtype=_storage(np.asarray(b).dtype), requirements=["C", "A"]) for b in blocks]
        self.yc: list[np.ndarray] = []  # per problem: one array over the shard's rows per block
        index = [np.searchsorted(classes, np.asarray(y)) for y in labels]
        pen = [penalties[i] for i in index]
        self.yc = [[np.where(np.asarray(y) == p, 1.0, -1.0) * c for y, c in zip(labels, pen)] for p in positive]
        self.alpha = [[np.zeros(b.shape[0]) for b in self.blocks] for _ in positive]
        # Per problem and block: the screening reach its last round measured (inf: visit every row).
        self.reach = [[np.inf] * len(self.blocks) for _ in positive]
        self.pending: list[list[np.ndarray]] | None = None
        self.n_rows = int(sum(b.shape[0] for b in self.blocks))

    def _commit(self, steps: np.ndarray | None) -> None:
        """α ← α + γ_j (α′ − α) per problem j for the last round's α′; None drops it."""
        if steps is not None and self.pending is not None:
            self.alpha = [[p if g == 1.0 else a + g * (p - a) for a, p in zip(old, new)]
                          for old, new, g in zip(self.alpha, self.pending, np.asarray(steps, dtype=np.float64))]
        self.pending = None

    def round(self, W: np.ndarray, sigma: float, passes: int, seed: int, steps: np.ndarray | None) -> dict[str, Any]:
        """Commit the last round's update scaled by ``steps`` (γ per problem; None drops it),
        then for every problem j: the gap pieces at W[j] and ``passes`` sweeps of the
        subproblem; returns ΔW, Σ Δα per problem and the pieces."""
        t0 = time.perf_counter()
        self._commit(steps)
        n_problems, width = W.shape
        delta = np.zeros((n_problems, width))
        grow = np.zeros(n_problems)
        pieces = np.zeros((n_problems, 3))
        steps = 0
        pending = []
        params: dict[str, Any] = dict(sigma=float(sigma), passes=int(passes))
        rng = np.random.RandomState(int(seed) % (2**32))
        for j in range(n_problems):
            w = np.array(W[j], dtype=np.float64)  # a copy of its own: aligned
            new: list[Any] = [None] * len(self.blocks)
            # The shard's subproblem swept block after block, the blocks in a random order: block
            # b starts from w + σ′·(the shard's Δw so far), the point of its gradient; the same
            # sweep sums the block's pieces of the gap at w.
            for b in rng.permutation(len(self.blocks)):
                params.update(seed=int(rng.randint(2**62)), reach=self.reach[j][b], start=w + sigma * delta[j])
                out = _core.cocoa_local_round((self.blocks[b], self.yc[j][b], self.alpha[j][b], w), params)
                pieces[j] += (out["alpha_sum"], out["loss"], out["violations"])
                self.reach[j][b] = out["next_reach"]
                delta[j] += out["delta_w"]
                grow[j] += out["delta_alpha_sum"]
                steps += int(out["steps"])
                new[b] = out["alpha"]
            pending.append(new)
        self.pending = pending
        return {"delta_w": delta, "delta_alpha_sum": grow, "pieces": pieces, "steps": steps,
                "seconds": time.perf_counter() - t0}

    def newton(self, requests: list[Any], salt: int) -> dict[str, Any]:
        """Every problem's Newton pieces (``_core.newton_pieces``; a None request: none)."""
        t0 = time.perf_counter()
        out = [None if r is None else _core.newton_pieces(list(zip(self.blocks, yc)), dict(
            _aligned(r), seed=r["seed"] + 7919 * salt)) for r, yc in zip(requests, self.yc)]
        return {"pieces": out, "seconds": time.perf_counter() - t0}

    def weights(self) -> np.ndarray:
        """Drop any uncommitted update; Σ α_i y_i [z_i; 1] over the shard, per problem."""
        self._commit(None)
        out = []
        for yc_j, a_j in zip(self.yc, self.alpha):
            out.append(sum(_core.cocoa_shard_weights(Z, yc, a) for Z, yc, a in zip(self.blocks, yc_j, a_j)))
        return np.array(out)

    def rows(self) -> int:
        return self.n_rows


@parameters()
class DaskApproxSVC(ClassifierMixin, BaseEstimator):
    """Kernel SVM approximated for data beyond one machine: coreset Nyström features and a
    linear hinge SVM fitted by Newton or CoCoA+ rounds on a Dask cluster, stopped on a
    certified duality gap.

    See :mod:`fwsvm.dask_approx` for the passes, the problem (LIBLINEAR's C-form, bias a
    regularised constant feature) and the certificate; ``docs/guide/scaling.rst`` for when to
    choose it over the exact :class:`fwsvm.dask.DistributedSVC`.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the linear hinge SVM on the mapped features (LIBLINEAR's C).
    kernel, gamma, degree, coef0 :
        The kernel approximated (:class:`fwsvm.Nystroem`'s; ``gamma="scale"`` from the check
        pass's moments).
    n_components : int, default=300
        Landmarks, hence mapped features.
    landmarks : {"coreset", "uniform"}, default="coreset"
        ``"coreset"``: the coreset pass (per-block SVC fits, then one in the driver);
        ``"uniform"``: rows drawn uniformly per block.
    coreset_C : float, default=1.0
        Penalty of the coreset fits.
    coreset_sample : int or None, default=None
        Rows sampled for the coreset fits in all (split over the blocks by their sizes);
        None: 10 × ``n_components``.
    class_weight : dict, "balanced" or None, default=None
        Multiplies C per class (``"balanced"``: n / (n_classes · count), from the check pass).
    rank : int or None, default=None
        Mapped features: the ``rank`` leading eigen-directions of the landmarks' kernel matrix
        (z(x) = Λ_r^{−1/2} U_rᵀ k_S(x), the best rank-r approximation of the ``n_components``-
        landmark map); None: all (``n_components`` features). Many landmarks at a lower rank
        span the data better than ``rank`` landmarks, at ``rank / n_components`` of the full
        map's product and rounds of ``rank`` features.
    map_dtype : {"float32", "float16", "float64"}, default="float32"
        Precision of the mapped features the workers hold (n × ``n_components`` values) and of
        the map's matrix product: float32 halves their memory and the bytes every round reads
        (values within about 1e-4 of the float64 map's largest); float16 stores the float32
        map's values rounded to half precision (relative error at most 2⁻¹¹; the product stays
        float32) and halves them again. The solver's sums stay float64 on the stored values,
        so the certificate is exact for the features it trained on; prediction maps new rows
        the same way.
    tol : float, default=1e-2
        Stop when (P − D) / P ≤ tol for every one-vs-rest problem (P at the best w seen).
    max_rounds : int, default=500
    local_passes : int, default=1
        Sweeps of each shard over its rows per round (CoCoA's local work H, in epochs; CoCoA
        only).
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the driver combines the shards' updates (CoCoA only): ``"line_search"``, σ′ = 1 subproblems and
        the summed update scaled by the exact line search of the dual; ``"add"``, CoCoA+'s
        σ′ = K and the updates added; ``"auto"``: ``"add"`` for at most two shards, the line
        search beyond (on 10⁶ mapped rows, BENCHMARKS.md: 17 rounds against 29 at 4 shards,
        39 against 102 at 16, but 42 against 18 at 2).
    solver : {"auto", "cocoa", "newton"}, default="auto"
        ``"cocoa"``: the CoCoA rounds above (``aggregation``, ``local_passes``); ``"newton"``:
        Newton rounds on the smoothed hinge (step 5 of :mod:`fwsvm.dask_approx`), whose count
        does not grow with the shards (10⁶ checkerboard rows, 200 features: 13–14 rounds on 1
        to 16 shards against CoCoA's 11 and 40–45) but whose Hessian sample costs about
        50 (m + 1)³ products a round for m mapped features; ``"auto"``: Newton when that is at
        most about one pass over the rows (17 (m + 1)² ≤ n), CoCoA otherwise.
    n_shards : int or None, default=None
        Shards K; None: one per worker.
    client : distributed.Client or None
    random_state : int, RandomState or None
    verbose : int, default=0
        1: one line per round on ``sys.stderr`` (the best primal, the dual, the largest
        relative gap over the problems, the round's seconds).
    retries : int, default=2
        Lost-shard recoveries allowed before the fit fails.

    Attributes
    ----------
    classes_ : ndarray
    nystroem_ : fwsvm.Nystroem
        The fitted map (its ``component_indices_`` are global rows).
    coef_ : ndarray of shape (1 or n_classes, n_features_mapped)
        One weight per mapped feature: ``rank`` features, or one per kept landmark (at most
        ``n_components``: the triangular map drops landmarks in the others' span).
    intercept_ : ndarray of shape (1 or n_classes,)
    convergence_ : dict
        ``exit_reason``, ``primal``, ``dual``, ``gap``, ``relative_gap`` (per problem arrays),
        ``n_rounds``, ``retries``, ``steps``, and the seconds of the passes:
        ``check_seconds``, ``coreset_seconds``, ``map_seconds``, ``rounds_seconds``.
    solver_ : str
        The solver the fit ran (``"cocoa"`` or ``"newton"``).
    rounds_ : dict of ndarray
        Per round: ``wall`` (driver seconds), ``local`` (the slowest shard's seconds),
        ``relative_gap`` (the largest over the problems), ``dual`` (per problem; it rises
        every round but one that follows a lost shard); ``step``, of shape
        (n_rounds, n_problems): the γ each update was scaled by (1 when added; Newton: the
        line search's step, and ``dual`` the best dual bound so far).
    """

    #: Called with the round number before each round is sent (tests: lose a worker mid-fit).
    _on_round: Any = None

    # ---------------------------------------------------------------- input
    @staticmethod
    def _rows(X: Any, n_parts: int) -> da.Array:
        if isinstance(X, dd.DataFrame):
            X = X.to_dask_array(lengths=True)
        if not isinstance(X, da.Array):
            if not sp.issparse(X):
                X = np.asarray(X, dtype=np.float64)
            else:
                X = sp.csr_matrix(X, dtype=np.float64)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-dimensional, got {X.ndim} dimensions")
            n = X.shape[0]
            size = max(1, -(-n // max(1, n_parts)))
            X = da.from_array(X, chunks=(size, X.shape[1]), asarray=not sp.issparse(X))
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got {X.ndim} dimensions")
        if any(np.isnan(c) for c in X.chunks[0]):
            raise ValueError("X has unknown chunk sizes: call X.compute_chunk_sizes() first")
        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
        if X.numblocks[0] < n_parts:
            n = X.shape[0]
            sizes = np.diff(np.linspace(0, n, n_parts + 1).astype(int))
            X = X.rechunk({0: tuple(int(s) for s in sizes if s > 0)})
        return X

    @staticmethod
    def _labels(y: Any, chunks: tuple[int, ...]) -> da.Array:
        if isinstance(y, (dd.Series, dd.DataFrame)):
            y = y.to_dask_array(lengths=True)
        if isinstance(y, da.Array):
            if y.ndim != 1:
                raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
            if y.shape[0] != sum(chunks):
                raise ValueError(f"X has {sum(chunks)} rows but y has {y.shape[0]} labels")
            return y.rechunk((chunks,))
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
        if y.shape[0] != sum(chunks):
            raise ValueError(f"X has {sum(chunks)} rows but y has {y.shape[0]} labels")
        return da.from_array(y, chunks=(chunks,))

    # ---------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any) -> DaskApproxSVC:
        """Fit on a dask array (dense or sparse chunks), a dask DataFrame or in-memory rows.

        Raises
        ------
        ValueError
            Bad parameters, mismatched lengths, a single class, or a NaN/infinity in the rows
            (naming the global row).
        fwsvm.dask.LostShardError
            When workers die more often than ``retries`` allows.
        """
        from fwsvm.dask import _client, _live_workers

        self._validate_params()
        client = _client(self.client)
        workers = _live_workers(client)
        if not workers:
            raise RuntimeError("the Dask cluster has no workers")
        n_shards = int(self.n_shards) if self.n_shards is not None else len(workers)
        X = self._rows(X, n_shards)
        yd = self._labels(y, X.chunks[0])
        n, d = X.shape
        bounds = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(np.int64)
        xb = list(X.to_delayed().ravel())
        yb = list(yd.to_delayed().ravel())
        rng = check_random_state(self.random_state)
        t0 = time.perf_counter()

        # 1. the check pass
        checks = dask.compute(*[dask.delayed(_check_block)(b, yy, int(bounds[i]))
                                for i, (b, yy) in enumerate(zip(xb, yb))])
        var = _dfw.combine_moments([c[0] for c in checks])
        counts: dict[Any, int] = {}
        for _, labels, cnt in checks:
            for lab, c in zip(labels.tolist(), cnt.tolist()):
                counts[lab] = counts.get(lab, 0) + int(c)
        classes = np.array(sorted(counts))
        if classes.size < 2:
            raise ValueError(f"y has {classes.size} class; DaskApproxSVC needs at least two")
        if isinstance(self.gamma, str):
            gamma = (1.0 / d if self.gamma == "auto" else (1.0 / (d * var) if var != 0 else 1.0))
        else:
            gamma = float(self.gamma)
        penalties = float(self.C) * self._class_weights(classes, counts, n)
        t1 = time.perf_counter()

        # 2. the landmarks
        k = min(int(self.n_components), n)
        nystroem = self._landmarks(xb, yb, bounds, classes, k, gamma, rng)
        t2 = time.perf_counter()

        # 3. the map, block by block; the mapped blocks stay on the workers
        model = dask.delayed(nystroem, pure=True)
        m = nystroem.normalization_.shape[1]
        dtype = np.dtype(self.map_dtype)
        Z = X.map_blocks(_map_block, model, self.map_dtype, chunks=(X.chunks[0], (m,)), dtype=dtype,
                         meta=np.empty((0, 0), dtype=dtype))
        z_blocks = client.compute(list(Z.to_delayed().ravel()))
        y_blocks = client.compute(yb)
        from distributed import wait

        wait(z_blocks + y_blocks)
        t3 = time.perf_counter()

        # 4. CoCoA+
        positive = [classes[1]] if classes.size == 2 else list(classes)
        cut = np.searchsorted(bounds, np.linspace(0, n, n_shards + 1), side="left")
        cut[0], cut[-1] = 0, len(z_blocks)
        groups = [(int(cut[s]), int(cut[s + 1])) for s in range(n_shards) if cut[s + 1] > cut[s]]

        def make_shard(g: tuple[int, int]) -> Any:
            return client.submit(LinearShard, z_blocks[g[0]:g[1]], y_blocks[g[0]:g[1]], classes, positive,
                                 penalties, actor=True, pure=False)

        # Newton's rounds do not grow with the shards; its Hessian sample (100 (m + 1) rows, 50 (m + 1)³
        # products) is worth it where it costs at most a pass over the rows (about 3 n (m + 1)).
        newton = self.solver == "newton" or (self.solver == "auto" and 17 * (m + 1) ** 2 <= n)
        try:
            W, info = (self._newton_rounds(client, groups, make_shard, len(positive), m + 1, n, rng) if newton
                       else self._rounds(client, groups, make_shard, len(positive), m + 1, rng))
        finally:
            client.cancel(z_blocks + y_blocks)
        t4 = time.perf_counter()

        self.classes_ = classes
        self.nystroem_ = nystroem
        self.coef_ = np.ascontiguousarray(W[:, :-1])
        self.intercept_ = W[:, -1].copy()
        self.n_features_in_ = d
        self.gamma_ = gamma
        self.solver_ = "newton" if newton else "cocoa"
        self.convergence_ = dict(info, check_seconds=t1 - t0, coreset_seconds=t2 - t1, map_seconds=t3 - t2,
                                 rounds_seconds=t4 - t3, n_shards=len(groups))
        if info["exit_reason"] != "converged":
            import warnings

            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(f"DaskApproxSVC stopped after max_rounds={self.max_rounds} rounds at relative gap "
                          f"{np.max(info['relative_gap']):.3g} > tol={self.tol}", ConvergenceWarning, stacklevel=2)
        return self

    def _class_weights(self, classes: np.ndarray, counts: dict[Any, int], n: int) -> np.ndarray:
        if self.class_weight is None:
            return np.ones(classes.size)
        if isinstance(self.class_weight, str):  # "balanced"
            return np.array([n / (classes.size * counts[c]) for c in classes.tolist()])
        unknown = set(self.class_weight) - set(classes.tolist())
        if unknown:
            raise ValueError(f"class_weight names classes not in y: {sorted(unknown, key=str)}")
        return np.array([float(self.class_weight.get(c, 1.0)) for c in classes.tolist()])

    def _landmarks(self, xb: list[Any], yb: list[Any], bounds: np.ndarray, classes: np.ndarray, k: int,
                   gamma: float, rng: np.random.RandomState) -> Nystroem:
        n = int(bounds[-1])
        sizes = np.diff(bounds)
        svc_params = dict(kernel=self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0,
                          C=float(self.coreset_C))
        total = int(self.coreset_sample or 10 * k)
        per_k = np.maximum(1, np.ceil((2 if self.landmarks == "coreset" else 1) * k * sizes / n)).astype(int)
        per_size = np.minimum(sizes, np.maximum(np.ceil(total * sizes / n), 4 * per_k)).astype(int)
        seeds = rng.randint(2**31 - 1, size=len(xb))
        if self.landmarks == "coreset":
            parts = dask.compute(*[dask.delayed(_block_candidates)(b, yy, int(bounds[i]), int(per_k[i]),
                                                                   int(per_size[i]), svc_params, int(seeds[i]))
                                   for i, (b, yy) in enumerate(zip(xb, yb))])
        else:
            parts = dask.compute(*[dask.delayed(_uniform_rows)(b, yy, int(bounds[i]), int(per_k[i]), int(seeds[i]))
                                   for i, (b, yy) in enumerate(zip(xb, yb))])
        index = np.concatenate([p[0] for p in parts])
        rows = [p[1] for p in parts if p[1].shape[0]]
        V = sp.vstack([_dfw.as_csr(r) for r in rows]).tocsr() if any(sp.issparse(r) for r in rows) else np.vstack(rows)
        labels = np.concatenate([p[2] for p in parts])
        if self.landmarks == "coreset" and index.size > k:
            try:
                keep = coreset_indices(V, labels, k, index.size, svc_params, rng)
            except ValueError:
                keep = np.sort(rng.choice(index.size, size=k, replace=False))
        elif index.size > k:
            keep = np.sort(rng.choice(index.size, size=k, replace=False))
        else:
            keep = np.arange(index.size)
        nystroem = Nystroem(kernel=self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0,
                            n_components=k, landmarks=self.landmarks, C=float(self.coreset_C), n_jobs=1)
        nystroem.gamma_ = gamma
        nystroem.n_features_in_ = V.shape[1]
        K = nystroem._kernel(V[keep], V[keep])
        if self.rank is not None and self.rank < k:
            nystroem.normalization_ = top_inverse_sqrt(K, self.rank)
        else:
            # The triangular map (the same model as K^{-1/2}'s, half its product).
            kept, nystroem.normalization_ = triangular_inverse(K)
            keep = keep[kept]
        nystroem.component_indices_ = index[keep]
        nystroem.components_ = V[keep]
        return nystroem

    def _retry(self, exc: Exception, attempt: int, *state: Any) -> tuple[Any, ...]:
        """(attempt + 1, futures, shards, w) after one more recovery, or LostShardError."""
        from fwsvm.dask import LostShardError

        if attempt >= int(self.retries):
            raise LostShardError(f"{exc} — after {attempt} recoveries (retries={self.retries}); "
                                 "no model was fitted") from exc
        state[0].wait_for_workers(1, timeout=60)
        return (attempt + 1, *self._recover(*state))

    def _newton_rounds(self, client: Any, groups: list[tuple[int, int]], make_shard: Any, n_problems: int,
                       width: int, rows: int, rng: np.random.RandomState) -> tuple[np.ndarray, dict[str, Any]]:
        """The Newton rounds (``solver="newton"``, ``src/solver/linear/newton.rs``): the shards hold
        no weights, so a lost shard is only made again."""
        from fwsvm.dask import LostShardError, _call

        futures = [make_shard(g) for g in groups]
        shards = self._resolve(futures)
        params = dict(tol=float(self.tol), max_rounds=int(self.max_rounds), seed=int(rng.randint(2**31 - 1)))
        drivers = [_core.NewtonDriver(width, rows, params) for _ in range(n_problems)]
        status: list[Any] = [None] * n_problems
        log: dict[str, list[Any]] = {"wall": [], "local": [], "relative_gap": [], "dual": [], "step": []}
        attempt = r = 0
        while r < int(self.max_rounds) and not all(s is not None and s["converged"] for s in status):
            if self._on_round is not None:
                self._on_round(r)
            t = time.perf_counter()
            requests = [None if s is not None and s["converged"] else d.request() for d, s in zip(drivers, status)]
            try:
                answers = _call(shards, futures, [(requests, k) for k in range(len(shards))], "newton")
            except LostShardError as exc:
                attempt, futures, shards, _ = self._retry(exc, attempt, client, groups, futures, shards, make_shard)
                continue
            status = [s if q is None else d.advance([_aligned(a["pieces"][j]) for a in answers])
                      for j, (d, q, s) in enumerate(zip(drivers, requests, status))]
            for key, v in zip(log, (time.perf_counter() - t, max(a["seconds"] for a in answers),
                                    max(s["relative_gap"] for s in status), [s["dual"] for s in status],
                                    [s["step"] for s in status])):
                log[key].append(v)
            if self.verbose:
                print(f"DaskApproxSVC round {r}: primal {sum(s['primal'] for s in status):.6g} relative gap "
                      f"{log['relative_gap'][-1]:.3g} ({log['wall'][-1]:.2f} s)", file=sys.stderr, flush=True)
            r += 1
        client.cancel(futures)
        self.rounds_ = {key: np.array(v) for key, v in log.items()}
        primal, dual = (np.array([s[key] for s in status]) for key in ("primal", "dual"))
        return np.array([d.best()[0] for d in drivers]), dict(
            primal=primal, dual=dual, gap=primal - dual, relative_gap=np.array([s["relative_gap"] for s in status]),
            exit_reason="converged" if all(s["converged"] for s in status) else "max_iterations", n_rounds=r,
            retries=attempt, steps=0)

    def _rounds(self, client: Any, groups: list[tuple[int, int]], make_shard: Any, n_problems: int, width: int,
                rng: np.random.RandomState) -> tuple[np.ndarray, dict[str, Any]]:
        from fwsvm.dask import LostShardError, _call

        K = len(groups)
        futures = [make_shard(g) for g in groups]
        shards = self._resolve(futures)
        W = np.zeros((n_problems, width))
        best_W = W.copy()
        best_primal = np.full(n_problems, np.inf)
        steps: np.ndarray | None = None  # γ of the update the next round commits
        line_search = self.aggregation == "line_search" or (self.aggregation == "auto" and K > 2)
        sigma = 1.0 if line_search else float(K)
        attempt = 0
        seed0 = int(rng.randint(2**31 - 1))
        log: dict[str, list[Any]] = {"wall": [], "local": [], "relative_gap": [], "dual": [], "step": []}
        total_steps = 0
        r = 0
        cert = None
        while True:
            if self._on_round is not None:
                self._on_round(r)
            t = time.perf_counter()
            try:
                answers = _call(shards, futures, [(W, sigma, int(self.local_passes), seed0 + r, steps)] * K)
            except LostShardError as exc:
                attempt, futures, shards, W = self._retry(exc, attempt, client, groups, futures, shards, make_shard)
                steps = None
                continue
            pieces = sum(a["pieces"] for a in answers)
            norm2 = np.einsum("ij,ij->i", W, W)
            primal = 0.5 * norm2 + pieces[:, 1]
            dual = pieces[:, 0] - 0.5 * norm2
            # The model is the best primal point seen (per problem): P(w_best) − D(α) bounds
            # its suboptimality as well (D(α) ≤ D* = P* ≤ P(w_best)), and the primal of the dual
            # iterates oscillates while the dual rises monotonically.
            better = primal < best_primal
            best_primal = np.where(better, primal, best_primal)
            best_W[better] = W[better]
            gap = best_primal - dual
            rel = gap / np.abs(best_primal)
            cert = dict(primal=best_primal.copy(), dual=dual, gap=gap, relative_gap=rel)
            log["wall"].append(time.perf_counter() - t)
            log["local"].append(max(a["seconds"] for a in answers))
            log["relative_gap"].append(float(rel.max()))
            log["dual"].append(dual)
            if self.verbose:
                print(f"DaskApproxSVC round {r}: primal {best_primal.sum():.6g} dual {dual.sum():.6g} "
                      f"relative gap {rel.max():.3g} ({log['wall'][-1]:.2f} s)", file=sys.stderr, flush=True)
            converged = bool(np.all(rel <= float(self.tol)))
            if converged or r >= int(self.max_rounds):
                break
            total_steps += sum(int(a["steps"]) for a in answers)
            delta = sum(a["delta_w"] for a in answers)
            steps = (self._line_search(W, delta, sum(a["delta_alpha_sum"] for a in answers))
                     if line_search else np.ones(n_problems))
            log["step"].append(steps)
            W = W + steps[:, None] * delta
            r += 1
        del shards
        client.cancel(futures)
        info = dict(cert, exit_reason="converged" if converged else "max_iterations", n_rounds=r,
                    retries=attempt, steps=total_steps)
        self.rounds_ = {key: np.array(v) for key, v in log.items()}
        for key in ("dual", "step"):
            self.rounds_[key] = self.rounds_[key].reshape(-1, n_problems)
        return best_W, info

    @staticmethod
    def _line_search(W: np.ndarray, delta: np.ndarray, grow: np.ndarray) -> np.ndarray:
        """Per problem, γ ∈ [0, 1] maximising D(α + γΔα) − D(α) = γ(ΣΔα_i − ⟨w, Δw⟩) − ½γ²‖Δw‖²
        (``cocoa::line_search`` in Rust)."""
        slope = grow - np.einsum("ij,ij->i", W, delta)
        curvature = np.einsum("ij,ij->i", delta, delta)
        with np.errstate(divide="ignore", invalid="ignore"):
            # No rise along the update (slope ≤ 0): γ = 0, as in Rust.
            return np.where(slope <= 0.0, 0.0, np.where(slope >= curvature, 1.0, np.clip(slope / curvature, 0.0, 1.0)))

    @staticmethod
    def _resolve(futures: list[Any]) -> list[Any]:
        from fwsvm.dask import _TIMEOUT, LostShardError

        try:
            return [f.result(timeout=_TIMEOUT) for f in futures]
        except ValueError:
            raise
        except Exception as exc:
            raise LostShardError(f"could not create the shards of the approximate fit: {exc!r}") from exc

    def _recover(self, client: Any, groups: list[tuple[int, int]], futures: list[Any], shards: list[Any],
                 make_shard: Any) -> tuple[list[Any], list[Any], np.ndarray]:
        """The lost shards created again (α = 0), the others' uncommitted update dropped, and
        w = Σ_k A_k α_k recomputed from the shards."""
        from fwsvm.dask import _call

        futures = list(futures)
        for s, f in enumerate(futures):
            if f.status != "finished":
                client.cancel([f])
                futures[s] = make_shard(groups[s])
        shards = self._resolve(futures)
        parts = _call(shards, futures, [()] * len(shards), "weights")
        return futures, shards, np.sum(parts, axis=0)

    # ---------------------------------------------------------------- predict
    def _decision_block(self, X: Any) -> np.ndarray:
        # A model pickled before map_dtype existed was fitted on a float64 map.
        Z = self.nystroem_._map(_as_block(X), getattr(self, "map_dtype", "float64"))
        # float16 rows exactly as float32 (NumPy has no fast half-precision product).
        if Z.dtype == np.float16:
            Z = Z.astype(np.float32)
        return Z @ self.coef_.T + self.intercept_

    def decision_function(self, X: Any) -> Any:
        """⟨w, [z(x); 1]⟩ per row (per class for more than two classes): NumPy for in-memory
        rows, a dask array, block by block with the model one graph node, for dask input."""
        check_is_fitted(self)
        if isinstance(X, (da.Array, dd.DataFrame)):
            X = self._rows(X, 1)
            width = self.coef_.shape[0]
            light = copy.copy(self)
            light.client = None  # a Client does not travel
            model = dask.delayed(light, pure=True)
            if width == 1:
                return X.map_blocks(lambda b, est: est._decision_block(b)[:, 0], model, drop_axis=1,
                                    dtype=np.float64, meta=np.empty((0,), dtype=np.float64))
            return X.map_blocks(lambda b, est: est._decision_block(b), model, chunks=(X.chunks[0], (width,)),
                                dtype=np.float64, meta=np.empty((0, 0), dtype=np.float64))
        values = self._decision_block(sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X, dtype=np.float64))
        return values[:, 0] if values.shape[1] == 1 else values

    def predict(self, X: Any) -> Any:
        """Class labels (one-vs-rest: the largest decision value), lazily for dask input."""
        values = self.decision_function(X)
        classes = self.classes_
        if isinstance(values, da.Array):
            if values.ndim == 1:
                return values.map_blocks(lambda v: classes[(v > 0).astype(int)], dtype=classes.dtype)
            return values.map_blocks(lambda v: classes[np.argmax(v, axis=1)], drop_axis=1, dtype=classes.dtype)
        if values.ndim == 1:
            return classes[(values > 0).astype(int)]
        return classes[np.argmax(values, axis=1)]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy (computed on the cluster for dask input)."""
        pred = self.predict(X)
        if isinstance(pred, da.Array):
            if isinstance(y, (dd.Series, dd.DataFrame)):
                y = y.to_dask_array(lengths=True)
            if not isinstance(y, da.Array):
                y = da.from_array(np.asarray(y), chunks=(pred.chunks[0],))
            else:
                y = y.rechunk((pred.chunks[0],))
            hits = (pred == y)
            if sample_weight is None:
                return float(hits.mean().compute())
            sw = np.asarray(sample_weight, dtype=np.float64)
            return float((hits.compute() * sw).sum() / sw.sum())
        return float(np.average(pred == np.asarray(y), weights=sample_weight))


def _aligned(message: dict[str, Any]) -> dict[str, Any]:
    """A message's arrays aligned and contiguous (those that crossed the network may not be)."""
    return {k: np.require(v, requirements=["C", "A"]) if isinstance(v, np.ndarray) else v for k, v in message.items()}


def _storage(dtype: Any) -> Any:
    """The dtype a shard keeps a mapped block in: float16 and float32 as they are (the Rust
    sweeps read both), anything else as float64."""
    return dtype if dtype in (np.float16, np.float32) else np.float64


def _uniform_rows(b: Any, y: Any, offset: int, k: int, seed: int) -> tuple[np.ndarray, Any, np.ndarray]:
    b = _as_block(b)
    y = np.asarray(y)
    k = min(k, b.shape[0])
    idx = np.sort(np.random.RandomState(seed).choice(b.shape[0], size=k, replace=False))
    return idx + int(offset), b[idx], y[idx]
