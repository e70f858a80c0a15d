"""A model trained and saved by the Rust API loads in Python and predicts identically.

The Rust side is ``examples/train_file.rs`` (``cargo run --example train_file``: the build that
``cargo test`` made), which fits with ``Svc``/``Svr``/``OneClass``, writes the model with ``save``
and its own predictions to a text file; Python reads the model with ``fwsvm.load_model``. Skipped
when cargo is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fwsvm import SVC, SVR, OneClassSVM, dump_svmlight_file, load_model, load_svmlight_file

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    shutil.which("cargo") is None or not (ROOT / "Cargo.toml").exists(),
    reason="cargo (and the crate's sources) are needed to train a model with the Rust API",
)


def _train_in_rust(tmp_path: Path, X: np.ndarray, y: np.ndarray, *flags: str):
    data = tmp_path / "train.svm"
    dump_svmlight_file(X, y, data, zero_based=False)
    model, predictions = tmp_path / "model.fwm", tmp_path / "predictions.txt"
    run = subprocess.run(
        ["cargo", "run", "--quiet", "--example", "train_file", "--",
         str(data), "--save", str(model), "--predictions", str(predictions), *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    X_read, _ = load_svmlight_file(data, n_features=X.shape[1])
    return load_model(model), X_read, np.loadtxt(predictions)


def test_help_is_usage_not_a_file() -> None:
    run = subprocess.run(
        ["cargo", "run", "--quiet", "--example", "train_file", "--", "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )
    assert run.returncode == 0 and run.stdout.startswith("usage: train_file"), run.stderr[-2000:]
    run = subprocess.run(
        ["cargo", "run", "--quiet", "--example", "train_file"],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )
    assert run.returncode == 2 and "no training file given" in run.stderr


def test_multiclass_svc_saved_in_rust_predicts_identically_in_python(tmp_path) -> None:
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0, 0.0], [3.0, 0.0, 1.0], [0.0, 3.0, -1.0]])
    y = np.repeat([1.0, 2.0, 3.0], 40)
    X = centres[(y - 1).astype(int)] + rng.normal(size=(120, 3))
    est, X_read, rust = _train_in_rust(tmp_path, X, y, "-c", "2", "-g", "0.5")
    assert isinstance(est, SVC)
    np.testing.assert_array_equal(est.classes_, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(est.predict(X_read), rust)
    assert est.score(X_read, y) > 0.85


def test_svr_saved_in_rust_predicts_identically_in_python(tmp_path) -> None:
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, size=(80, 2))
    y = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    est, X_read, rust = _train_in_rust(tmp_path, X, y, "--svr", "-c", "5")
    assert isinstance(est, SVR)
    np.testing.assert_allclose(est.predict(X_read), rust, rtol=1e-12, atol=1e-12)


def test_one_class_saved_in_rust_predicts_identically_in_python(tmp_path) -> None:
    X = np.random.default_rng(2).normal(size=(100, 2))
    est, X_read, rust = _train_in_rust(tmp_path, X, np.zeros(100), "--one-class", "--nu", "0.1")
    assert isinstance(est, OneClassSVM)
    np.testing.assert_array_equal(est.predict(X_read), rust)
    # Saved again by Python, it is the same model.
    est.save(tmp_path / "again.fwm")
    np.testing.assert_array_equal(load_model(tmp_path / "again.fwm").decision_function(X_read), est.decision_function(X_read))
