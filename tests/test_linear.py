"""The linear models and kernel approximation (issue 20 items 3–4): the `dcd` fast path of the
linear squared-hinge SVC, SGDSVC against exact primal optima, Nystroem and random Fourier
features against the exact kernel."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC as SkSVC
from sklearn.svm import LinearSVC

from fwsvm import SGDSVC, SVC, Nystroem, RandomFourierFeatures


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(n_samples=300, n_features=8, n_informative=5, flip_y=0.05, random_state=3)
    return X, y


def linear_svc(**kw) -> SVC:
    return SVC(kernel="linear", loss="squared_hinge", **kw)


# --- the dcd path -----------------------------------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_dcd_reaches_the_certified_optimum_of_the_kernel_solver(binary, sparse) -> None:
    X, y = binary
    Xf = sp.csr_matrix(X) if sparse else X
    dcd = linear_svc(algorithm="dcd", C=3.0, tol=1e-8).fit(Xf, y)
    swap = linear_svc(algorithm="swap", C=3.0, tol=1e-8).fit(Xf, y)
    assert dcd.convergence_["exit_reason"] == "converged"
    assert dcd.convergence_["relative_gap"] <= 1e-8
    assert dcd.convergence_["steps"]["coordinate"] == dcd.n_iter_[0] > 0
    assert dcd.convergence_["columns_computed"] == 0
    np.testing.assert_allclose(dcd.decision_function(X), swap.decision_function(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dcd.intercept_, swap.intercept_, rtol=1e-5, atol=1e-7)


def test_dcd_equals_liblinear_at_half_c(binary) -> None:
    # ½(‖w‖² + b²) + (C/2) Σ ξ² is LinearSVC's squared hinge with C/2 and intercept_scaling=1.
    X, y = binary
    ours = linear_svc(algorithm="dcd", C=2.0, tol=1e-9).fit(X, y)
    ref = LinearSVC(C=1.0, loss="squared_hinge", dual=True, tol=1e-10, max_iter=200_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_[0], ref.coef_[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-4, atol=1e-6)


def test_dcd_multiclass_weights_and_warm_start() -> None:
    X, y = make_classification(n_samples=240, n_features=6, n_informative=4, n_classes=3, random_state=1)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    dcd = linear_svc(algorithm="dcd", C=1.5, tol=1e-9).fit(X, y, sample_weight=w)
    swap = linear_svc(algorithm="swap", C=1.5, tol=1e-9).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(dcd.decision_function(X), swap.decision_function(X), rtol=1e-5, atol=1e-6)
    assert (dcd.predict(X) == swap.predict(X)).all()
    # Warm starts along C reach the same certified optimum as cold fits.
    warm = linear_svc(algorithm="dcd", tol=1e-9, warm_start=True)
    for c in (0.1, 1.0, 10.0):
        warm.set_params(C=c).fit(X[y < 2], y[y < 2])
        cold = linear_svc(algorithm="dcd", tol=1e-9, C=c).fit(X[y < 2], y[y < 2])
        np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), rtol=1e-5, atol=1e-6)


def test_coef_matches_the_kernel_expansion(binary) -> None:
    X, y = binary
    model = linear_svc(algorithm="dcd", C=1.0).fit(X, y)
    np.testing.assert_allclose(model.coef_, model.dual_coef_ @ model.support_vectors_, rtol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_[0] + model.intercept_[0], rtol=1e-12)
    rbf = SVC(C=1.0).fit(X, y)
    with pytest.raises(AttributeError, match="linear kernel"):
        rbf.coef_  # noqa: B018


def test_coef_of_one_vs_one_matches_scikit_learn_layout() -> None:
    X, y = make_classification(n_samples=200, n_features=5, n_informative=4, n_redundant=0, n_classes=4, random_state=2)
    ours = SVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)  # hinge: scikit-learn's model
    ref = SkSVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (dict(kernel="rbf", loss="squared_hinge"), "kernel 'rbf'"),
        (dict(kernel="linear", loss="hinge"), "hinge loss"),
        (dict(kernel="linear", loss="squared_hinge", sample_size=59), "sample_size"),
        (dict(kernel="linear", loss="squared_hinge", stopping="meb"), "stopping"),
    ],
)
def test_dcd_refuses_what_it_does_not_solve(binary, params, message) -> None:
    X, y = binary
    with pytest.raises(ValueError, match=message):
        SVC(algorithm="dcd", **params).fit(X, y)


def test_dcd_max_iter_stops_and_warns(binary) -> None:
    X, y = binary
    with pytest.warns(ConvergenceWarning):
        model = linear_svc(algorithm="dcd", tol=1e-12, max_iter=50).fit(X, y)
    assert model.convergence_["exit_reason"] == "max_iter"
    assert model.n_iter_[0] == 50


# --- SGD ------------------------------------------------------------------------------------


def hinge_optimum(X, y, C) -> float:
    """The primal optimum with a free bias, from LIBSVM (scikit-learn's SVC) at tight tolerance."""
    ref = SkSVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    t = np.where(y == ref.classes_[1], 1.0, -1.0) * ref.decision_function(X)
    return 0.5 * float(ref.coef_[0] @ ref.coef_[0]) + C * float(np.maximum(0.0, 1.0 - t).sum())


def test_sgd_hinge_reaches_the_exact_optimum(binary) -> None:
    X, y = binary
    optimum = hinge_optimum(X, y, 0.5)
    model = SGDSVC(C=0.5, tol=1e-5, n_iter_no_change=5, max_epochs=400, random_state=0).fit(X, y)
    assert model.objective(X, y) == pytest.approx(model.objective_[0][-1], rel=1e-10)
    assert optimum <= model.objective(X, y) <= 1.01 * optimum


def test_sgd_squared_hinge_without_bias_reaches_the_exact_optimum(binary) -> None:
    X, y = binary
    s = np.where(y == 1, 1.0, -1.0)
    C = 0.3

    def primal(w):
        h = np.maximum(0.0, 1.0 - s * (X @ w))
        return 0.5 * w @ w + C * h @ h, w - 2 * C * X.T @ (s * h)

    exact = minimize(primal, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options=dict(gtol=1e-12)).fun
    model = SGDSVC(C=C, loss="squared_hinge", fit_intercept=False, tol=1e-5, n_iter_no_change=5,
                   max_epochs=400, random_state=0).fit(X, y)
    assert model.intercept_[0] == 0.0
    assert exact <= model.objective(X, y) <= 1.01 * exact


@pytest.mark.parametrize("schedule", ["inverse", "exponential", "step"])
def test_sgd_schedules_learn(binary, schedule) -> None:
    X, y = binary
    optimum = hinge_optimum(X, y, 1.0)
    model = SGDSVC(C=1.0, learning_rate=schedule, max_epochs=100, random_state=0).fit(X, y)
    assert model.objective(X, y) <= 1.1 * optimum
    exact = SkSVC(kernel="linear", C=1.0).fit(X, y).score(X, y)
    assert model.score(X, y) >= exact - 0.02


def test_sgd_is_reproducible_and_sparse_equals_dense(binary) -> None:
    X, y = binary
    a = SGDSVC(random_state=7).fit(X, y)
    b = SGDSVC(random_state=7).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-12)


def test_sgd_multiclass_one_vs_rest_independent_of_threads() -> None:
    X, y = make_classification(n_samples=400, n_features=10, n_informative=6, n_classes=3, random_state=4)
    one = SGDSVC(random_state=0, n_jobs=1).fit(X, y)
    two = SGDSVC(random_state=0, n_jobs=2).fit(X, y)
    assert one.coef_.shape == (3, 10)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    assert one.score(X, y) > 0.7
    assert len(one.objective_) == 3 and one.n_iter_.shape == (3,)


def test_sgd_batch_larger_than_the_data_is_one_batch_an_epoch() -> None:
    # Issue 33: batch_size=10**9 aborted the interpreter (a buffer of batch_size entries, 16 GB)
    # under a 3 GB address-space limit. Run in a child process with that limit, so that a
    # regression fails this test instead of killing the session.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "import numpy as np; from fwsvm import SGDSVC\n"
        "rng = np.random.default_rng(0); X = rng.normal(size=(60, 4)); y = np.where(X[:, 0] > 0, 1, -1)\n"
        "huge = SGDSVC(batch_size=10**9, random_state=3).fit(X, y)\n"
        "whole = SGDSVC(batch_size=60, random_state=3).fit(X, y)\n"
        "np.testing.assert_array_equal(huge.coef_, whole.coef_)\n"
        "np.testing.assert_array_equal(huge.intercept_, whole.intercept_)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_sgd_errors(binary) -> None:
    X, y = binary
    with pytest.raises(ValueError, match="greater than one"):
        SGDSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="NaN|infinity"):
        SGDSVC().fit(np.full_like(X, np.nan), y)
    with pytest.raises(ValueError, match="non-negative"):
        SGDSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.warns(ConvergenceWarning, match="max_epochs"):
        SGDSVC(max_epochs=1, random_state=0).fit(X, y)


# --- kernel approximation -------------------------------------------------------------------


def test_nystroem_with_every_row_as_landmark_is_exact() -> None:
    X = np.random.default_rng(0).normal(size=(60, 4))
    ny = Nystroem(gamma=0.3, n_components=60, random_state=0).fit(X)
    Z = ny.transform(X)
    np.testing.assert_allclose(Z @ Z.T, rbf_kernel(X, gamma=0.3), atol=1e-8)
    Zs = ny.transform(sp.csr_matrix(X))
    np.testing.assert_allclose(Zs, Z, atol=1e-10)


@pytest.mark.parametrize("kernel", ["linear", "poly", "laplacian"])
def test_nystroem_other_kernels_project_the_kernel(kernel) -> None:
    X = np.random.default_rng(1).normal(size=(40, 3))
    ny = Nystroem(kernel=kernel, gamma=0.5, coef0=1.0, n_components=40, random_state=0).fit(X)
    Z = ny.transform(X)
    K = ny._kernel(X, X)
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-6 * np.abs(K).max())


def test_nystroem_coreset_landmarks_are_support_vectors(binary) -> None:
    X, y = binary
    ny = Nystroem(n_components=30, landmarks="coreset", C=1.0, random_state=0).fit(X, y)
    assert ny.components_.shape == (30, X.shape[1])
    np.testing.assert_array_equal(ny.components_, X[ny.component_indices_])
    assert len(set(ny.component_indices_)) == 30
    with pytest.raises(ValueError, match="needs y"):
        Nystroem(landmarks="coreset").fit(X)


def test_random_fourier_features_approximate_rbf() -> None:
    X = np.random.default_rng(2).normal(size=(50, 3))
    rff = RandomFourierFeatures(gamma=0.2, n_components=20_000, random_state=0).fit(X)
    Z = rff.transform(X)
    assert np.abs(Z @ Z.T - rbf_kernel(X, gamma=0.2)).max() < 0.05
    np.testing.assert_allclose(rff.transform(sp.csr_matrix(X)), Z, atol=1e-12)


def test_nystroem_feeds_the_linear_path() -> None:
    # The checkerboard is not linearly separable; Nyström features + dcd get the RBF model's
    # accuracy.
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 4, size=(3000, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1, -1)
    from sklearn.pipeline import make_pipeline

    approx = make_pipeline(Nystroem(gamma=2.0, n_components=200, random_state=0),
                           linear_svc(algorithm="dcd", C=100.0)).fit(X[:2000], y[:2000])
    exact = SVC(gamma=2.0, C=10.0).fit(X[:2000], y[:2000])
    assert approx.score(X[2000:], y[2000:]) >= exact.score(X[2000:], y[2000:]) - 0.03
    assert linear_svc(algorithm="dcd", C=1.0).fit(X[:2000], y[:2000]).score(X[2000:], y[2000:]) < 0.7


def test_dcd_history_records_certified_gaps(binary) -> None:
    X, y = binary
    model = linear_svc(algorithm="dcd", tol=1e-8, record_history=True).fit(X, y)
    h = model.history_
    assert h["kind"][-1] == "final" and set(h["kind"][:-1]) == {"sweep"}
    assert len(h["kind"]) > 3
    assert h["gap"][-1] / abs(h["objective"][-1]) <= 1e-8 < h["gap"][0] / abs(h["objective"][0])
    assert np.all(np.diff(h["iteration"]) >= 0)


def test_linear_models_and_feature_maps_pickle(binary) -> None:
    import pickle

    X, y = binary
    for est in (SGDSVC(random_state=0).fit(X, y), linear_svc(algorithm="dcd").fit(X, y)):
        clone = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(clone.decision_function(X), est.decision_function(X))
    for est in (Nystroem(n_components=20, random_state=0).fit(X), RandomFourierFeatures(n_components=20, random_state=0).fit(X)):
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).transform(X), est.transform(X))


def test_feature_maps_draw_numpys_random_numbers() -> None:
    # The draws run in Rust on NumPy's RandomState stream: the same maps as NumPy's own draws,
    # and the caller's generator left where NumPy would leave it (165 normals: one cached).
    X = np.random.default_rng(3).normal(size=(700, 5))
    for kernel in ("rbf", "laplacian"):
        rng, ref = np.random.RandomState(5), np.random.RandomState(5)
        rff = RandomFourierFeatures(kernel=kernel, gamma=0.7, n_components=33, random_state=rng).fit(X)
        W = ref.normal(0.0, np.sqrt(1.4), size=(5, 33)) if kernel == "rbf" else 0.7 * ref.standard_cauchy((5, 33))
        np.testing.assert_array_equal(rff.random_weights_, W)
        np.testing.assert_array_equal(rff.random_offset_, ref.uniform(0.0, 2 * np.pi, size=33))
        assert rng.standard_normal() == ref.standard_normal() and rng.randint(2**31 - 1) == ref.randint(2**31 - 1)
    rng, ref = np.random.RandomState(1), np.random.RandomState(1)
    ny = Nystroem(n_components=50, random_state=rng).fit(X)
    np.testing.assert_array_equal(ny.component_indices_, np.sort(ref.choice(700, size=50, replace=False)))
    assert ny.component_indices_.dtype == np.int64 and rng.random_sample() == ref.random_sample()
