"""fwsvm.OneClassSVM (SVDD / minimum enclosing ball with squared slacks)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import roc_auc_score
from sklearn.svm import OneClassSVM as LibsvmOneClassSVM

from fwsvm import OneClassSVM


def _planted(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(950, 2)), rng.uniform(-6, 6, size=(50, 2))]
    truth = np.r_[np.ones(950), -np.ones(50)]
    return X, truth


@pytest.mark.parametrize("nu", [0.05, 0.1])
def test_planted_outliers_detected_as_well_as_sklearn(nu: float) -> None:
    X, truth = _planted()
    ours = OneClassSVM(loss="squared_hinge", nu=nu, gamma=0.5, random_state=0).fit(X)
    ref = LibsvmOneClassSVM(nu=nu, gamma=0.5).fit(X)
    auc = roc_auc_score(truth, ours.score_samples(X))
    auc_ref = roc_auc_score(truth, ref.score_samples(X))
    assert auc >= auc_ref - 0.02, (auc, auc_ref)
    # nu is the fraction of training points flagged.
    assert abs(np.mean(ours.predict(X) == -1) - nu) < 0.01
    recall = np.mean(ours.predict(X)[truth == -1] == -1)
    assert recall > 0.6


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_support_vectors_satisfy_the_kkt_conditions(kernel: str) -> None:
    # At the optimum every support vector sits at ‖φ(x) − c‖² = R² + 2α/C, i.e.
    # score_samples = −2α/C, and every other point inside the ball of radius R.
    X, _ = _planted(1)
    X = X[:300] / 3
    clf = OneClassSVM(loss="squared_hinge", nu=0.1, kernel=kernel, gamma=0.5, coef0=1.0, degree=2, tol=1e-10, random_state=0).fit(X)
    alpha = clf.dual_coef_[0]
    scores = clf.score_samples(X)
    np.testing.assert_allclose(scores[clf.support_], -2 * alpha / clf._C, atol=1e-6)
    others = np.setdiff1d(np.arange(len(X)), clf.support_)
    assert np.all(scores[others] >= -1e-6)
    assert abs(alpha.sum() - 1) < 1e-12


def test_sparse_and_dense_agree_and_pickle() -> None:
    X, _ = _planted(2)
    X[np.abs(X) < 0.5] = 0
    dense = OneClassSVM(loss="squared_hinge", gamma=0.3, random_state=0).fit(X)
    sparse = OneClassSVM(loss="squared_hinge", gamma=0.3, random_state=0).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(sp.csr_matrix(X)), rtol=1e-8, atol=1e-10)
    again = pickle.loads(pickle.dumps(dense))
    np.testing.assert_array_equal(again.predict(X), dense.predict(X))


def test_bad_parameters() -> None:
    X, _ = _planted()
    with pytest.raises(ValueError, match="'nu'"):
        OneClassSVM(loss="squared_hinge", nu=1.5).fit(X)
    with pytest.raises(ValueError, match="'init'"):
        OneClassSVM(loss="squared_hinge", init="closest_pair").fit(X)
    with pytest.raises(ValueError, match="NaN|infinity"):
        OneClassSVM(loss="squared_hinge", ).fit(np.array([[0.0, np.nan]]))


def test_sampling_reaches_the_same_ball() -> None:
    X, _ = _planted(3)
    X = np.r_[X, np.random.default_rng(4).normal(size=(5000, 2))]
    full = OneClassSVM(loss="squared_hinge", nu=0.01, tol=1e-6, random_state=0).fit(X)
    sampled = OneClassSVM(loss="squared_hinge", nu=0.01, tol=1e-6, sample_size=5, random_state=0).fit(X)
    assert full.convergence_["sampled_steps"] == 0
    assert sampled.convergence_["sampled_steps"] > 0
    f, s = full.convergence_["objective"], sampled.convergence_["objective"]
    assert abs(f - s) <= 2e-6 * abs(f)
    np.testing.assert_allclose(sampled.decision_function(X[:200]), full.decision_function(X[:200]), atol=1e-3)


def test_the_balls_default_tolerance_is_relative_to_what_the_fit_changes() -> None:
    """Issue 32: tol bounds the duality gap relative to αᵀQα, not to R̃², which holds the
    constant 1 + 1/C (≈ ν·n at the default C): measured against R̃² the default stopped after
    about two thousand steps whatever the size."""
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(4000, 5, centers=3, random_state=0)
    fit = OneClassSVM(loss="squared_hinge", nu=0.1, gamma=0.5).fit(X)
    c = fit.convergence_
    assert c["exit_reason"] == "converged"
    assert c["gap"] <= 1e-3 * c["quadratic"] * (1 + 1e-9)
    tight = OneClassSVM(loss="squared_hinge", nu=0.1, gamma=0.5, tol=1e-9).fit(X)
    assert (fit.predict(X) == tight.predict(X)).mean() >= 0.995
