"""kernel="precomputed" and callable kernels (scikit-learn's conventions) give the same models
as the built-in kernels they reproduce."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from fwsvm import SVC, SVR


def _data(multiclass: bool):
    X, y = load_iris(return_X_y=True)
    if not multiclass:
        X, y = X[y < 2], y[y < 2]
    X = StandardScaler().fit_transform(X)
    return train_test_split(X, y, test_size=0.3, random_state=0)


@pytest.mark.parametrize("multiclass", [False, True])
@pytest.mark.parametrize("shape", ["ovr", "ovo"])
def test_precomputed_and_callable_match_rbf_svc(multiclass: bool, shape: str) -> None:
    X, Xt, y, yt = _data(multiclass)
    kw = dict(C=2.0, tol=1e-10, random_state=0, decision_function_shape=shape)
    ref = SVC(kernel="rbf", gamma=0.3, **kw).fit(X, y)
    pre = SVC(kernel="precomputed", **kw).fit(rbf_kernel(X, X, gamma=0.3), y)
    fun = SVC(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.3), **kw).fit(X, y)
    expected = ref.decision_function(Xt)
    np.testing.assert_allclose(pre.decision_function(rbf_kernel(Xt, X, gamma=0.3)), expected, atol=1e-7)
    np.testing.assert_allclose(fun.decision_function(Xt), expected, atol=1e-7)
    np.testing.assert_array_equal(pre.predict(rbf_kernel(Xt, X, gamma=0.3)), ref.predict(Xt))
    np.testing.assert_array_equal(pre.support_, ref.support_)
    assert pre.support_vectors_.shape == (0, 0)


def test_precomputed_svr_matches_rbf() -> None:
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ref = SVR(kernel="rbf", gamma=0.05, C=1.0, tol=1e-10, random_state=0).fit(X, y)
    pre = SVR(kernel="precomputed", C=1.0, tol=1e-10, random_state=0).fit(rbf_kernel(X, X, gamma=0.05), y)
    np.testing.assert_allclose(pre.predict(rbf_kernel(X[:20], X, gamma=0.05)), ref.predict(X[:20]), rtol=1e-6)
    assert abs(pre.epsilon_ - ref.epsilon_) < 1e-6 * abs(ref.epsilon_) + 1e-9


def test_precomputed_shape_errors() -> None:
    X, _, y, _ = _data(False)
    with pytest.raises(ValueError, match="square"):
        SVC(kernel="precomputed").fit(X, y)
    clf = SVC(kernel="precomputed").fit(rbf_kernel(X, X), y)
    with pytest.raises(ValueError, match="number of samples at training time|features"):
        clf.predict(rbf_kernel(X[:5], X[:10]))


def test_the_fitted_kernel_decides_how_queries_are_read_after_set_params() -> None:
    # A precomputed fit keeps reading kernel values after set_params(kernel="rbf"), as the
    # other fitted settings do (_kernel_fit_): the model is the fit's, not today's parameters'.
    from sklearn.datasets import make_classification

    from fwsvm import SVC

    X, y = make_classification(n_samples=80, n_features=4, random_state=0)
    K = X @ X.T
    clf = SVC(kernel="precomputed").fit(K, y)
    before = clf.decision_function(K)
    clf.set_params(kernel="rbf")
    np.testing.assert_array_equal(clf.decision_function(K), before)
    assert clf.support_vectors_.shape == (0, 0)
