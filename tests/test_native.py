"""The native boundary: GIL release, Ctrl-C, thread knobs."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification

from fwsvm import SVC, _core


def _fit_kwargs(**over):
    kw = dict(c=1e4, kernel="rbf", gamma=0.5, degree=3, coef0=0.0, algorithm="fw", tol=1e-12,
              stopping="absolute_gap", max_iter=-1, cache_size=50.0, init="random", seed=0, n_threads=1,
              time_limit=60.0)
    kw.update(over)
    return kw


def test_ctrl_c_stops_a_running_fit_and_the_gil_is_released() -> None:
    X, y = make_classification(n_samples=3000, n_features=10, random_state=0, flip_y=0.2)
    y_pm = np.where(y == 1, 1.0, -1.0)
    ticks = []

    def tick_then_interrupt():
        # Another thread runs Python while the fit works (the GIL is released), then sends what
        # Ctrl-C sends: SIGINT, whose handler runs on the main thread. The fit (plain
        # Frank-Wolfe to tol 1e-12) runs until interrupted or for 60 s, so counting a fixed
        # number of ticks, however slowly a loaded machine lets them come, cannot outlast it.
        while len(ticks) < 20:
            ticks.append(time.perf_counter())
            time.sleep(0.01)
        _thread.interrupt_main()

    # A runner in the background of a non-interactive shell ignores SIGINT: Python's handler here.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=tick_then_interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            _core.fit_svc_model((X, y_pm), _fit_kwargs())
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(ticks) == 20


def test_a_fit_on_another_thread_returns_its_model() -> None:
    # The calling thread waits for the work and checks for signals (a no-op off the main thread).
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    out = {}
    worker = threading.Thread(target=lambda: out.update(
        model=_core.fit_svc_model((X, np.where(y == 1, 1.0, -1.0)), _fit_kwargs(c=1.0, tol=1e-3))))
    worker.start()
    worker.join(60)
    assert out["model"].statistics()["exit_reason"] == ["converged"]


def test_time_limit_stops_with_a_warning() -> None:
    X, y = make_classification(n_samples=2000, n_features=10, random_state=0, flip_y=0.2)
    y_pm = np.where(y == 1, 1.0, -1.0)
    out = _core.fit_svc_model((X, y_pm), _fit_kwargs(time_limit=0.2)).statistics()
    assert out["exit_reason"] == ["time_limit"]
    assert out["seconds"][0] < 5


def test_history_is_recorded_and_objective_is_monotone() -> None:
    X, y = make_classification(n_samples=300, n_features=5, random_state=1)
    y_pm = np.where(y == 1, 1.0, -1.0)
    for algorithm in ["fw", "mfw", "swap", "swap2o"]:
        out = _core.fit_svc_model((X, y_pm), _fit_kwargs(c=1.0, algorithm=algorithm, tol=1e-3,
                                                                  stopping="gap", max_iter=5000,
                                                                  record_history=True)).statistics()
        h = out["history"][0]
        # One entry per step, then the final state.
        assert len(h["objective"]) == out["n_iter"][0] + 1
        assert h["kind"][-1] == "final"
        assert np.all(np.diff(h["objective"]) >= -1e-12 * np.abs(h["objective"][1:]))
        # "corrective": coreset rounds of the adaptive pairwise methods (swap, swap2o).
        assert set(h["kind"][:-1]) <= {"toward", "away", "drop", "swap_add", "swap_drop", "corrective"}


@pytest.mark.parametrize("n_jobs", [None, -1, 1, 2])
def test_n_jobs_values(n_jobs) -> None:
    X, y = make_classification(n_samples=200, n_features=5, random_state=2)
    SVC(n_jobs=n_jobs, random_state=0).fit(X, y).predict(X)


def test_n_jobs_zero_is_an_error() -> None:
    X, y = make_classification(n_samples=50, n_features=5, random_state=2)
    with pytest.raises(ValueError, match="n_jobs"):
        SVC(n_jobs=0).fit(X, y)


def test_arrays_on_unaligned_buffers_are_accepted() -> None:
    # As Dask's workers receive blocks: float64 data on a buffer offset by 4 bytes.
    X, y = make_classification(n_samples=200, n_features=5, random_state=3)
    unaligned = np.ndarray(shape=X.shape, dtype=np.float64, buffer=bytearray(X.nbytes + 8), offset=4)
    unaligned[:] = X
    assert not unaligned.flags.aligned
    clf = SVC().fit(unaligned, y)
    np.testing.assert_array_equal(clf.predict(unaligned), SVC().fit(X, y).predict(X))


def test_sparse_indices_are_checked_as_they_are_copied() -> None:
    import scipy.sparse as sp

    data, indptr = np.ones(3), np.array([0, 1, 2, 3])
    negative = sp.csr_matrix((data, np.array([0, -1, 2], dtype=np.int32), indptr), shape=(3, 3))
    with pytest.raises(ValueError, match="sparse column index -1 is out of range"):
        _core.data_variance(negative)
    with pytest.raises(ValueError, match=r"sparse column index 8589934592 is out of range \(0 to 2\*\*32 - 1\)"):
        _core.data_variance((data, np.array([0, 2**33, 2], dtype=np.int64), indptr, 3))
    with pytest.raises(ValueError, match="integer array"):
        _core.data_variance((data, np.array([0.0, 1.0, 2.0]), indptr, 3))
    # Duplicates are summed on a copy (the caller's matrix is left as it was).
    dup = sp.csr_matrix((np.array([1.0, 2.0]), np.array([0, 0]), np.array([0, 2])), shape=(1, 2))
    assert not dup.has_canonical_format
    assert _core.data_variance(dup) == pytest.approx(np.var([3.0, 0.0]))
    assert dup.nnz == 2


def test_n_jobs_zero_outside_an_estimator_is_a_value_error_naming_it(tmp_path) -> None:
    from fwsvm import load_svmlight_file

    path = tmp_path / "two.svm"
    path.write_text("1 1:0.5\n-1 2:1\n")
    with pytest.raises(ValueError, match="n_jobs"):
        load_svmlight_file(str(path), n_jobs=0)
    assert load_svmlight_file(str(path), n_jobs=-1)[0].shape == (2, 2)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX-only")
def test_a_forked_child_fits_and_predicts() -> None:
    """multiprocessing's fork start method: the child inherits the parent's idle thread pools
    and call threads but none of their threads; it must build its own, not wait on them."""
    X, y = make_classification(n_samples=2000, n_features=10, random_state=0)
    model = SVC(n_jobs=2).fit(X, y)  # leaves an idle pool and a call thread behind
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if both calls return
        code = 1
        try:
            SVC(n_jobs=2).fit(X, y)
            model.predict(X)
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child's fit did not return within 60 s")
