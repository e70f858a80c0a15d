"""How loose can the stopping tolerance be before test accuracy moves?  Evidence for the default.

    python benches/compare/tol_study.py [--data ../shared/data] [--datasets a1a w1a ...] [--out FILE]

For every dataset, fits ``fwsvm.SVC(algorithm="swap", stopping="gap")`` at C = 1 (γ as listed)
with a ladder of tolerances and prints, per tolerance, the steps, fit time, support vectors, test
accuracy and the accuracy change against the tightest tolerance, next to LIBSVM's (scikit-learn
``SVC``) accuracy at the same C and γ. Runs single-threaded; writes Markdown to ``--out`` if given.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from machine import describe
from solvers import load

TOLS = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 1e-4]
# (train file, test file or None for a 70/30 split, n_features, gamma, skip tolerances below)
DATASETS = [
    ("heart_scale", None, 13, 0.1, 0.0),
    ("mushrooms", None, 112, 0.05, 0.0),
    ("a1a", "a1a.t", 123, 0.05, 0.0),
    ("a3a", "a3a.t", 123, 0.05, 0.0),
    ("w1a", "w1a.t", 300, 0.05, 0.0),
    ("w3a", "w3a.t", 300, 0.05, 0.0),
    ("w5a", "w5a.t", 300, 0.05, 1e-3),
    ("dna.scale", "dna.scale.t", 180, 0.02, 0.0),
    ("a7a", "a7a.t", 123, 0.05, 1e-3),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--datasets", nargs="*", help="subset of dataset names")
    parser.add_argument("--out", help="write the Markdown tables here as well")
    args = parser.parse_args()
    import warnings

    from sklearn.svm import SVC as LibSVC

    import fwsvm

    data = Path(args.data)
    out = [f"Command: `python benches/compare/tol_study.py` on {describe()}, {time.strftime('%Y-%m-%d')}.", ""]
    for name, test, n_features, gamma, floor in DATASETS:
        if args.datasets and name not in args.datasets:
            continue
        if not (data / name).exists():
            print(f"skip {name}: not in {data}")
            continue
        X, Xt, y, yt = load(data, name, test, n_features)
        start = time.perf_counter()
        ref = LibSVC(C=1.0, gamma=gamma, cache_size=200).fit(X, y)
        lib_s = time.perf_counter() - start
        lib_acc = ref.score(Xt, yt)
        lines = [
            f"**{name}** (m = {X.shape[0]:,}, C = 1, γ = {gamma}; LIBSVM: {lib_acc:.4f} in {lib_s:.2f} s, "
            f"{ref.support_.size:,} SV)",
            "",
            "| tol | steps | fit s | #SV | test acc | Δ vs tightest | Δ vs LIBSVM |",
            "|---|---|---|---|---|---|---|",
        ]
        rows = []
        for tol in TOLS:
            if tol < floor:
                continue
            model = fwsvm.SVC(loss="squared_hinge", C=1.0, gamma=gamma, tol=tol, n_jobs=1, max_iter=2_000_000, random_state=0)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X, y)
            seconds = time.perf_counter() - start
            rows.append((tol, int(sum(model.n_iter_)), seconds, int(model.support_.size), model.score(Xt, yt)))
            print(name, rows[-1], flush=True)
        tight = rows[-1][4]
        for tol, steps, seconds, n_sv, acc in rows:
            lines.append(
                f"| {tol:g} | {steps:,} | {seconds:.2f} | {n_sv:,} | {acc:.4f} | {100 * (acc - tight):+.2f} pt | "
                f"{100 * (acc - lib_acc):+.2f} pt |"
            )
        out += lines + [""]
        print("\n".join(lines), flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(out) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
