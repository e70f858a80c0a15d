#!/usr/bin/env bash
# Installs the built abi3 wheel (dist/fwsvm-*-abi3-*.whl) into clean virtual environments with
# no Rust toolchain on PATH, one per CPython found (python3, and 3.10 / 3.13 under pyenv when
# present: the one wheel serves CPython >= 3.10), then imports it and uses it: fit, predict,
# save/load, the command line.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
wheels=(dist/fwsvm-*-abi3-*.whl)
if [ "${#wheels[@]}" -ne 1 ]; then
    echo "wheel-smoke: expected one abi3 wheel in dist/, found ${#wheels[@]} (run maturin build --release -o dist)" >&2
    exit 1
fi
wheel="$(pwd)/${wheels[0]}"

pythons=(python3)
for v in 3.10 3.13; do
    for candidate in "$HOME/.pyenv/versions/$v".*/bin/python$v; do
        pythons+=("$candidate")
        break
    done
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/smoke.py" <<'EOF'
import pickle, sys, tempfile, os
import numpy as np
from sklearn.datasets import load_iris
import fwsvm

X, y = load_iris(return_X_y=True)
clf = fwsvm.SVC(C=10).fit(X, y)
accuracy = float(np.mean(clf.predict(X) == y))
assert accuracy > 0.95, accuracy
path = os.path.join(tempfile.mkdtemp(), "iris.fwm")
clf.save(path)
np.testing.assert_array_equal(fwsvm.load_model(path).predict(X), clf.predict(X))
np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).predict(X), clf.predict(X))
print(f"fwsvm {fwsvm.__version__} on Python {sys.version.split()[0]}: iris accuracy {accuracy:.3f}, "
      f"{len(clf.support_)} support vectors, save/load and pickle round trips")
EOF

for py in "${pythons[@]}"; do
    venv="$work/venv-$(basename "$py")"
    "$py" -m venv "$venv"
    # No cargo, rustc or maturin on PATH: the wheel must not need them.
    clean_path="$venv/bin:/usr/bin:/bin"
    env -i HOME="$HOME" PATH="$clean_path" bash -c '
        set -euo pipefail
        if command -v cargo >/dev/null || command -v rustc >/dev/null; then
            echo "wheel-smoke: a Rust toolchain is on PATH" >&2; exit 1
        fi
        python -m pip install --quiet --disable-pip-version-check "$1"
        python "$2"
        fwsvm demo --no-compare | tail -1
        fwsvm train --help >/dev/null
    ' _ "$wheel" "$work/smoke.py"
done
