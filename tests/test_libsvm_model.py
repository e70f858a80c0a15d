"""LIBSVM model-file export: LIBSVM's own predictor (libsvm-official's svmutil) reads our models
and predicts what we predict."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.preprocessing import StandardScaler

from fwsvm import SVC, SVR

svmutil = pytest.importorskip("libsvm.svmutil", reason="libsvm-official is not installed")


def _libsvm_predict(path, X, y=None):
    model = svmutil.svm_load_model(str(path))
    rows = [{j + 1: float(v) for j, v in enumerate(r) if v != 0} for r in X]
    labels, _, values = svmutil.svm_predict(list(y) if y is not None else [0] * len(rows), rows, model, "-q")
    return np.asarray(labels), np.asarray(values)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "sigmoid"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_svmutil_predicts_like_fwsvm(tmp_path, kernel: str, n_classes: int) -> None:
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    mask = y < n_classes
    X, y = X[mask], y[mask] + 1
    clf = SVC(kernel=kernel, C=0.5, gamma=0.2, coef0=0.5, degree=2, random_state=0).fit(X, y)
    path = tmp_path / "model.txt"
    clf.save_libsvm_model(path)
    labels, values = _libsvm_predict(path, X, y)
    np.testing.assert_array_equal(labels, clf.predict(X))
    if n_classes == 2:
        # LIBSVM's first label is our positive class: its decision value is ours.
        np.testing.assert_allclose(values[:, 0], clf.decision_function(X), rtol=1e-9, atol=1e-9)
    else:
        ours = SVC(kernel=kernel, C=0.5, gamma=0.2, coef0=0.5, degree=2, random_state=0,
                   decision_function_shape="ovo").fit(X, y).decision_function(X)
        np.testing.assert_allclose(values, ours, rtol=1e-9, atol=1e-9)


def test_svr_export(tmp_path) -> None:
    X, y = load_diabetes(return_X_y=True)
    reg = SVR(random_state=0).fit(X, y)
    path = tmp_path / "svr.txt"
    reg.save_libsvm_model(path)
    labels, _ = _libsvm_predict(path, X)
    np.testing.assert_allclose(labels, reg.predict(X), rtol=1e-9)


def test_unsupported_kernels_are_refused(tmp_path) -> None:
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="laplacian"):
        SVC(kernel="laplacian").fit(X, y).save_libsvm_model(tmp_path / "m")
