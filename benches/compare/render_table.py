"""Renders today's benchmark table from a results file into BENCHMARKS.md and docs/benchmarks.md.

    python3 benches/compare/render_table.py            # rewrite the table in both files
    python3 benches/compare/render_table.py --check    # exit 1 if either file is out of date

The results file (default ``benches/compare/results/today.json``; its ``about`` field describes
it) holds one entry per measured cell: dataset, peer (fwsvm, LIBSVM, oneDAL), threads, seconds,
test accuracy and support vectors where measured, and the run (commit and command) that
produced it. The table replaces everything between a line ``<!-- table:begin -->`` and a line
``<!-- table:end -->`` in each target file; the rest of the file is left as it is, and running
the script twice changes nothing. A cell with no entry is rendered as "—" (not measured).

Standard library only (Python 3.11); run it from anywhere (paths are relative to the
repository, two folders above this file).
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benches" / "compare" / "results" / "today.json"
TARGETS = (ROOT / "BENCHMARKS.md", ROOT / "docs" / "benchmarks.md")
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"
PEERS = ("fwsvm", "LIBSVM", "oneDAL")
DASH = "—"


class ResultsError(ValueError):
    """The results file is inconsistent (unknown dataset, peer or run, a duplicate cell...)."""


def load(path: Path) -> dict:
    """The results file, decimals kept as written (``1.670`` stays ``1.670``)."""
    data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    datasets = {d["id"]: d for d in data["datasets"]}
    if len(datasets) != len(data["datasets"]):
        raise ResultsError("two datasets share an id")
    seen = set()
    for r in data["results"]:
        key = (r["dataset"], r["peer"], r["threads"])
        if r["dataset"] not in datasets:
            raise ResultsError(f"unknown dataset {r['dataset']!r}")
        if r["peer"] not in PEERS:
            raise ResultsError(f"unknown peer {r['peer']!r} (one of {', '.join(PEERS)})")
        if r["threads"] not in (1, 2):
            raise ResultsError(f"{key}: threads must be 1 or 2")
        if r["run"] not in data["runs"]:
            raise ResultsError(f"{key}: unknown run {r['run']!r}")
        if ("seconds" in r) == ("seconds_more_than" in r):
            raise ResultsError(f"{key}: give exactly one of seconds, seconds_more_than")
        if key in seen:
            raise ResultsError(f"{key} appears twice")
        seen.add(key)
    return data


def speed_up(peer: dict | None, ours: dict | None) -> str:
    """The peer's seconds over fwsvm's, three significant digits; "≥" when the peer timed out."""
    if peer is None or ours is None or "seconds" not in ours:
        return DASH
    if "seconds" in peer:
        ratio, prefix = float(peer["seconds"]) / float(ours["seconds"]), ""
    else:
        ratio, prefix = float(peer["seconds_more_than"]) / float(ours["seconds"]), "≥ "
    return f"{prefix}{ratio:.3g}×" if ratio < 100 else f"{prefix}{ratio:.0f}×"


def render(data: dict) -> str:
    """The Markdown block that goes between the markers (markers excluded)."""
    runs = list(data["runs"])
    cells: dict[tuple[str, str, int], dict] = {(r["dataset"], r["peer"], r["threads"]): r for r in data["results"]}
    notes: list[str] = []

    def seconds(r: dict | None) -> str:
        if r is None:
            return DASH
        text = str(r["seconds"]) if "seconds" in r else f"> {r['seconds_more_than']}"
        if r.get("note"):
            notes.append(r["note"])
            text += f" ({chr(ord('a') + len(notes) - 1)})"
        return text

    header = ("| data (C, γ) | rows × features | fwsvm 1 thread s | LIBSVM s (1 thread) | oneDAL 1 thread s "
              "| fwsvm 2 threads s | oneDAL 2 threads s | vs LIBSVM, 1 thread | vs oneDAL, 1 thread "
              "| vs LIBSVM, 2 threads | vs oneDAL, 2 threads | test acc | #SV | runs |")
    lines = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for d in data["datasets"]:
        get = lambda peer, threads: cells.get((d["id"], peer, threads))  # noqa: E731
        ours1, ours2 = get("fwsvm", 1), get("fwsvm", 2)
        libsvm, onedal1, onedal2 = get("LIBSVM", 1), get("oneDAL", 1), get("oneDAL", 2)
        if get("LIBSVM", 2) is not None:
            raise ResultsError(f"{d['id']}: LIBSVM is single-threaded; give its time as threads 1")
        shape = f"{d['rows']:,} × {d['features']}" + (f", {d['kind']}" if d.get("kind") else "")
        present = [cells[k] for k in cells if k[0] == d["id"]]
        reference = ours1 or ours2
        accuracy = DASH
        if reference is not None and "accuracy" in reference:
            others = [f"{r['peer']}{' 2 threads' if r['threads'] == 2 else ''} {r['accuracy']}" for r in present
                      if "accuracy" in r and r["accuracy"] != reference["accuracy"]]
            accuracy = str(reference["accuracy"]) + (f" ({', '.join(others)})" if others else "")
        n_sv = f"{reference['support_vectors']:,}" if reference is not None and "support_vectors" in reference else DASH
        used = sorted({r["run"] for r in present}, key=runs.index)
        row = [
            f"{d['label']} ({d['C']}, {d['gamma']})", shape,
            seconds(ours1), seconds(libsvm), seconds(onedal1), seconds(ours2), seconds(onedal2),
            speed_up(libsvm, ours1), speed_up(onedal1, ours1), speed_up(libsvm, ours2), speed_up(onedal2, ours2),
            accuracy, n_sv, ", ".join(used),
        ]
        lines.append("| " + " | ".join(row) + " |")

    peers = data["peers"]
    out = [
        "<!-- Generated by `python3 benches/compare/render_table.py` from benches/compare/results/today.json:"
        " edit those, not this block. -->",
        "",
        "## Today's table",
        "",
        f"Measured on {data['date']}. Machine: {data['machine']}. Seconds: the fit of the final model on the "
        f"training rows (median of 3 when a fit takes under 60 s); {data['settings']}.",
        "",
        *lines,
        "",
        "Speed-up: the peer's seconds divided by fwsvm's at the same thread count (above 1: fwsvm is faster); "
        "LIBSVM has no threads, so its one-thread time is also the reference for fwsvm's two threads. "
        f"{DASH}: not measured. Test accuracy and #SV are fwsvm's (one thread); a peer's accuracy is shown "
        "where the log gave one that differs (every other given accuracy is equal to four digits).",
        "",
    ]
    if notes:
        out += ["Notes:", ""] + [f"- ({chr(ord('a') + i)}) {n}" for i, n in enumerate(notes)] + [""]
    out += ["Peers:", ""] + [f"- {name}: {peers[name]}" for name in PEERS] + [""]
    out += ["Runs (from the repository root; the LIBSVM files in `../shared/data`):", ""]
    for key in runs:
        run = data["runs"][key]
        out.append(f"- {key}: {run['what']}, at {run['commit']}:")
        out += ["", "  ```sh", f"  {run['command']}", "  ```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def replace_block(text: str, block: str, path: Path) -> str:
    """``text`` with the lines between the marker lines replaced by ``block``."""
    lines = text.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise ResultsError(f"{path}: needs exactly one line {BEGIN} followed by one line {END} "
                           f"(found {len(begins)} and {len(ends)})")
    return "".join(lines[: begins[0] + 1]) + "\n" + block + "\n" + "".join(lines[ends[0]:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"default: {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = parser.parse_args()
    try:
        block = render(load(args.results))
        stale = []
        for path in TARGETS:
            text = path.read_text(encoding="utf-8")
            new = replace_block(text, block, path.relative_to(ROOT))
            if new != text:
                stale.append(path.relative_to(ROOT))
                if not args.check:
                    path.write_text(new, encoding="utf-8")
    except (ResultsError, KeyError, OSError, json.JSONDecodeError) as exc:
        print(f"render_table: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if args.check:
        for path in stale:
            print(f"render_table: {path} is out of date (run python3 benches/compare/render_table.py)", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        print(f"render_table: rewrote the table in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
