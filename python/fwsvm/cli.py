"""The command line: ``fwsvm train | predict | scale | grid | demo``, flag- and
file-compatible with LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and
``tools/grid.py`` (also installed as ``fwsvm-train``, ``fwsvm-predict``, ``fwsvm-scale`` and
``fwsvm-grid``).

``grid`` searches C and γ by cross-validation over grid.py's default grid (log2 C from -5 to 15
and log2 γ from 3 to -15, step 2; ``-log2c``, ``-log2g``, ``-v``, ``-out`` as grid.py, other
options as ``train``) with :class:`fwsvm.SVCSearch`; C is LIBSVM's C (hinge loss).

``train`` writes LIBSVM model files (LIBSVM's ``svm-predict`` reads them and predicts the
same); ``predict`` reads models written by LIBSVM's ``svm-train``; ``scale`` writes what
``svm-scale`` writes, byte for byte. Errors are one line on stderr and exit status 1. An output
file that is one of the inputs (same path, symlink or hard link) is refused before anything is
read, and every output file is written to a temporary and renamed into place once complete.

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

import argparse
import contextlib
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any, TextIO

import numpy as np

_SVM_TYPES = {0: "C-SVC", 1: "nu-SVC", 2: "one-class SVM", 3: "epsilon-SVR", 4: "nu-SVR"}
_KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid", 4: "precomputed"}
_ALGORITHMS = ["swap", "swap2o", "mfw", "fw", "bc", "ky", "dcd"]


class CliError(Exception):
    """A usage or input problem, reported as one line and exit status 1."""


def _say(quiet: bool, *parts: Any) -> None:
    if not quiet:
        print(*parts, flush=True)


# --- output files -----------------------------------------------------------------------------

def _refuse_same_file(output: tuple[str, str], inputs: list[tuple[str, str | None]]) -> None:
    """Refuse an output that is one of the inputs (the same path, a symlink or a hard link to it).

    ``output`` and each input are ``(what, path)``, e.g. ``("model file", "d.svm")``; inputs whose
    path is ``None`` are skipped. Only an output that exists as a regular file can destroy an
    input (writing to a device or a pipe does not), so only that is refused. Called before
    anything is read.
    """
    what, path = output
    try:
        out = os.stat(path)
    except OSError:
        return  # does not exist (yet): no input can be lost; other problems surface when writing
    if not stat.S_ISREG(out.st_mode):
        return
    for in_what, in_path in inputs:
        if in_path is None:
            continue
        try:
            same = os.path.samefile(path, in_path)
        except OSError:
            continue  # a missing input is reported when it is read
        if same:
            raise CliError(f"the {what} '{path}' is the {in_what} '{in_path}': refusing to overwrite an input")


def _umask() -> int:
    """The process's umask (read by setting it, then setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _is_stdout(st: os.stat_result) -> bool:
    """Whether ``st`` is the file this process's standard output writes to."""
    try:
        own = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (captured, closed)
        return False
    return (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino)


@contextlib.contextmanager
def _atomic_output(path: str) -> Iterator[TextIO]:
    """A text file to write ``path`` through, put in place only once it is completely written.

    For a regular file (or a new one) the handle writes a temporary file in the same folder
    (``.name.XXXX.tmp``), which is flushed, fsync'ed and renamed over ``path`` when the block
    ends without an exception; on any exception (an error, ``KeyboardInterrupt``) it is removed
    and an existing ``path`` is left untouched. The result has the mode ``open(path, "w")``
    would give: the existing file's, or ``0o666`` less the umask for a new file. A symlink is
    written through (its target is replaced). An existing ``path`` that is not a regular file
    (a pipe), or is under ``/dev`` or ``/proc``, is written directly; when it is the process's
    own standard output (``/dev/stdout`` redirected to a file), standard output then continues
    after what was written. ``handle.name`` is the path being written, for writers that take a
    path.
    """
    try:
        existing: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        existing = None
    device = os.path.abspath(path).startswith(("/dev/", "/proc/"))
    if existing is not None and (device or not stat.S_ISREG(existing.st_mode)):
        # /dev/stdout redirected to a file is written in place (replacing the file would lose
        # what else is printed), and standard output moves past it, so the accuracy line
        # follows the output instead of overwriting its start.
        own = _is_stdout(existing)
        if own:
            sys.stdout.flush()
        with open(path, "w", encoding="ascii") as fh:
            yield fh
        if own:
            with contextlib.suppress(OSError):
                os.lseek(sys.stdout.fileno(), 0, os.SEEK_END)
        return
    target = os.path.realpath(path)  # write through a symlink, as open() does
    folder, name = os.path.split(target)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # name the file asked for, not the temporary
        raise OSError(exc.errno, exc.strerror, path) from None
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    try:
        os.close(fd)
        with open(temporary, "w", encoding="ascii") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# --- argument parsing ------------------------------------------------------------------------

def _split_weights(argv: list[str]) -> tuple[list[str], dict[float, float]]:
    """LIBSVM's ``-wi weight`` options (``-w1 2``, ``-w-1 0.5``) as a class_weight dict."""
    rest: list[str] = []
    weights: dict[float, float] = {}
    k = 0
    while k < len(argv):
        token = argv[k]
        if token.startswith("-w") and len(token) > 2:
            if k + 1 >= len(argv):
                raise CliError(f"option {token} needs a weight")
            try:
                weights[float(token[2:])] = float(argv[k + 1])
            except ValueError:
                raise CliError(f"option {token} {argv[k + 1]}: label and weight must be numbers") from None
            k += 2
            continue
        rest.append(token)
        k += 1
    return rest, weights


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, no usage dump
        raise CliError(f"{message} (see {self.prog} --help)")


def _train_parser(prog: str) -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        add_help=False,  # -h is LIBSVM's shrinking flag
        description="Train an SVM on a LIBSVM-format file and write a LIBSVM model file "
        "(options as LIBSVM's svm-train).",
        epilog="-wi weight: set the parameter C of class i to weight*C (e.g. -w1 2 -w-1 0.5). "
        "LIBSVM types: -s 0 is fwsvm.SVC (hinge loss: LIBSVM's model), -s 2 fwsvm.OneClassSVM, "
        "-s 3 fwsvm.SVR (squared deviations, learned tube); -s 1 and -s 4 are not implemented.",
    )
    p.add_argument("-s", dest="svm_type", type=int, default=0, choices=sorted(_SVM_TYPES), metavar="svm_type",
                   help="0 C-SVC (default), 2 one-class SVM, 3 epsilon-SVR")
    p.add_argument("-t", dest="kernel_type", type=int, default=2, choices=sorted(_KERNELS), metavar="kernel_type",
                   help="0 linear, 1 polynomial, 2 rbf (default), 3 sigmoid")
    p.add_argument("-d", dest="degree", type=int, default=3, help="degree of the polynomial kernel (default 3)")
    p.add_argument("-g", dest="gamma", type=float, default=None, help="gamma of the kernel (default 1/num_features)")
    p.add_argument("-r", dest="coef0", type=float, default=0.0, help="coef0 of the kernel (default 0)")
    p.add_argument("-c", dest="cost", type=float, default=1.0, help="the parameter C (default 1)")
    p.add_argument("-n", dest="nu", type=float, default=0.5, help="nu of the one-class SVM (default 0.5)")
    p.add_argument("-p", dest="epsilon", type=float, default=0.1, help="accepted for compatibility; fwsvm's SVR learns the tube")
    p.add_argument("-m", dest="cachesize", type=float, default=100.0, help="cache memory size in MB (default 100)")
    p.add_argument("-e", dest="tol", type=float, default=None,
                   help="tolerance of the termination criterion (default 0.001; 0.01 for --loss squared_hinge)")
    p.add_argument("-h", dest="shrinking", type=int, default=1, choices=[0, 1], metavar="shrinking",
                   help="accepted for compatibility: fwsvm decides when to shrink")
    p.add_argument("-b", dest="probability", type=int, default=0, choices=[0, 1], metavar="probability_estimates",
                   help="1: train a model for probability estimates (C-SVC only)")
    p.add_argument("-v", dest="folds", type=int, default=None, help="n-fold cross validation mode (no model is written)")
    p.add_argument("-q", dest="quiet", action="store_true", help="quiet mode (no outputs)")
    p.add_argument("-a", dest="algorithm", default="swap", choices=_ALGORITHMS,
                   help="fwsvm solver (default swap; dcd: -t 0 with --loss squared_hinge, w kept explicitly)")
    p.add_argument("-j", dest="threads", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--loss", default="hinge", choices=["hinge", "squared_hinge"], help="C-SVC loss (default hinge)")
    p.add_argument("--help", action="help", help="show this help message and exit")
    p.add_argument("training_set_file")
    p.add_argument("model_file", nargs="?")
    return p


def _predict_parser(prog: str) -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="Predict a LIBSVM-format file with a LIBSVM model file "
                "(as LIBSVM's svm-predict); writes one prediction per line to output_file.")
    p.add_argument("-b", dest="probability", type=int, default=0, choices=[0, 1], metavar="probability_estimates",
                   help="1: write probability estimates (models trained with -b 1)")
    p.add_argument("-q", dest="quiet", action="store_true", help="quiet mode (no outputs)")
    p.add_argument("test_file")
    p.add_argument("model_file")
    p.add_argument("output_file")
    return p


def _scale_parser(prog: str) -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="Scale a LIBSVM-format file to stdout (as LIBSVM's svm-scale).")
    p.add_argument("-l", dest="lower", type=float, default=-1.0, help="x scaling lower limit (default -1)")
    p.add_argument("-u", dest="upper", type=float, default=1.0, help="x scaling upper limit (default +1)")
    p.add_argument("-y", dest="y_limits", type=float, nargs=2, default=None, metavar=("y_lower", "y_upper"),
                   help="y scaling limits (default: no y scaling)")
    p.add_argument("-s", dest="save_filename", help="save scaling parameters to save_filename")
    p.add_argument("-r", dest="restore_filename", help="restore scaling parameters from restore_filename")
    p.add_argument("data_filename")
    return p


# --- train ------------------------------------------------------------------------------------

def _check_train_args(args: argparse.Namespace, weights: dict[float, float]) -> None:
    """Refuse what fwsvm does not implement before reading any data."""
    if args.svm_type in (1, 4):
        raise CliError(f"-s {args.svm_type} ({_SVM_TYPES[args.svm_type]}) is not implemented in fwsvm; "
                       "use -s 0 (C-SVC), -s 2 (one-class) or -s 3 (SVR)")
    if args.kernel_type == 4:
        raise CliError("-t 4 (precomputed kernel files) is not supported by fwsvm train; "
                       "use fwsvm.SVC(kernel='precomputed') from Python")
    if args.probability and args.svm_type != 0:
        raise CliError("-b 1 is supported for C-SVC (-s 0) only")
    if weights and args.svm_type != 0:
        raise CliError("-wi weights apply to C-SVC (-s 0) only")
    if args.svm_type == 2 and args.kernel_type != 2:
        raise CliError("-s 2 (one-class) is written as a LIBSVM model for the rbf kernel (-t 2) only")
    if args.svm_type == 2 and not 0 < args.nu < 1:
        raise CliError(f"-n {args.nu}: nu must be in (0, 1)")


def _estimator(args: argparse.Namespace, weights: dict[float, float], n_features: int) -> Any:
    from fwsvm import SVC, SVR, OneClassSVM

    kernel = _KERNELS[args.kernel_type]
    common = dict(kernel=kernel, gamma=args.gamma if args.gamma is not None else 1.0 / max(n_features, 1),
                  degree=args.degree, coef0=args.coef0, algorithm=args.algorithm, cache_size=args.cachesize,
                  n_jobs=args.threads, verbose=0 if args.quiet else 1)
    if args.svm_type == 0:
        return SVC(C=args.cost, loss=args.loss, tol=args.tol, class_weight=weights or None,
                   probability=bool(args.probability), **common)
    tol = {} if args.tol is None else {"tol": args.tol}
    if args.svm_type == 2:
        return OneClassSVM(nu=args.nu, **tol, **common)
    return SVR(C=args.cost, **tol, **common)


def _cross_validate(est: Any, X: Any, y: np.ndarray, folds: int, svm_type: int) -> list[str]:
    """LIBSVM's ``-v n`` report: accuracy, or mean squared error and squared correlation."""
    from sklearn.base import clone
    from sklearn.model_selection import KFold, StratifiedKFold

    if folds < 2:
        raise CliError(f"-v {folds}: n-fold cross validation needs n >= 2")
    n = X.shape[0]
    folds = min(folds, n)
    classify = svm_type == 0
    splitter = StratifiedKFold(folds, shuffle=True, random_state=0) if classify else KFold(folds, shuffle=True, random_state=0)
    pred = np.empty(n)
    for train, test in splitter.split(np.zeros(n), y if classify else None):
        model = clone(est)
        model.fit(X[train], y[train]) if svm_type != 2 else model.fit(X[train])
        pred[test] = model.predict(X[test])
    if svm_type == 3:
        mse = float(np.mean((pred - y) ** 2))
        return [f"Cross Validation Mean squared error = {_g(mse)}",
                f"Cross Validation Squared correlation coefficient = {_g(_squared_correlation(pred, y))}"]
    return [f"Cross Validation Accuracy = {_g(100.0 * np.mean(pred == y))}%"]


def _squared_correlation(p: np.ndarray, t: np.ndarray) -> float:
    n = len(p)
    sp_, st, spp, stt, spt = p.sum(), t.sum(), p @ p, t @ t, p @ t
    den = (n * spp - sp_ * sp_) * (n * stt - st * st)
    return float((n * spt - sp_ * st) ** 2 / den) if den else float("nan")


def _g(value: float) -> str:
    """C's ``%g``."""
    return "%g" % value


def _train(argv: list[str], prog: str) -> int:
    from fwsvm import load_svmlight_file

    argv, weights = _split_weights(argv)
    args = _train_parser(prog).parse_args(argv)
    _check_train_args(args, weights)
    model_file = args.model_file or os.path.basename(args.training_set_file) + ".model"
    if args.folds is None:  # -v writes no model
        _refuse_same_file(("model file", model_file), [("training file", args.training_set_file)])
    X, y = load_svmlight_file(args.training_set_file, zero_based=False)
    est = _estimator(args, weights, X.shape[1])
    if args.folds is not None:
        for line in _cross_validate(est, X, y, args.folds, args.svm_type):
            print(line)
        return 0
    kind = {0: f"C-SVC ({args.loss} loss)", 2: "one-class SVM", 3: "SVR"}[args.svm_type]
    _say(args.quiet, f"fwsvm: {kind}, {_KERNELS[args.kernel_type]} kernel, {X.shape[0]} rows x "
         f"{X.shape[1]} features{'' if args.svm_type else f', {len(np.unique(y))} classes'}")
    start = time.perf_counter()
    if args.svm_type == 2:
        est.fit(X)
    else:
        est.fit(X, y)
    seconds = time.perf_counter() - start
    conv = est.convergence_
    _say(args.quiet, f"optimization finished in {seconds:.3f} s, #iter = {int(np.sum(est.n_iter_))}, "
         f"{conv['exit_reason']} (relative gap {conv['relative_gap']:.3g})")
    if args.svm_type == 0:
        _say(args.quiet, "nSV per class: " + " ".join(f"{c:g}:{n}" for c, n in zip(est.classes_, est.n_support_)))
    _say(args.quiet, f"Total nSV = {len(est.support_)}")
    with _atomic_output(model_file) as fh:
        est.save_libsvm_model(fh.name)  # the model writer takes a path: the temporary's
    _say(args.quiet, f"model written to {model_file}")
    return 0


# --- predict ----------------------------------------------------------------------------------

def _predict(argv: list[str], prog: str) -> int:
    import scipy.sparse as sp

    from fwsvm import SVC, SVR, load_libsvm_model, load_svmlight_file

    args = _predict_parser(prog).parse_args(argv)
    _refuse_same_file(("output file", args.output_file),
                      [("test file", args.test_file), ("model file", args.model_file)])
    X, y = load_svmlight_file(args.test_file, zero_based=False)
    model = load_libsvm_model(args.model_file)
    # As LIBSVM: features beyond the model's support vectors still count (in ‖x‖² of the rbf
    # kernel), and features the test file lacks are zero.
    d = max(X.shape[1], model.n_features_in_)
    if model.n_features_in_ < d:
        model = load_libsvm_model(args.model_file, n_features=d)
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], d))
    with _atomic_output(args.output_file) as out:
        if args.probability:
            if not isinstance(model, SVC):
                what = "SVR" if isinstance(model, SVR) else "one-class"
                raise CliError(f"{args.model_file}: -b 1 is not supported for {what} models in fwsvm")
            if not len(getattr(model, "probA_", [])):
                raise CliError(f"{args.model_file}: the model does not support probability estimates "
                               "(train it with -b 1)")
            proba = model.predict_proba(X)
            # Columns in the file's label order; the label is the most probable (LIBSVM's rule).
            order = np.asarray(model._label_order, dtype=np.intp)
            labels = [_g(v) for v in model.classes_[order]]
            proba = proba[:, order]
            pred = np.asarray([float(labels[k]) for k in np.argmax(proba, axis=1)]) if len(proba) else np.zeros(0)
            out.write("labels " + " ".join(str(int(float(lab))) for lab in labels) + "\n")
            out.writelines(_g(p) + "".join(" " + _g(v) for v in row) + "\n" for p, row in zip(pred, proba))
        else:
            pred = np.asarray(model.predict(X), dtype=np.float64)
            out.writelines("%.17g\n" % p for p in pred)
    if isinstance(model, SVR):
        _say(args.quiet, f"Mean squared error = {_g(float(np.mean((pred - y) ** 2)))} (regression)")
        _say(args.quiet, f"Squared correlation coefficient = {_g(_squared_correlation(pred, y))} (regression)")
    else:
        correct = int(np.sum(pred == y))
        total = len(y)
        accuracy = 100.0 * correct / total if total else float("nan")
        _say(args.quiet, f"Accuracy = {_g(accuracy)}% ({correct}/{total}) (classification)")
    return 0


# --- scale ------------------------------------------------------------------------------------

def _read_restore(path: str) -> tuple[tuple[float, float, float, float] | None, tuple[float, float], dict[int, tuple[float, float]]]:
    """svm-scale's parameter file: optional y section, then x limits and per-feature min/max."""
    try:
        with open(path, encoding="ascii") as fh:
            lines = [line.split() for line in fh if line.strip()]
    except OSError as exc:
        raise CliError(f"can't open file {path} ({exc.strerror})") from None
    k = 0
    y_part = None
    try:
        if lines and lines[0] == ["y"]:
            y_lower, y_upper = map(float, lines[1])
            y_min, y_max = map(float, lines[2])
            y_part = (y_lower, y_upper, y_min, y_max)
            k = 3
        if lines[k] != ["x"]:
            raise ValueError("no 'x' section")
        lower, upper = map(float, lines[k + 1])
        features = {}
        for parts in lines[k + 2 :]:
            idx, fmin, fmax = int(parts[0]), float(parts[1]), float(parts[2])
            features[idx] = (fmin, fmax)
    except (ValueError, IndexError) as exc:
        raise CliError(f"{path}: failed to read scaling parameters ({exc})") from None
    return y_part, (lower, upper), features


def _scale(argv: list[str], prog: str) -> int:
    from fwsvm import load_svmlight_file

    args = _scale_parser(prog).parse_args(argv)
    lower, upper = args.lower, args.upper
    y_scaling = args.y_limits is not None
    y_lower, y_upper = args.y_limits if y_scaling else (0.0, 0.0)
    if not upper > lower or (y_scaling and not y_upper > y_lower):
        raise CliError("inconsistent lower/upper specification")
    if args.restore_filename and args.save_filename:
        raise CliError("cannot use -r and -s simultaneously")
    if args.save_filename:
        _refuse_same_file(("save file", args.save_filename),
                          [("data file", args.data_filename),
                           ("restore file", args.restore_filename)])  # None while -r and -s exclude each other
    X, y = load_svmlight_file(args.data_filename, zero_based=False)
    restore = _read_restore(args.restore_filename) if args.restore_filename else None
    n, d = X.shape
    max_index = d
    if restore is not None and restore[2]:
        max_index = max(max_index, max(restore[2]))
    X = X.tocsc()
    # Per feature: min and max over the rows, absent entries being 0 (svm-scale's pass 2).
    fmin = np.full(max_index + 1, np.inf)
    fmax = np.full(max_index + 1, -np.inf)
    stored = np.diff(X.indptr)
    for j in range(d):
        values = X.data[X.indptr[j] : X.indptr[j + 1]]
        lo, hi = (values.min(), values.max()) if len(values) else (np.inf, -np.inf)
        if stored[j] < n:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        fmin[j + 1], fmax[j + 1] = lo, hi
    if n:
        fmin[d + 1 :], fmax[d + 1 :] = 0.0, 0.0
    y_min, y_max = (float(y.min()), float(y.max())) if n else (np.inf, -np.inf)
    if restore is not None:
        y_part, (lower, upper), features = restore
        if y_part is not None:
            y_lower, y_upper, y_min, y_max = y_part
            y_scaling = True
        next_index = 1
        for idx in sorted(features):
            for i in range(next_index, min(idx, max_index + 1)):
                _unseen(fmin, fmax, i, args.data_filename, args.restore_filename)
            if 1 <= idx <= max_index:
                fmin[idx], fmax[idx] = features[idx]
            next_index = idx + 1
        for i in range(next_index, max_index + 1):
            _unseen(fmin, fmax, i, args.data_filename, args.restore_filename)
    if args.save_filename:
        try:
            with _atomic_output(args.save_filename) as fh:
                if y_scaling:
                    fh.write("y\n%.17g %.17g\n%.17g %.17g\n" % (y_lower, y_upper, y_min, y_max))
                fh.write("x\n%.17g %.17g\n" % (lower, upper))
                for i in range(1, max_index + 1):
                    if fmin[i] != fmax[i]:
                        fh.write("%d %.17g %.17g\n" % (i, fmin[i], fmax[i]))
        except OSError as exc:
            raise CliError(f"can't open file {args.save_filename} ({exc.strerror})") from None
    X = X.tocsr()
    varying = np.flatnonzero(fmin[1:] != fmax[1:]) + 1  # 1-based features that are output
    lo, hi = fmin[varying], fmax[varying]
    span = hi - lo
    out = sys.stdout
    new_nonzeros = 0
    rows_per_block = max(1, 4_000_000 // max(len(varying), 1))
    for start in range(0, n, rows_per_block):
        stop = min(n, start + rows_per_block)
        block = np.zeros((stop - start, max_index + 1))
        dense = X[start:stop].toarray()
        block[:, 1 : d + 1] = dense
        values = block[:, varying]
        with np.errstate(invalid="ignore", divide="ignore"):
            scaled = lower + (upper - lower) * (values - lo) / span
        scaled = np.where(values == lo, lower, np.where(values == hi, upper, scaled))
        lines = []
        for r in range(stop - start):
            keep = np.flatnonzero(scaled[r] != 0)
            new_nonzeros += len(keep)
            target = _scale_target(float(y[start + r]), y_scaling, y_lower, y_upper, y_min, y_max)
            lines.append("%.17g " % target + "".join("%d:%g " % (varying[k], scaled[r, k]) for k in keep) + "\n")
        out.write("".join(lines))
    out.flush()
    if new_nonzeros > X.nnz:
        print(f"WARNING: original #nonzeros {X.nnz}\n       > new      #nonzeros {new_nonzeros}\n"
              "If feature values are non-negative and sparse, use -l 0 rather than the default -l -1",
              file=sys.stderr)
    return 0


def _unseen(fmin: np.ndarray, fmax: np.ndarray, i: int, data: str, restore: str) -> None:
    if fmin[i] != fmax[i]:
        print(f"WARNING: feature index {i} appeared in file {data} was not seen in the scaling factor "
              f"file {restore}. The feature is scaled to 0.", file=sys.stderr)
        fmin[i] = fmax[i] = 0.0


def _scale_target(value: float, y_scaling: bool, y_lower: float, y_upper: float, y_min: float, y_max: float) -> float:
    if not y_scaling:
        return value
    if value == y_min:
        return y_lower
    if value == y_max:
        return y_upper
    return y_lower + (y_upper - y_lower) * (value - y_min) / (y_max - y_min)


# --- grid -------------------------------------------------------------------------------------

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
    count = int(np.floor((end - begin) / step + 1e-9)) + 1
    return [begin + k * step for k in range(count)]


def _grid(argv: list[str], prog: str) -> int:
    """LIBSVM's ``tools/grid.py``: (C, γ) by cross-validation over log2 grids."""
    from sklearn.model_selection import StratifiedKFold

    from fwsvm import SVCSearch, load_svmlight_file

    if not argv or "--help" in argv:
        print(f"usage: {prog} [grid_options] [svm_options] dataset\n\n"
              "Choose C and gamma of C-SVC by cross-validation accuracy (as LIBSVM's tools/grid.py).\n\n"
              "grid_options:\n"
              "  -log2c {begin,end,step | null}  log2 of C (default -5,15,2)\n"
              "  -log2g {begin,end,step | null}  log2 of gamma (default 3,-15,-2)\n"
              "  -v n                            n-fold cross validation (default 5)\n"
              "  -out {pathname | null}          write 'log2c=.. log2g=.. rate=..' lines (default dataset.out)\n"
              "  -png, -gnuplot, -svmtrain       accepted and ignored (no plot; fwsvm trains)\n\n"
              f"svm_options: as {prog.replace('grid', 'train')} (-t -d -r -m -e -wi -a -j --loss -q);\n"
              "prints one line per grid point, then 'best_c best_g best_rate'.")
        return 0
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
    rest, weights = _split_weights(rest)
    args = _train_parser(prog).parse_args(rest)
    if args.model_file is not None:
        raise CliError(f"unexpected argument {args.model_file}: fwsvm grid takes one data file")
    _check_train_args(args, weights)
    if args.svm_type != 0:
        raise CliError("fwsvm grid searches C-SVC (-s 0) by cross-validation accuracy")
    if log2g is not None and args.kernel_type == 0:
        raise CliError("the linear kernel (-t 0) has no gamma: add -log2g null")
    if out_path is None:
        out_path = os.path.basename(args.training_set_file) + ".out"
    if out_path:
        _refuse_same_file(("-out file", out_path), [("data file", args.training_set_file)])
    X, y = load_svmlight_file(args.training_set_file, zero_based=False)
    est = _estimator(args, weights, X.shape[1]).set_params(verbose=0, probability=False)
    Cs = [2.0**v for v in log2c] if log2c is not None else [est.C]
    gammas = [2.0**v for v in log2g] if log2g is not None else None if args.kernel_type == 0 else [est.gamma]
    folds = min(folds, int(np.min(np.unique(y, return_counts=True)[1])))
    if folds < 2:
        raise CliError("a class has a single sample: cross validation is not possible")
    search = SVCSearch(est, Cs=Cs, gammas=gammas, cv=StratifiedKFold(folds, shuffle=True, random_state=0),
                       n_jobs=args.threads if args.threads is not None else -1, refit=False).fit(X, y)
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
    if not args.quiet:
        print("\n".join(lines))
    if out_path:
        with _atomic_output(out_path) as fh:
            fh.writelines(records)
    chosen = [f"{2.0**v:g}" for v, on in ((best[0], log2c), (best[1], log2g)) if on is not None]
    print(f"{' '.join(chosen)} {best_rate:g}")
    return 0


# --- entry points -----------------------------------------------------------------------------

_COMMANDS = {"train": _train, "predict": _predict, "scale": _scale, "grid": _grid}


def _run(command: str, argv: list[str], prog: str) -> int:
    """Run one command; problems become one line on stderr and exit status 1."""
    from fwsvm import LibsvmFormatError, LibsvmModelError

    try:
        return _COMMANDS[command](argv, prog)
    except SystemExit as exc:  # -h / --help
        return int(exc.code or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except (CliError, LibsvmFormatError, LibsvmModelError, ValueError, MemoryError) as exc:
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
