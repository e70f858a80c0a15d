"""One-vs-one multiclass: wall and CPU time with 1 and 2 threads, next to scikit-learn's SVC.

    python benches/compare/ovo_threads.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = parser.parse_args()
    from sklearn.datasets import load_digits
    from sklearn.svm import SVC as LibsvmSVC

    import fwsvm

    cases = []
    dna = Path(args.data) / "dna.scale"
    if dna.exists():
        X, y, Xt, yt = fwsvm.load_svmlight_files([dna, Path(args.data) / "dna.scale.t"])
        cases.append(("dna.scale, gamma 0.01, C 0.5 / 2", X, y, Xt, yt, 0.01, 0.5, 2.0))
    else:
        print(f"{dna} absent: skipping dna")
    X, y = load_digits(return_X_y=True)
    cases.append(("load_digits, gamma 0.05, C 0.5", X / 16, y, X / 16, y, 0.05, 0.5, 0.5))
    print("| data | fwsvm 1 thread wall / CPU s | fwsvm 2 threads wall / CPU s | sklearn wall s | acc fwsvm / sklearn |")
    print("|---|---|---|---|---|")
    for name, X, y, Xt, yt, gamma, c_ours, c_ref in cases:
        row = []
        for n_jobs in (1, 2):
            model, wall, cpu = timed(lambda: fwsvm.SVC(loss="squared_hinge", C=c_ours, gamma=gamma, n_jobs=n_jobs, random_state=0).fit(X, y))
            row.append(f"{wall:.3f} / {cpu:.3f}")
        ref, wall_ref, _ = timed(lambda: LibsvmSVC(C=c_ref, gamma=gamma).fit(X, y))
        print(f"| {name} | {row[0]} | {row[1]} | {wall_ref:.3f} | {model.score(Xt, yt):.4f} / {ref.score(Xt, yt):.4f} |")


if __name__ == "__main__":
    main()
