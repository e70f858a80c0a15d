"""fwsvm.dask on a LocalCluster of two worker processes started in the test: the search's folds
as tasks (identical results to the in-process search, a worker killed mid-search), and
prediction over dask arrays and DataFrames."""

from __future__ import annotations

import time

import numpy as np
import pytest
from sklearn.datasets import make_classification

distributed = pytest.importorskip("distributed", reason="fwsvm.dask needs dask and distributed (pip install fwsvm[dask])")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

from conftest import kill_once_busy, worker_and_pid  # noqa: E402
from fwsvm import SVC, SVCSearch  # noqa: E402
from fwsvm.dask import DaskSVCSearch, decision_function, predict  # noqa: E402

CS = [0.1, 1.0, 10.0]
GAMMAS = [0.02, 0.1, 0.5]


def test_core_package_does_not_import_dask() -> None:
    import subprocess
    import sys

    code = "import sys, fwsvm; fwsvm.SVC; print('dask' in sys.modules, 'distributed' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize("n_classes, halving", [(2, False), (3, False), (2, True)])
def test_search_on_the_cluster_equals_the_in_process_search(client, n_classes, halving) -> None:
    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=5)
    params = dict(Cs=CS, gammas=GAMMAS, cv=3, halving=halving, min_resources=150)
    local = SVCSearch(**params).fit(X, y)
    remote = DaskSVCSearch(client=client, **params).fit(X, y)
    for key in ("mean_test_score", "rank_test_score", "n_iter", "split0_test_score"):
        np.testing.assert_array_equal(local.cv_results_[key], remote.cv_results_[key])
    assert local.best_params_ == remote.best_params_
    np.testing.assert_array_equal(local.predict(X), remote.predict(X))


def test_a_worker_killed_mid_search_gives_the_same_result(client) -> None:
    X, y = make_classification(n_samples=1500, n_features=10, random_state=6, flip_y=0.1)
    params = dict(Cs=[1.0, 10.0, 100.0, 1000.0], gammas=[0.05, 0.2, 1.0], cv=4, refit=False)
    local = SVCSearch(**params).fit(X, y)

    with kill_once_busy(client, *worker_and_pid(client)) as killed:
        remote = DaskSVCSearch(client=client, **params).fit(X, y)
        finished = time.perf_counter()
    assert killed["at"] < finished  # the worker died while the search ran
    np.testing.assert_array_equal(local.cv_results_["mean_test_score"], remote.cv_results_["mean_test_score"])
    client.wait_for_workers(2, timeout=60)


def test_predict_over_dask_arrays_and_dataframes(client) -> None:
    import pandas as pd

    X, y = make_classification(n_samples=900, n_features=5, n_informative=3, n_classes=3, n_clusters_per_class=1,
                               random_state=7)
    clf = SVC().fit(X, y)
    Xd = da.from_array(X, chunks=(200, 2))  # feature chunks are merged: a block needs whole rows
    np.testing.assert_array_equal(predict(clf, Xd).compute(), clf.predict(X))
    np.testing.assert_allclose(decision_function(clf, Xd).compute(), clf.decision_function(X))
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"f{k}" for k in range(5)]), npartitions=3)
    labels = predict(clf, frame)
    assert isinstance(labels, dd.Series)
    np.testing.assert_array_equal(labels.compute().to_numpy(), clf.predict(X))
    with pytest.raises(TypeError, match="dask array or dask DataFrame"):
        predict(clf, X)
