"""Distributed Frank-Wolfe for the binary L2-SVC (squared hinge) and the one-class ball, with
rows sharded across workers.

The problems are the Core Vector Machine's duals that :class:`fwsvm.SVC` solves with
``loss="squared_hinge"`` (``src/problem/svc.rs``) and :class:`fwsvm.OneClassSVM` solves
(``src/problem/one_class.rs``)::

    maximise g(α) = bᵀα − αᵀQα over the unit simplex
    SVC:        Q_ij = y_i y_j (k(x_i, x_j) + 1) + δ_ij / C,   b = 0
    one-class:  Q_ij = k(x_i, x_j) + δ_ij / C,                 b_i = k(x_i, x_i) + 1 / C

Every shard (:class:`Shard`, a Dask actor on one worker) holds its rows, labels (all 1 for the
one-class problem), its slice of α and s_i = Σ_j α_j y_j (k(x_i, x_j) + β) (β = 1 for the SVC's
bias, 0 for the ball), from which G_i = (Qα)_i = y_i s_i + α_i / C; the Frank-Wolfe vertex is
the row of least H_i = 2 G_i − b_i (the negative gradient of g).

The start (:func:`local_start`, ``init="local"``): every shard solves the problem on its own rows
(:meth:`Shard.local_fit`, the in-process engine, loosely), and the union of the solutions, each
weighted by its shard's share of the rows, is the first iterate — a point of the simplex whose
support holds nearly all of the whole problem's support (a cascade SVM's first layer). The
driver solves the problem restricted to it before the first round (``solve_first``).

A round of :func:`solve`:

1. the driver sends the vertices whose weight changed (their feature vectors, Δ(α_j y_j), the new
   α_j of the rows a shard owns), or the whole support when that is no more work; every shard
   adds Δs to its slice with the engine's kernel expansion and returns ``min H``,
   ``Σ α_i H_i``, ``Σ α_i G_i`` and ``Σ α_i b_i`` over its rows, its active rows (α > 0; the
   driver holds their vectors) and its ``n_candidates`` rows of least H with their feature
   vectors (the toward candidates);
2. the driver reduces the scalars to the certificate: the Frank-Wolfe duality gap of g,
   ``gap = Σ α_i H_i − min_i H_i`` (for the SVC 2 (ρ − min G), ρ = αᵀQα), relative to
   ``|g(α)|`` — exactly :class:`fwsvm.SVC`'s (:class:`fwsvm.OneClassSVM`'s)
   ``convergence_["gap"]`` and ``["relative_gap"]``;
3. the working set W is the whole support plus the toward candidates, so the problem
   restricted to W is the same problem on W's rows: the in-process engine (``algorithm="swap"`` on
   W's vectors, its kernel columns in a bounded cache) solves it warm-started from the current
   α to half the target gap. W contains the global toward and away vertices, so a round does
   at least what one global pairwise step does.

This is the Core Vector Machine's coreset scheme with the data sharded: the driver's work
grows with the support (steps over W, O(|W|) each, and W's vectors; its kernel values are
bounded by the inner cache, not |support|²), the workers' with the vertices that moved times
their rows.

Before stopping, every shard recomputes s from the full support (no accumulated round-off) and
the gap is tested again: the reported gap is that of the returned model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from fwsvm import _core

#: MB of kernel columns of the engine's solves here (the shards' local solves, the driver's
#: inner solves): the in-process SVC's default. Larger caches were slower on the checkerboard
#: (10⁵ rows, an inner solve on 25k vectors, 2 threads: 8.6 s at 200 MB, 12.2 s at 1 GB).
ENGINE_CACHE_MB = 200.0
#: The shards' own solves of ``init="local"`` stop at this multiple of ``tol`` (at most
#: ``LOCAL_TOL_MAX`` for the relative gap, never below ``tol``): they only find the start's
#: support, and the driver's solves reach the target. Checkerboard 10⁵ rows, tol 1e-2: local
#: solves at 0.1 / 0.3 / 1.0 took 9.5 / 7.7 / 5.8 s, the driver's solve on their union
#: 8.4 / 7.9 / 9.3 s, and at 1.0 the union missed support vectors (a second round).
LOCAL_TOL_FACTOR = 30.0
LOCAL_TOL_MAX = 0.3
#: Shards keep kernel columns between rounds only for data with at least this many features.
CACHE_MIN_FEATURES = 16


def _kernel_args(kernel_kw: dict[str, Any]) -> dict[str, Any]:
    return dict(kernel=kernel_kw["kernel"], gamma=float(kernel_kw["gamma"]), degree=int(kernel_kw["degree"]),
                coef0=float(kernel_kw["coef0"]))


def as_vector(v: Any) -> Any:
    """One row as the driver keeps it: a 1-d float64 array, or a 1-row CSR matrix for sparse
    data (the engine's sparse kernels are what make sparse data fast: a9a's rows are 89% zeros,
    and its in-process fit took 61.6 s on them densified against 3.7 s as CSR)."""
    if sp.issparse(v):
        return sp.csr_matrix(v, dtype=np.float64)
    return np.asarray(v, dtype=np.float64)


def stack_rows(rows: list[Any]) -> Any:
    """Rows kept by :func:`as_vector` as one matrix (CSR when they are sparse)."""
    if not rows:
        return np.zeros((0, 0))
    if not sp.issparse(rows[0]):
        return np.stack(rows)
    lengths = np.fromiter((r.nnz for r in rows), dtype=np.int64, count=len(rows))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    return sp.csr_matrix((np.concatenate([r.data for r in rows]), np.concatenate([r.indices for r in rows]),
                          indptr), shape=(len(rows), rows[0].shape[1]))


def is_sparse_block(b: Any) -> bool:
    """Whether a block of rows is sparse: a scipy sparse matrix, or anything that converts to
    one (``tocsr`` / ``to_scipy_sparse``, as pydata ``sparse`` arrays)."""
    return sp.issparse(b) or hasattr(b, "tocsr") or hasattr(b, "to_scipy_sparse")


def stack_blocks(blocks: list[Any]) -> Any:
    """A dask array's row blocks as one matrix: CSR when any block is sparse, else dense."""
    if any(is_sparse_block(b) for b in blocks):
        return sp.vstack([as_csr(b) for b in blocks], format="csr", dtype=np.float64)
    return np.concatenate([np.asarray(b, dtype=np.float64) for b in blocks])


def as_csr(b: Any) -> sp.csr_matrix:
    """One block of rows as a float64 CSR matrix (dense, or any sparse block)."""
    if hasattr(b, "tocsr"):
        b = b.tocsr()
    elif hasattr(b, "to_scipy_sparse"):
        b = b.to_scipy_sparse()
    return sp.csr_matrix(b, dtype=np.float64)


def block_moments(b: Any) -> tuple[int, float, float]:
    """(entries, mean, sum of squared deviations) of one block's entries, zeros included — the
    pieces of the variance behind ``gamma="scale"``, combined by :func:`combine_moments`."""
    if is_sparse_block(b):
        c = as_csr(b)
        n = c.shape[0] * c.shape[1]
        if n == 0:
            return 0, 0.0, 0.0
        mean = float(c.data.sum()) / n
        # the non-zeros' deviations plus the zeros' (each -mean)
        m2 = float(((c.data - mean) ** 2).sum()) + (n - c.nnz) * mean * mean
        return n, mean, m2
    a = np.asarray(b, dtype=np.float64)
    if a.size == 0:
        return 0, 0.0, 0.0
    mean = float(a.mean())
    return int(a.size), mean, float(((a - mean) ** 2).sum())


def combine_moments(parts: list[tuple[int, float, float]]) -> float:
    """The variance of all entries from the blocks' (entries, mean, M2) (Chan et al.'s pairwise
    update: no cancellation between large means)."""
    n, mean, m2 = 0, 0.0, 0.0
    for nb, mb, m2b in parts:
        if nb == 0:
            continue
        total = n + nb
        delta = mb - mean
        mean += delta * nb / total
        m2 += m2b + delta * delta * n * nb / total
        n = total
    return m2 / n if n else 0.0


def _matrix(V: Any) -> Any:
    """Vectors as the engine takes them (CSR stays CSR)."""
    if sp.issparse(V):
        return V
    return np.ascontiguousarray(np.atleast_2d(V), dtype=np.float64)


def kernel_columns(X: np.ndarray, V: np.ndarray, kernel_kw: dict[str, Any], n_threads: int | None = 1) -> np.ndarray:
    """k(x_i, v_j) for the rows x_i of X and v_j of V as an (n, k) matrix, by the engine (the
    kernels of :class:`fwsvm.SVC`: rbf, linear, poly, sigmoid, laplacian)."""
    return _core.kernel_values(X, _matrix(V), dict(_kernel_args(kernel_kw), n_threads=n_threads))


def kernel_expansion(X: np.ndarray, V: np.ndarray, coef: np.ndarray, kernel_kw: dict[str, Any],
                     n_threads: int | None = 1) -> np.ndarray:
    """Σ_j coef_j k(x_i, v_j) for every row x_i of X, by the engine's kernel expansion (several
    vectors per pass over X; no (n, k) matrix): 1.5 ns per row and vector on 2-d rbf data,
    against 8 ns for the same sum from NumPy/BLAS columns."""
    return _core.decision_values(X, _matrix(V), np.ascontiguousarray(coef, dtype=np.float64), 0.0,
                                   dict(_kernel_args(kernel_kw), n_threads=n_threads))


def _check_finite(X: Any, offset: int) -> None:
    """A ValueError naming the first global row (``offset`` + local row) holding NaN or ±inf:
    the rows of a dask array reach the engine only on the workers, where its own message
    would give the shard's row number."""
    if sp.issparse(X):
        bad = np.flatnonzero(~np.isfinite(X.data))
        if bad.size:
            row = int(np.searchsorted(X.indptr, bad[0], side="right")) - 1
            raise ValueError(f"X contains a non-finite value (NaN or infinity) in row {offset + row}")
    else:
        # Row sums first (no rows × features temporary): NaN or ±inf make the sum non-finite;
        # a finite row can only overflow, so the suspects are checked entry by entry.
        with np.errstate(over="ignore", invalid="ignore"):
            sums = X.sum(axis=1)
        for row in np.flatnonzero(~np.isfinite(sums)):
            if not np.isfinite(X[row]).all():
                raise ValueError(f"X contains a non-finite value (NaN or infinity) in row {offset + int(row)}")


class Shard:
    """One worker's rows of the distributed problem (created as a Dask actor).

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_rows, n_features), or a list of row blocks
        The shard's rows (sparse rows stay CSR, and so do the rows it sends the driver).
    y : ndarray of shape (n_rows,)
        Their labels, ±1 (all 1 for the one-class problem).
    offset : int
        The global index of the shard's first row.
    kernel_kw : dict
        ``kernel``, ``gamma``, ``degree``, ``coef0``.
    inv_c : float
        1 / C, the ridge of Q's diagonal.
    cache_size : float
        MB of kernel columns (k(x_i, v) over the shard's rows for a vertex v) kept between
        rounds: the support's vertices recur every round. When it is full, new columns are
        not kept (no eviction: see :meth:`_add_columns`).
    n_threads : int or None
        Threads of the shard's kernel work and local solve (the worker's threads).
    one_class : bool
        The one-class ball instead of the SVC (no bias term; the linear term b).
    """

    def __init__(self, X: Any, y: Any, offset: int, kernel_kw: dict[str, Any], inv_c: float,
                 cache_size: float = 1000.0, n_threads: int | None = 1, one_class: bool = False) -> None:
        if isinstance(X, (list, tuple)):  # row blocks of a dask array
            X = stack_blocks(X)
        if sp.issparse(X):
            self.X = sp.csr_matrix(X, dtype=np.float64, copy=True)
            self.X.sum_duplicates()
        else:
            self.X = np.array(X, dtype=np.float64, order="C")  # an aligned copy of its own
        self.y = np.array(y, dtype=np.float64)
        if self.X.ndim != 2 or self.X.shape[0] != self.y.shape[0]:
            raise ValueError(f"shard at row {offset}: X of shape {self.X.shape} for {self.y.shape[0]} labels")
        _check_finite(self.X, int(offset))
        self.offset = int(offset)
        self.kernel_kw = dict(kernel_kw)
        self.inv_c = float(inv_c)
        self.n_threads = n_threads if n_threads is not None else _worker_threads()
        self.one_class = bool(one_class)
        # b: the linear term of the ball's objective (None for the SVC: zero).
        self.b = _core.kernel_diagonal(self.X, _kernel_args(self.kernel_kw)) + self.inv_c if one_class else None
        n = self.X.shape[0]
        self.alpha = np.zeros(n)
        self.s = np.zeros(n)
        self.cache: dict[int, np.ndarray] = {}
        # Low-dimensional columns cost the engine's expansion about what reading a cached
        # column costs (2-d rbf: 1.5 against 1.6 ns per row), and materialising them costs
        # more: they are not cached.
        d = self.X.shape[1]
        self.max_columns = 0 if d < CACHE_MIN_FEATURES else max(1, int(cache_size * 2**20 / max(8 * n, 1)))
        self.counts = {"hits": 0, "misses": 0}

    def n_rows(self) -> int:
        return int(self.X.shape[0])

    def local_fit(self, tol: float, stopping: str, weight: float, seed: int = 0) -> dict[str, Any]:
        """Solve the problem on this shard's rows alone (the in-process engine): its support
        (global indices), α × ``weight`` and vectors. The global rounds start from the union
        of every shard's solution — the first layer of a cascade SVM — so their working set
        begins near the final support instead of growing from two points."""
        t0 = time.perf_counter()
        n = self.X.shape[0]
        if self.one_class and n:
            # The ball of this shard's rows with C / weight (C = 1 / (ν m) gives the shard
            # 1 / (ν · its rows)): if the other shards' rows contribute to (Kα)_i what this
            # shard's do, times (1 − weight) / weight, the global optimum on these rows is
            # weight · this solution.
            r = _core.fit_one_class(self.X, dict(
                c=1.0 / (self.inv_c * weight), algorithm="swap", tol=float(tol), stopping=stopping, max_iter=-1,
                cache_size=ENGINE_CACHE_MB, init="random", seed=int(seed), n_threads=self.n_threads,
                **_kernel_args(self.kernel_kw)))
            sup = np.asarray(r["support"], dtype=np.intp)
            return {"index": sup + self.offset, "alpha": np.asarray(r["alpha"]) * float(weight),
                    "vectors": self.X[sup], "n_iter": int(r["n_iter"]), "seconds": time.perf_counter() - t0}
        if n == 0 or len(np.unique(self.y)) < 2:
            # One class (or none): no local problem; the shard's rows join as candidates.
            return {"index": np.zeros(0, dtype=np.intp), "alpha": np.zeros(0), "vectors": self.X[:0],
                    "n_iter": 0, "seconds": time.perf_counter() - t0}
        model = _core.fit_svc_model((self.X, self.y), dict(
            c=1.0 / self.inv_c, algorithm="swap", tol=float(tol), stopping=stopping, max_iter=-1,
            cache_size=ENGINE_CACHE_MB, init="random", seed=int(seed), n_threads=self.n_threads,
            loss="squared_hinge", **_kernel_args(self.kernel_kw)))
        sup = np.asarray(model.part("support"), dtype=np.intp)
        return {"index": sup + self.offset, "alpha": np.array(model.part("alpha")) * float(weight), "vectors": self.X[sup],
                "n_iter": int(model.statistics()["n_iter"][0]), "seconds": time.perf_counter() - t0}

    def _add_columns(self, index: np.ndarray, vectors: np.ndarray, dcoef: np.ndarray) -> None:
        """s += Σ_j dcoef_j k(·, v_j) over this shard's rows: cached columns by axpy, missing
        columns computed by the engine and kept while the cache has room, the rest summed by
        the engine's kernel expansion without forming their columns."""
        missing = []
        for j, i in enumerate(index.tolist()):
            col = self.cache.get(i)
            if col is None:
                missing.append(j)
            else:
                self.s += dcoef[j] * col
        self.counts["hits"] += len(index) - len(missing)
        self.counts["misses"] += len(missing)
        # A full cache keeps its columns: a round cycles through the whole support, and
        # least-recently-used eviction of a cache smaller than the support would miss on
        # every column (measured: 0 hits at 20,000 rows); kept columns hit every round.
        room = max(self.max_columns - len(self.cache), 0)
        kept, rest = missing[:room], missing[room:]
        if kept:
            cols = kernel_columns(self.X, vectors[kept], self.kernel_kw, self.n_threads)
            self.s += cols @ dcoef[kept]
            for j, c in zip(kept, cols.T):
                self.cache[int(index[j])] = np.ascontiguousarray(c)
        if rest:
            self.s += kernel_expansion(self.X, vectors[rest], dcoef[rest], self.kernel_kw, self.n_threads)

    def round(self, vectors: Any, dcoef: Any, index: Any, alpha: Any, n_candidates: int,
              reset: bool = False) -> dict[str, Any]:
        """Apply one round's update and return the shard's scalars — ``min_h`` (the least
        H = 2G − b), ``alpha_h``, ``alpha_g`` (its part of ρ = αᵀQα), ``alpha_b`` (of bᵀα) —
        the indices of its active rows (the away candidates: the driver has their vectors) and
        its ``n_candidates`` rows of least H with their vectors (the toward candidates).

        ``index`` (global row indices), ``vectors`` (their feature vectors), ``dcoef``
        (Δ(α_j y_j)) and ``alpha`` (the new α_j) describe the vertices whose weight changed:
        s += Σ_j dcoef_j (k(x_i, v_j) + β), and the rows this shard owns take their new α.
        ``reset``: the vertices are the whole support with dcoef = α y, s is recomputed from
        scratch (a resync, no accumulated round-off)."""
        t0 = time.perf_counter()
        n = self.X.shape[0]
        index = np.asarray(index, dtype=np.intp)
        dcoef = np.asarray(dcoef, dtype=np.float64)
        if reset:
            self.alpha[:] = 0.0
            self.s[:] = 0.0
        if index.size:
            local = index - self.offset
            mine = (local >= 0) & (local < n)
            self.alpha[local[mine]] = np.asarray(alpha, dtype=np.float64)[mine]
        if dcoef.size and n:
            vectors = vectors if sp.issparse(vectors) else np.asarray(vectors, dtype=np.float64)
            self._add_columns(index, vectors, dcoef)
            if not self.one_class:  # β = 1: the SVC's bias term in every kernel value
                self.s += dcoef.sum()
        G = self.y * self.s + self.alpha * self.inv_c
        H = 2.0 * G if self.b is None else 2.0 * G - self.b
        t1 = time.perf_counter()
        out: dict[str, Any] = {"n_rows": n, "min_h": np.inf, "alpha_h": 0.0, "alpha_g": 0.0, "alpha_b": 0.0,
                               "alpha_sum": 0.0, "n_active": 0}
        if n:
            k = min(n_candidates, n)
            toward = np.argpartition(H, k - 1)[:k] if k < n else np.arange(n)
            active = np.flatnonzero(self.alpha > 0.0)
            a = self.alpha[active]
            out.update(
                min_h=float(H.min()),
                alpha_h=float(a @ H[active]),
                alpha_g=float(a @ G[active]),
                alpha_b=float(a @ self.b[active]) if self.b is not None else 0.0,
                alpha_sum=float(a.sum()),
                n_active=int(active.size),
                index=toward + self.offset,
                vectors=self.X[toward],
                active_index=active + self.offset,
            )
        out["seconds"] = time.perf_counter() - t0
        out["kernel_seconds"] = t1 - t0
        out["cache_hits"], out["cache_misses"] = self.counts["hits"], self.counts["misses"]
        return out

    def scores(self, constant: float) -> np.ndarray:
        """The one-class model's ``score_samples`` of this shard's rows, R² − ‖φ(x) − c‖² =
        2 s_i + ``constant`` − k(x_i, x_i), from s of the last round (the final weights)."""
        return 2.0 * self.s + float(constant) - (self.b - self.inv_c)


def _worker_threads() -> int | None:
    """The threads of the Dask worker this shard lives on (None outside a worker: all cores)."""
    try:
        from distributed import get_worker

        return int(get_worker().state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return None


def local_start(call: Callable[[list[Any]], list[dict[str, Any]]], n_shards: int, rows: list[int], n: int,
                tol: float, stopping: str) -> dict[int, tuple[float, np.ndarray]] | None:
    """The start of the global rounds for ``init="local"``: every shard solves its own rows
    (``call(requests)`` runs :meth:`Shard.local_fit` on all shards at once) and the union of
    their solutions, shard k's weighted by its share of the rows ``rows[k] / n``, is returned
    as global index → (α, vector). A convex combination of points of the shards' simplices,
    it is a point of the global simplex (renormalised against round-off). None when no
    shard holds both classes (rows sorted by class, say): the rounds then start from a pair."""
    local_tol = max(tol, min(LOCAL_TOL_FACTOR * tol, LOCAL_TOL_MAX)) if stopping == "gap" else LOCAL_TOL_FACTOR * tol
    answers = call([(local_tol, stopping, rows[k] / n, k) for k in range(n_shards)])
    start: dict[int, tuple[float, np.ndarray]] = {}
    for a in answers:
        for i, w, v in zip(a["index"].tolist(), a["alpha"].tolist(), a["vectors"]):
            start[int(i)] = (float(w), as_vector(v))
    total = sum(w for w, _ in start.values())
    if not start or not total > 0:
        return None
    return {i: (w / total, v) for i, (w, v) in start.items()}


@dataclass
class Result:
    """What :func:`solve` returns: the weights (global indices → α), the certificate and the
    per-round measurements."""

    support: np.ndarray
    alpha: np.ndarray
    vectors: np.ndarray
    rho: float
    objective: float
    gap: float
    relative_gap: float
    converged: bool
    n_rounds: int
    n_steps: int
    resyncs: int
    seconds: float
    start_seconds: float
    start_size: int
    rounds: dict[str, np.ndarray] = field(default_factory=dict)


class LostShardError(RuntimeError):
    """A worker holding a shard of a distributed fit died or could not be reached."""


def solve(
    shards: list[Any],
    call: Callable[[list[Any]], list[dict[str, Any]]],
    y: np.ndarray,
    start: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    C: float,
    kernel_kw: dict[str, Any],
    tol: float,
    stopping: str,
    max_rounds: int,
    block: int | None,
    n_candidates: int,
    round_delay: float = 0.0,
    warm_alpha: dict[int, tuple[float, np.ndarray]] | None = None,
    on_round: Callable[[int], None] | None = None,
    solve_first: bool = False,
    one_class: bool = False,
) -> Result:
    """Run the distributed Frank-Wolfe rounds until the certificate holds.

    ``shards``: the actor handles; ``call(requests)`` sends ``requests[k]`` — a tuple
    (vectors, dcoef, index, alpha, n_candidates, reset) — to shard k for all shards at once and
    returns their answers (raising :class:`LostShardError` when one is lost). ``y``: all labels
    (±1). ``start``: (global indices, α, feature vectors) of the initial iterate, or ignored
    when ``warm_alpha`` (global index → (α, vector)) is given. ``round_delay``: seconds slept
    per round (to simulate a slower network in the benchmarks). ``on_round(n)``: called before
    round n is sent (tests use it to lose a worker at a known point). ``solve_first``: before
    the first round, solve the problem restricted to the start's support (for a start that
    already holds nearly the whole support, the local one: the first round then measures the
    solved iterate instead of the start, and one expansion over the support is saved).
    ``one_class``: the shards hold the one-class ball's rows (``y`` all 1)."""
    t_start = time.perf_counter()
    weights: dict[int, float] = {}
    vecs: dict[int, np.ndarray] = {}
    if warm_alpha:
        for i, (a, v) in warm_alpha.items():
            weights[int(i)], vecs[int(i)] = float(a), as_vector(v)
    else:
        for i, a, v in zip(*start):
            weights[int(i)], vecs[int(i)] = float(a), as_vector(v)

    def full_request() -> tuple[Any, ...]:
        idx = np.fromiter(weights, dtype=np.intp, count=len(weights))
        a = np.array([weights[i] for i in idx])
        V = stack_rows([vecs[i] for i in idx])
        return (V, a * y[idx], idx, a, n_candidates, True)

    n_steps = 0
    start_seconds = 0.0
    start_size = len(weights)
    if solve_first and len(weights) > 1:
        t = time.perf_counter()
        idx = np.fromiter(weights, dtype=np.intp, count=len(weights))
        a_old = np.array([weights[int(i)] for i in idx])
        mode = "gap" if stopping == "gap" else "absolute_gap"
        a_new, n_steps = _inner_solve(stack_rows([vecs[int(i)] for i in idx]), y[idx], a_old, C, kernel_kw,
                                      0.5 * tol, mode, block, one_class)
        weights = {int(i): float(a) for i, a in zip(idx, a_new) if a > 0.0}
        start_seconds = time.perf_counter() - t
    request = full_request()
    log: dict[str, list[float]] = {k: [] for k in ("wall", "worker_max", "kernel_max", "driver", "steps",
                                                   "n_vectors", "rel_gap")}
    n_rounds = resyncs = 0
    certified = True  # the first round recomputes s from scratch
    rho = objective = gap = rel = np.inf
    converged = False
    while True:
        t0 = time.perf_counter()
        if round_delay > 0:
            time.sleep(round_delay)
        if on_round is not None:
            on_round(n_rounds)
        try:
            answers = call([request] * len(shards))
        except LostShardError as exc:
            # The driver's iterate (this round's changes included) is consistent: a retry
            # starts from it on new shards.
            exc.iterate = {i: (weights[i], vecs[i]) for i in weights}
            exc.n_rounds = n_rounds
            raise
        t1 = time.perf_counter()
        n_rounds += 1
        min_h = min(r["min_h"] for r in answers)
        rho = float(sum(r["alpha_g"] for r in answers))
        objective = float(sum(r["alpha_b"] for r in answers)) - rho
        gap = float(sum(r["alpha_h"] for r in answers)) - min_h
        # Relative to αᵀQα (= |g| for the SVC; the ball's g holds the constant 1 + 1/C), as the
        # in-process engine measures it (SimplexProblem::gap_reference).
        rel = gap / abs(rho) if rho != 0 else gap
        measured = rel if stopping == "gap" else gap
        if measured <= tol:
            if certified:
                converged = True
                log_round(log, t0, t1, time.perf_counter(), answers, 0, 0, rel)
                break
            request, certified = full_request(), True  # certify on a fresh s
            resyncs += 1
            log_round(log, t0, t1, time.perf_counter(), answers, 0, len(weights), rel)
            continue
        if n_rounds >= max_rounds:
            log_round(log, t0, t1, time.perf_counter(), answers, 0, 0, rel)
            break
        # The working set: the whole support (G from the shards, vectors held here) and every
        # shard's toward candidates.
        work: dict[int, None] = {}
        for r in answers:
            if r["n_rows"]:
                work.update(dict.fromkeys(r["active_index"].tolist()))
                for i, v in zip(r["index"].tolist(), r["vectors"]):
                    if i not in work:
                        work[i] = None
                        vecs.setdefault(i, as_vector(v))
        idx = np.fromiter(work, dtype=np.intp, count=len(work))
        yw = y[idx]
        a_old = np.array([weights.get(int(i), 0.0) for i in idx])
        # W holds the whole support, so the problem restricted to W is the same problem on W's
        # rows with the same C: the in-process engine solves it on W's vectors (kernel columns
        # computed as its steps need them, in a cache of ``ENGINE_CACHE_MB``; warm started from
        # the current α) to half the target gap (or a quarter of the global gap, if smaller),
        # or ``block`` steps. W holds the support, so a tight inner solve leaves the next round
        # only the rows W missed: every round costs the shards an expansion over the vertices
        # that moved, which at 10⁵ rows is worth thousands of inner steps (a looser inner
        # tolerance, a quarter of the global gap, took 7 rounds instead of 2 on the
        # checkerboard at 10⁴ rows from the local start).
        target = tol if stopping == "gap" else tol / max(abs(objective), 1e-300)
        inner_tol = max(min(0.25 * rel, 0.5 * target), 0.1 * target)
        a_new, steps = _inner_solve(stack_rows([vecs[int(i)] for i in idx]), yw, a_old, C, kernel_kw, inner_tol,
                                    "gap", block, one_class)
        # Weights the inner solve moved by less than 1e-12 of the largest keep their value
        # (its warm start rescales every weight in the last bits): the round sends only the
        # vertices that moved. The shards hold exactly the driver's weights either way.
        keep = np.abs(a_new - a_old) <= 1e-12 * a_old.max()
        a_new[keep] = a_old[keep]
        changed = np.flatnonzero(a_new != a_old)
        n_steps += steps
        log_round(log, t0, t1, time.perf_counter(), answers, steps, len(changed), rel)
        if not changed.size:
            # No step improves ρ in floating point: resync once, then give up.
            if certified:
                break
            request, certified = full_request(), True
            resyncs += 1
            continue
        for j in changed:
            i = int(idx[j])
            if a_new[j] > 0.0:
                weights[i] = float(a_new[j])
            else:
                weights.pop(i, None)
        if changed.size >= len(weights):
            # The update would expand as many vertices as the whole new support: send the
            # support instead (a reset: the same work, and s recomputed from scratch, so a
            # gap within tol next round is certified without a resync round).
            request, certified = full_request(), True
        else:
            V = stack_rows([vecs[int(i)] for i in idx[changed]])
            request = (V, (a_new[changed] - a_old[changed]) * yw[changed], idx[changed], a_new[changed],
                       n_candidates, False)
            certified = False
        # Keep the vectors of the support and of this round's points only.
        if len(vecs) > 4 * max(len(weights), n_candidates * len(shards)):
            vecs = {i: vecs[i] for i in set(weights) | set(idx.tolist())}
    support = np.array(sorted(weights), dtype=np.intp)
    return Result(
        support=support,
        alpha=np.array([weights[i] for i in support]),
        vectors=stack_rows([vecs[i] for i in support]),
        rho=rho, objective=objective, gap=gap, relative_gap=rel, converged=converged,
        n_rounds=n_rounds, n_steps=n_steps, resyncs=resyncs,
        seconds=time.perf_counter() - t_start, start_seconds=start_seconds, start_size=start_size,
        rounds={k: np.asarray(v) for k, v in log.items()},
    )


def _inner_solve(V: np.ndarray, yw: np.ndarray, a_old: np.ndarray, C: float, kernel_kw: dict[str, Any],
                 tol: float, stopping: str, block: int | None, one_class: bool = False) -> tuple[np.ndarray, int]:
    """The problem restricted to the working set (rows V, labels yw) solved by the in-process
    engine warm-started from ``a_old`` (all cores of the driver; the shards wait meanwhile):
    the new weights over the working set and the engine's steps."""
    common = dict(c=C, algorithm="swap", tol=float(tol), stopping=stopping,
                  max_iter=-1 if block is None else int(block), cache_size=ENGINE_CACHE_MB, init="random", seed=0,
                  n_threads=None, **_kernel_args(kernel_kw))
    warm = np.ascontiguousarray(a_old / a_old.sum())
    if one_class:
        inner = _core.fit_one_class(_matrix(V), common, warm_start=warm)
    else:
        model = _core.fit_svc_model((_matrix(V), np.ascontiguousarray(yw)), dict(common, loss="squared_hinge"),
                                    warm_start=warm)
        inner = {"support": model.part("support"), "alpha": model.part("alpha"), "n_iter": model.statistics()["n_iter"][0]}
    a_new = np.zeros(len(a_old))
    a_new[np.asarray(inner["support"], dtype=np.intp)] = inner["alpha"]
    return a_new, int(inner["n_iter"])


def log_round(log: dict[str, list[float]], t0: float, t1: float, t2: float, answers: list[dict[str, Any]],
              steps: int, n_vectors: int, rel: float) -> None:
    """One round's measurements: wall time of the round trip (``wall``), the slowest shard's
    compute (``worker_max``) and kernel expansion (``kernel_max``), the driver's own work."""
    log["wall"].append(t1 - t0)
    log["worker_max"].append(max(r["seconds"] for r in answers))
    log["kernel_max"].append(max(r["kernel_seconds"] for r in answers))
    log["driver"].append(t2 - t1)
    log["steps"].append(steps)
    log["n_vectors"].append(n_vectors)
    log["rel_gap"].append(rel)
