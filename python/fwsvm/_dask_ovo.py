"""One-vs-one pairs as Dask tasks (:func:`fwsvm.dask.fit`): the data scattered to every worker
once, one task per pair of classes running the Rust binary fit with the GIL released, the
pairs assembled into the same model as the in-process fit (same rows, order, labels and
settings per pair, so the same arithmetic)."""

from __future__ import annotations

import types
import uuid
from typing import Any

import numpy as np

from fwsvm import _core
from fwsvm.svm import SVC, _training_gram, _uses_gram

# The per-pair statistics the in-process fit reports, one column entry per pair.
_STATS = ("exit_reason", "n_iter", "gap", "relative_gap", "objective", "quadratic", "n_active",
          "columns_computed", "cache_hits", "cache_capacity", "cache_precision", "resyncs", "shrinks",
          "rejoins", "kernel_evaluations", "sampled_steps", "seconds")


def _first(table: dict[str, Any]) -> dict[str, Any]:
    """The one entry of each column of a single solve's statistics."""
    first = {key: _first(value) if isinstance(value, dict) else value[0] for key, value in table.items()}
    return {key: value.item() if isinstance(value, np.generic) else value for key, value in first.items()}


def _fit_pair(data: Any, rows_i: np.ndarray, rows_j: np.ndarray, weights: np.ndarray | None, gram: bool,
              kwargs: dict[str, Any]) -> dict[str, Any]:
    """One pair on a worker: class i's rows (+1) then class j's (−1), as the in-process fit
    orders them; the support in global row numbers, class i first, ascending within a class."""
    rows = np.concatenate([rows_i, rows_j])
    sub = data[np.ix_(rows, rows)] if gram else data[rows]
    y_pm = np.concatenate([np.ones(len(rows_i)), -np.ones(len(rows_j))])
    w = None if weights is None else np.ascontiguousarray(weights[rows])
    model = _core.fit_svc_model((sub, y_pm, w), kwargs)
    local = np.asarray(model.part("support"), dtype=np.int64)
    coef = np.asarray(model.part("dual_coef")[0], dtype=np.float64)
    support = rows[local]
    order = np.lexsort((support, local >= len(rows_i)))
    stats = model.statistics()
    history = stats.pop("history", None)
    result = _first(stats)  # the pair's one solve, as scalars
    if history is not None:
        result["history"] = history[0]
    result["intercept"] = float(model.part("intercept")[0])
    return {"support": support[order], "coef": coef[order], **result}


def fit_pairs(estimator: SVC, X: Any, y_index: np.ndarray, n_classes: int, kwargs: dict[str, Any],
              client: Any) -> dict[str, Any]:
    """The one-vs-one pairs of ``estimator``'s fit solved as tasks on ``client``, in the layout
    of ``_core.SvcModel.statistics`` (columns with one entry per pair) plus the pairs' supports
    and coefficients (``i``, ``j``, ``offsets``, ``support``, ``coef``, ``intercept``)."""
    gram = _uses_gram(estimator)
    data = _training_gram(estimator, X) if gram else X
    weights = kwargs.get("sample_weight")
    kept = np.ones(len(y_index), dtype=bool) if weights is None else weights > 0
    members = [np.flatnonzero((y_index == c) & kept) for c in range(n_classes)]
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    task_kwargs = {key: value for key, value in kwargs.items() if key not in ("sample_weight", "class_names")}
    task_kwargs["probability"] = False
    # One thread per task: the cluster's workers are the parallelism (results do not depend
    # on the thread count).
    task_kwargs.update(n_threads=1, verbose=0)
    # Fresh keys per fit (hash=False, a uuid in the task keys): a fit on the same data right
    # after another must not reuse keys the scheduler is still releasing.
    data_ref = client.scatter(data, broadcast=True, hash=False)
    weights_ref = None if weights is None else client.scatter(weights, broadcast=True, hash=False)
    tag = uuid.uuid4().hex
    # The largest pairs first: they dominate the wall time.
    order = sorted(range(len(pairs)), key=lambda p: -(len(members[pairs[p][0]]) + len(members[pairs[p][1]])))
    futures = {
        p: client.submit(_fit_pair, data_ref, members[pairs[p][0]], members[pairs[p][1]], weights_ref, gram,
                         task_kwargs, key=f"fwsvm-ovo-pair-{pairs[p][0]}-{pairs[p][1]}-{tag}")
        for p in order
    }
    results = client.gather([futures[p] for p in range(len(pairs))])
    out: dict[str, Any] = {
        "i": np.array([i for i, _ in pairs], dtype=np.uint64),
        "j": np.array([j for _, j in pairs], dtype=np.uint64),
        "offsets": np.concatenate([[0], np.cumsum([len(r["support"]) for r in results])]).astype(np.int64),
        "support": np.concatenate([r["support"] for r in results]) if results else np.zeros(0, np.int64),
        "coef": np.concatenate([r["coef"] for r in results]) if results else np.zeros(0),
        "intercept": np.array([r["intercept"] for r in results], dtype=np.float64),
    }
    for key in _STATS:
        column = [r[key] for r in results]
        out[key] = column if key in ("exit_reason", "cache_precision") else np.asarray(column)
    out["steps"] = {kind: np.asarray([r["steps"][kind] for r in results]) for kind in results[0]["steps"]}
    if kwargs.get("record_history"):
        out["history"] = [r["history"] for r in results]
    return out


def fit(estimator: SVC, X: Any, y: Any, sample_weight: Any, client: Any) -> SVC:
    """Fits ``estimator`` with its one-vs-one pairs as tasks on ``client`` (two classes: one
    fit, in this process), assembled by the same Rust code as the in-process fit."""
    if not isinstance(estimator, SVC):
        raise TypeError(f"fwsvm.dask.fit fits an fwsvm.SVC, got {type(estimator).__name__}")

    def pairs_on_dask(self: SVC, X_core: Any, y_index: np.ndarray, n_classes: int, kwargs: dict[str, Any],
                      weights: np.ndarray | None, warm: np.ndarray | None) -> tuple[Any, dict[str, Any]]:
        if n_classes == 2:
            return SVC._fit_core(self, X_core, y_index, n_classes, kwargs, weights, warm)
        stats = fit_pairs(self, X, y_index, n_classes, dict(kwargs, sample_weight=weights), client)
        columns = {key: stats.pop(key) for key in ("i", "j", "offsets", "support", "coef", "intercept")}
        model = _core.svc_model_from_pairs((X_core, y_index.astype(np.float64), weights), columns, kwargs)
        return model, stats

    estimator._fit_core = types.MethodType(pairs_on_dask, estimator)  # type: ignore[method-assign]
    try:
        return estimator.fit(X, y, sample_weight=sample_weight)
    finally:
        del estimator._fit_core
