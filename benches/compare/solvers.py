"""Every Frank-Wolfe variant on the shared LIBSVM datasets: iterations, kernel evaluations, fit
time, final gap, support vectors and test accuracy, plus convergence plots.

    python benches/compare/solvers.py [--data ../shared/data] [--out docs] [--threads 1]

Writes ``solver_comparison.md`` (the table) and ``solver_comparison.png`` (relative duality gap
against iterations and seconds on two datasets) into ``--out``. Every fit uses the RBF kernel
with γ = 0.05 (0.1 on heart_scale), C = 1, the default stopping rule (relative duality gap
≤ 1e-3; ``ky`` uses its own test max(ε₊, ε₋) ≤ 1e-3 on the nearest-point problem) and one
thread, so times compare algorithms, not parallelism. ``bc`` runs only where m ≤ 5,000 (its
fully corrective inner solves make it orders of magnitude slower; see the table).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from machine import describe

import numpy as np

ALGORITHMS = ["fw", "mfw", "swap", "swap2o", "bc", "ky"]
# (train file, test file or None for a 70/30 split, n_features, gamma)
DATASETS = [
    ("heart_scale", None, 13, 0.1),
    ("a1a", "a1a.t", 123, 0.05),
    ("a3a", "a3a.t", 123, 0.05),
    ("w1a", "w1a.t", 300, 0.05),
    ("w3a", "w3a.t", 300, 0.05),
    ("w5a", "w5a.t", 300, 0.05),
]
BC_MAX_SAMPLES = 5000
MAX_ITER = 300_000
PLOTTED = ("a3a", "w5a")


def load(data: Path, name: str, test: str | None, n_features: int):
    import fwsvm
    from sklearn.model_selection import train_test_split

    X, y = fwsvm.load_svmlight_file(data / name, n_features=n_features)
    if test is None:
        return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    Xt, yt = fwsvm.load_svmlight_file(data / test, n_features=n_features)
    return X, Xt, y, yt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "docs"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--datasets", nargs="*", help="subset of dataset names")
    args = parser.parse_args()
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.exceptions import ConvergenceWarning

    import fwsvm

    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    plotted: dict[str, dict[str, object]] = {}
    for name, test, n_features, gamma in DATASETS:
        if args.datasets and name not in args.datasets:
            continue
        if not (data / name).exists() or (test and not (data / test).exists()):
            print(f"{name}: absent, skipped")
            continue
        X, Xt, y, yt = load(data, name, test, n_features)
        m = X.shape[0]
        for algorithm in ALGORITHMS:
            if algorithm == "bc" and m > BC_MAX_SAMPLES:
                continue
            model = fwsvm.SVC(
                loss="squared_hinge", C=1.0, gamma=gamma, algorithm=algorithm, tol=1e-3, max_iter=MAX_ITER, n_jobs=args.threads,
                record_history=name in PLOTTED, random_state=0,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                start = time.perf_counter()
                model.fit(X, y)
                seconds = time.perf_counter() - start
            c = model.convergence_
            acc = model.score(Xt, yt)
            row = dict(
                data=name, m=m, algorithm=algorithm, iterations=int(c["n_iter"]),
                inner=int(c["steps"]["inner"]), kernel_evals=int(c["columns_computed"]) * m,
                seconds=seconds, gap=float(c["relative_gap"]), n_sv=len(model.support_),
                accuracy=acc, exit=c["exit_reason"],
            )
            rows.append(row)
            print(
                f"{name:12s} {algorithm:7s} iters {row['iterations']:>8d} (+{row['inner']} inner) "
                f"kernel evals {row['kernel_evals']:.3e}  {seconds:8.3f} s  rel gap {row['gap']:.2e}  "
                f"SV {row['n_sv']:>6d}  acc {acc:.4f}  {row['exit']}",
                flush=True,
            )
            if name in PLOTTED:
                plotted.setdefault(name, {})[algorithm] = model
    write_table(out / "solver_comparison.md", rows, args)
    if plotted:
        fig, axes = plt.subplots(len(plotted), 2, figsize=(11, 4 * len(plotted)), squeeze=False)
        for (name, models), ax in zip(plotted.items(), axes):
            fwsvm.plot_convergence(models, axes=ax)
            ax[0].set_title(f"{name}: gap vs iterations")
            ax[1].set_title(f"{name}: gap vs seconds")
        fig.tight_layout()
        fig.savefig(out / "solver_comparison.png", dpi=110)
        print(f"wrote {out / 'solver_comparison.png'}")


def write_table(path: Path, rows: list[dict], args: argparse.Namespace) -> None:
    lines = [
        "| data | m | algorithm | iterations (+inner) | kernel evaluations | fit s | final rel. gap | #SV | test acc. | exit |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        inner = f" (+{r['inner']:,})" if r["inner"] else ""
        lines.append(
            f"| {r['data']} | {r['m']:,} | {r['algorithm']} | {r['iterations']:,}{inner} | {r['kernel_evals']:.2e} | "
            f"{r['seconds']:.3f} | {r['gap']:.1e} | {r['n_sv']:,} | {r['accuracy']:.4f} | {r['exit']} |"
        )
    header = (
        "<!-- generated by benches/compare/solvers.py; do not edit by hand -->\n"
        f"Command: `python benches/compare/solvers.py --threads {args.threads}` on {describe()}, "
        f"{time.strftime('%Y-%m-%d')}.\n\n"
    )
    path.write_text(header + "\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
