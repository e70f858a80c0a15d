"""Issue 19 check of the scale model's first bound: what does solving the final support alone
cost, against the driver's law D(W) evaluated at W = n_SV?

    python3 benches/compare/dfw_support_solve.py [rows ...]

For each size: the in-process fit of the checkerboard (C 1, γ 1, tol 1e-2, all cores) gives the
final support S; the engine then solves the problem on S's rows alone, cold, with the driver's
settings (all cores, a 200 MB cache, half the tolerance), and the time is printed next to the
law ``driver`` of ``dask_dfw.py`` (fitted to warm solves on unions W ⊇ S) at W = |S|. The
bound charges D(|S|); a ratio above 1 means the bound is generous.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from dask_dfw import HERE, board, laws
from fwsvm import _core
from fwsvm._dfw import ENGINE_CACHE_MB

KERNEL = {"kernel": "rbf", "gamma": 1.0, "degree": 3, "coef0": 0.0}


def fit(X: np.ndarray, y: np.ndarray, tol: float) -> dict:
    return _core.fit_svc(X, y, c=1.0, algorithm="swap", tol=tol, stopping="gap", max_iter=-1,
                         cache_size=ENGINE_CACHE_MB, init="random", seed=0, n_threads=None, loss="squared_hinge",
                         **KERNEL)


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [30_000, 100_000, 300_000]
    law = laws(json.loads((HERE / "results" / "dask_dfw.json").read_text()))["driver"]
    print("| rows | final support | solve of the support alone | law D(n_SV) | ratio |")
    print("|---|---|---|---|---|")
    for m in sizes:
        X, y = board(m)
        S = np.asarray(fit(X, y, 1e-2)["support"], dtype=np.intp)
        t = time.perf_counter()
        fit(X[S], y[S], 0.5e-2)
        t = time.perf_counter() - t
        pred = law[0] * len(S) ** law[1]
        print(f"| {m} | {len(S)} | {t:.2f} s | {pred:.2f} s | {t / pred:.2f} |", flush=True)


if __name__ == "__main__":
    main()
