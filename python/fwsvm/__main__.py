"""The ``fwsvm`` command: ``demo`` trains on data bundled with scikit-learn (no network) and
reports test accuracy, fit time and support vectors next to scikit-learn's SVC (LIBSVM);
``train``, ``predict`` and ``scale`` are LIBSVM's tools (see :mod:`fwsvm.cli`)."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _demo(args: argparse.Namespace) -> int:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from fwsvm import SVC, __version__

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    print(f"fwsvm {__version__} demo: breast cancer (scikit-learn bundled), "
          f"{X_train.shape[0]} train / {X_test.shape[0]} test, {X.shape[1]} features, rbf kernel")
    clf = SVC(C=args.C, loss=args.loss, algorithm=args.algorithm, random_state=0, verbose=args.verbose)
    start = time.perf_counter()
    clf.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    acc = float(np.mean(clf.predict(X_test) == y_test))
    info = clf.convergence_
    print(f"fwsvm.SVC(C={args.C}, loss={args.loss!r}, algorithm={args.algorithm!r}): accuracy {acc:.4f}, "
          f"fit {fit_s * 1e3:.1f} ms, "
          f"{len(clf.support_)} support vectors, {info['n_iter']} steps, {info['exit_reason']} "
          f"(relative gap {info['relative_gap']:.2e})")
    if not args.no_compare:
        from sklearn.svm import SVC as LibsvmSVC

        # The same C means the same model for the hinge loss; the squared hinge's C is on another
        # scale (it penalises squared slacks), so LIBSVM runs at its default C = 1 then.
        ref_C = args.C if args.loss == "hinge" else 1.0
        ref = LibsvmSVC(C=ref_C)
        start = time.perf_counter()
        ref.fit(X_train, y_train)
        ref_s = time.perf_counter() - start
        ref_acc = float(np.mean(ref.predict(X_test) == y_test))
        print(f"sklearn.svm.SVC(C={ref_C}) [LIBSVM]: accuracy {ref_acc:.4f}, fit {ref_s * 1e3:.1f} ms, "
              f"{len(ref.support_)} support vectors")
    return 0


def main(argv: list[str] | None = None) -> int:
    from fwsvm import cli

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("train", "predict", "scale"):
        return cli._run(argv[0], argv[1:], f"fwsvm {argv[0]}")
    parser = argparse.ArgumentParser(prog="fwsvm", description="Frank-Wolfe kernel SVMs")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in [("train", "train on a LIBSVM file, write a LIBSVM model (as svm-train)"),
                       ("predict", "predict a LIBSVM file with a LIBSVM model (as svm-predict)"),
                       ("scale", "scale a LIBSVM file to stdout (as svm-scale)")]:
        sub.add_parser(name, help=f"{text}; fwsvm {name} -h for its options", add_help=False)
    demo = sub.add_parser("demo", help="train on bundled data and report accuracy, time, support vectors")
    demo.add_argument("-c", "--C", type=float, default=1.0, help="penalty C (default 1)")
    demo.add_argument("-l", "--loss", default="hinge", choices=["hinge", "squared_hinge"],
                      help="hinge: LIBSVM's model (default); squared_hinge: the L2-SVM of the Frank-Wolfe solvers")
    demo.add_argument("-a", "--algorithm", default="swap", choices=["fw", "mfw", "swap", "swap2o", "bc", "ky"],
                      help="solver; the hinge loss takes swap or swap2o")
    demo.add_argument("-v", "--verbose", action="store_true", help="print solver progress")
    demo.add_argument("--no-compare", action="store_true", help="skip the scikit-learn comparison")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
