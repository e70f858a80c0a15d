"""The ``fwsvm`` command: ``demo`` trains on data bundled with scikit-learn (no network) and
reports test accuracy, fit time and support vectors next to scikit-learn's SVC (LIBSVM);
``train``, ``predict``, ``scale`` and ``grid`` are LIBSVM's tools, in Rust (see :mod:`fwsvm.cli`)."""

from __future__ import annotations

import argparse
import sys
import time


#: Algorithms that solve the hinge loss; the others solve the squared hinge only.
_HINGE_ALGORITHMS = ("swap", "swap2o")


def _criterion(loss: str, info: dict) -> str:
    """What stopped the fit, in the words of its certificate: the hinge loss's SMO stops on the
    largest violation of the optimality conditions (the duality gap is reported beside it), the
    squared hinge on the relative duality gap."""
    rel, tol = info["relative_gap"], info.get("tol", float("nan"))
    if loss == "hinge":
        return f"(largest KKT violation <= tol {tol:g}; relative duality gap {rel:.2e})"
    return f"(relative duality gap {rel:.2e}, tol {tol:g})"


def _demo(args: argparse.Namespace) -> int:
    import numpy as np
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC as LibsvmSVC

    from fwsvm import SVC, SVCCV, __version__
    from fwsvm.tuning import DEFAULT_CS

    loss = args.loss
    if loss is None:
        loss = "hinge" if args.algorithm in _HINGE_ALGORITHMS else "squared_hinge"
    elif loss == "hinge" and args.algorithm not in _HINGE_ALGORITHMS:
        print(f"fwsvm demo: -a {args.algorithm} solves the squared hinge only; use -l squared_hinge "
              f"or -a swap / swap2o for the hinge loss", file=sys.stderr)
        return 2
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    print(f"fwsvm {__version__} demo: breast cancer (scikit-learn bundled), "
          f"{X_train.shape[0]} train / {X_test.shape[0]} test, {X.shape[1]} features, rbf kernel")
    clf = SVC(loss=loss, algorithm=args.algorithm, random_state=0, verbose=args.verbose)
    ref = LibsvmSVC()
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    if args.C is None:
        # Each tool at its own cross-validated C (the squared hinge's C is on another scale than
        # LIBSVM's hinge-loss C, so copying one C across would compare different models).
        grid = ", ".join(f"{c:g}" for c in DEFAULT_CS)
        print(f"C chosen per tool by 5-fold cross-validation on the training set over {{{grid}}}")
        start = time.perf_counter()
        fw_C = SVCCV(clf, Cs=DEFAULT_CS, cv=folds, refit=False).fit(X_train, y_train).C_
        fw_search = time.perf_counter() - start
        ref_C = fw_C
        if not args.no_compare:
            start = time.perf_counter()
            ref_C = GridSearchCV(ref, {"C": list(DEFAULT_CS)}, cv=folds, refit=False).fit(X_train, y_train)
            ref_search = time.perf_counter() - start
            ref_C = float(ref_C.best_params_["C"])
    else:
        fw_C = ref_C = args.C
        if loss == "squared_hinge":
            print("note: the squared hinge's C penalises squared slacks and is on another scale than "
                  "LIBSVM's; omit -c to compare each tool at its cross-validated C")
    clf.set_params(C=fw_C)
    start = time.perf_counter()
    clf.fit(X_train, y_train)
    fit_s = time.perf_counter() - start
    acc = float(np.mean(clf.predict(X_test) == y_test))
    info = clf.convergence_
    search = f", C search {fw_search:.2f} s" if args.C is None else ""
    print(f"fwsvm.SVC(C={fw_C:g}, loss={loss!r}, algorithm={args.algorithm!r}): test accuracy {acc:.4f}, "
          f"fit {fit_s * 1e3:.1f} ms{search}, "
          f"{len(clf.support_)} support vectors, {info['n_iter']} steps, {info['exit_reason']} "
          f"{_criterion(loss, info)}")
    if not args.no_compare:
        ref.set_params(C=ref_C)
        start = time.perf_counter()
        ref.fit(X_train, y_train)
        ref_s = time.perf_counter() - start
        ref_acc = float(np.mean(ref.predict(X_test) == y_test))
        search = f", C search {ref_search:.2f} s" if args.C is None else ""
        print(f"sklearn.svm.SVC(C={ref_C:g}) [LIBSVM]: test accuracy {ref_acc:.4f}, fit {ref_s * 1e3:.1f} ms"
              f"{search}, {len(ref.support_)} support vectors")
        if loss == "hinge":
            print("(the hinge loss is LIBSVM's model: at the same C both tools fit the same classifier)")
    return 0


def main(argv: list[str] | None = None) -> int:
    from fwsvm import cli

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("train", "predict", "scale", "grid"):
        return cli._run(argv[0], argv[1:], f"fwsvm {argv[0]}")
    parser = argparse.ArgumentParser(prog="fwsvm", description="Frank-Wolfe kernel SVMs")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in [("train", "train on a LIBSVM file, write a LIBSVM model (as svm-train)"),
                       ("predict", "predict a LIBSVM file with a LIBSVM model (as svm-predict)"),
                       ("scale", "scale a LIBSVM file to stdout (as svm-scale)"),
                       ("grid", "choose C and gamma by cross-validation (as LIBSVM's grid.py)")]:
        sub.add_parser(name, help=f"{text}; fwsvm {name} --help for its options", add_help=False)
    demo = sub.add_parser("demo", help="train on bundled data and report accuracy, time, support vectors")
    demo.add_argument("-c", "--C", type=float, default=None,
                      help="penalty C for both tools (default: each tool's C by 5-fold cross-validation)")
    demo.add_argument("-l", "--loss", default=None, choices=["hinge", "squared_hinge"],
                      help="hinge: LIBSVM's model (default for swap, swap2o); squared_hinge: the L2-SVM "
                           "of the Frank-Wolfe solvers (default for fw, mfw, bc, ky)")
    demo.add_argument("-a", "--algorithm", default="swap", choices=["fw", "mfw", "swap", "swap2o", "bc", "ky"],
                      help="solver (default swap); fw, mfw, bc and ky solve the squared hinge")
    demo.add_argument("-v", "--verbose", action="store_true", help="print solver progress")
    demo.add_argument("--no-compare", action="store_true", help="skip the scikit-learn comparison")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
