"""Linear SVMs: fwsvm's SGDSVC (004's mini-batch SGD) and the `dcd` path of SVC against
scikit-learn's LinearSVC (LIBLINEAR) and SGDClassifier, one thread, test accuracy beside the
time (issue 20 item 3).

    taskset -c 1 python3 benches/compare/linear.py a9a w8a mnist

mnist (10 classes) is fitted one-vs-rest by SGDSVC, LinearSVC and SGDClassifier, one-vs-one by
SVC. Hinge-loss models at C (LinearSVC loss="hinge"; SGDClassifier alpha = 1/(C·n)); the
squared-hinge pair at LinearSVC's default (C, intercept_scaling=1) = fwsvm's squared hinge at 2C."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from peers import load_dataset  # noqa: E402

FILES = {"a9a": ("a9a", "a9a.t"), "w8a": ("w8a", "w8a.t"), "mnist": ("mnist.scale.bz2", "mnist.scale.t.bz2")}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", nargs="+")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = p.parse_args()

    import scipy.sparse as sp
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    import fwsvm

    C = args.C
    for name in args.data:
        train, test = FILES.get(name, (name, None))
        X, Xt, y, yt = load_dataset(args.data_dir, train, test)
        if sp.issparse(X):  # LIBLINEAR wants 32-bit indices
            X, Xt = (sp.csr_matrix((m.data, m.indices.astype(np.int32), m.indptr.astype(np.int32)), shape=m.shape)
                     for m in (X, Xt))
        n = X.shape[0]
        tools = {
            "fwsvm SGDSVC (hinge)": lambda: fwsvm.SGDSVC(C=C, random_state=0),
            "LinearSVC (hinge)": lambda: LinearSVC(C=C, loss="hinge", max_iter=10_000),
            "SGDClassifier (hinge)": lambda: SGDClassifier(alpha=1.0 / (C * n), random_state=0),
            "fwsvm SVC(kernel=linear, dcd), squared hinge 2C": lambda: fwsvm.SVC(
                kernel="linear", loss="squared_hinge", algorithm="dcd", C=2 * C),
            "LinearSVC (squared hinge, default)": lambda: LinearSVC(C=C),
        }
        print(f"\n# {name}: {X.shape[0]} × {X.shape[1]}, test {Xt.shape[0]}, C = {C}\n")
        print("| tool | fit s | test accuracy |\n|---|---|---|")
        for label, make in tools.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                model = make().fit(X, y)
                t1 = time.perf_counter()
            print(f"| {label} | {t1 - t0:.2f} | {model.score(Xt, yt):.4f} |", flush=True)


if __name__ == "__main__":
    main()
