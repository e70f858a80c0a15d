"""fwsvm.SVR (L2-SVR with a learned tube width)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR as LibsvmSVR

from fwsvm import SVR


def _tuned_r2(make, grid, X, y, Xt, yt) -> float:
    order = np.random.default_rng(0).permutation(len(y))
    cut = int(0.8 * len(order))
    tr, va = order[:cut], order[cut:]
    scores = [make(**p).fit(X[tr], y[tr]).score(X[va], y[va]) for p in grid]
    return make(**grid[int(np.argmax(scores))]).fit(X, y).score(Xt, yt)


def test_r2_comparable_to_sklearn_on_diabetes() -> None:
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0)
    cs = [2.0**k for k in (-3, -1, 1, 3, 5, 7, 9)]
    ours = _tuned_r2(lambda **p: SVR(loss="squared_epsilon_insensitive", gamma=0.05, random_state=0, **p), [dict(C=c) for c in cs], X, y, Xt, yt)
    ref = _tuned_r2(lambda **p: LibsvmSVR(gamma=0.05, **p), [dict(C=c) for c in cs], X, y, Xt, yt)
    print(f"R2 fwsvm {ours:.4f}, LIBSVM {ref:.4f}")
    assert ours >= ref - 0.05


def test_linear_target_is_fitted_and_epsilon_follows_kkt() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = 3 * X[:, 0] - 2 * X[:, 1] + 5 + 0.1 * rng.normal(size=200)
    model = SVR(loss="squared_epsilon_insensitive", kernel="linear", C=10.0, tol=1e-9, random_state=0).fit(X, y)
    assert model.score(X, y) > 0.99
    # KKT: support vectors sit on or outside the tube |y − f| = ε (+ their slack).
    resid = np.abs(y[model.support_] - model.predict(X[model.support_]))
    assert np.all(resid >= model.epsilon_ - 1e-6 * model.y_scale_)
    # Units: predictions are in the units of y.
    np.testing.assert_allclose(model.predict(X).mean(), y.mean(), rtol=0.05)


def test_sparse_dense_and_pickle() -> None:
    X, y = load_diabetes(return_X_y=True)
    dense = SVR(loss="squared_epsilon_insensitive", C=1.0, random_state=0).fit(X, y)
    sparse = SVR(loss="squared_epsilon_insensitive", C=1.0, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.predict(X), sparse.predict(X), rtol=1e-8)
    again = pickle.loads(pickle.dumps(dense))
    np.testing.assert_array_equal(again.predict(X), dense.predict(X))


def test_bad_parameters() -> None:
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="'nu'"):
        SVR(loss="squared_epsilon_insensitive", nu=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        SVR(loss="squared_epsilon_insensitive", ).fit(X, np.r_[y[:-1], np.nan])


def test_sampling_reaches_the_same_optimum() -> None:
    rng = np.random.default_rng(5)
    X = rng.uniform(-3, 3, size=(2000, 2))
    y = np.sin(X[:, 0]) + 0.05 * rng.normal(size=2000)
    full = SVR(loss="squared_epsilon_insensitive", C=10.0, tol=1e-5, random_state=0).fit(X, y)
    sampled = SVR(loss="squared_epsilon_insensitive", C=10.0, tol=1e-5, sample_size=3, random_state=0).fit(X, y)
    assert sampled.convergence_["sampled_steps"] > 0
    f, s = full.convergence_["objective"], sampled.convergence_["objective"]
    assert abs(f - s) <= 2e-5 * abs(f)
    np.testing.assert_allclose(sampled.predict(X[:200]), full.predict(X[:200]), atol=1e-2)


def test_a_tube_wider_than_the_targets_has_no_support_vectors_and_predicts_the_intercept() -> None:
    # Every target inside the ε-tube: no support vectors, as scikit-learn's; the prediction is
    # the intercept for every row (an expansion without terms is 0, not an empty array).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = 0.1 * X[:, 0]
    model, reference = SVR(epsilon=100.0).fit(X, y), LibsvmSVR(epsilon=100.0).fit(X, y)
    assert len(model.support_) == len(reference.support_) == 0 and model.dual_coef_.shape == (1, 0)
    np.testing.assert_allclose(model.predict(X), reference.predict(X), atol=1e-12)
    assert model.predict(X).shape == (50,)
