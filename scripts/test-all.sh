#!/usr/bin/env bash
# Build and run every check and test: Rust gates and tests, the wheel, the pytest suite, and the
# documentation built from a fresh virtual environment with README.md's docs command.
set -euo pipefail
cd "$(dirname "$0")/.."

# A CI run builds everything once from a clean clone: incremental compilation would only add
# its bookkeeping to every opt-level-3 test build.
if [[ "${CI:-}" == true ]]; then
    export CARGO_INCREMENTAL=0
fi

# Each step says how long it took (the whole run must stay well within CI's limit).
step_start=$SECONDS
step() {
    echo "   ($((SECONDS - step_start)) s)"
    step_start=$SECONDS
    echo "== $*"
}

echo "== Python test dependencies"
python3 -m pip install --quiet --disable-pip-version-check "numpy>=1.24" "scipy>=1.10" "scikit-learn>=1.6" "pytest>=8" "hypothesis>=6.100" "maturin>=1.9.4,<2" "libsvm-official>=3.30" "matplotlib>=3.7" "dask[array,dataframe]>=2024.8" "distributed>=2024.8"
# The notebook test (tests/test_progress.py) runs a Jupyter kernel when these install, and
# skips with its reason when they cannot.
python3 -m pip install --quiet --disable-pip-version-check "nbclient>=0.10" "nbformat>=5.10" "ipykernel>=6.29" "tqdm>=4.66" \
    || echo "note: nbclient/ipykernel could not be installed: the notebook test will skip" >&2

step "cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --all-targets --features python,cli,linfa -- -D warnings

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS=-Dwarnings cargo doc --no-deps --quiet

# One build of the test binaries (features cli and linfa included, so the command line's and
# linfa's tests need no second build of the library) serves the three instruction-set tiers:
# FWSVM_SIMD is read at run time (src/simd.rs), so the tier runs below only re-run the binaries.
step "cargo test (with the fwsvm binary and fwsvm in linfa: features cli, linfa)"
cargo test --quiet --features cli,linfa
step "cargo test, baseline loops only (FWSVM_SIMD=off)"
FWSVM_SIMD=off cargo test --quiet --features cli,linfa --lib --test kernel --test solver
step "cargo test, at most AVX2 (FWSVM_SIMD=avx2)"
FWSVM_SIMD=avx2 cargo test --quiet --features cli,linfa --lib --test kernel --test solver
step "without default features (no rayon, no ndarray): the crate checks and its unit tests pass"
cargo check --quiet --no-default-features --all-targets
cargo test --quiet --no-default-features --lib

step "build and install the wheel"
rm -rf dist
python3 -m maturin build --release --quiet -o dist
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/fwsvm-*.whl

step "the abi3 wheel in clean virtual environments without Rust (CPython 3.10+)"
bash scripts/wheel-smoke.sh

# The docs exactly as README.md says to build them, in a virtual environment that has nothing
# but what that command installs (it builds fwsvm from this tree: cargo reuses the release build
# above). Sphinx -W, the gallery executed.
step "documentation: README's docs command in a fresh virtual environment"
docs_command="$(grep -m1 -E '^pip install "\.\[docs\]"' README.md)" \
    || { echo "README.md has no docs command (a line starting: pip install \".[docs]\")" >&2; exit 1; }
docs_venv="$(mktemp -d)/venv-docs"
python3 -m venv "$docs_venv"
echo "   $docs_command"
( source "$docs_venv/bin/activate" && bash -euo pipefail -c "$docs_command" )
rm -rf "$(dirname "$docs_venv")"

step "pytest"
data_dir="${FWSVM_DATA:-../shared/data}"
if [ ! -d "$data_dir" ]; then
    echo "note: $data_dir is absent: the tests on the LIBSVM datasets will skip (set FWSVM_DATA)" >&2
fi
set +e
python3 -m pytest -q -rs --durations=15 tests
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
fi
exit "$status"
