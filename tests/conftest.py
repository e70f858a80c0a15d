"""Shared fixtures: the LIBSVM datasets in ../shared/data (tests skip when absent)."""

from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def dask_client(n_workers: int = 2):
    """A ``distributed.Client`` on a LocalCluster of ``n_workers`` one-thread worker processes on
    loopback, started by the test (any free dashboard port), closed afterwards."""
    import distributed

    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", host="127.0.0.1")
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()
