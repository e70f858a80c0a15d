#!/usr/bin/env bash
# Regenerates tests/golden/svm_scale.sha256: SHA-256 of LIBSVM's own svm-scale output on the
# shared data sets (the files themselves stay out of the repository; only the hashes are kept).
# Usage: scripts/libsvm_golden.sh PATH_TO_LIBSVM_SOURCE [DATA_DIR]
#   e.g. git clone https://github.com/cjlin1/libsvm /tmp/libsvm && scripts/libsvm_golden.sh /tmp/libsvm
set -euo pipefail
src=${1:?path to a LIBSVM source tree}
data=${2:-$(dirname "$0")/../../shared/data}
make -s -C "$src" svm-scale >/dev/null
out=$(dirname "$0")/../tests/golden/svm_scale.sha256
: > "$out"
echo "# LIBSVM $(git -C "$src" log -1 --format=%h 2>/dev/null || echo '?') svm-scale: sha256  file  options" >> "$out"
for f in heart_scale a1a satimage.scale svmguide1 dna.scale; do
    for opts in "" "-l 0" "-l -2 -u 3 -y 0 1"; do
        hash=$("$src/svm-scale" $opts "$data/$f" 2>/dev/null | sha256sum | cut -d' ' -f1)
        printf '%s\t%s\t%s\n' "$hash" "$f" "$opts" >> "$out"
    done
done
echo "wrote $out"
