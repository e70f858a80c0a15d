"""Progress output (``verbose``): summary lines per fit and per pair, labelled solver logs, the
live line drawn when stderr is a terminal, and the same output on Python's ``sys.stderr`` when
that is redirected or a Jupyter cell. The terminal cases run in a subprocess to capture the
native code's stderr."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_classification

from fwsvm import SVC, _core, _progress

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
        assert "(tol 1e-3 on the " in line  # the criterion that stopped it is named


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
    X, y = make_classification(n_samples=3000, n_features=10, random_state=0, flip_y=0.2)
    out = _core.fit_svc_model((X, np.where(y == 1, 1.0, -1.0)), dict(c=1e4, kernel="rbf", gamma=0.5,
        degree=3, coef0=0.0, algorithm="fw", tol=1e-12, stopping="absolute_gap", max_iter=-1,
        cache_size=50.0, init="random", seed=0, n_threads=1, time_limit=3.0, verbose=1))
    assert out.statistics()["exit_reason"] == ["time_limit"]
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


# sys.stderr redirected: the lines go through Python, nothing to file descriptor 2.


def _three_classes() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_blobs(n_samples=300, centers=3, random_state=0)
    return X, np.array(["apple", "banana", "cherry"])[y]


def test_verbose_output_reaches_a_redirected_sys_stderr(capfd) -> None:
    X, y = _three_classes()
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        SVC(verbose=1).fit(X[y != "cherry"], y[y != "cherry"])
        SVC(verbose=1, n_jobs=2).fit(X, y)
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("fwsvm: converged after "), lines
    assert sorted(line.split("]")[0] for line in lines[1:]) == [
        "fwsvm: [pair 1/3: apple vs banana",
        "fwsvm: [pair 2/3: apple vs cherry",
        "fwsvm: [pair 3/3: banana vs cherry",
    ]
    assert capfd.readouterr().err == ""  # none of it went to the process's stderr


def test_verbose_output_is_captured_by_capsys(capsys) -> None:
    X, y = make_classification(n_samples=200, random_state=0)
    SVC(verbose=True, loss="squared_hinge").fit(X, y)
    err = capsys.readouterr().err
    assert err.startswith("fwsvm: converged after ") and "(tol 1e-2 on the relative duality gap)" in err


def test_verbose_two_solver_log_reaches_a_redirected_sys_stderr() -> None:
    X, y = make_classification(n_samples=200, random_state=0)
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        SVC(verbose=2, loss="squared_hinge").fit(X, y)
    lines = buffer.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("fwsvm: ") for line in lines), lines
    assert lines[-1].startswith("fwsvm: converged after ")


def test_sgd_epochs_log_reaches_a_redirected_sys_stderr() -> None:
    # SGD logs from a thread pool's thread, not the one that started the fit.
    from fwsvm import SGDSVC

    X, y = make_classification(n_samples=500, random_state=0)
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        SGDSVC(verbose=1, random_state=0).fit(X, y)
    lines = buffer.getvalue().splitlines()
    assert lines and all(line.startswith("fwsvm: sgd epoch ") for line in lines), lines


def test_a_fit_on_another_thread_writes_its_lines_when_it_returns() -> None:
    X, y = _three_classes()
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        worker = threading.Thread(target=lambda: SVC(verbose=1).fit(X, y))
        worker.start()
        worker.join()
    assert buffer.getvalue().count("fwsvm: [pair ") == 3


class _RecordingBar:
    """Stands in for tqdm: records what a live display was asked to show."""

    events: list[tuple[str, object]] = []

    def __init__(self, **kwargs: object) -> None:
        self.n = 0
        self.events.append(("open", kwargs.get("total")))

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.events.append(("status", text))

    def set_description_str(self, text: str, refresh: bool = True) -> None:
        self.events.append(("status", text))

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.events.append(("close", None))

    @classmethod
    def write(cls, text: str, file: object = None) -> None:
        file.write(text + "\n")  # type: ignore[union-attr]


def test_a_notebook_display_updates_in_place_and_is_closed_before_the_summary(monkeypatch) -> None:
    # As in a Jupyter kernel with tqdm: the live state of a fit longer than 2 s reaches the bar
    # (at most ten updates a second), the bar is closed, then the summary line is written.
    monkeypatch.setattr(_progress, "_notebook_tqdm", lambda: _RecordingBar)
    _RecordingBar.events = []
    X, y = make_classification(n_samples=3000, n_features=10, random_state=0, flip_y=0.2)
    buffer = io.StringIO()
    params = dict(c=1e4, kernel="rbf", gamma=0.5, degree=3, coef0=0.0, algorithm="fw", tol=1e-12,
                  stopping="absolute_gap", max_iter=-1, cache_size=50.0, init="random", seed=0, n_threads=1,
                  time_limit=2.6, verbose=1)
    with contextlib.redirect_stderr(buffer):
        out = _core.fit_svc_model((X, np.where(y == 1, 1.0, -1.0)), params)
    assert out.statistics()["exit_reason"] == ["time_limit"]
    kinds = [kind for kind, _ in _RecordingBar.events]
    assert kinds[0] == "open" and kinds[-1] == "close" and "status" in kinds, kinds
    shown = [text for kind, text in _RecordingBar.events if kind == "status"]
    assert all(t.startswith("step ") and "(tol 1e-12)" in t and " SV " in t for t in shown), shown
    assert len(shown) <= 12  # 0.6 s of live display, at most ten states a second
    assert buffer.getvalue().startswith("fwsvm: time_limit after "), buffer.getvalue()


def test_a_quiet_fit_on_a_redirected_stderr_writes_nothing() -> None:
    X, y = _three_classes()
    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer):
        SVC().fit(X, y)
    assert buffer.getvalue() == ""


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "CrammerSingerSVC", "SGDSVC",
                                  "Nystroem", "RandomFourierFeatures", "SVCSearch", "SVCCV"])
def test_estimators_have_scikit_learns_html_repr(name: str) -> None:
    import fwsvm

    cls = getattr(fwsvm, name)
    est = cls(SVC(C=2.0)) if name == "SVCCV" else cls()
    html = est._repr_html_()  # what a Jupyter cell shows
    assert name in html and "<style" in html, html[:200]


# A Jupyter notebook run: the cell's output holds the progress summary.

_NOTEBOOK_CELLS = [
    """
from sklearn.datasets import make_blobs
from fwsvm import SVC
X, y = make_blobs(n_samples=300, centers=3, random_state=0)
SVC(verbose=1, n_jobs=2).fit(X, y)
""",
    """
import numpy as np
from sklearn.datasets import make_classification
from fwsvm import _core
X, y = make_classification(n_samples=3000, n_features=10, random_state=0, flip_y=0.2)
out = _core.fit_svc_model((X, np.where(y == 1, 1.0, -1.0)), dict(c=1e4, kernel="rbf",
    gamma=0.5, degree=3, coef0=0.0, algorithm="fw", tol=1e-12, stopping="absolute_gap", max_iter=-1,
    cache_size=50.0, init="random", seed=0, n_threads=1, time_limit=2.5, verbose=1))
""",
]


def test_a_notebook_cell_shows_the_progress_summary(tmp_path) -> None:
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install .[test])")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install .[test])")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install .[test])")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c.strip()) for c in _NOTEBOOK_CELLS])
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    fit, long_fit = notebook.cells

    def stderr_of(cell) -> str:
        return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream" and o.name == "stderr")

    summary = stderr_of(fit)
    assert summary.count("fwsvm: [pair ") == 3 and " converged after " in summary, fit.outputs
    # The cell's value is the fitted estimator, shown with scikit-learn's HTML repr.
    shown = [o for o in fit.outputs if o.output_type == "execute_result"]
    assert shown and "text/html" in shown[0]["data"] and "SVC" in shown[0]["data"]["text/html"]
    text = stderr_of(long_fit)
    assert "fwsvm: time_limit after " in text, long_fit.outputs
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return
    assert "\r" in text and "step " in text  # tqdm's line redrawn in place (text mode without ipywidgets)
