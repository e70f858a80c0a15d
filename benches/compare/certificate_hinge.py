"""The hinge loss's certificate recomputed from the fitted model on every training row.

    python benches/compare/certificate_hinge.py "make_classification 100k" "checkerboard 100k" \
        [--C 1] [--gamma G] [--tol 1e-3]

For each dataset of ``peers.py``'s list (binary; a multiclass file is made binary as its first
label against the rest), ``fwsvm.SVC(loss="hinge")`` is fitted, and from its ``dual_coef_``,
``support_``, ``intercept_`` and the decision values on every training row (kernel values in
``f64``, independent of the solver's column cache) the script recomputes

- the largest KKT violation max_{I_up} v − min_{I_low} v with v_t = y_t − Σ_s α_s y_s k(x_s, x_t),
  which the solver certifies to be at most ``tol``;
- the duality gap P(w, b) − D(α) and its relative size.

It prints both beside what the solver reported (``convergence_``) and exits 1 if the recomputed
violation exceeds ``tol``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import DATASETS, load_dataset, reorder, resolve_gamma  # noqa: E402


def certificate(clf, X, y01: np.ndarray, C: float) -> tuple[float, float, float]:
    """(max violation, duality gap, relative gap) of a fitted binary hinge-loss SVC."""
    y = np.where(y01 == clf.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[clf.support_] = np.abs(clf.dual_coef_[0])
    b = float(clf.intercept_[0])
    f = clf.decision_function(X)
    v = y - (f - b)
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    violation = float(v[up].max() - v[low].min())
    quad = float(np.sum(alpha * y * (f - b)))
    dual = float(alpha.sum()) - 0.5 * quad
    primal = 0.5 * quad + C * float(np.maximum(0.0, 1.0 - y * f).sum())
    return violation, primal - dual, (primal - dual) / abs(primal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gamma", type=float)
    parser.add_argument("--tol", type=float, default=1e-3)
    args = parser.parse_args()
    import fwsvm

    table = {name: (train, test, gamma) for name, train, test, gamma in DATASETS}
    failed = False
    print("| data | m | #SV | fit s | max violation (recomputed) | tol | duality gap | relative gap | solver's relative gap |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        train, test, gamma = table[name]
        X, y, _, _ = reorder(load_dataset(args.data, train, test))
        if len(np.unique(y)) > 2:
            y = np.where(y == np.unique(y)[0], 1.0, -1.0)
        g = args.gamma if args.gamma is not None else resolve_gamma(X, gamma)
        start = time.perf_counter()
        clf = fwsvm.SVC(C=args.C, gamma=g, tol=args.tol, n_jobs=1).fit(X, y)
        seconds = time.perf_counter() - start
        violation, gap, rel = certificate(clf, X, y, args.C)
        failed |= not violation <= args.tol
        print(f"| {name} | {X.shape[0]:,} | {len(clf.support_):,} | {seconds:.2f} | {violation:.3e} | {args.tol:g} | "
              f"{gap:.4g} | {rel:.3e} | {clf.convergence_['relative_gap']:.3e} |", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
