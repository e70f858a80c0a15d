"""The command line: ``fwsvm train | predict | scale | grid | demo``, flag- and
file-compatible with LIBSVM's ``svm-train``, ``svm-predict``, ``svm-scale`` and
``tools/grid.py`` (also installed as ``fwsvm-train``, ``fwsvm-predict``, ``fwsvm-scale`` and
``fwsvm-grid``).

``train``, ``predict``, ``scale`` and ``grid`` are implemented once, in Rust (``src/cli``; the
same code is the ``fwsvm`` binary of ``cargo install fwsvm --features cli``): these scripts
call it without importing NumPy or scikit-learn, and it prints through ``sys.stdout`` and
``sys.stderr``. ``train`` writes LIBSVM model files (LIBSVM's ``svm-predict`` reads them and
predicts the same); ``predict`` reads models written by LIBSVM's ``svm-train``; ``scale`` writes
what ``svm-scale`` writes, byte for byte; ``grid`` searches C and γ of C-SVC over grid.py's
log2 grids (``-log2c``, ``-log2g``, ``-v``, ``-out`` as grid.py, other options as ``train``),
each point's rate the accuracy ``train -v n`` prints for it. Errors are one line on stderr and
exit status 1. An output file that is one of the inputs (same path, symlink or hard link) is
refused before anything is read, and every output file is written to a temporary and renamed
into place once complete. ``demo`` (:mod:`fwsvm.__main__`) is the one command in Python.

LIBSVM's ``-s`` types are LIBSVM's five models:

- ``-s 0`` C-SVC: :class:`fwsvm.SVC` with the hinge loss, LIBSVM's model at LIBSVM's C
  (``--loss squared_hinge`` trains the L2-SVM instead, whose C is on another scale);
- ``-s 1`` ν-SVC: :class:`fwsvm.NuSVC`;
- ``-s 2`` one-class ν-SVM: :class:`fwsvm.OneClassSVM`;
- ``-s 3`` ε-SVR: :class:`fwsvm.SVR` (``-p`` is ε, the tube's half-width);
- ``-s 4`` ν-SVR: :class:`fwsvm.NuSVR`.
"""

from __future__ import annotations

import sys

from fwsvm import _core


def _run(command: str, argv: list[str], prog: str) -> int:
    """Run one command in Rust; problems are one line on stderr and exit status 1, Ctrl-C 130."""
    try:
        return int(_core.cli_main(command, list(argv), prog, sys.stdout.write, sys.stderr.write))
    except KeyboardInterrupt:
        return 130  # the Rust side stopped, cleaned up and said so


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
