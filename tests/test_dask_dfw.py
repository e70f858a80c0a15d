"""Distributed Frank-Wolfe (fwsvm.dask.DistributedSVC, DistributedOneClassSVM) on a LocalCluster
of two worker processes started in the test: the same certified optimum as the in-process
squared-hinge SVC and one-class ball, from NumPy and dask arrays, multiclass refused, and a
worker killed mid-fit (a resumed fit that is still the optimum, or a clear error)."""

from __future__ import annotations

import os
import signal
import time
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from sklearn.datasets import make_classification

distributed = pytest.importorskip("distributed", reason="fwsvm.dask needs dask and distributed (pip install fwsvm[dask])")
da = pytest.importorskip("dask.array")

from conftest import dask_rows_with_non_finite, worker_and_pid, yes_no_classification  # noqa: E402
from fwsvm import SVC, OneClassSVM  # noqa: E402
from fwsvm.dask import DistributedOneClassSVM, DistributedSVC, LostShardError  # noqa: E402

PARAMS = dict(C=10.0, gamma=0.5)


@pytest.fixture(scope="module")
def data():
    return yes_no_classification(400)


def assert_same_optimum(model, ref, X, tol) -> None:
    """Both fits certified the same optimum: objectives within the certified gaps, the same
    support vectors and decision values to the solvers' tolerance."""
    c, r = model.convergence_, ref.convergence_
    assert c["exit_reason"] == "converged"
    assert c["relative_gap"] <= tol
    # Both objectives are within their gaps of the optimum.
    assert abs(c["quadratic"] - r["quadratic"]) <= c["gap"] + r["gap"]
    np.testing.assert_array_equal(model.classes_, ref.classes_)
    np.testing.assert_array_equal(model.support_, ref.support_)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), rtol=0, atol=1e-3)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("block, init", [(50, "local"), (None, "local"), (50, "pair"), (None, "pair")])
def test_same_certified_optimum_as_the_in_process_fit(client, data, block, init) -> None:
    X, y = data
    tol = 1e-6
    ref = SVC(loss="squared_hinge", tol=tol, **PARAMS).fit(X, y)
    model = DistributedSVC(tol=tol, block=block, init=init, client=client, **PARAMS).fit(X, y)
    assert_same_optimum(model, ref, X, tol)
    c = model.convergence_
    if init == "local":
        # The shards solved their rows and the driver their union before the first round.
        assert c["local_seconds"] > 0 and c["start_size"] >= len(model.support_) // 2
    else:
        assert c["local_seconds"] == 0 and c["start_size"] == 2
    # The fitted model is an in-process SVC with the same attributes.
    assert isinstance(model.model_, SVC)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, atol=1e-3 * np.abs(ref.dual_coef_).max())
    np.testing.assert_allclose(model.intercept_, ref.intercept_, atol=1e-3)
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])
    assert model.rounds_["wall"].shape == (model.convergence_["n_rounds"],)


def test_dask_array_rows_with_more_shards_than_workers(client, data) -> None:
    X, y = data
    tol = 1e-5
    ref = SVC(loss="squared_hinge", tol=tol, **PARAMS).fit(X, y)
    model = DistributedSVC(tol=tol, client=client, n_shards=3, **PARAMS).fit(da.from_array(X, chunks=(70, 5)),
                                                                          da.from_array(y, chunks=70))
    assert_same_optimum(model, ref, X, tol)


def test_wide_rows_use_the_shards_column_cache(client) -> None:
    """At 16 features or more the shards keep kernel columns between rounds (computed by the
    engine); the pair start makes the rounds reuse them. Same optimum."""
    X, y = make_classification(n_samples=300, n_features=20, n_informative=6, flip_y=0.05, random_state=2)
    tol = 1e-6
    ref = SVC(loss="squared_hinge", tol=tol, C=10.0, gamma=0.05).fit(X, y)
    model = DistributedSVC(tol=tol, C=10.0, gamma=0.05, init="pair", block=50, client=client).fit(X, y)
    assert_same_optimum(model, ref, X, tol)
    assert model.convergence_["n_rounds"] > 2


@pytest.mark.parametrize("n_features", [5, 20])
def test_a_shard_keeps_its_gradient_with_or_without_cached_columns(n_features) -> None:
    """Shard.round's s = Σ α_j y_j (k(x_i, x_j) + 1) after a reset and a delta equals the
    direct expansion, whether the columns come from the shard's cache (≥ 16 features, the
    second round hits) or from the engine's expansion (no cache)."""
    from fwsvm import _core
    from fwsvm._dfw import Shard

    X, y = make_classification(n_samples=120, n_features=n_features, random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    kw = dict(kernel="rbf", gamma=0.1, degree=3, coef0=0.0)
    shard = Shard(X[40:], y[40:], 40, kw, 0.5, cache_size=100.0, n_threads=1)
    idx = np.array([3, 50, 77, 101])
    a = np.array([0.4, 0.3, 0.2, 0.1])
    shard.round(X[idx], a * y[idx], idx, a, 4, reset=True)
    a2 = np.array([0.1, 0.3, 0.5, 0.1])  # the same vertices, new weights: a delta round
    answer = shard.round(X[idx], (a2 - a) * y[idx], idx, a2, 4)
    direct = _core.decision_values(X[40:], X[idx], a2 * y[idx], float(np.sum(a2 * y[idx])), dict(kw, n_threads=1))
    np.testing.assert_allclose(shard.s, direct, rtol=0, atol=1e-12)
    assert answer["cache_hits"] == (4 if n_features >= 16 else 0)


def test_shards_of_one_class_start_from_a_pair(client, data) -> None:
    """Rows sorted by class: each of the two contiguous shards holds one class and has no local
    problem, so the rounds start from a pair of rows and still reach the optimum."""
    X, y = data
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    tol = 1e-6
    ref = SVC(loss="squared_hinge", tol=tol, **PARAMS).fit(X, y)
    model = DistributedSVC(tol=tol, client=client, **PARAMS).fit(X, y)
    assert_same_optimum(model, ref, X, tol)


def test_default_tolerance_and_gamma_match_the_svc(client, data) -> None:
    X, y = data
    ref = SVC(loss="squared_hinge", C=1.0).fit(X, y)
    model = DistributedSVC(C=1.0, client=client).fit(X, y)
    assert model.model_._gamma == ref._gamma
    assert model.convergence_["relative_gap"] <= 1e-2
    # At tol 1e-2 both are certified within 1% of the optimum: the objectives agree to that.
    assert abs(model.convergence_["quadratic"] - ref.convergence_["quadratic"]) <= 0.02 * ref.convergence_["quadratic"]
    assert np.mean(model.predict(X) == ref.predict(X)) > 0.97


def test_multiclass_and_bad_input_are_refused(client) -> None:
    X, y = make_classification(n_samples=90, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                               random_state=1)
    with pytest.raises(ValueError, match="binary problems only; y has 3 classes"):
        DistributedSVC(client=client).fit(X, y)
    with pytest.raises(ValueError, match="y has 1 class"):
        DistributedSVC(client=client).fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="kernel must be one of"):
        DistributedSVC(client=client, kernel="precomputed").fit(X, y % 2)
    with pytest.raises(ValueError, match="rows but y has"):
        DistributedSVC(client=client).fit(X, (y % 2)[:-1])
    with pytest.raises(ValueError, match="init must be 'local' or 'pair'"):
        DistributedSVC(client=client, init="cascade").fit(X, y % 2)
    with pytest.raises(ValueError, match="block must be None or at least 1"):
        DistributedSVC(client=client, block=0).fit(X, y % 2)


def test_max_iter_warns_and_is_not_converged(client, data) -> None:
    X, y = data
    with pytest.warns(Warning, match="before meeting tol"):
        # One round measures the start's gap and stops (the local start is not within 1e-8).
        model = DistributedSVC(tol=1e-8, max_iter=1, client=client, **PARAMS).fit(X, y)
    assert model.convergence_["exit_reason"] == "max_iterations"
    assert model.fit_status_ == 1


def _killer(client) -> tuple[Callable[[int], None], dict[str, float]]:
    """A round hook that SIGKILLs one worker before round 2 is sent: the shards exist and the
    fit is under way, whatever the machine's load."""
    _, pid = worker_and_pid(client)
    killed: dict[str, float] = {}

    def on_round(n: int) -> None:
        if n == 2 and not killed:
            os.kill(pid, signal.SIGKILL)
            killed["at"] = time.perf_counter()

    return on_round, killed


@pytest.mark.parametrize("retries", [1, 0])
def test_a_worker_killed_mid_fit(doomed_client, data, retries) -> None:
    client = doomed_client
    X, y = data
    tol = 1e-6
    ref = SVC(loss="squared_hinge", tol=tol, **PARAMS).fit(X, y)
    assert len(client.scheduler_info()["workers"]) >= 2
    model = DistributedSVC(tol=tol, block=20, n_candidates=16, retries=retries, client=client, **PARAMS)
    model._on_round, killed = _killer(client)
    if retries:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no unconverged model
            model.fit(X, y)
        finished = time.perf_counter()
        assert killed["at"] < finished  # the worker died while the fit ran
        assert model.convergence_["retries"] == 1
        assert_same_optimum(model, ref, X, tol)
    else:
        with pytest.raises(LostShardError, match="shard .* was lost .* no model was fitted"):
            model.fit(X, y)
        assert not hasattr(model, "model_")
    assert killed


@pytest.mark.parametrize(("kernel", "init"), [("rbf", "local"), ("rbf", "pair"), ("poly", "local")])
def test_one_class_reaches_the_in_process_ball(client, data, kernel, init) -> None:
    """The distributed ball is OneClassSVM's: objectives within the certified gaps, the same
    support, scores, radius and offset (the nu-quantile of every shard's training scores) —
    for a kernel with a constant diagonal (rbf) and one without (poly: the linear term b)."""
    X, _ = data
    tol = 1e-6
    params = dict(nu=0.2, kernel=kernel, gamma=0.3, coef0=1.0, degree=2, tol=tol)
    ref = OneClassSVM(loss="squared_hinge", **params).fit(X)
    model = DistributedOneClassSVM(client=client, init=init, **params).fit(X)
    c, r = model.convergence_, ref.convergence_
    assert c["exit_reason"] == "converged" and c["relative_gap"] <= tol
    assert abs(c["objective"] - r["objective"]) <= c["gap"] + r["gap"]
    np.testing.assert_array_equal(model.support_, ref.support_)
    # Scores agree to a few certified gaps (the gap scales with the objective: R̃² ≈ 70 for poly).
    close = 10 * (c["gap"] + r["gap"]) + 1e-9
    np.testing.assert_allclose(model.score_samples(X), ref.score_samples(X), rtol=0, atol=close)
    assert model.radius_ == pytest.approx(ref.radius_, abs=close)
    assert model.offset_ == pytest.approx(ref.offset_, abs=close)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))
    assert np.mean(model.predict(X) == -1) == pytest.approx(0.2, abs=0.01)
    assert isinstance(model.model_, OneClassSVM)


def test_one_class_from_a_dask_array_with_more_shards_than_workers(client, data) -> None:
    X, _ = data
    ref = OneClassSVM(loss="squared_hinge", nu=0.1, gamma=0.5, tol=1e-6).fit(X)
    model = DistributedOneClassSVM(nu=0.1, gamma=0.5, tol=1e-6, client=client, n_shards=4).fit(
        da.from_array(X, chunks=(70, -1)))
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), rtol=0, atol=1e-4)


def test_one_class_bad_input_is_refused(client) -> None:
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ValueError, match="nu must be in"):
        DistributedOneClassSVM(nu=1.5, client=client).fit(X)
    with pytest.raises(ValueError, match="C must be None or positive"):
        DistributedOneClassSVM(C=-1.0, client=client).fit(X)
    with pytest.raises(ValueError, match="0 sample"):
        DistributedOneClassSVM(client=client).fit(np.zeros((0, 3)))


def test_one_class_retries_when_scoring_loses_a_shard(client, data, monkeypatch) -> None:
    """A shard lost after the rounds, while the training rows are scored for offset_: the fit
    resumes on new shards from the solved iterate (one certifying round) and the model is the
    in-process ball; with retries=0 the error says so and no model is set."""
    import fwsvm.dask as fd

    X, _ = data
    params = dict(nu=0.2, gamma=0.3, tol=1e-6)
    ref = OneClassSVM(loss="squared_hinge", **params).fit(X)
    real_call = fd._call
    lost = {"n": 0}

    def flaky(shards, futures, requests, method="round"):
        if method == "scores" and lost["n"] == 0:
            lost["n"] += 1
            raise LostShardError("shard 0 of the distributed fit was lost (test)")
        return real_call(shards, futures, requests, method)

    monkeypatch.setattr(fd, "_call", flaky)
    model = DistributedOneClassSVM(client=client, **params).fit(X)
    assert lost["n"] == 1 and model.convergence_["retries"] == 1
    np.testing.assert_array_equal(model.support_, ref.support_)
    assert model.offset_ == pytest.approx(ref.offset_, abs=10 * (model.convergence_["gap"] + ref.convergence_["gap"]))
    lost["n"] = 0
    with pytest.raises(LostShardError, match="no model was fitted"):
        DistributedOneClassSVM(client=client, retries=0, **params).fit(X)


def test_sparse_rows_reach_the_in_process_optimum(client) -> None:
    """CSR rows stay sparse on the shards and the driver: the SVC and the ball reach the
    optimum of the in-process fits on the same sparse matrix."""
    import scipy.sparse as sp

    rng = np.random.default_rng(4)
    dense = rng.random((300, 40)) * (rng.random((300, 40)) < 0.15)  # 15% non-zeros
    y = np.where(dense[:, :5].sum(axis=1) > np.median(dense[:, :5].sum(axis=1)), 1, -1)
    X = sp.csr_matrix(dense)
    tol = 1e-6
    ref = SVC(loss="squared_hinge", C=4.0, gamma=0.5, tol=tol).fit(X, y)
    model = DistributedSVC(C=4.0, gamma=0.5, tol=tol, client=client).fit(X, y)
    assert_same_optimum(model, ref, X, tol)
    assert sp.issparse(model.support_vectors_)
    ball_ref = OneClassSVM(loss="squared_hinge", nu=0.2, gamma=0.5, tol=tol).fit(X)
    ball = DistributedOneClassSVM(nu=0.2, gamma=0.5, tol=tol, client=client).fit(X)
    np.testing.assert_array_equal(ball.support_, ball_ref.support_)
    close = 10 * (ball.convergence_["gap"] + ball_ref.convergence_["gap"]) + 1e-9
    np.testing.assert_allclose(ball.score_samples(X), ball_ref.score_samples(X), rtol=0, atol=close)


def test_dask_array_of_sparse_chunks(client) -> None:
    """A dask array whose chunks are CSR matrices: the shards stack them as CSR, γ = "scale"
    comes from per-block moments (as the in-process variance of every entry), the optimum is
    the in-process fit's, and fwsvm.dask.predict runs block by block on the same chunks."""
    import scipy.sparse as sp

    from fwsvm.dask import predict

    rng = np.random.default_rng(5)
    dense = rng.random((300, 30)) * (rng.random((300, 30)) < 0.2)
    y = np.where(dense[:, :4].sum(axis=1) > np.median(dense[:, :4].sum(axis=1)), 1, -1)
    X = sp.csr_matrix(dense)
    Xd = da.from_array(X, chunks=(70, 30), asarray=False)
    tol = 1e-6
    ref = SVC(loss="squared_hinge", C=4.0, tol=tol).fit(X, y)
    model = DistributedSVC(C=4.0, tol=tol, client=client, n_shards=3).fit(Xd, y)
    assert model.model_._gamma == pytest.approx(ref._gamma, rel=1e-12)
    assert_same_optimum(model, ref, X, tol)
    assert sp.issparse(model.support_vectors_)
    np.testing.assert_array_equal(predict(model.model_, Xd, client=client).compute(), ref.predict(X))
    ball_ref = OneClassSVM(loss="squared_hinge", nu=0.2, tol=tol).fit(X)
    ball = DistributedOneClassSVM(nu=0.2, tol=tol, client=client).fit(Xd)
    np.testing.assert_array_equal(ball.support_, ball_ref.support_)


def test_block_moments_give_the_variance_of_every_entry() -> None:
    """gamma="scale" on a dask array: the blocks' (entries, mean, M2) combine to the variance
    of all entries, zeros of sparse blocks included, without cancellation at large means."""
    import scipy.sparse as sp

    from fwsvm import _dfw

    rng = np.random.default_rng(6)
    dense = 1e6 + rng.random((50, 7))
    parts = [_dfw.block_moments(dense[:20]), _dfw.block_moments(dense[20:21]), _dfw.block_moments(dense[21:]),
             _dfw.block_moments(np.zeros((0, 7)))]
    assert _dfw.combine_moments(parts) == pytest.approx(dense.var(), rel=1e-9)
    sparse = rng.random((40, 9)) * (rng.random((40, 9)) < 0.3)
    parts = [_dfw.block_moments(sp.csr_matrix(sparse[:13])), _dfw.block_moments(sparse[13:])]
    assert _dfw.combine_moments(parts) == pytest.approx(sparse.var(), rel=1e-12)


@pytest.mark.parametrize("chunks", ["dense", "sparse"])
def test_non_finite_dask_rows_name_the_global_row(client, chunks) -> None:
    """A NaN or inf in a dask array is seen first on a worker: the fit raises ValueError with
    the row's global number, not a lost shard and a retry."""
    Xd, y = dask_rows_with_non_finite(chunks)
    with pytest.raises(ValueError, match="non-finite value .* in row 150$"):
        DistributedSVC(client=client, gamma=1.0).fit(Xd, y)
    with pytest.raises(ValueError, match="in row 150$"):
        DistributedOneClassSVM(client=client, gamma=1.0).fit(Xd)


def test_shard_row_check_names_the_row_and_accepts_overflowing_sums() -> None:
    """The shards' check: the first non-finite entry's global row, dense or CSR; finite rows
    whose sum overflows are not refused."""
    import scipy.sparse as sp

    from fwsvm._dfw import _check_finite

    X = np.ones((6, 3))
    X[2, 1:] = 1e308  # finite; its row sum is inf
    _check_finite(X, 10)
    _check_finite(sp.csr_matrix(X), 10)
    X[4, 0] = -np.inf
    X[5, 2] = np.nan
    for rows in (X, sp.csr_matrix(X)):
        with pytest.raises(ValueError, match="in row 14$"):
            _check_finite(rows, 10)
