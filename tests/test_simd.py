"""The AVX-512 and AVX2 builds of the hot loops (chosen at run time) give bit-identical models."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import numpy as np, scipy.sparse as sp, fwsvm
rng = np.random.default_rng(0)
# Indicator data (the bit-counting kernel path) and dense data (the gather path); both go
# through the fused update-and-scan.
Xb = sp.csr_matrix((rng.random((400, 150)) < 0.08).astype(float))
Xd = rng.normal(size=(400, 6))
y = np.where(rng.random(400) < 0.5, -1, 1)
for X in (Xb, Xd):
    m = fwsvm.SVC(C=3.0, gamma=0.1, tol=1e-4, random_state=0).fit(X, y)
    print(m.n_iter_.tolist(), m.support_.tolist(), m.dual_coef_.tobytes().hex(), m.intercept_.tobytes().hex())
# Two-word indicator rows (<= 128 features, <= 15 per row) with a cache too small for float64:
# the AVX-512 look-up into float32 columns (src/kernel/bits_avx512.rs).
X2 = (rng.random((400, 100)) < 0.06)
X2[:, 15:][X2.cumsum(axis=1)[:, 15:] > 15] = False
m = fwsvm.SVC(C=3.0, gamma=0.1, tol=1e-4, cache_size=1, random_state=0).fit(sp.csr_matrix(X2.astype(float)), y)
assert m.convergence_["cache_precision"] == "float32" and X2.sum(axis=1).max() <= 15
print(m.n_iter_.tolist(), m.support_.tolist(), m.dual_coef_.tobytes().hex(), m.intercept_.tobytes().hex())
print(fwsvm._core.instruction_set())
"""


def _run(simd: str) -> list[str]:
    env = dict(os.environ, FWSVM_SIMD=simd)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_wide_and_baseline_loops_train_identical_models() -> None:
    best, avx2, off = _run("on"), _run("avx2"), _run("off")
    assert off[-1] == "baseline"
    if best[-1] == "baseline":
        pytest.skip("this CPU has no AVX2: only the baseline loops can run")
    assert best[:-1] == off[:-1]
    assert avx2[:-1] == off[:-1]
