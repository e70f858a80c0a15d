"""Small timing and memory checks quoted in BENCHMARKS.md (not tests: no thresholds).

    python benches/compare/spot_checks.py load          # best-of-15/3 load times: a9a, w8a, mnist.bz2
    python benches/compare/spot_checks.py fit           # best-of-3 one-thread fits of a9a/w8a, both losses
    python benches/compare/spot_checks.py predict       # binary predict times: mnist 0-vs-rest, a9a, w8a
    python benches/compare/spot_checks.py many-classes  # 1,000 classes, 2,000 rows, under a 4 GB limit
    python benches/compare/spot_checks.py huge-features # a 4-line file with feature 2^31-1, 3 GB limit

Pin a core with ``taskset -c N`` for the timings. Data from ``../shared/data`` (``--data``).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def load(data: Path) -> None:
    import fwsvm

    for name, repeats in (("a9a", 15), ("w8a", 15), ("mnist.scale.bz2", 3)):
        seconds = _best(lambda: fwsvm.load_svmlight_file(str(data / name)), repeats)
        print(f"load {name}: {seconds * 1000:.1f} ms (best of {repeats})")


def fit(data: Path) -> None:
    import fwsvm

    for name in ("a9a", "w8a"):
        X, y = fwsvm.load_svmlight_file(str(data / name))
        for loss in ("hinge", "squared_hinge"):
            seconds = _best(lambda: fwsvm.SVC(loss=loss, C=1, gamma=0.05, n_jobs=1).fit(X, y), 3)
            print(f"fit {name} {loss}: {seconds:.3f} s (best of 3)")


def predict(data: Path) -> None:
    import fwsvm

    for train, test, positive in (("mnist.scale.bz2", "mnist.scale.t.bz2", 0), ("a9a", "a9a.t", None), ("w8a", "w8a.t", None)):
        X, y, Xt, yt = fwsvm.load_svmlight_files([str(data / train), str(data / test)])
        if positive is not None:
            y, yt = np.where(y == positive, 1.0, -1.0), np.where(yt == positive, 1.0, -1.0)
        model = fwsvm.SVC(C=1, gamma=0.05, n_jobs=1).fit(X, y)
        start = time.perf_counter()
        acc = float(np.mean(model.predict(Xt) == yt))
        print(f"predict {train}: {time.perf_counter() - start:.3f} s for {Xt.shape[0]} rows x "
              f"{len(model.support_)} SV, accuracy {acc:.4f}")


def many_classes(_: Path) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    import fwsvm

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(2000, 5)), np.repeat(np.arange(1000), 2)
    start = time.perf_counter()
    model = fwsvm.SVC().fit(X, y)
    fitted = time.perf_counter() - start
    fit_peak = _peak_mb()
    start = time.perf_counter()
    model.predict(X)
    print(f"1,000 classes: fit {fitted:.1f} s (peak {fit_peak} MB), predict {time.perf_counter() - start:.1f} s, "
          f"peak {_peak_mb()} MB")


def huge_features(_: Path) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    import fwsvm

    path = os.path.join(tempfile.mkdtemp(), "huge.svm")
    Path(path).write_text("1 1:1 2147483647:1\n-1 1:2\n1 2:1\n-1 3:1\n")
    X, y = fwsvm.load_svmlight_file(path)
    model = fwsvm.SVC().fit(X, y)
    print(f"n_features {X.shape[1]}: predicted {model.predict(X)}, peak {_peak_mb()} MB")


def main() -> None:
    checks = {"load": load, "fit": fit, "predict": predict, "many-classes": many_classes,
              "huge-features": huge_features}
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("check", choices=sorted(checks))
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = parser.parse_args()
    checks[args.check](Path(args.data))


if __name__ == "__main__":
    main()
