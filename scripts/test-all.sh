#!/usr/bin/env bash
# Build and run every check and test: Rust gates and tests, the wheel, the pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Python test dependencies"
python3 -m pip install --quiet --disable-pip-version-check "numpy>=1.24" "scipy>=1.10" "scikit-learn>=1.6" "pytest>=8" "hypothesis>=6.100" "maturin>=1.9.4,<2" "libsvm-official>=3.30" "matplotlib>=3.7" "dask[array,dataframe]>=2024.8" "distributed>=2024.8"

echo "== cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --all-targets --features python -- -D warnings

echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS=-Dwarnings cargo doc --no-deps --quiet

echo "== cargo test"
cargo test --quiet
echo "== the fwsvm binary (feature cli)"
cargo test --quiet --features cli --test cli
echo "== without default features (no rayon, no ndarray): the crate checks and its unit tests pass"
cargo check --quiet --no-default-features --all-targets
cargo test --quiet --no-default-features --lib
echo "== cargo test, baseline loops only (FWSVM_SIMD=off)"
FWSVM_SIMD=off cargo test --quiet --lib --test kernel --test solver
echo "== cargo test, at most AVX2 (FWSVM_SIMD=avx2)"
FWSVM_SIMD=avx2 cargo test --quiet --lib --test kernel --test solver

echo "== build and install the wheel"
rm -rf dist
python3 -m maturin build --release --quiet -o dist
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/fwsvm-*.whl

echo "== the abi3 wheel in clean virtual environments without Rust (CPython 3.10+)"
bash scripts/wheel-smoke.sh

echo "== documentation (Sphinx -W, executes the gallery)"
bash scripts/build-docs.sh

echo "== pytest"
data_dir="${FWSVM_DATA:-../shared/data}"
if [ ! -d "$data_dir" ]; then
    echo "note: $data_dir is absent: the tests on the LIBSVM datasets will skip (set FWSVM_DATA)" >&2
fi
set +e
python3 -m pytest -q -rs tests
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: failing" >&2
    exit 1
fi
exit "$status"
