"""Warm-started C path against independent cold fits on the protocol's C grid.

    python benches/compare/c_path.py [--data ../shared/data] [--dataset a3a] [--gamma 0.05]

Splits the training file like the peer protocol (seeded shuffle, last 20% for validation),
then times ``fwsvm.svc_path`` (each C warm-started from the previous one, ascending) and seven
cold ``SVC`` fits, printing the time, steps and validation accuracy of each C.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

GRID = [2.0**k for k in (-3, -1, 1, 3, 5, 7, 9)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--dataset", default="a3a")
    parser.add_argument("--gamma", type=float, default=0.05)
    args = parser.parse_args()
    import fwsvm

    X, y = fwsvm.load_svmlight_file(Path(args.data) / args.dataset)
    perm = np.random.default_rng(0).permutation(X.shape[0])
    cut = int(round(0.8 * len(perm)))
    tr, va = perm[:cut], perm[cut:]
    template = fwsvm.SVC(loss="squared_hinge", gamma=args.gamma, random_state=0)
    start = time.perf_counter()
    models, scores = fwsvm.svc_path(X[tr], y[tr], GRID, estimator=template, X_val=X[va], y_val=y[va])
    warm_s = time.perf_counter() - start
    start = time.perf_counter()
    cold = [fwsvm.SVC(loss="squared_hinge", C=C, gamma=args.gamma, random_state=0).fit(X[tr], y[tr]) for C in GRID]
    cold_s = time.perf_counter() - start
    print(f"{args.dataset}: {len(tr)} training / {len(va)} validation rows, gamma {args.gamma}")
    print("| C | steps warm | steps cold | validation acc warm | cold |")
    print("|---|---|---|---|---|")
    for C, w, c, s in zip(GRID, models, cold, scores):
        print(f"| {C:g} | {w.n_iter_[0]:,} | {c.n_iter_[0]:,} | {s:.4f} | {c.score(X[va], y[va]):.4f} |")
    print(f"path (warm) {warm_s:.2f} s, cold fits {cold_s:.2f} s, speed-up {cold_s / warm_s:.2f}x")


if __name__ == "__main__":
    main()
