"""The whole Frank-Wolfe family from Python: bc and ky against swap on real data, convergence
histories and plots."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import InvalidParameterError

import fwsvm
from conftest import shared_file

ALGORITHMS = ["fw", "mfw", "swap", "swap2o", "bc", "ky"]


def _split(name: str, test: str | None, n_features: int) -> tuple:
    X, y = fwsvm.load_svmlight_file(shared_file(name), n_features=n_features)
    if test is None:
        return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    Xt, yt = fwsvm.load_svmlight_file(shared_file(test), n_features=n_features)
    return X, Xt, y, yt


@pytest.mark.parametrize(
    "name, test, n_features, gamma",
    [("heart_scale", None, 13, 0.1), ("a1a", "a1a.t", 123, 0.05), ("w1a", "w1a.t", 300, 0.05)],
)
def test_bc_and_ky_match_swap_accuracy(name: str, test: str | None, n_features: int, gamma: float) -> None:
    X, Xt, y, yt = _split(name, test, n_features)
    scores = {}
    for algorithm in ("swap", "bc", "ky"):
        model = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=gamma, algorithm=algorithm, random_state=0).fit(X, y)
        assert model.fit_status_ == 0, algorithm
        scores[algorithm] = model.score(Xt, yt)
    assert abs(scores["bc"] - scores["swap"]) <= 0.005, scores
    assert abs(scores["ky"] - scores["swap"]) <= 0.01, scores


def test_ky_model_round_trips_through_both_file_formats(tmp_path) -> None:
    X, y = make_classification(n_samples=150, n_features=6, random_state=1)
    model = fwsvm.SVC(loss="squared_hinge", C=2.0, gamma=0.2, algorithm="ky", random_state=0).fit(X, y)
    expected = model.decision_function(X)
    model.save(tmp_path / "ky.fwsvm")
    np.testing.assert_allclose(fwsvm.load_model(tmp_path / "ky.fwsvm").decision_function(X), expected)
    model.save_libsvm_model(tmp_path / "ky.model")
    again = fwsvm.load_libsvm_model(tmp_path / "ky.model")
    np.testing.assert_allclose(again.decision_function(X), expected, rtol=1e-9, atol=1e-12)


def test_ky_is_a_free_bias_squared_hinge_svm() -> None:
    # On the support vectors y f(x) = 1 − α/C, and Σ y α = 0 (the free bias's condition).
    X, y = make_classification(n_samples=120, n_features=4, random_state=3)
    C = 4.0
    model = fwsvm.SVC(loss="squared_hinge", C=C, gamma=0.5, algorithm="ky", tol=1e-10, random_state=0).fit(X, y)
    ypm = np.where(y == model.classes_[1], 1.0, -1.0)
    margin = ypm[model.support_] * model.decision_function(X[model.support_])
    alpha = model.dual_coef_[0] * ypm[model.support_]
    np.testing.assert_allclose(margin, 1.0 - alpha / C, atol=1e-6)
    assert abs(model.dual_coef_[0].sum()) < 1e-9


def test_ky_multiclass_votes_like_the_others() -> None:
    X, y = make_classification(n_samples=240, n_features=6, n_informative=4, n_classes=3, random_state=5)
    ky = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=0.3, algorithm="ky", random_state=0).fit(X, y)
    swap = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=0.3, algorithm="swap", random_state=0).fit(X, y)
    assert (ky.predict(X) == swap.predict(X)).mean() > 0.9


@pytest.mark.parametrize("estimator", [fwsvm.OneClassSVM, fwsvm.SVR])
def test_ky_is_refused_for_one_class_and_regression(estimator) -> None:
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(InvalidParameterError, match="algorithm"):
        if estimator is fwsvm.SVR:
            estimator(algorithm="ky").fit(X, X[:, 0])
        else:
            estimator(algorithm="ky").fit(X)


@pytest.mark.parametrize("estimator", [fwsvm.OneClassSVM, fwsvm.SVR])
def test_frank_wolfe_settings_are_refused_for_libsvms_models(estimator) -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    args = (X, X[:, 0]) if estimator is fwsvm.SVR else (X,)
    for setting in (dict(algorithm="bc"), dict(sample_size=5), dict(stopping="meb"), dict(init="farthest")):
        with pytest.raises(ValueError, match="applies to loss="):
            estimator(**setting).fit(*args)


@pytest.mark.parametrize("estimator", [fwsvm.OneClassSVM, fwsvm.SVR])
def test_bc_fits_one_class_and_regression_like_swap(estimator) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=80)
    fit = (lambda e: e.fit(X, y)) if estimator is fwsvm.SVR else (lambda e: e.fit(X))
    # The Frank-Wolfe algorithms solve the L2 models.
    loss = "squared_epsilon_insensitive" if estimator is fwsvm.SVR else "squared_hinge"
    kw = dict(gamma=0.5, tol=1e-8, random_state=0, loss=loss)
    bc, swap = fit(estimator(algorithm="bc", **kw)), fit(estimator(algorithm="swap", **kw))
    assert bc.convergence_["steps"]["corrective"] == bc.n_iter_
    assert bc.convergence_["objective"] == pytest.approx(swap.convergence_["objective"], rel=1e-6)
    pred = (lambda e: e.predict(X)) if estimator is fwsvm.SVR else (lambda e: e.score_samples(X))
    np.testing.assert_allclose(pred(bc), pred(swap), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_history_records_every_step(algorithm: str) -> None:
    X, y = make_classification(n_samples=200, n_features=5, random_state=2)
    tol = 5e-2 if algorithm == "fw" else 1e-3  # plain FW converges sublinearly
    model = fwsvm.SVC(loss="squared_hinge", gamma=0.3, algorithm=algorithm, tol=tol, record_history=True, random_state=0).fit(X, y)
    h = model.history_
    n = int(model.n_iter_[0])
    assert set(h) == {"iteration", "objective", "gap", "kind", "coreset_size", "seconds"}
    for key in ("iteration", "objective", "gap", "coreset_size", "seconds"):
        assert len(h[key]) == n + 1, key  # every step, then the final state
    np.testing.assert_array_equal(h["iteration"], np.arange(n + 1))
    # The last entry is where the fit ended: the convergence_ numbers, below tol.
    assert h["kind"][-1] == "final" and "final" not in h["kind"][:-1]
    assert h["objective"][-1] == pytest.approx(model.convergence_["objective"], rel=1e-12)
    assert h["gap"][-1] == pytest.approx(model.convergence_["gap"], rel=1e-12, abs=1e-300)
    if algorithm != "ky":  # ky stops on its own ε certificates, not on the relative gap
        assert h["gap"][-1] / abs(h["objective"][-1]) <= tol
    h = {**h, "kind": h["kind"][:-1]}
    assert np.all(np.diff(h["seconds"]) >= 0)
    assert np.all(h["gap"] >= -1e-12)
    kinds = set(h["kind"])
    expected = {
        "fw": {"toward"},
        "mfw": {"toward", "away", "drop"},
        # "corrective": the coreset rounds of the adaptive pairwise methods.
        "swap": {"toward", "swap_add", "swap_drop", "corrective"},
        "swap2o": {"toward", "swap_add", "swap_drop", "corrective"},
        "bc": {"corrective"},
        "ky": {"toward", "away", "drop"},
    }[algorithm]
    assert kinds <= expected, kinds
    # The objective never decreases (all variants are monotone).
    assert np.all(np.diff(h["objective"]) >= -1e-12 * np.abs(h["objective"][1:]))
    assert h["coreset_size"][-1] >= 1


def test_history_is_off_by_default_and_per_pair_for_multiclass() -> None:
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, n_classes=3, random_state=4)
    assert fwsvm.SVC(loss="squared_hinge").fit(X, y).history_ is None
    model = fwsvm.SVC(loss="squared_hinge", record_history=True).fit(X, y)
    assert isinstance(model.history_, list) and len(model.history_) == 3
    for h, n in zip(model.history_, model.n_iter_):
        assert len(h["gap"]) == n + 1 and h["kind"][-1] == "final"
    one = fwsvm.OneClassSVM(record_history=True).fit(X)
    assert len(one.history_["gap"]) == one.n_iter_ + 1
    reg = fwsvm.SVR(record_history=True).fit(X, X[:, 0])
    assert len(reg.history_["gap"]) == reg.n_iter_ + 1


def test_history_survives_save_and_load(tmp_path) -> None:
    X, y = make_classification(n_samples=100, n_features=4, random_state=6)
    model = fwsvm.SVC(loss="squared_hinge", record_history=True).fit(X, y)
    model.save(tmp_path / "m.fwsvm")
    again = fwsvm.load_model(tmp_path / "m.fwsvm")
    np.testing.assert_allclose(np.asarray(again.history_["gap"]), model.history_["gap"])


def test_plot_convergence_draws_one_line_per_model_on_both_axes() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = make_classification(n_samples=200, n_features=5, random_state=7)
    models = {a: fwsvm.SVC(loss="squared_hinge", algorithm=a, record_history=True, random_state=0).fit(X, y) for a in ("swap", "mfw", "ky")}
    fig = fwsvm.plot_convergence(models, title="test")
    ax_iter, ax_time = fig.axes
    assert [line.get_label() for line in ax_iter.get_lines()] == ["swap", "mfw", "ky"]
    assert len(ax_time.get_lines()) == 3
    assert ax_iter.get_yscale() == "log" and ax_iter.get_xlabel() == "iteration"
    assert ax_time.get_xlabel() == "seconds" and ax_time.get_xscale() == "log"
    # A list uses each model's algorithm as its label; a raw history dict works too.
    fig2 = fwsvm.plot_convergence([models["swap"], models["ky"].history_], relative=False)
    assert [line.get_label() for line in fig2.axes[0].get_lines()] == ["swap", "model 1"]
    plt.close("all")


def test_plot_convergence_explains_missing_history() -> None:
    pytest.importorskip("matplotlib")
    X, y = make_classification(n_samples=60, n_features=4, random_state=8)
    with pytest.raises(ValueError, match="record_history=True"):
        fwsvm.plot_convergence(fwsvm.SVC(loss="squared_hinge").fit(X, y))
    with pytest.raises(ValueError, match="labels"):
        fwsvm.plot_convergence([fwsvm.SVC(loss="squared_hinge", record_history=True).fit(X, y)], labels=["a", "b"])


def test_warm_start_reaches_the_same_model_in_fewer_steps() -> None:
    X, y = make_classification(n_samples=400, n_features=6, flip_y=0.1, random_state=9)
    warm = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=0.3, tol=1e-6, warm_start=True, random_state=0).fit(X, y)
    warm.set_params(C=4.0).fit(X, y)
    cold = fwsvm.SVC(loss="squared_hinge", C=4.0, gamma=0.3, tol=1e-6, random_state=0).fit(X, y)
    assert warm.convergence_["objective"] == pytest.approx(cold.convergence_["objective"], rel=1e-5)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), atol=1e-3)
    assert warm.n_iter_[0] < cold.n_iter_[0]
    # Appended rows start at zero weight; a refit on the same data is (almost) free.
    X2 = np.vstack([X, X[:50] + 0.01])
    y2 = np.concatenate([y, y[:50]])
    warm.fit(X2, y2)
    assert warm.fit_status_ == 0
    steps = warm.n_iter_[0]
    warm.fit(X2, y2)
    assert warm.n_iter_[0] <= max(1, steps // 10)


def test_svc_path_matches_cold_fits_and_svccv_picks_the_best_c() -> None:
    X, y = make_classification(n_samples=300, n_features=6, flip_y=0.05, random_state=10)
    Cs = [8.0, 0.5, 2.0]
    template = fwsvm.SVC(loss="squared_hinge", gamma=0.2, tol=1e-6, random_state=0)
    models, scores = fwsvm.svc_path(X[:200], y[:200], Cs, estimator=template, X_val=X[200:], y_val=y[200:])
    assert [m.C for m in models] == Cs
    for model, C, score in zip(models, Cs, scores):
        cold = fwsvm.SVC(loss="squared_hinge", C=C, gamma=0.2, tol=1e-6, random_state=0).fit(X[:200], y[:200])
        np.testing.assert_allclose(model.decision_function(X[200:]), cold.decision_function(X[200:]), atol=1e-3)
        assert score == pytest.approx(cold.score(X[200:], y[200:]), abs=0.01)
        assert not model.warm_start
    search = fwsvm.SVCCV(template, Cs=Cs, cv=[(np.arange(200), np.arange(200, 300))]).fit(X, y)
    assert search.scores_.shape == (1, 3)
    best = max(scores)
    assert search.C_ == min(C for C, s in zip(Cs, search.scores_[0]) if s == best)
    assert search.best_estimator_.C == search.C_
    assert search.score(X, y) > 0.8
    with pytest.raises(ValueError, match="Cs"):
        fwsvm.svc_path(X, y, [])
