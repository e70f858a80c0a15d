"""Where a small search spends its time: cProfile of ``SVCSearch(n_jobs=1)`` on a1a, the top
functions by own time (BENCHMARKS.md, "The search on a9a, end to end": the native fits run in
a helper thread, so they appear as the main thread's ``acquire``; the rest is Python).

    python3 benches/compare/search_profile.py [a1a]
"""

import cProfile
import os
import pstats
import sys
import warnings

from fwsvm import SVCSearch, load_svmlight_file

DATA = os.environ.get("FWSVM_DATA", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))

warnings.simplefilter("ignore")
X, y = load_svmlight_file(os.path.join(DATA, sys.argv[1] if len(sys.argv) > 1 else "a1a"))
profile = cProfile.Profile()
profile.runcall(lambda: SVCSearch(n_jobs=1, refit=False).fit(X, y))
pstats.Stats(profile).sort_stats("tottime").print_stats(12)
