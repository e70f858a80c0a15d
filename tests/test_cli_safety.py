"""Issue 33: the command line never destroys an input. An output that is an input (the same
path, a symlink or a hard link to it) is refused before anything is read, in one line on stderr
with exit status 1; every output is written to a temporary file in its folder and renamed into
place once complete, so a failure or Ctrl-C leaves an existing output as it was and no
temporary behind. Runs the installed console scripts on a small LIBSVM file made here (no
shared data needed)."""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent
GRID = ["-log2c", "0,1,1", "-log2g", "-3,-2,1"]


def _data_text() -> str:
    """60 rows, 3 features, two well separated classes, in LIBSVM format."""
    rng = np.random.default_rng(33)
    y = np.repeat([1, -1], 30)
    X = rng.normal(size=(60, 3)) * 0.4 + y[:, None] * np.array([0.8, -0.5, 0.3])
    return "".join(f"{label:+d} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(row)) + "\n"
                   for label, row in zip(y, X))


def _fwsvm(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``fwsvm`` console script."""
    return subprocess.run([BIN / "fwsvm", *map(str, argv)], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def model_text(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("model")
    (folder / "d.svm").write_text(_data_text())
    run = _fwsvm("train", "-q", folder / "d.svm", folder / "m.model")
    assert run.returncode == 0, run.stderr
    return (folder / "m.model").read_text()


@pytest.fixture
def files(tmp_path, model_text) -> dict[str, Path]:
    """d.svm (data), m.model (a model of it) and range (svm-scale parameters) in tmp_path."""
    paths = {"d": tmp_path / "d.svm", "m": tmp_path / "m.model", "r": tmp_path / "range"}
    paths["d"].write_text(_data_text())
    paths["m"].write_text(model_text)
    paths["r"].write_text("x\n-1 1\n1 -2 2\n2 -2 2\n3 -2 2\n")
    return paths


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every entry of the folder: its bytes (a symlink by its target's name)."""
    return {p.name: (os.readlink(p).encode() if p.is_symlink() else p.read_bytes()) for p in folder.iterdir()}


# (name, argv with {out} for the output, the input the output aliases, the message's two roles)
CASES = [
    ("train", ["train", "-q", "{d}", "{out}"], "d", "the model file '{out}' is the training file '{d}'"),
    ("predict-data", ["predict", "{d}", "{m}", "{out}"], "d", "the output file '{out}' is the test file '{d}'"),
    ("predict-model", ["predict", "{d}", "{m}", "{out}"], "m", "the output file '{out}' is the model file '{m}'"),
    ("scale", ["scale", "-s", "{out}", "{d}"], "d", "the save file '{out}' is the data file '{d}'"),
    ("grid", ["grid", *GRID, "-out", "{out}", "{d}"], "d", "the -out file '{out}' is the data file '{d}'"),
]


@pytest.mark.parametrize("alias", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize("argv, target, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_output_that_is_an_input_is_refused(files, tmp_path, alias, argv, target, message) -> None:
    out = files[target]
    if alias == "symlink":
        out = tmp_path / "alias"
        out.symlink_to(files[target].name)
    elif alias == "hard link":
        out = tmp_path / "alias"
        os.link(files[target], out)
    before = _snapshot(tmp_path)
    names = {k: str(v) for k, v in files.items()} | {"out": str(out)}
    run = _fwsvm(*[a.format(**names) for a in argv])
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert message.format(**names) + ": refusing to overwrite an input" in run.stderr
    assert _snapshot(tmp_path) == before  # every input byte for byte, and no new file


def test_the_refusal_comes_before_reading(tmp_path) -> None:
    # Not LIBSVM text: had the file been read first, the error would name its first line.
    bad = tmp_path / "bad.svm"
    bad.write_text("this is not LIBSVM\n")
    for argv in (["train", bad, bad], ["scale", "-s", bad, bad], ["grid", *GRID, "-out", bad, bad]):
        run = _fwsvm(*argv)
        assert run.returncode == 1 and "refusing to overwrite an input" in run.stderr, run.stderr
    assert bad.read_text() == "this is not LIBSVM\n"


def test_the_standalone_scripts_refuse_too(files) -> None:
    d = files["d"]
    before = d.read_bytes()
    run = subprocess.run([BIN / "fwsvm-train", "-q", d, d], capture_output=True, text=True)
    assert run.returncode == 1 and run.stderr.startswith("fwsvm-train: error: the model file")
    assert d.read_bytes() == before


def test_save_file_equal_to_the_restore_file_is_refused(files, tmp_path) -> None:
    before = _snapshot(tmp_path)
    run = _fwsvm("scale", "-r", files["r"], "-s", files["r"], files["d"])
    assert run.returncode == 1 and run.stderr.count("\n") == 1 and "simultaneously" in run.stderr
    assert _snapshot(tmp_path) == before


def test_the_normal_cases_write_their_files(files, tmp_path) -> None:
    d, m = files["d"], files["m"]
    assert _fwsvm("train", "-q", d, tmp_path / "new.model").returncode == 0
    assert (tmp_path / "new.model").read_text() == m.read_text()
    run = _fwsvm("predict", d, m, tmp_path / "pred.txt")
    assert run.returncode == 0 and run.stdout.startswith("Accuracy = ")
    assert len((tmp_path / "pred.txt").read_text().splitlines()) == 60
    run = _fwsvm("scale", "-s", tmp_path / "saved", d)
    assert run.returncode == 0 and run.stdout.count("\n") == 60
    assert (tmp_path / "saved").read_text().startswith("x\n-1 1\n1 ")
    run = _fwsvm("grid", *GRID, "-v", "3", "-out", tmp_path / "grid.out", d)
    assert run.returncode == 0
    assert [line.split()[0] for line in (tmp_path / "grid.out").read_text().splitlines()] == \
        ["log2c=0", "log2c=0", "log2c=1", "log2c=1"]
    # Default names, in the working folder.
    assert _fwsvm("train", "-q", d.name, cwd=tmp_path).returncode == 0
    assert (tmp_path / "d.svm.model").read_text() == m.read_text()
    assert _fwsvm("grid", *GRID, "-q", d.name, cwd=tmp_path).returncode == 0
    assert len((tmp_path / "d.svm.out").read_text().splitlines()) == 4
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_outputs_that_are_not_regular_files_are_written_directly(files, tmp_path) -> None:
    d, m = files["d"], files["m"]
    run = _fwsvm("predict", "-q", d, m, "/dev/stdout")
    assert run.returncode == 0 and len(run.stdout.splitlines()) == 60
    run = _fwsvm("train", "-q", d, "/dev/stdout")
    assert run.returncode == 0 and run.stdout == m.read_text()
    run = _fwsvm("grid", *GRID, "-q", "-out", "null", d, cwd=tmp_path)
    assert run.returncode == 0 and len(run.stdout.split()) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.svm", "m.model", "range"]


def test_dev_stdout_redirected_to_a_file_keeps_everything_printed(files, tmp_path) -> None:
    # `fwsvm predict d m /dev/stdout > out.txt`: /dev/stdout resolves to out.txt, a regular
    # file; replacing it would lose the accuracy line printed to the same stream.
    d, m = files["d"], files["m"]
    out = tmp_path / "out.txt"
    with open(out, "w") as fh:
        run = subprocess.run([BIN / "fwsvm", "predict", str(d), str(m), "/dev/stdout"],
                             stdout=fh, stderr=subprocess.PIPE, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 61 and any(line.startswith("Accuracy") for line in lines)


def test_modes_and_symlinks_are_those_open_would_give(files, tmp_path) -> None:
    d, m = files["d"], files["m"]
    old = os.umask(0o027)
    try:
        assert _fwsvm("predict", "-q", d, m, tmp_path / "new.txt").returncode == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    kept = tmp_path / "kept.txt"
    kept.write_text("old\n")
    kept.chmod(0o604)
    link = tmp_path / "link.txt"
    link.symlink_to(kept.name)
    assert _fwsvm("predict", "-q", d, m, link).returncode == 0
    assert link.is_symlink() and len(kept.read_text().splitlines()) == 60  # written through the link
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604


def test_a_failing_predict_keeps_the_existing_output(files, tmp_path) -> None:
    # -b 1 with a model without probabilities fails after the output was opened (it used to be
    # truncated to nothing).
    out = tmp_path / "pred.txt"
    out.write_text("earlier predictions\n")
    before = _snapshot(tmp_path)
    run = _fwsvm("predict", "-b", "1", files["d"], files["m"], out)
    assert run.returncode == 1 and "probability estimates" in run.stderr and run.stderr.count("\n") == 1
    assert _snapshot(tmp_path) == before


def _big_data_text(rows: int = 6000) -> str:
    """A LIBSVM file whose fit takes about a second: noisy, overlapping classes."""
    rng = np.random.default_rng(7)
    y = rng.choice([1, -1], size=rows)
    X = rng.normal(size=(rows, 10)) + 0.3 * y[:, None]
    return "".join(f"{label:+d} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(row)) + "\n"
                   for label, row in zip(y, X))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe (os.mkfifo)")
@pytest.mark.parametrize("existing", [True, False], ids=["existing model", "new model"])
def test_ctrl_c_during_training_leaves_the_model_as_it_was(tmp_path, tmp_path_factory, existing) -> None:
    # The training file is a named pipe (outside the folder compared): once this test has
    # written all of it, the command has read it and is parsing or fitting (a fit of seconds),
    # whatever the machine's load; only then comes SIGINT.
    data = tmp_path_factory.mktemp("pipe") / "big.svm"
    os.mkfifo(data)
    model = tmp_path / "out.model"
    if existing:
        model.write_text("the model of yesterday\n")
    before = _snapshot(tmp_path)
    proc = subprocess.Popen([BIN / "fwsvm-train", "-q", "-c", "1000", "-e", "1e-9", data, model],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # Python installs its Ctrl-C handler only if SIGINT is not ignored.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    with open(data, "w") as pipe:  # blocks until the command opens the file
        pipe.write(_big_data_text())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert err == "fwsvm-train: interrupted\n"
    assert _snapshot(tmp_path) == before  # the old model or none, and no temporary


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe (os.mkfifo)")
def test_ctrl_c_during_a_grid_search_leaves_no_out_file(tmp_path, tmp_path_factory) -> None:
    # As for train: once the pipe is written, the search is reading or fitting.
    data = tmp_path_factory.mktemp("pipe") / "big.svm"
    os.mkfifo(data)
    out = tmp_path / "grid.out"
    out.write_text("the search of yesterday\n")
    before = _snapshot(tmp_path)
    proc = subprocess.Popen([BIN / "fwsvm-grid", "-log2c", "8,10,1", "-log2g", "-2,0,1", "-e", "1e-9", "-out", out,
                             data], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    with open(data, "w") as pipe:
        pipe.write(_big_data_text())
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == "fwsvm-grid: interrupted\n"
    assert _snapshot(tmp_path) == before


def _limit_file_size() -> None:
    """In the child: files may grow to 40 bytes; beyond, writes fail with EFBIG ("File too
    large") instead of the process being killed (a full disk, as far as the writer can tell)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (40, 40))


@pytest.mark.parametrize("command", ["train", "predict", "scale", "grid"])
def test_a_failed_write_keeps_the_existing_output(files, tmp_path, command) -> None:
    d, m = str(files["d"]), str(files["m"])
    out = tmp_path / "out"
    out.write_text("keep me\n")
    argv = {"train": ["-q", d, str(out)], "predict": ["-q", d, m, str(out)], "scale": ["-s", str(out), d],
            "grid": [*GRID, "-v", "3", "-q", "-out", str(out), d]}[command]
    before = _snapshot(tmp_path)
    run = subprocess.run([BIN / f"fwsvm-{command}", *argv], capture_output=True, text=True,
                         preexec_fn=_limit_file_size, timeout=300)
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert run.stderr.count("\n") == 1 and "File too large" in run.stderr, run.stderr
    assert _snapshot(tmp_path) == before
