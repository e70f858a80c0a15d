"""The command line's wall-clock: the median of N runs of ``fwsvm-train --help``,
``fwsvm-train -q heart_scale m``, ``fwsvm-predict``, ``fwsvm-scale`` and ``fwsvm-grid --help``
(start-up and a small file), or with ``--grid`` of whole ``fwsvm-grid`` runs (grid.py's default
grid, 110 points, 5-fold) with the best line each run printed.

    python benches/compare/cli_startup.py [--bin DIR] [--runs 9]
    python benches/compare/cli_startup.py --grid heart_scale a1a [--bin DIR] [--runs 3]

``--bin`` is the folder holding the scripts (default: this interpreter's); point it at another
virtual environment to compare wheels, or at the ``fwsvm`` binary's folder (``target/release``,
run as ``fwsvm train``, ``fwsvm grid``, ...). Needs the files in ../shared/data (or FWSVM_DATA).
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


def median_run(cmd: list[str], runs: int) -> tuple[float, str]:
    """The median wall-clock seconds of ``runs`` runs of ``cmd``, and the last run's output."""
    times, out = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        times.append(time.perf_counter() - start)
    return statistics.median(times), out.strip()


def tool(bin_dir: Path, name: str) -> list[str]:
    """``fwsvm-<name>`` in ``bin_dir``, or the ``fwsvm`` binary's ``<name>`` subcommand."""
    script = bin_dir / f"fwsvm-{name}"
    return [str(script)] if script.exists() else [str(bin_dir / "fwsvm"), name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=str(Path(sys.executable).parent))
    parser.add_argument("--runs", type=int, help="runs per command (default 9, with --grid 3)")
    parser.add_argument("--grid", nargs="+", metavar="DATA", help="time whole fwsvm-grid runs on these files")
    args = parser.parse_args()
    data = Path(os.environ.get("FWSVM_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
    b = Path(args.bin)
    if args.grid:
        grid = tool(b, "grid")
        for name in args.grid:
            seconds, best = median_run([*grid, "-q", "-out", "null", str(data / name)], args.runs or 3)
            print(f"{' '.join(Path(c).name for c in grid)} {name}\t{seconds:.2f} s\t{best}")
        return
    heart = str(data / "heart_scale")
    with tempfile.TemporaryDirectory() as tmp:
        model, out = f"{tmp}/m", f"{tmp}/out"
        rows = {
            "fwsvm-train --help": [*tool(b, "train"), "--help"],
            "fwsvm-train -q heart_scale m": [*tool(b, "train"), "-q", heart, model],
            "fwsvm-predict -q heart_scale m out": [*tool(b, "predict"), "-q", heart, model, out],
            "fwsvm-scale heart_scale": [*tool(b, "scale"), heart],
            "fwsvm-grid --help": [*tool(b, "grid"), "--help"],
        }
        for name, cmd in rows.items():
            print(f"{name}\t{1e3 * median_run(cmd, args.runs or 9)[0]:.0f} ms")


if __name__ == "__main__":
    main()
