"""Shared fixtures: the LIBSVM datasets in ../shared/data (tests skip when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

DATA_DIR = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def shared_file(name: str) -> Path:
    path = DATA_DIR / name
    if not path.exists():
        pytest.skip(f"{name} not found in {DATA_DIR}")
    return path


def load_libsvm_dense(name: str, n_features: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A small LIBSVM file from ../shared/data as a dense array (scikit-learn's reader)."""
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(shared_file(name)), n_features=n_features)
    return X.toarray(), y


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)
