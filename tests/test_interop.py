"""to_sklearn(): an equivalent scikit-learn estimator that LIBSVM evaluates identically."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes, load_iris
from sklearn.preprocessing import StandardScaler

from fwsvm import SVC, SVR, OneClassSVM


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_svc_to_sklearn_predicts_identically(kernel: str, n_classes: int, sparse: bool) -> None:
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X, y = X[y < n_classes], y[y < n_classes]
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    ours = SVC(kernel=kernel, C=0.5, gamma=0.2, coef0=0.5, degree=2, random_state=0).fit(X, y)
    theirs = ours.to_sklearn()
    np.testing.assert_array_equal(theirs.predict(X), ours.predict(X))
    np.testing.assert_allclose(theirs.decision_function(X), ours.decision_function(X), rtol=1e-10, atol=1e-10)
    assert list(theirs.n_support_) == list(ours.n_support_)


def test_svr_to_sklearn_predicts_identically() -> None:
    X, y = load_diabetes(return_X_y=True)
    ours = SVR(random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.to_sklearn().predict(X), ours.predict(X), rtol=1e-10)


def test_unsupported_models() -> None:
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="laplacian"):
        SVC(kernel="laplacian").fit(X, y).to_sklearn()
    with pytest.raises(ValueError, match="only with the rbf kernel"):
        OneClassSVM(loss="squared_hinge", kernel="linear").fit(X).to_sklearn()


def test_one_class_to_sklearn_predicts_identically() -> None:
    X, _ = load_iris(return_X_y=True)
    ours = OneClassSVM(nu=0.1, gamma=0.3, random_state=0).fit(X)
    theirs = ours.to_sklearn()
    np.testing.assert_allclose(theirs.decision_function(X), ours.decision_function(X), rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(theirs.predict(X), ours.predict(X))


# skl2onnx 1.20 reads SVC.probA_, which scikit-learn 1.9 deprecates.
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_onnx_export_through_skl2onnx() -> None:
    skl2onnx = pytest.importorskip("skl2onnx", reason="skl2onnx is not installed")
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    X, y = load_iris(return_X_y=True)
    X = X.astype(np.float32)
    ours = SVC(C=1.0, gamma=0.3, random_state=0).fit(X, y)
    onx = skl2onnx.to_onnx(ours.to_sklearn(), X[:1])
    sess = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    labels = sess.run(None, {sess.get_inputs()[0].name: X})[0]
    assert np.mean(labels == ours.predict(X)) > 0.99
