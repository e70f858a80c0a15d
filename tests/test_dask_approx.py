"""fwsvm.dask.DaskApproxSVC (coreset Nyström features + a linear hinge SVM by CoCoA+ or by
Newton rounds) on a LocalCluster started by the test: the in-process optimum on the mapped features, the
certificate recomputed from the model, a SIGKILL-ed worker, dense, sparse and DataFrame
input, multiclass with class weights, and a NaN named by its global row."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

distributed = pytest.importorskip("distributed", reason="fwsvm.dask needs dask and distributed (pip install fwsvm[dask])")
da = pytest.importorskip("dask.array")

from conftest import dask_rows_with_non_finite, yes_no_classification  # noqa: E402
from fwsvm import _core  # noqa: E402
from fwsvm.dask import DaskApproxSVC, LostShardError  # noqa: E402
from fwsvm.dask_approx import linear_hinge_objective  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return yes_no_classification(600)


def mapped(model, X, y):
    """The mapped rows (in the model's ``map_dtype``), their ±1 labels (positive:
    classes_[1]), in process."""
    Z = model.nystroem_._map(np.asarray(X, dtype=np.float64), model.map_dtype)
    assert Z.dtype == np.dtype(model.map_dtype)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    return Z, y_pm


def in_process_optimum(Z, y_pm, C):
    return _core.fit_linear_hinge((np.ascontiguousarray(Z), y_pm * C), dict(tol=1e-9, max_rounds=200_000, seed=0))


@pytest.mark.parametrize("solver", ["cocoa", "newton"])
def test_same_optimum_as_the_in_process_dcd_and_the_certificate_from_the_model(client, data, solver) -> None:
    X, y = data
    C = 2.0
    model = DaskApproxSVC(C=C, n_components=30, tol=1e-4, max_rounds=20_000, client=client, random_state=0,
                          solver=solver)
    model.fit(da.from_array(X, chunks=(100, 5)), y)
    c = model.convergence_
    assert model.solver_ == solver
    assert c["exit_reason"] == "converged" and c["relative_gap"][0] <= 1e-4
    assert c["n_shards"] == 2 and c["n_rounds"] > 1
    Z, y_pm = mapped(model, X, y)
    w = np.r_[model.coef_[0], model.intercept_[0]]
    # The certificate recomputed from the model: its primal objective is the one reported,
    # and the reported dual bounds it by the reported gap.
    primal = linear_hinge_objective(Z, y_pm, np.full(len(y), C), w)
    assert primal == pytest.approx(c["primal"][0], rel=1e-9)
    assert primal - c["dual"][0] == pytest.approx(c["gap"][0], rel=1e-9)
    # The in-process dual coordinate descent's optimum lies between them.
    ref = in_process_optimum(Z, y_pm, C)
    assert ref["relative_gap"] <= 1e-9
    assert c["dual"][0] - 1e-9 * ref["primal"] <= ref["primal"] <= primal + 1e-9 * ref["primal"]
    # ... and so does LIBLINEAR's (scikit-learn's LinearSVC: the same C-form, bias a feature).
    from sklearn.svm import LinearSVC

    lin = LinearSVC(loss="hinge", C=C, tol=1e-8, max_iter=1_000_000, intercept_scaling=1.0).fit(Z, y_pm)
    p_lin = linear_hinge_objective(Z, y_pm, np.full(len(y), C), np.r_[lin.coef_[0], lin.intercept_[0]])
    assert abs(p_lin - ref["primal"]) <= 1e-4 * ref["primal"]
    # Predictions: in memory and block by block agree.
    pred = model.predict(da.from_array(X, chunks=(150, 5))).compute()
    np.testing.assert_array_equal(pred, model.predict(X))
    assert model.score(X, y) > 0.85
    # CoCoA counts its updates (the last round certifies), Newton every round.
    assert model.rounds_["wall"].shape == (c["n_rounds"] + (solver == "cocoa"),)


def test_auto_takes_newton_where_its_hessian_costs_at_most_a_pass(client, data) -> None:
    X, y = data  # 600 rows: Newton up to 17 (m + 1)² ≤ 600, m ≤ 4 features
    kw = dict(tol=1e-3, client=client, random_state=0)
    assert DaskApproxSVC(n_components=4, **kw).fit(X, y).solver_ == "newton"
    assert DaskApproxSVC(n_components=5, **kw).fit(X, y).solver_ == "cocoa"
    with pytest.raises(ValueError, match="solver"):
        DaskApproxSVC(solver="lbfgs", **kw).fit(X, y)


def test_float32_and_float64_maps_reach_the_same_model(client, data) -> None:
    X, y = data
    kw = dict(C=2.0, n_components=30, tol=1e-5, max_rounds=20_000, client=client, random_state=0)
    single = DaskApproxSVC(**kw).fit(da.from_array(X, chunks=(100, 5)), y)
    double = DaskApproxSVC(map_dtype="float64", **kw).fit(da.from_array(X, chunks=(100, 5)), y)
    assert single.map_dtype == "float32"
    np.testing.assert_array_equal(single.nystroem_.component_indices_, double.nystroem_.component_indices_)
    # The float32 features are the float64 ones rounded; both problems' optima agree to their
    # gaps and the rounding, and so do the models.
    p32, p64 = single.convergence_["primal"][0], double.convergence_["primal"][0]
    assert abs(p32 - p64) <= single.convergence_["gap"][0] + double.convergence_["gap"][0] + 1e-5 * p64
    # ½‖w‖² makes P 1-strongly convex: ‖w − w*‖ ≤ √(2·gap) for each model.
    w32 = np.r_[single.coef_[0], single.intercept_]
    w64 = np.r_[double.coef_[0], double.intercept_]
    g32, g64 = single.convergence_["gap"][0], double.convergence_["gap"][0]
    assert np.linalg.norm(w32 - w64) <= np.sqrt(2 * g32) + np.sqrt(2 * g64) + 1e-3 * np.linalg.norm(w64)
    assert np.mean(single.predict(X) == double.predict(X)) >= 0.99
    Z32 = single.nystroem_._map(X, "float32")
    Z64 = single.nystroem_._map(X, "float64")
    assert Z32.dtype == np.float32 and Z64.dtype == np.float64
    # K_SS^{−1/2} of nearby landmarks has large entries of both signs: the float32 product
    # loses a few digits to cancellation (about 2.5e-4 of the largest value here).
    np.testing.assert_allclose(Z32, Z64, rtol=0, atol=1e-3 * np.abs(Z64).max())
    # A model pickled before map_dtype existed (fitted on a float64 map) predicts as one.
    import copy
    import pickle

    old = copy.copy(double)
    old.client = None  # a Client does not pickle
    old = pickle.loads(pickle.dumps(old))
    del old.map_dtype
    np.testing.assert_array_equal(old.decision_function(X), double.decision_function(X))
    with pytest.raises(ValueError, match="map_dtype"):
        DaskApproxSVC(map_dtype="int8", client=client).fit(da.from_array(X, chunks=(100, 5)), y)
    with pytest.raises(ValueError, match="dtype"):
        _core.transform_features(X, dict(kernel_args=single.nystroem_._kernel_args(),
                                         components_=single.nystroem_.components_,
                                         normalization_=single.nystroem_.normalization_), dtype="int8")


def test_a_float16_map_is_certified_on_its_own_features(client, data) -> None:
    """map_dtype="float16": the float32 map's values rounded to half precision on the workers;
    the certificate holds for those features exactly (the in-process optimum on them lies in
    [D, P]) and the model is the float32 one up to the rounding."""
    X, y = data
    kw = dict(C=2.0, n_components=30, tol=1e-5, max_rounds=20_000, client=client, random_state=0)
    half = DaskApproxSVC(map_dtype="float16", **kw).fit(da.from_array(X, chunks=(100, 5)), y)
    single = DaskApproxSVC(**kw).fit(da.from_array(X, chunks=(100, 5)), y)
    Z16 = half.nystroem_._map(X, "float16")
    assert Z16.dtype == np.float16
    np.testing.assert_array_equal(Z16, half.nystroem_._map(X, "float32").astype(np.float16))
    assert_certified_on_the_map(half, X, y, 2.0)
    p16, p32 = half.convergence_["primal"][0], single.convergence_["primal"][0]
    assert abs(p16 - p32) <= 1e-2 * p32
    assert np.mean(half.predict(X) == single.predict(X)) >= 0.98
    # Block by block and in memory alike.
    np.testing.assert_array_equal(half.predict(da.from_array(X, chunks=(150, 5))).compute(), half.predict(X))
    # Values beyond float16's range are refused, naming the row and the feature.
    big = dict(kernel_args=half.nystroem_._kernel_args(), components_=half.nystroem_.components_,
               normalization_=1e9 * half.nystroem_.normalization_)
    with pytest.raises(ValueError, match="float16"):
        _core.transform_features(X, big, dtype="float16")


def test_a_rank_below_the_landmarks(client, data) -> None:
    from fwsvm.kernel_approximation import inverse_sqrt, top_inverse_sqrt

    X, y = data
    kw = dict(C=2.0, n_components=30, tol=1e-4, max_rounds=20_000, client=client, random_state=0)
    full = DaskApproxSVC(**kw).fit(da.from_array(X, chunks=(100, 5)), y)
    low = DaskApproxSVC(rank=10, **kw).fit(da.from_array(X, chunks=(100, 5)), y)
    assert low.nystroem_.normalization_.shape == (30, 10) and low.coef_.shape == (1, 10)
    # The same landmarks (the full map lists them in its Cholesky factor's pivot order).
    np.testing.assert_array_equal(np.sort(low.nystroem_.component_indices_),
                                  np.sort(full.nystroem_.component_indices_))
    assert low.convergence_["exit_reason"] == "converged"
    assert_certified_on_the_map(low, X, y, 2.0)
    assert low.score(X, y) > 0.8
    # At full rank the map's Gram matrix is the full map's: the same kernel approximation.
    K = full.nystroem_._kernel(full.nystroem_.components_, full.nystroem_.components_)
    S = full.nystroem_._kernel(X[:50], full.nystroem_.components_)
    top, sym = S @ top_inverse_sqrt(K, 30), S @ inverse_sqrt(K)
    np.testing.assert_allclose(top @ top.T, sym @ sym.T, rtol=1e-6, atol=1e-8)
    # The fitted (triangular) map is the same approximation: N upper triangular, Z Zᵀ = S K⁻¹ Sᵀ.
    N = full.nystroem_.normalization_
    assert N.shape == (30, 30) and np.all(np.tril(N, -1) == 0.0)
    tri = full.nystroem_._map(X[:50], "float64")
    np.testing.assert_allclose(tri @ tri.T, sym @ sym.T, rtol=1e-6, atol=1e-8)
    # The leading directions: the rank-10 Gram matrix is the best rank-10 part of the full one.
    low_map = S @ top_inverse_sqrt(K, 10)
    assert np.linalg.matrix_rank(low_map) == 10
    with pytest.raises(ValueError, match="rank"):
        DaskApproxSVC(rank=0, client=client).fit(da.from_array(X, chunks=(100, 5)), y)


def assert_certified_on_the_map(model, X, y, C):
    """The reported primal is P(w) on the model's own features."""
    Z, y_pm = mapped(model, X, y)
    w = np.r_[model.coef_[0], model.intercept_[0]]
    primal = linear_hinge_objective(Z, y_pm, np.full(len(y), C), w)
    assert primal == pytest.approx(model.convergence_["primal"][0], rel=1e-9)
    ref = in_process_optimum(Z, y_pm, C)
    assert model.convergence_["dual"][0] - 1e-9 * ref["primal"] <= ref["primal"] <= primal + 1e-9 * ref["primal"]


@pytest.mark.parametrize("solver", ["cocoa", "newton"])
def test_dense_sparse_and_dataframe_chunks(client, data, solver) -> None:
    import dask.dataframe as dd
    import pandas as pd

    X, y = data
    y = (y == "yes").astype(np.int64)  # (string labels in a dask Series are converted with a warning)
    kw = dict(n_components=20, tol=1e-3, max_rounds=5000, client=client, random_state=1, solver=solver)
    dense = DaskApproxSVC(**kw).fit(da.from_array(X, chunks=(150, 5)), y)
    sparse = DaskApproxSVC(**kw).fit(da.from_array(sp.csr_matrix(X), chunks=(150, 5), asarray=False), y)
    frame = DaskApproxSVC(**kw).fit(dd.from_pandas(pd.DataFrame(X), npartitions=4), dd.from_pandas(pd.Series(y),
                                                                                                 npartitions=4))
    # The same landmarks (the coreset fits see the same rows), the same certified optimum.
    np.testing.assert_array_equal(dense.nystroem_.component_indices_, sparse.nystroem_.component_indices_)
    np.testing.assert_array_equal(dense.nystroem_.component_indices_, frame.nystroem_.component_indices_)
    for m in (sparse, frame):
        assert m.convergence_["exit_reason"] == "converged"
        assert abs(m.convergence_["primal"][0] - dense.convergence_["primal"][0]) <= (
            m.convergence_["gap"][0] + dense.convergence_["gap"][0])
        assert np.mean(m.predict(X) == dense.predict(X)) > 0.98
    values = sparse.decision_function(da.from_array(sp.csr_matrix(X), chunks=(150, 5), asarray=False)).compute()
    np.testing.assert_allclose(values, sparse.decision_function(X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("solver", ["cocoa", "newton"])
def test_multiclass_one_vs_rest_with_class_weights(client, solver) -> None:
    X, y = make_classification(n_samples=900, n_features=6, n_informative=4, n_classes=3, weights=[0.6, 0.3, 0.1],
                               random_state=2)
    kw = dict(n_components=40, tol=1e-3, max_rounds=5000, client=client, random_state=0, solver=solver)
    plain = DaskApproxSVC(**kw).fit(X, y)
    balanced = DaskApproxSVC(class_weight="balanced", **kw).fit(X, y)
    assert plain.coef_.shape == (3, plain.nystroem_.normalization_.shape[1])
    assert plain.convergence_["relative_gap"].shape == (3,)
    assert plain.score(X, y) > 0.75
    # Balanced weights raise the rare class's recall.
    rare = y == 2
    assert np.mean(balanced.predict(X)[rare] == 2) >= np.mean(plain.predict(X)[rare] == 2)
    # The penalties C_i = C × weight of the row's class: the certificate holds on them.
    Z, _ = mapped(balanced, X, y)
    counts = np.bincount(y)
    c = (len(y) / (3 * counts))[y]
    for j in range(3):
        y_pm = np.where(y == j, 1.0, -1.0)
        w = np.r_[balanced.coef_[j], balanced.intercept_[j]]
        assert linear_hinge_objective(Z, y_pm, c, w) == pytest.approx(balanced.convergence_["primal"][j], rel=1e-9)
        ref = in_process_optimum(Z, y_pm, c)
        assert balanced.convergence_["dual"][j] <= ref["primal"] * (1 + 1e-9)
    pred = balanced.predict(da.from_array(X, chunks=(200, 6))).compute()
    np.testing.assert_array_equal(pred, balanced.predict(X))
    with pytest.raises(ValueError, match="class_weight names classes not in y"):
        DaskApproxSVC(class_weight={7: 2.0}, client=client).fit(X, y)


@pytest.mark.parametrize("chunks", ["dense", "sparse"])
def test_non_finite_rows_name_the_global_row(client, chunks) -> None:
    Xd, y = dask_rows_with_non_finite(chunks)
    with pytest.raises(ValueError, match="non-finite value .* in row 150$"):
        DaskApproxSVC(client=client).fit(Xd, y)


def test_bad_input(client, data) -> None:
    X, y = data
    with pytest.raises(ValueError, match="at least two"):
        DaskApproxSVC(client=client).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="rows but y has"):
        DaskApproxSVC(client=client).fit(X, y[:-1])


def test_a_worker_killed_mid_fit(doomed_client, data) -> None:
    """A worker SIGKILL-ed before round 3: the lost shard is created again (α = 0), w is
    recomputed from the shards, the round reruns; the fit reaches the same certified optimum
    (Newton's rounds: ``test_dask_approx_rounds.py``)."""
    client = doomed_client
    X, y = data
    C = 1.0
    worker = sorted(client.scheduler_info()["workers"])[0]
    pid = client.run(os.getpid, workers=[worker])[worker]
    killed: dict[str, float] = {}

    def on_round(n: int) -> None:
        if n == 3 and not killed:
            os.kill(pid, signal.SIGKILL)
            killed["at"] = time.perf_counter()

    model = DaskApproxSVC(C=C, n_components=30, tol=1e-4, max_rounds=20_000, n_shards=3, client=client,
                          random_state=0)
    model._on_round = on_round
    model.fit(da.from_array(X, chunks=(100, 5)), y)
    assert killed
    c = model.convergence_
    assert c["retries"] == 1 and c["exit_reason"] == "converged"
    Z, y_pm = mapped(model, X, y)
    ref = in_process_optimum(Z, y_pm, C)
    assert c["dual"][0] - 1e-9 * ref["primal"] <= ref["primal"] <= c["primal"][0] + 1e-9 * ref["primal"]
    w = np.r_[model.coef_[0], model.intercept_[0]]
    assert linear_hinge_objective(Z, y_pm, np.full(len(y), C), w) == pytest.approx(c["primal"][0], rel=1e-9)


def test_retries_exhausted(doomed_client, data) -> None:
    client = doomed_client
    client.wait_for_workers(2, timeout=120)
    X, y = data
    worker = sorted(client.scheduler_info()["workers"])[-1]
    pid = client.run(os.getpid, workers=[worker])[worker]
    model = DaskApproxSVC(n_components=10, tol=1e-6, max_rounds=20_000, retries=0, client=client, random_state=0)
    model._on_round = lambda n: os.kill(pid, signal.SIGKILL) if n == 2 else None
    with pytest.raises(LostShardError, match="no model was fitted"):
        model.fit(da.from_array(X, chunks=(100, 5)), y)
    assert not hasattr(model, "coef_")
