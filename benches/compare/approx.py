"""Kernel approximation + linear solver: fwsvm's Nystroem / RandomFourierFeatures feeding the
linear path (SVC algorithm="dcd", or SGDSVC) against scikit-learn's Nystroem / RBFSampler +
LinearSVC, at the same number of components and γ (issue 20 item 4).

    taskset -c 1 python3 benches/compare/approx.py checkerboard:1000000 --components 300
    taskset -c 1 python3 benches/compare/approx.py mnist --components 1000

Each row: fit seconds (transform included), predict seconds, test accuracy. One thread when
pinned with taskset (BLAS and fwsvm both follow the affinity)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from peers import load_dataset  # noqa: E402


def data(name: str, data_dir: str):
    if name.startswith("checkerboard:"):
        return load_dataset(data_dir, f"gen:{name}", None)
    if name == "mnist":
        return load_dataset(data_dir, "mnist.scale.bz2", "mnist.scale.t.bz2")
    return load_dataset(data_dir, name, None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--components", type=int, default=300)
    p.add_argument("--C", type=float, default=1.0, help="LinearSVC's C (fwsvm's squared hinge gets 2C: same model)")
    p.add_argument("--gamma", type=float, default=None, help="default: 1/(n_features·var) (scale)")
    p.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    p.add_argument("--only", nargs="*", default=None)
    args = p.parse_args()

    from sklearn.kernel_approximation import Nystroem as SkNystroem
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    import fwsvm

    X, Xt, y, yt = data(args.data, args.data_dir)
    gamma = args.gamma or fwsvm.SVC(gamma="scale")._resolve_gamma(X)
    D, C = args.components, args.C
    print(f"# {args.data}: {X.shape[0]} × {X.shape[1]}, test {Xt.shape[0]}, classes {np.unique(y).size}, "
          f"γ = {gamma:.4g}, components {D}, LinearSVC C = {C}")
    linear = dict(kernel="linear", loss="squared_hinge", algorithm="dcd", C=2 * C, tol=1e-3)
    tools = {
        "sklearn Nystroem + LinearSVC": lambda: make_pipeline(
            SkNystroem(gamma=gamma, n_components=D, random_state=0), LinearSVC(C=C)),
        "fwsvm Nystroem + SVC(dcd)": lambda: make_pipeline(
            fwsvm.Nystroem(gamma=gamma, n_components=D, random_state=0), fwsvm.SVC(**linear)),
        "fwsvm Nystroem(coreset) + SVC(dcd)": lambda: make_pipeline(
            fwsvm.Nystroem(gamma=gamma, n_components=D, landmarks="coreset", C=2 * C, random_state=0),
            fwsvm.SVC(**linear)),
        "fwsvm Nystroem + SGDSVC": lambda: make_pipeline(
            fwsvm.Nystroem(gamma=gamma, n_components=D, random_state=0), fwsvm.SGDSVC(C=C, random_state=0)),
        "sklearn RBFSampler + LinearSVC": lambda: make_pipeline(
            RBFSampler(gamma=gamma, n_components=D, random_state=0), LinearSVC(C=C)),
        "fwsvm RandomFourierFeatures + SVC(dcd)": lambda: make_pipeline(
            fwsvm.RandomFourierFeatures(gamma=gamma, n_components=D, random_state=0), fwsvm.SVC(**linear)),
    }
    print("| tool | fit s | predict s | test accuracy |\n|---|---|---|---|")
    for name, make in tools.items():
        if args.only and not any(o in name for o in args.only):
            continue
        model = make()
        t0 = time.perf_counter()
        model.fit(X, y)
        t1 = time.perf_counter()
        pred = model.predict(Xt)
        t2 = time.perf_counter()
        print(f"| {name} | {t1 - t0:.2f} | {t2 - t1:.2f} | {np.mean(pred == yt):.4f} |", flush=True)


if __name__ == "__main__":
    main()
