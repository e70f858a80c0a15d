"""SVCSearch on one thread against two (issue 18's "two threads ≥ 1.8× one"; BENCHMARKS.md,
"The (C, γ) search").

    python3 benches/compare/search_threads.py a1a svmguide1 w1a [--repeats 3]

The default 7 × 5 grid, 5-fold CV, hinge loss; the two settings alternate ``--repeats`` times
and the medians are printed. The machine should be otherwise idle (two cores here).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from fwsvm import SVCSearch, load_svmlight_file

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print("| data | 1 thread (s) | 2 threads (s) | speed-up | same cv_results_ |")
    print("|---|---|---|---|---|")
    for name in args.sets:
        X, y = load_svmlight_file(os.path.join(DATA, name))
        times: dict[int, list[float]] = {1: [], 2: []}
        scores = {}
        for _ in range(args.repeats):
            for jobs in (1, 2):
                start = time.perf_counter()
                search = SVCSearch(n_jobs=jobs, refit=False).fit(X, y)
                times[jobs].append(time.perf_counter() - start)
                scores[jobs] = search.cv_results_["mean_test_score"]
        one, two = np.median(times[1]), np.median(times[2])
        same = bool(np.array_equal(scores[1], scores[2]))
        print(f"| {name} ({X.shape[0]} rows) | {one:.2f} | {two:.2f} | {one / two:.2f}× | {same} |", flush=True)


if __name__ == "__main__":
    main()
