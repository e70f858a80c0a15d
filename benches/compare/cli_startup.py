"""Start-up and small-file times of the command line: median wall-clock of N runs of
``fwsvm-train --help``, ``fwsvm-train -q heart_scale m``, ``fwsvm-predict``, ``fwsvm-scale`` and
``fwsvm-grid --help``.

    python benches/compare/cli_startup.py [--bin DIR] [--runs 9]

``--bin`` is the folder holding the scripts (default: this interpreter's); point it at another
virtual environment to compare wheels. Needs heart_scale in ../shared/data (or FWSVM_DATA).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def median_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(Path(sys.executable).parent))
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    data = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
    heart = str(data / "heart_scale")
    with tempfile.TemporaryDirectory() as tmp:
        model, out = f"{tmp}/m", f"{tmp}/out"
        b = Path(args.bin)
        rows = {
            "fwsvm-train --help": [str(b / "fwsvm-train"), "--help"],
            "fwsvm-train -q heart_scale m": [str(b / "fwsvm-train"), "-q", heart, model],
            "fwsvm-predict -q heart_scale m out": [str(b / "fwsvm-predict"), "-q", heart, model, out],
            "fwsvm-scale heart_scale": [str(b / "fwsvm-scale"), heart],
            "fwsvm-grid --help": [str(b / "fwsvm-grid"), "--help"],
        }
        for name, cmd in rows.items():
            print(f"{name}\t{median_ms(cmd, args.runs):.0f} ms")


if __name__ == "__main__":
    main()
