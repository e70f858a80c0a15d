"""LIBSVM's ν-SVC, one-class ν-SVM, ε-SVR and ν-SVR: the same models as scikit-learn's
(LIBSVM's) at a tight tolerance, with weights, sparse and precomputed input, certificates on
every training row and the LIBSVM command-line round trip (scikit-learn's estimator checks:
test_sklearn_compat.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm
from sklearn.datasets import make_classification, make_friedman1
from sklearn.metrics.pairwise import rbf_kernel

import fwsvm

TOL = 1e-7


def _data(kind: str):
    if kind == "classification":
        X, y = make_classification(n_samples=240, n_features=6, n_informative=4, random_state=0)
        return X, y
    X, y = make_friedman1(n_samples=240, n_features=6, noise=0.5, random_state=0)
    return X, y


CASES = [
    ("NuSVC", dict(nu=0.4, kernel="sigmoid", gamma=0.02, coef0=-1.0), "classification"),
    ("SVR", dict(C=1.0, epsilon=0.1, kernel="sigmoid", gamma=0.005), "regression"),
    ("NuSVC", dict(nu=0.3), "classification"),
    ("NuSVC", dict(nu=0.6, kernel="poly", degree=2, coef0=1.0), "classification"),
    ("SVR", dict(C=3.0, epsilon=0.2), "regression"),
    ("SVR", dict(C=1.0, epsilon=0.05, kernel="linear"), "regression"),
    ("NuSVR", dict(C=2.0, nu=0.4), "regression"),
    ("NuSVR", dict(C=10.0, nu=0.7, gamma=0.3), "regression"),
    ("OneClassSVM", dict(nu=0.2), "regression"),
    ("OneClassSVM", dict(nu=0.5, kernel="poly", degree=2), "regression"),
]


def _values(est, X):
    return est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)


def _fit(est, X, y, **kw):
    return est.fit(X, **kw) if isinstance(est, (fwsvm.OneClassSVM, svm.OneClassSVM)) else est.fit(X, y, **kw)


@pytest.mark.parametrize(("name", "params", "kind"), CASES)
@pytest.mark.parametrize("sparse", [False, True])
def test_same_model_as_scikit_learn(name, params, kind, sparse) -> None:
    X, y = _data(kind)
    Xf = sp.csr_matrix(X) if sparse else X
    ours = _fit(getattr(fwsvm, name)(tol=TOL, **params), Xf, y)
    theirs = _fit(getattr(svm, name)(tol=TOL, **params), X, y)
    f, g = np.ravel(_values(ours, Xf)), np.ravel(_values(theirs, X))
    assert np.max(np.abs(f - g)) <= 1e-4 * max(1.0, np.max(np.abs(g)))
    assert abs(len(ours.support_) - len(theirs.support_)) <= max(1, len(theirs.support_) // 100)
    assert ours.convergence_["exit_reason"] == "converged"


@pytest.mark.parametrize("name", ["NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_sample_weights_as_scikit_learn(name) -> None:
    X, y = _data("classification" if name == "NuSVC" else "regression")
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    w[:5] = 0.0  # left out, as scikit-learn does
    ours = _fit(getattr(fwsvm, name)(tol=TOL), X, y, sample_weight=w)
    theirs = _fit(getattr(svm, name)(tol=TOL), X, y, sample_weight=w)
    f, g = np.ravel(_values(ours, X)), np.ravel(_values(theirs, X))
    assert np.max(np.abs(f - g)) <= 1e-4 * max(1.0, np.max(np.abs(g)))
    assert not set(range(5)) & set(ours.support_)


@pytest.mark.parametrize("name", ["NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_precomputed_kernel_as_scikit_learn(name) -> None:
    X, y = _data("classification" if name == "NuSVC" else "regression")
    K = rbf_kernel(X, gamma=0.2)
    ours = _fit(getattr(fwsvm, name)(kernel="precomputed", tol=TOL), K, y)
    theirs = _fit(getattr(svm, name)(kernel="precomputed", tol=TOL), K, y)
    np.testing.assert_allclose(np.ravel(_values(ours, K[:30])), np.ravel(_values(theirs, K[:30])), atol=1e-4)


def test_multiclass_nu_svc_votes_as_scikit_learn() -> None:
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=2)
    ours = fwsvm.NuSVC(nu=0.3, tol=TOL).fit(X, y)
    theirs = svm.NuSVC(nu=0.3, tol=TOL).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-4)
    assert (ours.predict(X) == theirs.predict(X)).mean() >= 0.99
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)


def test_infeasible_nu_is_refused_as_libsvm_does() -> None:
    X, y = _data("classification")
    y = y.copy()
    y[y == 1][:0]  # keep
    y[np.flatnonzero(y == 1)[20:]] = 0  # 20 of one class
    with pytest.raises(ValueError, match="infeasible"):
        fwsvm.NuSVC(nu=0.9).fit(X, y)


@pytest.mark.parametrize(("name", "kind"), [("NuSVC", "classification"), ("SVR", "regression"),
                                            ("NuSVR", "regression"), ("OneClassSVM", "regression")])
def test_certificate_on_every_training_row(name, kind) -> None:
    """The optimality conditions recomputed from the fitted model on every row: the largest
    violation is at most tol (the box dual's KKT conditions in LIBSVM's form)."""
    X, y = _data(kind)
    tol = 1e-5
    est = _fit(getattr(fwsvm, name)(tol=tol, gamma=0.2), X, y)
    K = rbf_kernel(X, X[est.support_], gamma=0.2)
    coef = est.dual_coef_[0]
    alpha = np.zeros(len(X))
    alpha[est.support_] = np.abs(coef)
    if name == "OneClassSVM":
        # min ½αᵀKα, 0 ≤ α ≤ 1, Σα = νm: ∇ = Kα; free ↔ ∇ = ρ.
        grad = K @ coef
        up = grad[alpha < 1]   # can grow: ∇ ≥ ρ, i.e. −∇ ≤ −ρ
        low = grad[alpha > 0]
        assert (-up).max() - (-low).min() <= tol * 1.01
        assert est.convergence_["gap"] <= tol
        return
    if name == "NuSVC":
        assert est.convergence_["gap"] <= tol
        return
    # Regressions: f = Kβ − ρ; α_i (y=+1) may grow while y_i − f_i > ε-ish... checked through v.
    f = K @ coef
    eps = est.epsilon_
    C = est.C
    beta = np.zeros(len(X))
    beta[est.support_] = coef
    v_plus, v_minus = y - f - eps, y - f + eps   # v up to the common ρ shift
    a, a_star = np.maximum(beta, 0), np.maximum(-beta, 0)
    up = np.r_[v_plus[a < C], v_minus[a_star > 0]]
    low = np.r_[v_plus[a > 0], v_minus[a_star < C]]
    assert up.max() - low.min() <= tol * 1.01


@pytest.mark.parametrize("svm_type", [1, 2, 3, 4])
def test_cli_round_trip_with_libsvm(tmp_path, svm_type) -> None:
    """fwsvm train -s N writes a model svm-predict reads with the same predictions as ours,
    and a LIBSVM-trained model predicts the same through fwsvm predict."""
    libsvm = pytest.importorskip("libsvm.svmutil")
    X, y = _data("classification" if svm_type == 1 else "regression")
    data = tmp_path / "d.svm"
    fwsvm.dump_svmlight_file(X, y, data, zero_based=False)
    ours_model, theirs_model = tmp_path / "ours.model", tmp_path / "theirs.model"
    args = ["-s", str(svm_type), "-g", "0.2", "-e", "1e-6", "-q"]
    subprocess.run([sys.executable, "-m", "fwsvm", "train", *args, str(data), str(ours_model)], check=True)
    yl, xl = libsvm.svm_read_problem(str(data))
    theirs = libsvm.svm_train(yl, xl, " ".join(args))
    libsvm.svm_save_model(str(theirs_model), theirs)
    for model in (ours_model, theirs_model):
        out_ours = tmp_path / "p_ours"
        subprocess.run([sys.executable, "-m", "fwsvm", "predict", "-q", str(data), str(model), str(out_ours)], check=True)
        p_libsvm, _, _ = libsvm.svm_predict(yl, xl, libsvm.svm_load_model(str(model)), "-q")
        p_ours = np.loadtxt(out_ours)
        np.testing.assert_allclose(p_ours, p_libsvm, atol=1e-6)
    # Both trainers reach the same model.
    p1, _, _ = libsvm.svm_predict(yl, xl, libsvm.svm_load_model(str(ours_model)), "-q")
    p2, _, _ = libsvm.svm_predict(yl, xl, theirs, "-q")
    if svm_type in (3, 4):
        np.testing.assert_allclose(p1, p2, atol=1e-3)
    else:
        assert np.mean(np.array(p1) == np.array(p2)) >= 0.99


@pytest.mark.parametrize("est", [fwsvm.SVC(), fwsvm.NuSVC(), fwsvm.SVR(), fwsvm.OneClassSVM(),
                                 fwsvm.OneClassSVM(loss="squared_hinge")])
def test_kernel_settings_are_fitted_state(tmp_path, est) -> None:
    """set_params(kernel=...) after fit does not change the fitted model's predictions (in
    memory, after pickling, and after .fwm save/load); the next fit uses the new kernel."""
    import pickle

    X, y = _data("classification")
    est.fit(X, y)
    before = _values(est, X)
    est.set_params(kernel="poly", degree=5, coef0=3.0)
    np.testing.assert_array_equal(_values(est, X), before)
    np.testing.assert_array_equal(_values(pickle.loads(pickle.dumps(est)), X), before)
    est.save(tmp_path / "m.fwm")
    np.testing.assert_array_equal(_values(fwsvm.load_model(tmp_path / "m.fwm"), X), before)
    assert not np.allclose(_values(est.fit(X, y), X), before)


def test_huge_whole_number_labels_are_classes() -> None:
    X, y = _data("classification")
    labels = np.where(y == 1, 1e300, -1e300)
    est = fwsvm.SVC().fit(X, labels)
    assert set(est.classes_) == {1e300, -1e300}
    assert (est.predict(X) == labels).mean() > 0.8


def test_svr_probability_model_both_ways(tmp_path) -> None:
    """-b 1 for -s 3: LIBSVM's Laplace scale σ of 5-fold residuals in the model file (probA);
    fwsvm predict -b 1 reports it as svm-predict does, and svm-predict reads our file."""
    libsvm = pytest.importorskip("libsvm.svmutil")
    X, y = _data("regression")
    data, model = tmp_path / "d.svm", tmp_path / "m.model"
    fwsvm.dump_svmlight_file(X, y, data, zero_based=False)
    subprocess.run([sys.executable, "-m", "fwsvm", "train", "-q", "-s", "3", "-b", "1", str(data), str(model)], check=True)
    sigma = float(next(line for line in model.read_text().splitlines() if line.startswith("probA")).split()[1])
    residuals = np.abs(y - fwsvm.load_libsvm_model(model).predict(X))
    assert 0.2 * residuals.mean() < sigma < 5 * residuals.mean() + 1.0
    out = subprocess.run([sys.executable, "-m", "fwsvm", "predict", "-b", "1", str(data), str(model), str(tmp_path / "p")],
                         check=True, capture_output=True, text=True).stdout
    assert "Laplace distribution" in out and f"sigma={sigma:g}"[:12] in out
    yl, xl = libsvm.svm_read_problem(str(data))
    p, _, _ = libsvm.svm_predict(yl, xl, libsvm.svm_load_model(str(model)), "-b 1 -q")
    np.testing.assert_allclose(p, np.loadtxt(tmp_path / "p"), atol=1e-6)


@pytest.mark.parametrize("name", ["NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_results_do_not_depend_on_the_thread_count(name) -> None:
    # 9,000 rows: each segment of the passes is longer than their parallel chunk (8,192), so
    # two threads do split the work (fewer rows never leave one thread), and shrinking runs.
    X, y = make_friedman1(n_samples=9000, n_features=5, noise=0.5, random_state=1)
    if name == "NuSVC":
        y = (y > np.median(y)).astype(int)
    one, two = (_fit(getattr(fwsvm, name)(n_jobs=n), X, y) for n in (1, 2))
    np.testing.assert_array_equal(one.support_, two.support_)
    np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)


def test_svr_warm_start_along_c_is_the_same_model_in_fewer_steps(tmp_path) -> None:
    # LIBSVM's warm start along a C path for the epsilon-SVR: the previous coefficients scaled to
    # the new C; same model as a cold fit, fewer steps on a fine step of C (1.25).
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=600, random_state=0)
    warm = fwsvm.SVR(C=4.0, epsilon=0.05, gamma=0.5, tol=1e-6, warm_start=True).fit(X, y)
    warm.set_params(C=5.0).fit(X, y)
    cold = fwsvm.SVR(C=5.0, epsilon=0.05, gamma=0.5, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(warm.predict(X), cold.predict(X), atol=1e-4 * np.abs(cold.predict(X)).max())
    assert warm.n_iter_ < cold.n_iter_
    # Appended rows start at 0; the warm state survives pickling and the model file.
    bigger = np.vstack([X, X[:10] + 0.01])
    warm.fit(bigger, np.concatenate([y, y[:10]]))
    assert warm.score(bigger, np.concatenate([y, y[:10]])) > 0.8
    warm.save(tmp_path / "svr.fwm")
    assert fwsvm.load_model(tmp_path / "svr.fwm").warm_start
    with pytest.raises(ValueError, match="warm_start applies"):
        fwsvm.SVR(loss="squared_epsilon_insensitive", warm_start=True).fit(X, y)
