#!/usr/bin/env bash
# Runs the Rust test binaries under valgrind's memcheck (invalid reads/writes, uses of
# uninitialised memory, double frees: a non-zero exit on any error). Slow (30-100x): a
# documented check, not part of CI. Usage: bash scripts/valgrind.sh [TEST-BINARY-NAME ...]
# (default: the library's unit tests and the hinge, kernel and libsvm_io integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lib hinge kernel libsvm_io)
for t in "${targets[@]}"; do
    if [ "$t" = lib ]; then sel=(--lib); else sel=(--test "$t"); fi
    bin=$(cargo test --release "${sel[@]}" --no-run --message-format=json 2>/dev/null | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' | tail -1)
    [ -n "$bin" ] || { echo "no test binary for $t" >&2; exit 1; }
    echo "== valgrind $t ($bin)"
    # One test thread: valgrind serialises threads anyway, and the output stays readable.
    FWSVM_NUM_THREADS=2 valgrind --error-exitcode=1 --leak-check=no --quiet "$bin" --test-threads=1 -q
done
