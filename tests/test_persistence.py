"""Persistence: pickle/joblib and the versioned binary model format, including corrupt,
truncated and newer-version files."""

from __future__ import annotations

import pickle
import struct

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes, load_iris, make_classification

from conftest import load_script
from fwsvm import (
    SGDSVC,
    SVC,
    SVR,
    CrammerSingerSVC,
    ModelFormatError,
    Nystroem,
    OneClassSVM,
    RandomFourierFeatures,
    load_model,
)
from fwsvm.persistence import FORMAT_VERSION


def _fitted():
    X, y = load_iris(return_X_y=True)
    Xd, yd = load_diabetes(return_X_y=True)
    yield "svc-binary", SVC(C=2.0, random_state=0).fit(X[y < 2], y[y < 2]), X
    yield "svc-multiclass", SVC(C=2.0, decision_function_shape="ovo", random_state=0).fit(X, y), X
    yield "svc-sparse", SVC(random_state=0).fit(sp.csr_matrix(X), y), sp.csr_matrix(X)
    yield "svc-precomputed", SVC(kernel="precomputed").fit(X @ X.T, y), X @ X.T
    yield "one-class", OneClassSVM(random_state=0).fit(X), X
    yield "svr", SVR(random_state=0).fit(Xd, yd), Xd
    # Issue 33: every fitted estimator saves in the versioned format.
    yield "crammer-singer", CrammerSingerSVC(C=2.0, random_state=0).fit(X, y), X
    yield "crammer-singer-sparse", CrammerSingerSVC(kernel="poly", random_state=0).fit(sp.csr_matrix(X), y), \
        sp.csr_matrix(X)
    yield "sgd-binary", SGDSVC(random_state=0, tol=0.1).fit(X[y < 2], y[y < 2]), X
    yield "sgd-multiclass", SGDSVC(loss="squared_hinge", tol=0.1, random_state=0).fit(
        X, np.array(["a", "b", "c"])[y]), X
    yield "nystroem", Nystroem(n_components=20, random_state=0).fit(X), X
    yield "nystroem-sparse", Nystroem(kernel="laplacian", n_components=20, random_state=0).fit(
        sp.csr_matrix(X)), sp.csr_matrix(X)
    yield "fourier", RandomFourierFeatures(n_components=30, random_state=0).fit(X), X
    yield "fourier-laplacian", RandomFourierFeatures(kernel="laplacian", gamma=0.5, n_components=30,
                                                     random_state=0).fit(X), X


def _outputs(est, X):
    if not hasattr(est, "predict"):
        return [est.transform(X)]
    out = [est.predict(X)]
    if hasattr(est, "decision_function"):
        out.append(est.decision_function(X))
    return out


@pytest.mark.parametrize("name, est, X", list(_fitted()), ids=[n for n, _, _ in _fitted()])
def test_round_trips_give_identical_predictions(tmp_path, name, est, X) -> None:
    expected = _outputs(est, X)
    path = tmp_path / "model.fwsvm"
    est.save(path)
    for again in (load_model(path), type(est).load(path), pickle.loads(pickle.dumps(est))):
        for a, b in zip(_outputs(again, X), expected):
            np.testing.assert_array_equal(a, b)
    joblib.dump(est, tmp_path / "model.joblib")
    for a, b in zip(_outputs(joblib.load(tmp_path / "model.joblib"), X), expected):
        np.testing.assert_array_equal(a, b)


def _saved(tmp_path):
    X, y = load_iris(return_X_y=True)
    path = tmp_path / "m.fwsvm"
    SVC(random_state=0).fit(X, y).save(path)
    return path, path.read_bytes()


def test_truncated_file(tmp_path) -> None:
    path, blob = _saved(tmp_path)
    for cut in (10, len(blob) // 2, len(blob) - 1):
        path.write_bytes(blob[:cut])
        with pytest.raises(ModelFormatError, match="truncated"):
            load_model(path)


def test_corrupted_file(tmp_path) -> None:
    path, blob = _saved(tmp_path)
    damaged = bytearray(blob)
    damaged[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(damaged))
    with pytest.raises(ModelFormatError, match="corrupted"):
        load_model(path)


def test_newer_version_and_foreign_files(tmp_path) -> None:
    path, blob = _saved(tmp_path)
    newer = blob[:8] + struct.pack("<H", FORMAT_VERSION + 1) + blob[10:]
    path.write_bytes(newer)
    with pytest.raises(ModelFormatError, match="newer"):
        load_model(path)
    path.write_bytes(b"this is not a model at all, just text")
    with pytest.raises(ModelFormatError, match="not an fwsvm model"):
        load_model(path)
    path.write_bytes(blob)
    with pytest.raises(ModelFormatError, match="not a SVR"):
        SVR.load(path)


def test_unfitted_and_callable_models_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="not fitted"):
        SVC().save(tmp_path / "x")
    X, y = load_iris(return_X_y=True)
    clf = SVC(kernel=lambda a, b: a @ b.T).fit(X, y)
    with pytest.raises(ValueError, match="callable"):
        clf.save(tmp_path / "x")


def _tamper(path, edit) -> None:
    """Rewrite a saved model's payload through ``edit(meta, files)`` with a valid checksum."""
    path.write_bytes(load_script("make_fuzz_corpus").tampered(path, edit))


def test_crafted_model_files_are_refused(tmp_path) -> None:
    import scipy.sparse as sp

    from fwsvm import SVC, ModelFormatError, load_model

    rng = np.random.default_rng(0)
    X = sp.random(80, 6, density=0.5, format="csr", random_state=0)
    y = rng.integers(0, 3, 80)
    path = tmp_path / "m.fwm"

    def edit(fn):
        SVC(gamma=0.5).fit(X, y).save(path)
        _tamper(path, fn)
        with pytest.raises(ModelFormatError):
            load_model(path)

    def corrupt_indptr(meta, files):
        indptr = files["support_vectors_.csr.indptr"].copy()
        indptr[3] = 10**6
        files["support_vectors_.csr.indptr"] = indptr

    edit(corrupt_indptr)  # was a "double free or corruption" at predict
    edit(lambda meta, files: meta["scalars"].update(predict=1))  # any attribute was set
    edit(lambda meta, files: meta["scalars"].update(__class__="x"))
    edit(lambda meta, files: meta["params"].update(kernel="evil"))  # parameters unchecked
    edit(lambda meta, files: meta["params"].update(C=-1.0))
    edit(lambda meta, files: files.update(dual_coef_=files["dual_coef_"][:, :3]))  # shapes
    edit(lambda meta, files: files.update(n_support_=files["n_support_"] + 1))
    # Untouched, it loads and predicts as the original.
    model = SVC(gamma=0.5).fit(X, y)
    model.save(path)
    np.testing.assert_array_equal(load_model(path).predict(X), model.predict(X))


def test_a_crammer_singer_file_with_inconsistent_parts_is_refused(tmp_path) -> None:
    # Its fitted attributes are read-only views of the Rust model, which cannot be made
    # inconsistent; a file whose coefficients do not match its support vectors is refused.
    X, y = load_iris(return_X_y=True)
    est = CrammerSingerSVC().fit(X, y)
    with pytest.raises(AttributeError):
        est.dual_coef_ = est.dual_coef_[:, :-1]
    path = _saved_as(tmp_path, est)
    _tamper(path, lambda meta, files: files.update(dual_coef_=files["dual_coef_"][:, :-1]))
    with pytest.raises(ModelFormatError, match="inconsistent"):
        CrammerSingerSVC.load(path)
    np.testing.assert_array_equal(CrammerSingerSVC.load(_saved_as(tmp_path, est)).predict(X), est.predict(X))


@pytest.mark.parametrize("cls, fit, attribute, bad", [
    (SGDSVC, lambda X, y: SGDSVC(tol=0.1).fit(X, y), "coef_", lambda a: a[:, :-1]),
    (SGDSVC, lambda X, y: SGDSVC(tol=0.1).fit(X, y), "intercept_", lambda a: np.full_like(a, np.nan)),
    (Nystroem, lambda X, y: Nystroem(n_components=10).fit(X), "normalization_", lambda a: a[:-1]),
    (RandomFourierFeatures, lambda X, y: RandomFourierFeatures(n_components=10).fit(X), "random_offset_",
     lambda a: a[:-1]),
])
def test_the_new_estimators_files_are_checked(tmp_path, cls, fit, attribute, bad) -> None:
    # A shape or value that would index out of range or predict NaN is refused on save and on load.
    import warnings

    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = fit(X, y)
    setattr(est, attribute, bad(getattr(est, attribute)))
    with pytest.raises(ModelFormatError, match="inconsistent model|non-finite"):
        est.save(tmp_path / "bad.fwm")
    assert not (tmp_path / "bad.fwm").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        good = _saved_as(tmp_path, fit(X, y))
    with pytest.raises(ModelFormatError, match="holds a"):
        SVC.load(good)


def _saved_as(tmp_path, est):
    path = tmp_path / "good.fwm"
    est.save(path)
    return path


def test_a_warm_start_record_survives_the_file_and_a_malformed_one_is_refused(tmp_path) -> None:
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    path = tmp_path / "warm.fwm"
    SVC(warm_start=True).fit(X, y).save(path)
    loaded = SVC.load(path)
    assert list(loaded._warm_from) == [120, "hinge", 1.0]
    # The loaded model warm-starts the next fit: the same model as a cold fit at that C.
    loaded.set_params(C=2.0, tol=1e-6).fit(X, y)
    cold = SVC(C=2.0, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(loaded.decision_function(X), cold.decision_function(X), atol=1e-4)
    loaded._warm_from = ("many", "hinge", -1.0)
    with pytest.raises(ModelFormatError, match="_warm_from"):
        loaded.save(path)  # checked as it is written, and as it is read
