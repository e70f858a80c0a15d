"""The 4×4 checkerboard of the CVM papers at any size: one hinge-loss fit, its test accuracy
on 20,000 further points, time, support vectors and solver counts.

    python benches/compare/large_board.py N C [THREADS]

The data are those of ``peers.py``'s ``gen:checkerboard:N`` (uniform on [0, 4)², seed 0).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import fwsvm


def main() -> None:
    n, C = int(sys.argv[1]), float(sys.argv[2])
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    X = np.random.default_rng(0).uniform(0.0, 4.0, size=(n + 20_000, 2))
    y = np.where((np.floor(X[:, 0]) + np.floor(X[:, 1])) % 2 == 0, 1.0, -1.0)
    start = time.perf_counter()
    model = fwsvm.SVC(C=C, gamma=1.0, n_jobs=threads).fit(X[:n], y[:n])
    fit = time.perf_counter() - start
    start = time.perf_counter()
    acc = float(np.mean(model.predict(X[n:]) == y[n:]))
    predict = time.perf_counter() - start
    c = model.convergence_
    print(
        f"checkerboard n={n} C={C} threads={threads}: fit {fit:.2f} s, accuracy {acc:.4f}, "
        f"{len(model.support_)} SV, {c['n_iter']} steps, {c['columns_computed']} columns, "
        f"{c['shrinks']} shrinks, predict {predict:.2f} s"
    )


if __name__ == "__main__":
    main()
