"""The command line: ``fwsvm train | predict | scale | grid | demo``, flag- and
file-compatible with LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and
``tools/grid.py`` (also installed as ``fwsvm-train``, ``fwsvm-predict``, ``fwsvm-scale`` and
``fwsvm-grid``).

``train``, ``predict`` and ``scale`` are implemented once, in Rust (``src/cli``; the same code
is the ``fwsvm`` binary of ``cargo install fwsvm --features cli``): these scripts call it
without importing NumPy or scikit-learn, and it prints through ``sys.stdout`` and
``sys.stderr``. ``train`` writes LIBSVM model files (LIBSVM's ``svm-predict`` reads them and
predicts the same); ``predict`` reads models written by LIBSVM's ``svm-train``; ``scale`` writes
what ``svm-scale`` writes, byte for byte. Errors are one line on stderr and exit status 1. An
output file that is one of the inputs (same path, symlink or hard link) is refused before
anything is read, and every output file is written to a temporary and renamed into place once
complete.

``grid`` searches C and γ by cross-validation over grid.py's default grid (log2 C from -5 to 15
and log2 γ from 3 to -15, step 2; ``-log2c``, ``-log2g``, ``-v``, ``-out`` as grid.py, other
options as ``train``, parsed by the same Rust code) with :class:`fwsvm.SVCSearch`; C is
LIBSVM's C (hinge loss).

LIBSVM's ``-s`` types map to fwsvm's models as follows:

- ``-s 0`` C-SVC: :class:`fwsvm.SVC` with the hinge loss, LIBSVM's model at LIBSVM's C
  (``--loss squared_hinge`` trains the L2-SVM instead, whose C is on another scale);
- ``-s 2`` one-class SVM: :class:`fwsvm.OneClassSVM` (the minimum enclosing ball, which for the
  rbf kernel is the one-class SVM; ``-n`` is the fraction of training outliers);
- ``-s 3`` ε-SVR: :class:`fwsvm.SVR`, which penalises squared deviations and learns the tube
  width (``-p`` is not used);
- ``-s 1`` ν-SVC and ``-s 4`` ν-SVR are not implemented and are refused.
"""

from __future__ import annotations

import os
import sys
from fwsvm import _core
from fwsvm._interrupt import run_interruptible


class CliError(Exception):
    """A usage or input problem, reported as one line and exit status 1."""


def _g(value: float) -> str:
    """C's ``%g``."""
    return "%g" % value


# --- grid -------------------------------------------------------------------------------------

_GRID_USAGE = """usage: {prog} [grid_options] [svm_options] dataset

Choose C and gamma of C-SVC by cross-validation accuracy (as LIBSVM's tools/grid.py).

grid_options:
  -log2c {{begin,end,step | null}}  log2 of C (default -5,15,2)
  -log2g {{begin,end,step | null}}  log2 of gamma (default 3,-15,-2)
  -v n                            n-fold cross validation (default 5)
  -out {{pathname | null}}          write 'log2c=.. log2g=.. rate=..' lines (default dataset.out)
  -png, -gnuplot, -svmtrain       accepted and ignored (no plot; fwsvm trains)

svm_options: as {train} (-t -d -r -m -e -wi -a -j --loss -q);
prints one line per grid point, then 'best_c best_g best_rate'."""


# A grid axis holds at most this many values (`-log2c 0,1e9,1` asked for a billion fits).
_MAX_GRID_VALUES = 10_000


def _grid_range(text: str, option: str) -> list[float] | None:
    """grid.py's ``begin,end,step`` of log2 values (``null``: not searched)."""
    if text == "null":
        return None
    try:
        begin, end, step = map(float, text.split(","))
    except ValueError:
        raise CliError(f"{option} {text}: expected begin,end,step (e.g. -5,15,2) or null") from None
    if step == 0 or (end - begin) * step < 0:
        raise CliError(f"{option} {text}: the step must go from begin towards end")
    count = (end - begin) / step + 1e-9
    if not count < _MAX_GRID_VALUES:  # NaN too
        raise CliError(f"{option} {text}: {count:.0f} grid values; at most {_MAX_GRID_VALUES} per axis")
    return [begin + k * step for k in range(int(count) + 1)]


def _grid_options(argv: list[str]) -> tuple[list[float] | None, list[float] | None, int, str | None, list[str]]:
    """grid.py's own options; the rest are svm-train's."""
    log2c, log2g = _grid_range("-5,15,2", "-log2c"), _grid_range("3,-15,-2", "-log2g")
    folds, out_path, rest = 5, None, []
    k = 0
    while k < len(argv):
        token = argv[k]
        value = argv[k + 1] if k + 1 < len(argv) else None
        if token in ("-log2c", "-log2g", "-v", "-out", "-png", "-gnuplot", "-svmtrain") and value is None:
            raise CliError(f"option {token} needs a value")
        if token == "-log2c":
            log2c = _grid_range(value, token)
        elif token == "-log2g":
            log2g = _grid_range(value, token)
        elif token == "-v":
            try:
                folds = int(value)
            except ValueError:
                raise CliError(f"-v {value}: the number of folds must be an integer") from None
        elif token == "-out":
            out_path = "" if value == "null" else value
        elif token in ("-png", "-gnuplot", "-svmtrain"):
            pass  # grid.py's plotting and svm-train paths have no meaning here
        elif token == "-resume":
            raise CliError("-resume is not supported by fwsvm grid (a search takes minutes, not hours)")
        elif token in ("-c", "-g"):
            raise CliError("Use -log2c and -log2g.")
        else:
            rest.append(token)
            k += 1
            continue
        k += 2
    if log2c is None and log2g is None:
        raise CliError("-log2c and -log2g should not be null simultaneously")
    if folds < 2:
        raise CliError(f"-v {folds}: cross validation needs at least 2 folds")
    return log2c, log2g, folds, out_path, rest


def _grid(argv: list[str], prog: str) -> int:
    """LIBSVM's ``tools/grid.py``: (C, γ) by cross-validation over log2 grids."""
    if not argv or "--help" in argv:
        print(_GRID_USAGE.format(prog=prog, train=prog.replace("grid", "train")))
        return 0
    log2c, log2g, folds, out_path, rest = _grid_options(argv)
    args = _core.parse_train_options(rest, prog)  # svm-train's options, checked as train checks them
    if args is None:
        print(_GRID_USAGE.format(prog=prog, train=prog.replace("grid", "train")))
        return 0
    if args["model_file"] is not None:
        raise CliError(f"unexpected argument {args['model_file']}: fwsvm grid takes one data file")
    if args["svm_type"] != 0:
        raise CliError("fwsvm grid searches C-SVC (-s 0) by cross-validation accuracy")
    if log2g is not None and args["kernel"] == "linear":
        raise CliError("the linear kernel (-t 0) has no gamma: add -log2g null")
    if out_path is None:
        out_path = os.path.basename(args["training_file"]) + ".out"
    if out_path:
        _core.refuse_same_file("-out file", out_path, [("data file", args["training_file"])])

    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    from fwsvm import SVC, SVCSearch, load_svmlight_file

    X, y = load_svmlight_file(args["training_file"], zero_based=False)
    gamma = args["gamma"] if args["gamma"] is not None else 1.0 / max(X.shape[1], 1)
    est = SVC(C=args["C"], kernel=args["kernel"], degree=args["degree"], coef0=args["coef0"], gamma=gamma,
              loss=args["loss"], tol=args["tol"], class_weight=args["class_weight"] or None,
              algorithm=args["algorithm"], cache_size=args["cache_size"], n_jobs=args["n_jobs"])
    Cs = [2.0**v for v in log2c] if log2c is not None else [est.C]
    gammas = [2.0**v for v in log2g] if log2g is not None else None if args["kernel"] == "linear" else [gamma]
    folds = min(folds, int(np.min(np.unique(y, return_counts=True)[1])))
    if folds < 2:
        raise CliError("a class has a single sample: cross validation is not possible")
    search = SVCSearch(est, Cs=Cs, gammas=gammas, cv=StratifiedKFold(folds, shuffle=True, random_state=0),
                       n_jobs=args["n_jobs"] if args["n_jobs"] is not None else -1, refit=False).fit(X, y)
    r = search.cv_results_
    # grid.py's lines: "[local] log2c log2g rate (best c=..., g=..., rate=...)", in grid order.
    best_rate, best = -1.0, (None, None)
    lines, records = [], []
    for params, mean in zip(r["params"], r["mean_test_score"]):
        c, g = np.log2(params["C"]), np.log2(params["gamma"])
        rate = 100.0 * float(mean)
        if rate > best_rate:
            best_rate, best = rate, (c, g)
        shown = [_g(v) for v, on in ((c, log2c), (g, log2g)) if on is not None]
        best_text = "".join(f"{name}={2.0**v:g}, " for name, v, on in (("c", best[0], log2c), ("g", best[1], log2g))
                            if on is not None)
        lines.append(f"[local] {' '.join(shown)} {rate:g} (best {best_text}rate={best_rate:g})")
        records.append("".join(f"log2{name}={_g(v)} " for name, v, on in (("c", c, log2c), ("g", g, log2g))
                               if on is not None) + f"rate={rate:g}\n")
    if not args["quiet"]:
        print("\n".join(lines), flush=True)
    if out_path:
        _core.write_output_file(out_path, "".join(records), sys.stdout.write, sys.stderr.write)
    chosen = [f"{2.0**v:g}" for v, on in ((best[0], log2c), (best[1], log2g)) if on is not None]
    print(f"{' '.join(chosen)} {best_rate:g}")
    return 0


# --- entry points -----------------------------------------------------------------------------


def _run(command: str, argv: list[str], prog: str) -> int:
    """Run one command; problems become one line on stderr and exit status 1, Ctrl-C 130."""
    if command != "grid":
        try:
            return int(run_interruptible(_core.cli_main, command, list(argv), prog, sys.stdout.write,
                                         sys.stderr.write))
        except KeyboardInterrupt:
            return 130  # the Rust side stopped, cleaned up and said so
    try:
        return _grid(argv, prog)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except (CliError, ValueError, MemoryError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        message = f"can't open file {exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        print(f"{prog}: error: {message}", file=sys.stderr)
        return 1


def train_main(argv: list[str] | None = None) -> int:
    """``fwsvm-train``: LIBSVM's ``svm-train``."""
    return _run("train", sys.argv[1:] if argv is None else argv, "fwsvm-train")


def predict_main(argv: list[str] | None = None) -> int:
    """``fwsvm-predict``: LIBSVM's ``svm-predict``."""
    return _run("predict", sys.argv[1:] if argv is None else argv, "fwsvm-predict")


def grid_main(argv: list[str] | None = None) -> int:
    """``fwsvm-grid``: LIBSVM's ``tools/grid.py``."""
    return _run("grid", sys.argv[1:] if argv is None else argv, "fwsvm-grid")


def scale_main(argv: list[str] | None = None) -> int:
    """``fwsvm-scale``: LIBSVM's ``svm-scale``."""
    return _run("scale", sys.argv[1:] if argv is None else argv, "fwsvm-scale")
