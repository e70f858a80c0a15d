"""Wall-clock of ``fwsvm-grid`` (grid.py's default grid, 110 points, 5-fold) on heart_scale and
a1a: the median of N runs, and the best line each run printed.

    python benches/compare/grid_cli.py [--bin DIR] [--runs 3] [--data heart_scale a1a]

``--bin`` is the folder holding ``fwsvm-grid`` (default: this interpreter's), a virtual
environment's or the ``fwsvm`` binary's folder (``target/release``, run as ``fwsvm grid``).
Needs the files in ../shared/data (or FWSVM_DATA).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(Path(sys.executable).parent))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", nargs="+", default=["heart_scale", "a1a"])
    args = parser.parse_args()
    data = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
    b = Path(args.bin)
    command = [str(b / "fwsvm-grid")] if (b / "fwsvm-grid").exists() else [str(b / "fwsvm"), "grid"]
    for name in args.data:
        times, best = [], ""
        for _ in range(args.runs):
            start = time.perf_counter()
            run = subprocess.run([*command, "-q", "-out", "null", str(data / name)], capture_output=True, text=True,
                                 check=True)
            times.append(time.perf_counter() - start)
            best = run.stdout.strip()
        print(f"{' '.join(Path(c).name for c in command)} {name}\t{statistics.median(times):.2f} s\t{best}")


if __name__ == "__main__":
    main()
