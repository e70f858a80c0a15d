"""The command line against LIBSVM itself: models written by ``fwsvm train`` predict identically
in LIBSVM (libsvm-official), models from LIBSVM's trainer predict identically in ``fwsvm
predict``, and ``fwsvm scale`` writes byte for byte what ``svm-scale`` writes (SHA-256 of
LIBSVM's output in tests/golden, made by scripts/libsvm_golden.sh)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_file

from fwsvm.__main__ import main

GOLDEN = Path(__file__).parent / "golden" / "svm_scale.sha256"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _libsvm_predict(model_file: Path, data_file: Path, options: str = "-q") -> tuple[list[float], list]:
    from libsvm import svmutil

    y, x = svmutil.svm_read_problem(str(data_file))
    labels, _, values = svmutil.svm_predict(y, x, svmutil.svm_load_model(str(model_file)), options)
    return labels, values


def _golden() -> list[tuple[str, str, str]]:
    rows = []
    for line in GOLDEN.read_text().splitlines():
        if line and not line.startswith("#"):
            digest, name, options = (line.split("\t") + [""])[:3]
            rows.append((digest, name, options))
    return rows


@pytest.mark.parametrize("digest, name, options", _golden(), ids=lambda v: v[:12] if len(v) == 64 else v)
def test_scale_is_byte_for_byte_svm_scale(capsys, digest: str, name: str, options: str) -> None:
    code, out, _ = _run(capsys, "scale", *options.split(), shared_file(name))
    assert code == 0
    assert hashlib.sha256(out.encode()).hexdigest() == digest


def test_scale_save_and_restore(capsys, tmp_path) -> None:
    train, test = shared_file("svmguide1"), shared_file("svmguide1.t")
    ranges = tmp_path / "range"
    _run(capsys, "scale", "-l", "0", "-s", ranges, train)
    lines = ranges.read_text().splitlines()
    assert lines[:2] == ["x", "0 1"] and len(lines) == 2 + 4
    code, restored, _ = _run(capsys, "scale", "-r", ranges, test)
    assert code == 0 and restored.count("\n") == 4000
    code, _, err = _run(capsys, "scale", "-r", ranges, "-s", ranges, test)
    assert code == 1 and err.strip() == "fwsvm scale: error: cannot use -r and -s simultaneously"


@pytest.mark.parametrize(
    "options",
    [[], ["-t", "1", "-d", "2", "-r", "1", "-c", "4"], ["-b", "1"], ["-t", "0", "-a", "dcd", "--loss", "squared_hinge"]],
)
def test_our_model_files_predict_identically_in_libsvm(capsys, tmp_path, options) -> None:
    train, test = shared_file("heart_scale"), shared_file("heart_scale")
    model = tmp_path / "heart.model"
    code, out, _ = _run(capsys, "train", *options, train, model)
    assert code == 0 and "Total nSV = " in out
    prob = ["-b", "1"] if "-b" in options else []
    code, out, _ = _run(capsys, "predict", *prob, test, model, tmp_path / "ours.txt")
    assert code == 0 and out.startswith("Accuracy = ")
    theirs, values = _libsvm_predict(model, test, "-q -b 1" if prob else "-q")
    lines = (tmp_path / "ours.txt").read_text().splitlines()
    if prob:
        assert lines[0].startswith("labels ")
        ours = np.array([[float(v) for v in line.split()] for line in lines[1:]])
        np.testing.assert_array_equal(ours[:, 0], theirs)
        np.testing.assert_allclose(ours[:, 1:], values, atol=1e-5)  # printed with %g
    else:
        np.testing.assert_array_equal([float(v) for v in lines], theirs)


def test_a_multiclass_model_with_probabilities_from_rust_predicts_identically_in_libsvm(capsys, tmp_path) -> None:
    # fwsvm train is the Rust crate alone (src/cli): one-vs-one, Platt's sigmoids by 5-fold
    # cross-validation and the LIBSVM file; LIBSVM's own predictor reads it.
    train, test = shared_file("dna.scale"), shared_file("dna.scale.t")
    model = tmp_path / "dna.model"
    code, out, _ = _run(capsys, "train", "-b", "1", "-c", "4", "-g", "0.01", "-q", train, model)
    assert code == 0
    assert "nr_class 3" in model.read_text() and "probA " in model.read_text()
    code, out, _ = _run(capsys, "predict", "-b", "1", test, model, tmp_path / "ours.txt")
    assert code == 0 and out.startswith("Accuracy = ")
    theirs, values = _libsvm_predict(model, test, "-q -b 1")
    lines = (tmp_path / "ours.txt").read_text().splitlines()
    assert lines[0].startswith("labels ")
    ours = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_array_equal(ours[:, 0], theirs)
    np.testing.assert_allclose(ours[:, 1:], values, atol=1e-5)  # printed with %g
    accuracy = float(out.split("=")[1].split("%")[0])
    assert accuracy > 90


def test_libsvm_model_files_predict_identically_in_fwsvm(capsys, tmp_path) -> None:
    from libsvm import svmutil

    train, test = shared_file("a1a"), shared_file("a1a.t")
    y, x = svmutil.svm_read_problem(str(train))
    for options, name in [("-c 1 -g 0.05 -q", "plain"), ("-c 2 -g 0.02 -b 1 -q", "prob"), ("-t 0 -q", "linear")]:
        model = tmp_path / f"{name}.model"
        svmutil.svm_save_model(str(model), svmutil.svm_train(y, x, options))
        prob = ["-b", "1"] if "-b 1" in options else []
        code, out, _ = _run(capsys, "predict", *prob, test, model, tmp_path / "out.txt")
        assert code == 0
        theirs, values = _libsvm_predict(model, test, "-q -b 1" if prob else "-q")
        lines = (tmp_path / "out.txt").read_text().splitlines()
        if prob:
            ours = np.array([[float(v) for v in line.split()] for line in lines[1:]])
            # The most probable label, as LIBSVM: at most a tie or two may flip in %g rounding.
            assert np.mean(ours[:, 0] == theirs) > 0.999
            np.testing.assert_allclose(ours[:, 1:], values, atol=1e-5)
        else:
            np.testing.assert_array_equal([float(v) for v in lines], theirs)
        acc = 100.0 * np.mean(np.asarray(theirs) == np.asarray(svmutil.svm_read_problem(str(test))[0]))
        assert out.startswith("Accuracy = %g%%" % acc)


def test_one_class_and_svr_models_predict_identically_in_libsvm(capsys, tmp_path) -> None:
    data = shared_file("heart_scale")
    one = tmp_path / "one.model"
    assert _run(capsys, "train", "-s", "2", "-n", "0.2", data, one)[0] == 0
    _run(capsys, "predict", data, one, tmp_path / "one.txt")
    theirs, _ = _libsvm_predict(one, data)
    np.testing.assert_array_equal([float(v) for v in (tmp_path / "one.txt").read_text().split()], theirs)
    svr = tmp_path / "svr.model"
    assert _run(capsys, "train", "-s", "3", data, svr)[0] == 0
    code, out, _ = _run(capsys, "predict", data, svr, tmp_path / "svr.txt")
    assert code == 0 and out.startswith("Mean squared error = ")
    theirs, _ = _libsvm_predict(svr, data)
    np.testing.assert_allclose([float(v) for v in (tmp_path / "svr.txt").read_text().split()], theirs, atol=1e-10)


def test_cross_validation_prints_libsvms_line(capsys) -> None:
    code, out, _ = _run(capsys, "train", "-v", "5", "-c", "1", shared_file("heart_scale"))
    assert code == 0
    line = out.strip().splitlines()[-1]
    assert line.startswith("Cross Validation Accuracy = ") and line.endswith("%")
    assert 75 < float(line.split("= ")[1].rstrip("%")) < 90
    code, out, _ = _run(capsys, "train", "-s", "3", "-v", "3", shared_file("heart_scale"))
    assert "Cross Validation Mean squared error = " in out and "Squared correlation coefficient" in out


def test_fewer_test_features_than_the_model_work_as_in_libsvm(capsys, tmp_path) -> None:
    # a1a.t has feature 123, a1a only up to 119: both ways round must work.
    train, test = shared_file("a1a"), shared_file("a1a.t")
    model = tmp_path / "m.model"
    _run(capsys, "train", "-q", test, model)  # the model knows 123 features
    assert _run(capsys, "predict", "-q", train, model, tmp_path / "o.txt")[0] == 0
    theirs, _ = _libsvm_predict(model, train)
    np.testing.assert_array_equal([float(v) for v in (tmp_path / "o.txt").read_text().split()], theirs)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "-s", "2", "-b", "1", "x"], "-b 1 applies to -s 0, 1"),
        (["train", "-t", "4", "x"], "-t 4 (precomputed kernel files) is not supported"),
        (["train", "-c", "abc", "x"], "argument -c: invalid float value"),
        (["train", "/nonexistent/file"], "No such file"),
        (["predict", "a", "b"], "the following arguments are required: output_file"),
        (["scale", "-l", "1", "-u", "0", "x"], "inconsistent lower/upper specification"),
    ],
)
def test_errors_are_one_line_and_exit_1(capsys, argv, message) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_dcd_needs_the_linear_squared_hinge(capsys, tmp_path) -> None:
    code, _, err = _run(capsys, "train", "-a", "dcd", shared_file("heart_scale"), tmp_path / "m")
    assert code == 1 and err.count("\n") == 1 and "not 'dcd'" in err and "Traceback" not in err


def test_bad_files_name_the_line(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:2\n-1 x:3\n")
    code, _, err = _run(capsys, "train", bad)
    assert code == 1 and "line 2" in err and err.count("\n") == 1


def test_console_scripts_are_installed() -> None:
    for script in ("fwsvm-train", "fwsvm-predict", "fwsvm-scale", "fwsvm-grid"):
        run = subprocess.run([Path(sys.executable).parent / script, "--help"], capture_output=True, text=True)
        assert run.returncode == 0 and "usage:" in run.stdout, (script, run.stderr)


@pytest.mark.parametrize("algorithm", ["fw", "mfw", "swap", "swap2o", "bc", "ky"])
def test_demo_takes_every_algorithm_and_compares_at_cross_validated_c(capsys, algorithm) -> None:
    code, out, _ = _run(capsys, "demo", "-a", algorithm)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].startswith("C chosen per tool by 5-fold cross-validation")
    ours = next(line for line in lines if line.startswith("fwsvm.SVC("))
    loss = "hinge" if algorithm in ("swap", "swap2o") else "squared_hinge"
    assert f"loss='{loss}', algorithm='{algorithm}'" in ours and "C search" in ours
    # Issue 34: the line names the criterion that stopped the fit.
    criterion = "largest KKT violation <= tol" if loss == "hinge" else "relative duality gap"
    assert criterion in ours
    accuracy = float(ours.split("test accuracy ")[1].split(",")[0])
    assert accuracy > 0.9
    assert any(line.startswith("sklearn.svm.SVC(C=") for line in lines)


def test_demo_at_a_given_c_and_refusing_a_hinge_loss_the_solver_cannot_solve(capsys) -> None:
    code, out, _ = _run(capsys, "demo", "-c", "1", "-l", "squared_hinge", "--no-compare")
    assert code == 0 and "another scale" in out and "fwsvm.SVC(C=1, loss='squared_hinge'" in out
    code, _, err = _run(capsys, "demo", "-l", "hinge", "-a", "bc")
    assert code == 2 and "-a bc solves the squared hinge only" in err


def test_grid_prints_grid_py_lines_and_the_best_parameters(capsys, tmp_path) -> None:
    out_file = tmp_path / "heart.out"
    code, out, _ = _run(capsys, "grid", "-log2c", "-1,3,2", "-log2g", "-5,-1,2", "-v", "3", "-out", out_file,
                        shared_file("heart_scale"))
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 10  # 3 × 3 grid points, then the result
    assert all(line.startswith("[local] ") and "(best c=" in line and ", g=" in line for line in lines[:9])
    c, g, rate = lines[-1].split()
    assert float(c) in (0.5, 2.0, 8.0) and float(g) in (2.0**-5, 2.0**-3, 2.0**-1) and 75 < float(rate) < 90
    records = out_file.read_text().splitlines()
    assert len(records) == 9 and records[0].startswith("log2c=") and " log2g=" in records[0] and " rate=" in records[0]
    # The best line is the grid's best rate.
    assert float(rate) == max(float(r.split("rate=")[1]) for r in records)


def test_grid_over_c_only_and_its_errors(capsys) -> None:
    code, out, _ = _run(capsys, "grid", "-t", "0", "-log2g", "null", "-log2c", "-3,1,2", "-q", "-out", "null",
                        shared_file("heart_scale"))
    assert code == 0 and len(out.split()) == 2  # quiet: only "best_c rate"
    for argv, message in [(["-c", "1"], "Use -log2c and -log2g."),
                          (["-t", "0"], "add -log2g null"),
                          (["-log2c", "1,5,-2"], "the step must go from begin towards end"),
                          (["-log2c", "null", "-log2g", "null"], "should not be null simultaneously"),
                          (["-s", "3"], "searches C-SVC"),
                          (["-log2c", "0,1e9,1"], "at most 10000 per axis"),
                          (["-log2g", "0,inf,1"], "at most 10000 per axis")]:
        code, _, err = _run(capsys, "grid", *argv, shared_file("heart_scale"))
        assert code == 1 and message in err, err


def test_grid_rates_are_train_cross_validation_accuracies(capsys, tmp_path) -> None:
    # grid.py runs svm-train -v at each point: fwsvm grid's rate is what fwsvm train -v prints.
    out_file = tmp_path / "heart.out"
    code, _, _ = _run(capsys, "grid", "-log2c", "0,2,2", "-log2g", "-4,-4,1", "-q", "-out", out_file,
                      shared_file("heart_scale"))
    assert code == 0
    for record in out_file.read_text().splitlines():
        c, g, rate = (float(field.split("=")[1]) for field in record.split())
        code, out, _ = _run(capsys, "train", "-v", "5", "-c", 2.0**c, "-g", 2.0**g, shared_file("heart_scale"))
        assert out.strip() == f"Cross Validation Accuracy = {rate:g}%", record


def test_grid_script_runs_without_numpy_or_scikit_learn(tmp_path) -> None:
    # Issue 31: the command line is Rust's; the script imports neither NumPy nor scikit-learn.
    data = tmp_path / "d.svm"
    data.write_text("".join(f"{1 if i % 2 else -1} 1:{i % 7 / 7:.3f} 2:{(i % 2) + i % 5 / 10:.2f}\n" for i in range(40)))
    code = ("import sys; from fwsvm.cli import grid_main; "
            f"status = grid_main(['-log2c', '0,1,1', '-log2g', '-1,0,1', '-v', '3', '-q', '-out', 'null', {str(data)!r}]); "
            "print(status, sorted(m for m in ('numpy', 'scipy', 'sklearn') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "0 []", run.stdout
    help_run = subprocess.run([Path(sys.executable).parent / "fwsvm-grid", "--help"], capture_output=True, text=True)
    assert help_run.returncode == 0 and help_run.stdout.startswith("usage: fwsvm-grid ")


def test_more_folds_than_rows_warns_as_libsvm_and_runs_leave_one_out(capsys, tmp_path) -> None:
    data = tmp_path / "tiny.svm"
    data.write_text("1 1:1\n-1 1:2\n1 1:1.5\n-1 1:3\n1 1:1.2\n")
    code, out, err = _run(capsys, "train", "-q", "-v", "100000", str(data))
    assert code == 0 and "Cross Validation Accuracy" in out
    assert "WARNING: # folds > # data" in err and "leave-one-out" in err and "n_splits" not in err
