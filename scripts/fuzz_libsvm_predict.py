#!/usr/bin/env python3
"""Fuzzes ``fwsvm predict`` (the Rust binary) with mutated LIBSVM model files (issue 33).

Seeds are real model files: trained by LIBSVM itself (``libsvm-official``'s ``svm_train``, when
installed) and by ``fwsvm train``, on heart_scale (binary, SVR, one-class) and vowel.scale
(11 classes), with and without probabilities. Each mutant (byte edits, or a token replaced by
``nan``/``inf``/a huge or negative number, a line dropped/duplicated/truncated, a label
repeated, a feature index out of order or beyond 2³²) runs through ``fwsvm predict`` in its own
process under a timeout and an address-space limit, and ends in one class:

* ``error``     exit 1 and exactly one non-empty ``fwsvm predict: error: …`` line (clean);
* ``same``      exit 0 and the original's predictions, byte for byte;
* ``differs``   exit 0 with other predictions. Each is checked twice: by a strict reference
  reader here (finite numbers, distinct labels, counts that match, increasing indices) — a
  differing prediction from a file it refuses is counted as ``accepted_invalid`` — and by
  LIBSVM's own ``svm_predict`` on the same file (in a child process): ``libsvm_disagrees``
  counts the valid mutants where LIBSVM predicts otherwise;
* ``unclean``   an error that is not one clean line (empty, several lines, a backtrace);
* ``crash``     a panic (exit 101) or a signal; ``hang``: the timeout.

``accepted_invalid``, ``unclean``, ``crash`` and ``hang`` must be 0 (exit status 1 otherwise).

    python scripts/fuzz_libsvm_predict.py --fwsvm target/release/fwsvm --mutants 2000

(``cargo build --release --features cli --bin fwsvm`` first.) tests/test_fuzz_libsvm_predict.py
runs a few hundred mutants of the same code.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DATA = Path(os.environ.get("FWSVM_DATA", "/work/shared/data"))
TIMEOUT = 20.0
ADDRESS_SPACE = 3 << 30

_NASTY = ["nan", "-nan", "inf", "-inf", "1e309", "-1e309", "0", "-0", "1", "-1", "1e300", "-1e300",
          "4294967296", "18446744073709551616", "99999999999999999999", "2147483647", "-2147483648",
          "0x10", "1e-320", "", "x", "1:1", "9" * 40]


@dataclass
class Seed:
    name: str
    model: Path
    test: Path
    flags: list[str]
    expected: bytes = b""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_predict(fwsvm: list[str], seed: Seed, model: Path, out: Path) -> tuple[str, bytes, str]:
    """(outcome, predictions, stderr) of ``fwsvm predict`` on ``model``; outcome is one of
    error, ok, unclean, crash, hang."""
    try:
        run = subprocess.run([*fwsvm, "predict", *seed.flags, str(seed.test), str(model), str(out)],
                             capture_output=True, timeout=TIMEOUT, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return "hang", b"", ""
    stderr = run.stderr.decode("utf-8", "replace")
    if run.returncode == 0:
        return "ok", out.read_bytes(), stderr
    if run.returncode < 0 or run.returncode == 101 or "panicked" in stderr:
        return "crash", b"", stderr
    lines = stderr.splitlines()
    prefix = "fwsvm predict: error: "
    clean = (run.returncode == 1 and len(lines) == 1 and lines[0].startswith(prefix)
             and lines[0][len(prefix):].strip() != "")
    return ("error" if clean else "unclean"), b"", stderr


def make_seeds(fwsvm: list[str], work: Path) -> list[Seed]:
    heart, vowel, vowel_t = DATA / "heart_scale", DATA / "vowel.scale", DATA / "vowel.scale.t"
    seeds: list[Seed] = []

    def fwsvm_train(name: str, args: list[str], data: Path, test: Path, flags: list[str]) -> None:
        model = work / f"{name}.model"
        subprocess.run([*fwsvm, "train", "-q", *args, str(data), str(model)], check=True, capture_output=True)
        seeds.append(Seed(name, model, test, flags))

    fwsvm_train("fwsvm_heart_rbf", ["-c", "1"], heart, heart, [])
    fwsvm_train("fwsvm_vowel_prob", ["-c", "10", "-b", "1"], vowel, vowel_t, ["-b", "1"])
    try:
        from libsvm import svmutil
    except ImportError:
        print("libsvm-official is not installed: fwsvm-trained seeds only", file=sys.stderr)
        return seeds
    for name, data, test, options, flags in [
        ("libsvm_heart_rbf", heart, heart, "-c 1 -g 0.07 -q", []),
        ("libsvm_heart_poly", heart, heart, "-t 1 -d 2 -r 1 -c 0.5 -q", []),
        ("libsvm_heart_prob", heart, heart, "-b 1 -c 2 -q", ["-b", "1"]),
        ("libsvm_vowel", vowel, vowel_t, "-c 10 -g 0.5 -q", []),
        ("libsvm_heart_svr", heart, heart, "-s 3 -p 0.2 -q", []),
        ("libsvm_heart_one_class", heart, heart, "-s 2 -n 0.3 -q", []),
    ]:
        y, x = svmutil.svm_read_problem(str(data))
        model = work / f"{name}.model"
        svmutil.svm_save_model(str(model), svmutil.svm_train(y, x, options))
        seeds.append(Seed(name, model, test, flags))
    return seeds


def mutate(text: bytes, rng: random.Random) -> bytes:
    """One to three edits of the model file's bytes, digits, lines or tokens."""
    data = bytearray(text)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        lines = bytes(data).split(b"\n")
        kind = rng.random()
        if kind < 0.15:  # raw bytes
            p = rng.randrange(len(data) + 1)
            data[p : p + rng.randint(0, 3)] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 3)))
            continue
        digits = [p for p, c in enumerate(data) if 48 <= c <= 57]
        if kind < 0.35 and digits:  # one digit: usually a valid model that predicts differently
            data[rng.choice(digits)] = rng.randrange(48, 58)
            continue
        i = rng.randrange(len(lines))
        tokens = lines[i].split(b" ")
        if kind < 0.7:  # a token (a header value, a coefficient, an index or a value)
            j = rng.randrange(len(tokens))
            token = tokens[j]
            if b":" in token and rng.random() < 0.5:
                index, _, value = token.partition(b":")
                if rng.random() < 0.5:
                    token = index + b":" + rng.choice(_NASTY).encode()
                else:
                    token = rng.choice(_NASTY).encode() + b":" + value
            else:
                token = rng.choice(_NASTY).encode()
            tokens[j] = token
        elif kind < 0.78 and len(tokens) > 2:  # swap two tokens (indices out of order)
            a, b = rng.sample(range(len(tokens)), 2)
            tokens[a], tokens[b] = tokens[b], tokens[a]
        elif kind < 0.84:  # drop a line
            del lines[i]
            data = bytearray(b"\n".join(lines))
            continue
        elif kind < 0.9:  # duplicate a line
            lines.insert(i, lines[i])
            data = bytearray(b"\n".join(lines))
            continue
        elif kind < 0.95:  # truncate
            data = data[: rng.randrange(len(data) + 1)]
            continue
        else:  # repeat a token (a label or a feature index twice)
            j = rng.randrange(len(tokens))
            tokens.insert(j, tokens[j])
        lines[i] = b" ".join(tokens)
        data = bytearray(b"\n".join(lines))
    return bytes(data)


def strictly_valid(text: bytes) -> str | None:
    """None for a model file the reference reader accepts, else why not: every number finite,
    labels distinct, counts matching the file, indices increasing from 1."""
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return "not UTF-8"
    header: dict[str, list[str]] = {}
    k = 0
    while k < len(lines) and lines[k].split()[:1] != ["SV"]:
        parts = lines[k].split()
        if parts:
            if parts[0] in header:
                return f"{parts[0]} twice"
            header[parts[0]] = parts[1:]
        k += 1
    if k == len(lines) or lines[k].split() != ["SV"]:
        return "no SV line"

    def numbers(key: str) -> list[float]:
        values = [float(v) for v in header.get(key, [])]
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"{key} not finite")
        return values

    try:
        svm_type = header["svm_type"][0]
        nr_class, total_sv = int(header["nr_class"][0]), int(header["total_sv"][0])
        for key in ("gamma", "coef0", "degree"):
            numbers(key)
        rho = numbers("rho")
        classifier = svm_type in ("c_svc", "nu_svc")
        if classifier:
            labels = numbers("label")
            nr_sv = [int(v) for v in header["nr_sv"]]
            if len(labels) != nr_class or len(set(labels)) != nr_class or len(nr_sv) != nr_class \
                    or min(nr_sv) < 0 or sum(nr_sv) != total_sv:
                return "labels or nr_sv inconsistent"
            if len(rho) != nr_class * (nr_class - 1) // 2:
                return "rho count"
            for key in ("probA", "probB"):
                if key in header and len(numbers(key)) != len(rho):
                    return f"{key} count"
        elif nr_class != 2 or len(rho) != 1:
            return "nr_class/rho of a single model"
        else:
            numbers("probA")
        sv_lines = [line.split() for line in lines[k + 1 :] if line.split()]
        if len(sv_lines) != total_sv:
            return "SV line count"
        for parts in sv_lines:
            coefs = [float(v) for v in parts[: nr_class - 1]]
            if len(coefs) != nr_class - 1 or not all(math.isfinite(c) for c in coefs):
                return "coefficients"
            last = 0
            for token in parts[nr_class - 1 :]:
                index, value = token.split(":")
                if int(index) <= last or not math.isfinite(float(value)):
                    return "features"
                last = int(index)
    except (KeyError, IndexError, ValueError) as exc:
        return f"malformed ({exc})"
    return None


_LIBSVM_PREDICT = """
import sys
from libsvm import svmutil
model = svmutil.svm_load_model(sys.argv[1])
y, x = svmutil.svm_read_problem(sys.argv[2])
labels, _, values = svmutil.svm_predict(y, x, model, "-b 1 -q" if sys.argv[3] == "1" else "-q")
print(repr(labels))
"""


def libsvm_labels(model: Path, seed: Seed) -> list[float] | None:
    """LIBSVM's predicted labels for ``model`` (None if LIBSVM fails on it)."""
    try:
        run = subprocess.run([sys.executable, "-c", _LIBSVM_PREDICT, str(model), str(seed.test),
                              "1" if "-b" in seed.flags else "0"],
                             capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return None
    if run.returncode != 0:
        return None
    return [float(v) for v in eval(run.stdout.strip())]  # noqa: S307 - a list of floats we printed


def fwsvm_labels(output: bytes, seed: Seed) -> list[float]:
    lines = output.decode().splitlines()
    if "-b" in seed.flags:
        return [float(line.split()[0]) for line in lines[1:]]
    return [float(line) for line in lines]


def _agree(reference: list[float], ours: list[float], seed: Seed) -> bool:
    """Labels equal; regression values equal to rounding (the sums run in another order)."""
    if "svr" not in seed.name:
        return reference == ours
    return len(reference) == len(ours) and all(
        abs(a - b) <= 1e-9 * max(1.0, abs(a)) for a, b in zip(reference, ours))


def fuzz(fwsvm: list[str], n_mutants: int, seed_value: int = 0, check_libsvm: bool = True,
         log=None) -> collections.Counter:
    rng = random.Random(seed_value)
    counts: collections.Counter = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="fwsvm-fuzz-") as tmp:
        work = Path(tmp)
        seeds = make_seeds(fwsvm, work)
        for seed in seeds:
            outcome, seed.expected, stderr = run_predict(fwsvm, seed, seed.model, work / "out")
            if outcome != "ok":
                raise SystemExit(f"the seed {seed.name} does not predict: {stderr}")
        try:
            import libsvm  # noqa: F401
        except ImportError:
            check_libsvm = False
        mutant, out = work / "mutant.model", work / "mutant.out"
        for case in range(n_mutants):
            seed = seeds[case % len(seeds)]
            text = mutate(seed.model.read_bytes(), rng)
            mutant.write_bytes(text)
            outcome, predictions, stderr = run_predict(fwsvm, seed, mutant, out)
            counts["runs"] += 1
            if outcome == "ok":
                outcome = "same" if predictions == seed.expected else "differs"
            counts[outcome] += 1
            if outcome == "differs":
                why = strictly_valid(text)
                if why is not None:
                    counts["accepted_invalid"] += 1
                    _keep(work, case, seed, text, f"accepted although {why}", log)
                elif check_libsvm:
                    reference = libsvm_labels(mutant, seed)
                    if reference is not None and not _agree(reference, fwsvm_labels(predictions, seed), seed):
                        counts["libsvm_disagrees"] += 1
                        _keep(work, case, seed, text, "LIBSVM predicts otherwise", log)
                    elif reference is not None:
                        counts["differs_libsvm_agrees"] += 1
            elif outcome in ("unclean", "crash", "hang"):
                _keep(work, case, seed, text, f"{outcome}: {stderr[-300:]!r}", log)
    return counts


def _keep(work: Path, case: int, seed: Seed, text: bytes, why: str, log) -> None:
    if log is None:
        return
    path = Path(log) / f"case{case}_{seed.name}.model"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    print(f"case {case} ({seed.name}): {why} -> {path}", file=sys.stderr)


BAD = ("accepted_invalid", "unclean", "crash", "hang")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fwsvm", default="target/release/fwsvm", help="the fwsvm binary or console script")
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", default=None, help="folder for the mutants worth a look")
    parser.add_argument("--no-libsvm", action="store_true", help="skip LIBSVM's cross-check")
    args = parser.parse_args()
    counts = fuzz([args.fwsvm], args.mutants, args.seed, not args.no_libsvm, args.keep)
    for key in ("runs", "error", "same", "differs", "differs_libsvm_agrees", "libsvm_disagrees", *BAD):
        print(f"{key:>22} {counts[key]}")
    return 1 if any(counts[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
