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

A worker that dies mid-search is handled by Dask's scheduler: its tasks run again on another
worker (up to the scheduler's ``allowed-failures``), and since every task is a deterministic
function of its inputs the search completes with the same results; when the tasks keep failing,
Dask's ``KilledWorker`` error says which task and worker. Point the same code at an existing
cluster with ``distributed.Client("tcp://scheduler:8786")``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
    from distributed import Client, default_client
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "fwsvm.dask needs Dask: pip install 'fwsvm[dask]' (dask[array,dataframe] and distributed)"
    ) from exc

from fwsvm.search import SVCSearch, score_fold
from fwsvm.svm import SVC

__all__ = ["DaskSVCSearch", "fit", "predict", "decision_function"]


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


class DaskSVCSearch(SVCSearch):
    """:class:`fwsvm.SVCSearch` with the folds as tasks on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client, default=None
        The cluster; ``None`` uses the current default client.
    **params
        As :class:`fwsvm.SVCSearch` (``n_jobs`` is not used: the cluster decides; every fit
        inside a task runs on one thread unless the template's ``n_jobs`` says otherwise).
    """

    def __init__(
        self,
        estimator: SVC | None = None,
        *,
        client: Client | None = None,
        Cs: Any = None,
        gammas: Any = None,
        cv: Any = 5,
        scoring: Any = None,
        refit: bool = True,
        n_jobs: int | None = None,
        halving: bool = False,
        factor: float = 3,
        min_resources: int = 500,
        warm_start: bool | str = "auto",
    ) -> None:
        super().__init__(estimator, Cs=Cs, gammas=gammas, cv=cv, scoring=scoring, refit=refit, n_jobs=n_jobs,
                         halving=halving, factor=factor, min_resources=min_resources, warm_start=warm_start)
        self.client = client

    _parameter_constraints: dict[str, list[Any]] = {**SVCSearch._parameter_constraints, "client": [object, None]}

    def _map_folds(self, X: Any, y: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], template: SVC,
                   points: list[tuple[float, float, int]], n_slots: int, warm: bool, scorer: Any,
                   workers: int) -> np.ndarray:
        client = _client(self.client)
        if template.n_jobs is None:
            template = template.set_params(n_jobs=1)  # one task per worker thread
        # The data go to every worker once; the tasks get references.
        X_ref, y_ref = client.scatter([X, y], broadcast=True)
        futures = [
            client.submit(score_fold, X_ref, y_ref, train, test, template, points, n_slots, warm, scorer,
                          key=f"fwsvm-fold-{k}-{id(self)}-{len(points)}-{len(y)}", pure=False)
            for k, (train, test) in enumerate(splits)
        ]
        try:
            return np.stack(client.gather(futures))
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
