"""Fuzzing the untrusted model inputs: LIBSVM model files and fwsvm's ``.fwm`` files.

Every mutated input must load into a model that predicts (or raises ``ValueError``), or be
refused with the format's own error: never a panic (``PanicException`` is not an
``Exception``), an abort or a segfault, which would take the test process down. The LIBSVM data
reader has its own fuzz test in test_datasets.py. Run at length with
``FWSVM_FUZZ_EXAMPLES=100000 python -m pytest tests/test_fuzz_models.py``.
"""

from __future__ import annotations

import io
import json
import os
import warnings
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fwsvm import SVC, LibsvmModelError, ModelFormatError, load_libsvm_model, load_model
from fwsvm.persistence import _HEADER, FORMAT_VERSION, MAGIC

EXAMPLES = int(os.environ.get("FWSVM_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_rng = np.random.default_rng(0)
_X = sp.random(60, 8, density=0.5, format="csr", random_state=1)
_y = _rng.integers(0, 3, 60)


def _model() -> SVC:
    return SVC(gamma=0.5).fit(_X, _y)


def _predicts_or_refuses(model) -> None:
    # Huge (finite) coefficients may overflow to inf decision values: numerical warnings are
    # garbage out for garbage in, not the failure this test looks for.
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            model.predict(_X)
            model.decision_function(_X)
        except ValueError:
            pass


@pytest.fixture(scope="module")
def libsvm_text(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("fuzz") / "m.model"
    _model().save_libsvm_model(path)
    return path.read_bytes()


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 4000), st.binary(min_size=0, max_size=4)), min_size=1, max_size=4))
def test_mutated_libsvm_model_files(tmp_path_factory, libsvm_text, edits) -> None:
    data = bytearray(libsvm_text)
    for position, replacement in edits:
        p = position % (len(data) + 1)
        data[p : p + len(replacement)] = replacement
    path = tmp_path_factory.mktemp("case") / "m.model"
    path.write_bytes(bytes(data))
    try:
        model = load_libsvm_model(path, n_features=8)
    except (LibsvmModelError, ValueError):
        return
    _predicts_or_refuses(model)


@pytest.fixture(scope="module")
def fwm_parts(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "m.fwm"
    _model().save(path)
    blob = path.read_bytes()
    archive = np.load(io.BytesIO(blob[_HEADER.size :]), allow_pickle=False)
    files = {k: archive[k] for k in archive.files}
    meta = json.loads(files.pop("__meta__").tobytes().decode())
    return meta, files


_values = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 2**31, 10**9]),
)


@FUZZ
@given(st.data())
def test_mutated_fwm_files(tmp_path_factory, fwm_parts, data) -> None:
    meta, files = json.loads(json.dumps(fwm_parts[0])), dict(fwm_parts[1])
    for _ in range(data.draw(st.integers(1, 3))):
        target = data.draw(st.sampled_from(sorted(files) + ["__params__", "__scalars__"]))
        if target == "__params__":
            key = data.draw(st.sampled_from(sorted(meta["params"])))
            meta["params"][key] = data.draw(st.one_of(_values, st.text(max_size=8), st.none()))
        elif target == "__scalars__":
            key = data.draw(st.sampled_from(sorted(meta["scalars"]) + ["predict", "__dict__", "x_"]))
            meta["scalars"][key] = data.draw(st.one_of(_values, st.text(max_size=8)))
        else:
            array = files[target].copy()
            if array.size and data.draw(st.booleans()):
                flat = array.reshape(-1)
                k = data.draw(st.integers(0, flat.size - 1))
                try:
                    flat[k] = data.draw(_values)
                except (OverflowError, ValueError):
                    flat[k] = 0
                files[target] = array
            else:
                n = data.draw(st.integers(0, 6))
                values = data.draw(st.lists(_values, min_size=n, max_size=n))
                dtype = array.dtype if array.dtype.kind in "iuf" else np.float64
                try:
                    files[target] = np.asarray(values, dtype=dtype)
                except (OverflowError, ValueError):
                    files[target] = np.zeros(n, dtype=dtype)
    buf = io.BytesIO()
    try:
        np.savez(buf, __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **files)
    except (ValueError, OverflowError):
        return
    payload = buf.getvalue()
    path = tmp_path_factory.mktemp("case") / "m.fwm"
    path.write_bytes(_HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload), zlib.crc32(payload)) + payload)
    try:
        model = load_model(path)
    except ModelFormatError:
        return
    _predicts_or_refuses(model)
