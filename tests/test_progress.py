"""Progress output (``verbose``): summary lines per fit and per pair, labelled solver logs, and
the live line drawn when stderr is a terminal. Each case runs in a subprocess to capture the
native code's stderr."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

_THREE_CLASSES = """
import numpy as np
from sklearn.datasets import make_blobs
from fwsvm import SVC
X, y = make_blobs(n_samples=300, centers=3, random_state=0)
labels = np.array(["apple", "banana", "cherry"])[y]
SVC(verbose={verbose}, n_jobs=2).fit(X, labels)
"""


def _stderr(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    return done.stderr


def test_a_quiet_fit_prints_nothing() -> None:
    assert _stderr(_THREE_CLASSES.format(verbose=0)) == ""


def test_verbose_multiclass_prints_one_labelled_summary_per_pair() -> None:
    lines = _stderr(_THREE_CLASSES.format(verbose=1)).splitlines()
    # Pairs run in parallel, so their lines come in any order; each names its classes.
    assert sorted(line.split("]")[0] for line in lines) == [
        "fwsvm: [pair 1/3: apple vs banana",
        "fwsvm: [pair 2/3: apple vs cherry",
        "fwsvm: [pair 3/3: banana vs cherry",
    ]
    for line in lines:
        assert "] converged after " in line and " support vectors" in line


def test_verbose_two_labels_every_solver_line_with_its_pair() -> None:
    code = _THREE_CLASSES.replace("SVC(", "SVC(loss='squared_hinge', ").format(verbose=2)
    lines = _stderr(code).splitlines()
    assert lines and all(line.startswith("fwsvm: [pair ") for line in lines)
    # The solver's own log (its start line) besides the summaries.
    assert any(" on " in line and " slots" in line for line in lines)
    assert sum("relative duality gap" in line for line in lines) == 3  # the summaries


def test_verbose_binary_fit_ends_with_a_summary_line() -> None:
    code = """
    from sklearn.datasets import make_classification
    from fwsvm import SVC, SVR, OneClassSVM
    X, y = make_classification(n_samples=200, random_state=0)
    SVC(verbose=True).fit(X, y)
    SVR(verbose=True).fit(X, y.astype(float))
    OneClassSVM(verbose=True).fit(X)
    """
    lines = _stderr(code).splitlines()
    assert len(lines) == 3
    assert all(line.startswith("fwsvm: converged after ") for line in lines), lines


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_long_fit_draws_a_live_line_on_a_terminal() -> None:
    # A fit that runs ~3 s (plain Frank-Wolfe to an unreachable tolerance, stopped by the time
    # limit) with stderr on a pseudo-terminal: the live line shows steps, the gap and tol, the
    # support vectors and the elapsed time, and is cleared before the summary line.
    code = textwrap.dedent("""
    import warnings
    import numpy as np
    from sklearn.datasets import make_classification
    from fwsvm import _core
    from fwsvm._native import features_arg
    X, y = make_classification(n_samples=3000, n_features=10, random_state=0, flip_y=0.2)
    out = _core.fit_svc(features_arg(X), np.where(y == 1, 1.0, -1.0), dict(c=1e4, kernel="rbf", gamma=0.5,
        degree=3, coef0=0.0, algorithm="fw", tol=1e-12, stopping="absolute_gap", max_iter=-1,
        cache_size=50.0, init="random", seed=0, n_threads=1, time_limit=3.0, verbose=1))
    assert out["exit_reason"] == "time_limit"
    """)
    leader, follower = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=follower,
                                env={**os.environ, "COLUMNS": "200"})
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the terminal closes when the child exits
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(leader)
    text = b"".join(chunks).decode(errors="replace")
    assert "step " in text and "gap " in text and "(tol 1e-12)" in text and " SV " in text
    assert "\x1b[2K" in text  # the line is redrawn in place
    assert "fwsvm: time_limit after " in text.split("\x1b[2K")[-1]
