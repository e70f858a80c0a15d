"""Load speed of fwsvm's LIBSVM reader against scikit-learn's on the largest files in
../shared/data. Prints a Markdown table (median of 3 runs each).

    python benches/compare/load_speed.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

FILES = ["mnist.scale.bz2", "shuttle.scale", "w1a.t", "a9a", "w8a", "mnist.scale.t.bz2", "satimage.scale"]


def median_time(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    args = parser.parse_args()
    from sklearn.datasets import load_svmlight_file as sk_load

    import fwsvm

    print(f"machine: {os.cpu_count()} cores; fwsvm {fwsvm.__version__}")
    print()
    print("| file | MB (on disk) | scikit-learn s | fwsvm 1 thread s | speed-up | fwsvm 2 threads s | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for name in FILES:
        path = Path(args.data) / name
        if not path.exists():
            print(f"| {name} | absent, skipped | | | | | |")
            continue
        mb = path.stat().st_size / 1e6
        sk = median_time(lambda: sk_load(str(path)))
        one = median_time(lambda: fwsvm.load_svmlight_file(path, n_jobs=1))
        two = median_time(lambda: fwsvm.load_svmlight_file(path, n_jobs=2))
        print(f"| {name} | {mb:.1f} | {sk:.3f} | {one:.3f} | {sk / one:.1f}x | {two:.3f} | {sk / two:.1f}x |")


if __name__ == "__main__":
    main()
