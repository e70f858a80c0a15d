"""Shared fixtures: the LIBSVM datasets in ../shared/data (tests skip when absent), the Dask
tests' LocalClusters, and the scripts under scripts/ that tests import."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def client():
    """A two-worker LocalCluster's client, one per test module."""
    with dask_client(2) as c:
        yield c


@pytest.fixture(scope="module")
def doomed_client():
    """A cluster of three workers for the tests that kill one each (no test waits for a
    killed worker to come back: under load its restart took minutes)."""
    with dask_client(3) as c:
        yield c


def yes_no_classification(n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """A binary problem of five features (three informative, 5% flipped) with labels "yes" and "no"."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_samples, n_features=5, n_informative=3, flip_y=0.05, random_state=0)
    return X, np.where(y == 1, "yes", "no")


def dask_rows_with_non_finite(chunks: str):
    """200 rows of five features as a dask array of 50-row blocks ("dense" or "sparse" CSR
    chunks) with a NaN in row 150 and an inf in row 160, and labels ±1."""
    import dask.array as da
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    X = rng.random((200, 5))
    y = np.where(X[:, 0] > 0.5, 1, -1)
    X[150, 2] = np.nan
    X[160, 1] = np.inf
    if chunks == "dense":
        return da.from_array(X, chunks=(50, 5)), y
    return da.from_array(sp.csr_matrix(X), chunks=(50, 5), asarray=False), y


def worker_and_pid(client, which: int = 0) -> tuple[str, int]:
    """The address and process id of the cluster's ``which``-th worker (in address order)."""
    worker = sorted(client.scheduler_info()["workers"])[which]
    return worker, client.run(os.getpid, workers=[worker])[worker]


@contextlib.contextmanager
def kill_once_busy(client, worker: str, pid: int):
    """While the block runs, a thread SIGKILLs ``worker`` (process ``pid``) as soon as it
    processes a task — not after a fixed delay, which on a loaded machine may fall before the
    work or after it. Yields a dict that gets ``"at"``, the ``time.perf_counter()`` of the kill."""
    done = threading.Event()
    killed: dict[str, float] = {}

    def kill_when_busy() -> None:
        while not done.is_set():
            if client.processing(workers=[worker]).get(worker):
                os.kill(pid, signal.SIGKILL)
                killed["at"] = time.perf_counter()
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_when_busy)
    killer.start()
    try:
        yield killed
    finally:
        done.set()
        killer.join()


def load_script(name: str):
    """``scripts/<name>.py`` imported as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
