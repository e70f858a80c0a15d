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


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_models_trained_by_libsvm_import_and_predict_identically(tmp_path, n_classes: int) -> None:
    from fwsvm import load_libsvm_model

    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(200, 5))
    # Labels in an unsorted order of first appearance, as LIBSVM stores them.
    y = np.array([7, -3, 2, 0])[:n_classes][rng.integers(0, n_classes, 200)] * 1.0
    y[0] = [7, -3, 2, 0][n_classes - 1]
    rows = [{j + 1: float(v) for j, v in enumerate(r)} for r in X]
    model = svmutil.svm_train(list(y), rows, "-s 0 -t 2 -g 0.3 -c 2 -q")
    path = tmp_path / "libsvm.model"
    svmutil.svm_save_model(str(path), model)
    ours = load_libsvm_model(path, n_features=5)
    labels, values = _libsvm_predict(path, X, y)
    # Both vote one-vs-one; on a tied vote LIBSVM picks the first label *in its file order*,
    # fwsvm the smallest label, so compare the rows without a tie.
    clear = np.ones(len(X), dtype=bool)
    if n_classes > 2:
        ours.decision_function_shape = "ovo"
        dec = ours.decision_function(X)
        votes = np.zeros((len(X), n_classes), dtype=int)
        p = 0
        for i in range(n_classes):
            for j in range(i + 1, n_classes):
                votes[:, i] += dec[:, p] >= 0
                votes[:, j] += dec[:, p] < 0
                p += 1
        clear = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) == 1
        assert clear.mean() > 0.8
    np.testing.assert_array_equal(ours.predict(X)[clear], labels[clear])
    # And the round trip back out gives LIBSVM the same model.
    again = tmp_path / "again.model"
    ours.save_libsvm_model(again)
    labels2, _ = _libsvm_predict(again, X, y)
    np.testing.assert_array_equal(labels2[clear], labels[clear])


def test_export_import_round_trip(tmp_path) -> None:
    from fwsvm import load_libsvm_model

    X, y = load_iris(return_X_y=True)
    clf = SVC(C=1.0, gamma=0.5, random_state=0, decision_function_shape="ovo").fit(X, y)
    path = tmp_path / "m.txt"
    clf.save_libsvm_model(path)
    back = load_libsvm_model(path)
    back.decision_function_shape = "ovo"
    np.testing.assert_allclose(back.decision_function(X), clf.decision_function(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))


def test_malformed_model_files(tmp_path) -> None:
    from fwsvm import LibsvmModelError, load_libsvm_model

    path = tmp_path / "bad.model"
    path.write_text("svm_type c_svc\nkernel_type rbf\n")
    with pytest.raises(LibsvmModelError, match="no 'SV' section"):
        load_libsvm_model(path)
    path.write_text("svm_type nu_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 -1\nnr_sv 0 0\nSV\n")
    # ν-SVC files are read (as fwsvm.NuSVC), even without support vectors.
    assert type(load_libsvm_model(path)).__name__ == "NuSVC"
    path.write_text("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:x\n")
    with pytest.raises(LibsvmModelError, match="malformed"):
        load_libsvm_model(path)


def test_headers_that_would_drive_huge_allocations_are_refused(tmp_path) -> None:
    # Each header below asked for gigabytes (or failed with an unrelated message) before the
    # support vector lines were counted; the errors now name the offending header line.
    from fwsvm import LibsvmModelError, load_libsvm_model

    body = "svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 2\nrho 0.1\nlabel 1 -1\nnr_sv 1 1\nSV\n"
    svs = "0.5 1:1 2:0.5\n-0.5 1:-1\n"
    cases = {
        "total_sv 2000000000": body.replace("total_sv 2\n", "total_sv 2000000000\n"),
        "nr_class": body.replace("nr_class 2\n", "nr_class 100000000\n"),
        "degree": body.replace("gamma 0.5\n", "gamma 0.5\ndegree 99999999999999999999\n"),
        "negative": body.replace("nr_sv 1 1\n", "nr_sv 3 -1\n"),
        "gamma": body.replace("gamma 0.5\n", ""),
    }
    for what, text in cases.items():
        path = tmp_path / "m.model"
        path.write_text(text + svs)
        with pytest.raises(LibsvmModelError, match=what.split()[0]):
            load_libsvm_model(path)
    # A support vector index of 10^8 stays sparse (densified, two rows took 1.6 GB; the issue's
    # file with more rows took 160 GiB) and the model predicts.
    path = tmp_path / "wide.model"
    path.write_text(body + "0.5 1:1 100000000:0.5\n-0.5 1:-1\n")
    model = load_libsvm_model(path)
    import scipy.sparse as sp

    assert sp.issparse(model.support_vectors_)
    X = sp.csr_matrix(([1.0], ([0], [0])), shape=(1, 100_000_000))
    assert model.predict(X).shape == (1,)


@pytest.mark.parametrize("probability", [False, True])
def test_libsvm_files_keep_their_label_order_for_votes_and_probabilities(tmp_path, probability: bool) -> None:
    # dna's training file lists its labels 3 1 2; LIBSVM breaks one-vs-one vote ties and runs
    # its coupling in that order. Sorting the classes changed 5 of 1,186 test labels and the
    # -b 1 probabilities by up to 3.4e-3.
    from conftest import shared_file
    from libsvm import svmutil

    from fwsvm import load_libsvm_model, load_svmlight_file

    train, test = shared_file("dna.scale"), shared_file("dna.scale.t")
    y, x = svmutil.svm_read_problem(str(train))
    model = svmutil.svm_train(y, x, f"-c 4 -g 0.01 -w1 2 -q -b {int(probability)}")
    path = tmp_path / "dna.model"
    svmutil.svm_save_model(str(path), model)
    assert "label 3 1 2" in path.read_text()
    yt, xt = svmutil.svm_read_problem(str(test))
    theirs, _, values = svmutil.svm_predict(yt, xt, model, f"-q -b {int(probability)}")
    ours = load_libsvm_model(path, n_features=180)
    X, _ = load_svmlight_file(str(test), n_features=180, zero_based=False)
    if probability:
        # svm-predict's columns are in the file's label order.
        proba = ours.predict_proba(X)[:, ours._label_order]
        np.testing.assert_allclose(proba, np.asarray(values), atol=1e-9)
        labels = ours.classes_[ours._label_order][np.argmax(proba, axis=1)]
        np.testing.assert_array_equal(labels, theirs)
    else:
        np.testing.assert_array_equal(ours.predict(X), theirs)


def test_export_writes_the_fitted_kernel_and_huge_n_features_load_sparse(tmp_path) -> None:
    from fwsvm import load_libsvm_model

    X, y = load_iris(return_X_y=True)
    model = SVC(kernel="rbf", gamma=0.5).fit(X, y)
    model.set_params(kernel="laplacian")  # a parameter change after fit is not the fitted model
    path = tmp_path / "iris.model"
    model.save_libsvm_model(path)
    assert "kernel_type rbf" in path.read_text()
    np.testing.assert_array_equal(load_libsvm_model(path).predict(X), model.predict(X))
    # More columns than fit in memory densely (or in a usize product): kept sparse, no overflow.
    wide = load_libsvm_model(path, n_features=2**62)
    assert wide.n_features_in_ == 2**62 and wide.support_vectors_.shape == (len(model.support_), 2**62)
