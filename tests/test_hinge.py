"""SVC(loss="hinge"): LIBSVM's model, compared with scikit-learn's SVC (LIBSVM) itself."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SkSVC

from conftest import load_libsvm_dense
from fwsvm import SVC


def _binary(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=n, n_features=6, n_informative=4, flip_y=0.05, random_state=seed)
    return StandardScaler().fit_transform(X), y


def _assert_same_model(ours: SVC, theirs: SkSVC, X: np.ndarray, rtol: float = 1e-3) -> None:
    f, g = ours.decision_function(X), theirs.decision_function(X)
    scale = np.max(np.abs(g))
    assert np.max(np.abs(f - g)) <= rtol * scale, np.max(np.abs(f - g)) / scale
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=rtol, atol=rtol * scale)
    assert np.array_equal(ours.predict(X), theirs.predict(X))


_KERNEL_CASES = [
    (kernel, params, C)
    for kernel, params in [("rbf", {"gamma": 0.3}), ("linear", {}), ("poly", {"gamma": 0.2, "coef0": 1.0, "degree": 3})]
    for C in (0.1, 1.0, 30.0)
] + [("sigmoid", {"gamma": 0.02, "coef0": 0.0}, 1.0)]  # larger C: indefinite here (αᵀQα ≤ 0)


@pytest.mark.parametrize("kernel, params, C", _KERNEL_CASES)
def test_binary_model_equals_libsvm(kernel: str, params: dict, C: float) -> None:
    X, y = _binary()
    ours = SVC(loss="hinge", C=C, kernel=kernel, tol=1e-6, **params).fit(X, y)
    theirs = SkSVC(C=C, kernel=kernel, tol=1e-6, **params).fit(X, y)
    _assert_same_model(ours, theirs, X)
    assert ours.convergence_["exit_reason"] == "converged"
    assert ours.convergence_["loss"] == "hinge" and ours.convergence_["tol"] == 1e-6
    # Support vectors: the same rows, up to coefficients at the level of the tolerance.
    big = np.abs(theirs.dual_coef_[0]) > 1e-4 * C
    assert set(theirs.support_[big]) <= set(ours.support_)


def test_multiclass_weights_and_sparse_input_equal_libsvm() -> None:
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    for kwargs in ({}, {"class_weight": "balanced"}, {"class_weight": {0: 3.0, 2: 0.5}}):
        ours = SVC(loss="hinge", C=2.0, gamma=0.5, tol=1e-6, decision_function_shape="ovo", **kwargs).fit(X, y)
        theirs = SkSVC(C=2.0, gamma=0.5, tol=1e-6, decision_function_shape="ovo", **kwargs).fit(X, y)
        _assert_same_model(ours, theirs, X)
        assert np.array_equal(ours.n_support_, theirs.n_support_)
    weights = np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    ours = SVC(loss="hinge", C=2.0, gamma=0.5, tol=1e-6).fit(sp.csr_matrix(X), y, sample_weight=weights)
    theirs = SkSVC(C=2.0, gamma=0.5, tol=1e-6).fit(X, y, sample_weight=weights)
    _assert_same_model(ours, theirs, X)


def test_default_tolerance_and_persistence(tmp_path) -> None:
    X, y = _binary(400, seed=3)
    clf = SVC(loss="hinge", gamma=0.2).fit(X, y)
    assert clf.tol is None and clf.convergence_["tol"] == 1e-3
    assert SVC(loss="squared_hinge", gamma=0.2).fit(X, y).convergence_["tol"] == 1e-2
    # The duality gap is reported and small at LIBSVM's default tolerance.
    assert 0 <= clf.convergence_["gap"] and clf.convergence_["relative_gap"] < 1e-2
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    clf.save(tmp_path / "m.fwm")
    from fwsvm import load_model

    loaded = load_model(tmp_path / "m.fwm")
    assert loaded.loss == "hinge"
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    np.testing.assert_allclose(clf.to_sklearn().decision_function(X), clf.decision_function(X), rtol=1e-12, atol=1e-12)


def test_precomputed_kernel_with_shrinking_sized_data_and_an_f32_cache() -> None:
    # 2,500 samples (shrinking's size) and a 5 MB cache (float32 columns, the exact rebuild):
    # a Gram matrix is not restricted by selecting rows, so neither may touch it that way.
    X, y = _binary(2500, seed=8)
    from sklearn.metrics.pairwise import rbf_kernel

    K = rbf_kernel(X, X, gamma=0.3)
    ours = SVC(loss="hinge", kernel="precomputed", C=2.0, tol=1e-5, cache_size=5).fit(K, y)
    theirs = SkSVC(kernel="precomputed", C=2.0, tol=1e-5).fit(K, y)
    assert ours.convergence_["cache_precision"] == "float32"
    _assert_same_model(ours, theirs, K)


def test_reproducible_and_independent_of_threads() -> None:
    X, y = _binary(3000, seed=4)
    fits = [SVC(loss="hinge", C=3.0, gamma=0.5, n_jobs=n).fit(X, y) for n in (1, 2, 1)]
    assert fits[0].convergence_["shrinks"] > 0
    for other in fits[1:]:
        np.testing.assert_array_equal(other.dual_coef_, fits[0].dual_coef_)
        np.testing.assert_array_equal(other.intercept_, fits[0].intercept_)


def test_warm_path_reaches_the_cold_models() -> None:
    X, y = _binary(500, seed=6)
    from fwsvm import svc_path

    Cs = [0.25, 1.0, 8.0]
    warm, _ = svc_path(X, y, Cs, estimator=SVC(loss="hinge", gamma=0.4, tol=1e-6))
    for C, model in zip(Cs, warm):
        cold = SVC(loss="hinge", C=C, gamma=0.4, tol=1e-6).fit(X, y)
        np.testing.assert_allclose(model.decision_function(X), cold.decision_function(X), atol=1e-4)


def test_refusals_name_the_parameter() -> None:
    X, y = _binary(60)
    with pytest.raises(ValueError, match="swap"):
        SVC(loss="hinge", algorithm="bc").fit(X, y)
    with pytest.raises(ValueError, match="sample_size"):
        SVC(loss="hinge", sample_size=59).fit(X, y)
    with pytest.raises(ValueError, match="loss"):
        SVC(loss="l1").fit(X, y)
    with pytest.raises(ValueError, match="stopping"):
        SVC(stopping="meb").fit(X, y)


@pytest.mark.parametrize("name, gamma, C", [("heart_scale", 0.1, 1.0), ("a1a", 0.05, 4.0), ("dna.scale", 0.01, 2.0)])
def test_equals_libsvm_on_shared_data(name: str, gamma: float, C: float) -> None:
    X, y = load_libsvm_dense(name)
    ours = SVC(loss="hinge", C=C, gamma=gamma, tol=1e-6).fit(X, y)
    theirs = SkSVC(C=C, gamma=gamma, tol=1e-6).fit(X, y)
    _assert_same_model(ours, theirs, X)


@pytest.mark.parametrize("name, gamma, C, positive", [("satimage.scale", 0.2, 8.0, 1.0), ("shuttle.scale", 2.0, 32.0, 1.0)])
def test_certificate_holds_on_every_row_of_real_valued_data(name: str, gamma: float, C: float, positive: float) -> None:
    # Shrinking and a float32 cache (4 MB) on real-valued shared data: the largest violation of
    # the optimality conditions, recomputed from the fitted model on every training row in
    # float64, is within tol (the certificate the solver claims).
    X, labels = load_libsvm_dense(name)
    y = np.where(labels == positive, 1.0, -1.0)
    tol = 1e-3
    clf = SVC(loss="hinge", C=C, gamma=gamma, tol=tol, cache_size=4).fit(X, y)
    assert clf.convergence_["cache_precision"] == "float32" and clf.convergence_["shrinks"] > 0
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[clf.support_] = np.abs(clf.dual_coef_[0])
    f = clf.decision_function(X)
    v = y_pm - (f - clf.intercept_[0])  # v_t = y_t − Σ α_s y_s k(x_s, x_t)
    grow = np.where(y_pm > 0, alpha < C, alpha > 0)
    shrink = np.where(y_pm > 0, alpha > 0, alpha < C)
    assert v[grow].max() - v[shrink].min() <= tol * (1 + 1e-6)


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_blocked_working_sets_give_libsvms_model(C: float, capfd) -> None:
    # Dense data of 4–64 features and ≥ 2,000 rows take blocked working sets by default: the
    # same model as LIBSVM's, binary and one-vs-one with class weights.
    X, y = make_classification(n_samples=3600, n_features=12, n_informative=8, n_classes=3, flip_y=0.03,
                               random_state=4)
    X = StandardScaler().fit_transform(X)
    binary = (y == 0).astype(int)
    ours = SVC(loss="hinge", C=C, gamma=0.05, tol=1e-6, verbose=2).fit(X, binary)
    assert "blocked working sets of 64 on 3600 samples" in capfd.readouterr().err
    theirs = SkSVC(C=C, gamma=0.05, tol=1e-6).fit(X, binary)
    _assert_same_model(ours, theirs, X)
    weights = {0: 2.0, 1: 0.5, 2: 1.0}
    ours = SVC(loss="hinge", C=C, gamma=0.05, tol=1e-6, class_weight=weights, decision_function_shape="ovo").fit(X, y)
    theirs = SkSVC(C=C, gamma=0.05, tol=1e-6, class_weight=weights, decision_function_shape="ovo").fit(X, y)
    _assert_same_model(ours, theirs, X)
