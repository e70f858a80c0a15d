"""Class probabilities: Platt scaling on cross-validated decision values and pairwise coupling,
checked against LIBSVM itself (libsvm-official's ``svm_predict -b 1`` on our exported models),
against the optimisation problems they solve, and against scikit-learn's log-loss."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_classification
from sklearn.metrics import log_loss

import fwsvm
from fwsvm import SVC
from fwsvm import _core

from conftest import shared_file


def _three_classes():
    return make_classification(n_samples=300, n_features=6, n_informative=4, n_redundant=0, n_classes=3,
                               class_sep=1.0, random_state=0)


def test_probabilities_are_distributions_that_agree_with_predict() -> None:
    X, y = _three_classes()
    clf = SVC(probability=True).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (300, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.all((proba > 0) & (proba < 1))
    assert np.mean(clf.classes_[proba.argmax(axis=1)] == clf.predict(X)) >= 0.97
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(proba))
    assert clf.probA_.shape == clf.probB_.shape == (3,)


def test_probability_false_has_no_predict_proba() -> None:
    X, y = _three_classes()
    clf = SVC().fit(X, y)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "predict_log_proba")
    with pytest.raises(AttributeError, match="predict_proba"):
        clf.predict_proba(X)
    assert clf.probA_.shape == (0,)


def test_probabilities_are_reproducible_and_follow_random_state() -> None:
    X, y = _three_classes()
    a = SVC(probability=True).fit(X, y)
    b = SVC(probability=True).fit(X, y)
    np.testing.assert_array_equal(a.probA_, b.probA_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = SVC(probability=True, random_state=3).fit(X, y)
    assert not np.array_equal(a.probA_, c.probA_)  # other folds


def test_sigmoid_train_minimises_platts_objective() -> None:
    rng = np.random.default_rng(0)
    dec = rng.normal(size=200) * 2
    positive = rng.random(200) < 1 / (1 + np.exp(-1.5 * dec + 0.3))
    a, b = _core.sigmoid_train(np.ascontiguousarray(dec, dtype=np.float64), np.ascontiguousarray(positive))
    prior1, prior0 = positive.sum(), (~positive).sum()
    t = np.where(positive, (prior1 + 1) / (prior1 + 2), 1 / (prior0 + 2))

    def objective(ab):
        p = _core.sigmoid_predict(dec, np.full_like(dec, ab[0]), np.full_like(dec, ab[1]))  # P(positive)
        return -np.sum(t * np.log(p) + (1 - t) * np.log1p(-p))

    best = minimize(objective, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10})
    assert objective([a, b]) <= best.fun + 1e-7
    np.testing.assert_allclose([a, b], best.x, atol=1e-4)
    assert a < 0  # larger f, more likely positive


def test_coupling_solves_wu_lin_weng_method_2() -> None:
    # min pᵀQp s.t. Σp = 1 (Q as in the paper): solve the KKT system directly and compare.
    rng = np.random.default_rng(1)
    k, n = 5, 20
    first, second = np.triu_indices(k, k=1)
    pairwise = rng.uniform(0.05, 0.95, size=(n, len(first)))
    ours = _core.couple(np.ascontiguousarray(pairwise), k, [])
    for row in range(n):
        r = np.zeros((k, k))
        r[first, second] = pairwise[row]
        r[second, first] = 1 - pairwise[row]
        q = -r.T * r
        np.fill_diagonal(q, (r.T**2).sum(axis=1) - np.diag(r) ** 2)
        kkt = np.block([[2 * q, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        exact = np.linalg.solve(kkt, np.r_[np.zeros(k), 1.0])[:k]
        np.testing.assert_allclose(ours[row], exact, atol=5e-3)  # LIBSVM's stopping tolerance
    two = _core.couple(np.array([[0.3], [1.0]]), 2, [])
    np.testing.assert_allclose(two, [[0.3, 0.7], [1 - 1e-7, 1e-7]])


@pytest.mark.parametrize("name", ["heart_scale", "dna.scale"])
def test_libsvm_predicts_the_same_probabilities_from_our_model_file(tmp_path, name: str) -> None:
    from libsvm import svmutil

    path = shared_file(name)
    X, y = fwsvm.load_svmlight_file(path)
    clf = SVC(probability=True).fit(X, y)
    model_file = tmp_path / "m.model"
    clf.save_libsvm_model(model_file)
    lib_model = svmutil.svm_load_model(str(model_file))
    yy, xx = svmutil.svm_read_problem(str(path))
    labels, _, values = svmutil.svm_predict(yy, xx, lib_model, "-b 1 -q")
    theirs = np.asarray(values)[:, np.argsort(lib_model.get_labels())]
    np.testing.assert_allclose(theirs, clf.predict_proba(X), atol=1e-10)
    # And back: the imported file, the .fwm file and scikit-learn's estimator.
    np.testing.assert_allclose(fwsvm.load_libsvm_model(model_file).predict_proba(X), clf.predict_proba(X), atol=1e-12)
    clf.save(tmp_path / "m.fwm")
    np.testing.assert_array_equal(fwsvm.load_model(tmp_path / "m.fwm").predict_proba(X), clf.predict_proba(X))
    sk = clf.to_sklearn()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        # scikit-learn's LIBSVM fork couples even two classes iteratively (tolerance 0.0025).
        np.testing.assert_allclose(sk.predict_proba(X), clf.predict_proba(X), atol=5e-3)


@pytest.mark.parametrize("train, test", [("heart_scale", None), ("a1a", "a1a.t"), ("dna.scale", "dna.scale.t")])
def test_log_loss_matches_scikit_learn(train: str, test: str | None) -> None:
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC as SkSVC

    if test is None:
        X, y = fwsvm.load_svmlight_file(shared_file(train))
        X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    else:
        X, y, X_test, y_test = fwsvm.load_svmlight_files([shared_file(train), shared_file(test)])
    ours = SVC(probability=True).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # scikit-learn 1.9 deprecates probability=True
        theirs = SkSVC(probability=True, random_state=0).fit(X, y)
        their_loss = log_loss(y_test, theirs.predict_proba(X_test), labels=theirs.classes_)
    our_loss = log_loss(y_test, ours.predict_proba(X_test), labels=ours.classes_)
    assert abs(our_loss - their_loss) <= 0.02, (our_loss, their_loss)


def test_probability_with_a_precomputed_kernel_and_weights() -> None:
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = _three_classes()
    K = rbf_kernel(X, gamma=0.2)
    gram = SVC(kernel="precomputed", probability=True).fit(K, y, sample_weight=np.linspace(0.5, 2, 300))
    direct = SVC(kernel="rbf", gamma=0.2, probability=True).fit(X, y, sample_weight=np.linspace(0.5, 2, 300))
    # Same model up to the solver tolerance (the precomputed path does not shrink).
    np.testing.assert_allclose(gram.predict_proba(K), direct.predict_proba(X), atol=2e-3)
    weighted = SVC(probability=True, class_weight="balanced").fit(X, y)
    np.testing.assert_allclose(weighted.predict_proba(X).sum(axis=1), 1.0)


def test_the_squared_hinge_has_probabilities_too() -> None:
    # Platt's sigmoids on the L2-SVM's cross-validated values, as for the hinge loss (the
    # probabilities' gallery example fits both).
    X, y = make_classification(n_samples=300, n_features=6, random_state=3)
    clf = SVC(loss="squared_hinge", probability=True, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    assert clf.probA_.shape == (1,) and np.all(np.isfinite(clf.probA_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean((proba[:, 1] > 0.5) == (clf.predict(X) == clf.classes_[1])) > 0.95
