"""Fuzzing the untrusted model inputs: LIBSVM model files and fwsvm's ``.fwm`` files.

Every mutated input must load into a model that predicts (or raises ``ValueError``), or be
refused with the format's own error: never a panic (``PanicException`` is not an
``Exception``), an abort or a segfault, which would take the test process down. The mutations
start from the committed corpus in ``tests/fuzz_corpus`` (written by
``scripts/make_fuzz_corpus.py``), which also holds, in ``regressions/``, inputs that once crashed
or allocated without bound: they must stay refused. The LIBSVM data reader is fuzzed here from
the corpus and in test_datasets.py from generated files. Run at length with
``FWSVM_FUZZ_EXAMPLES=100000 python -m pytest tests/test_fuzz_models.py``.
"""

from __future__ import annotations

import io
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import load_script
from fwsvm import (
    SVC,
    LibsvmFormatError,
    LibsvmModelError,
    ModelFormatError,
    load_libsvm_model,
    load_model,
    load_svmlight_file,
)

EXAMPLES = int(os.environ.get("FWSVM_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CORPUS = Path(__file__).parent / "fuzz_corpus"
CORPUS_SCRIPT = load_script("make_fuzz_corpus")  # writes the corpus; reads and writes .fwm files
_LIBSVM_MODELS = sorted((CORPUS / "libsvm_model").glob("*.model"))
_FWM_MODELS = sorted((CORPUS / "fwm").glob("*.fwm"))
_DATA_FILES = sorted((CORPUS / "data").glob("*.svm"))


def _predicts_or_refuses(model) -> None:
    # Huge (finite) coefficients may overflow to inf decision values: numerical warnings are
    # garbage out for garbage in, not the failure this test looks for.
    n_features = getattr(model, "n_features_in_", None)
    if not isinstance(n_features, int) or not 0 < n_features <= 1000:
        n_features = 8
    X = np.random.default_rng(0).normal(size=(12, n_features))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            if hasattr(model, "predict"):
                model.predict(X)
            else:  # the kernel approximations: transformers
                model.transform(X)
            if hasattr(model, "decision_function"):
                model.decision_function(X)
        except ValueError:
            pass


def test_the_corpus_is_there_and_its_seeds_load() -> None:
    assert len(_LIBSVM_MODELS) >= 7 and len(_FWM_MODELS) >= 14 and len(_DATA_FILES) >= 7
    # Every estimator class that saves has seeds (issue 33: CrammerSingerSVC, SGDSVC, Nystroem and
    # RandomFourierFeatures joined SVC, SVR and OneClassSVM).
    assert {load_model(p).__class__.__name__ for p in _FWM_MODELS} == {
        "SVC", "SVR", "OneClassSVM", "CrammerSingerSVC", "SGDSVC", "Nystroem", "RandomFourierFeatures"}
    for path in _LIBSVM_MODELS:
        _predicts_or_refuses(load_libsvm_model(path))
    for path in _FWM_MODELS:
        _predicts_or_refuses(load_model(path))
    for path in _DATA_FILES:
        if path.name == "multilabel.svm":
            load_svmlight_file(path, multilabel=True)
        else:
            load_svmlight_file(path, zero_based="auto")


def test_the_regressions_stay_refused() -> None:
    # In a subprocess under a 3 GB address-space limit: the headers once asked for 15–160 GiB.
    import subprocess
    import sys

    script = f"""
import resource
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from pathlib import Path
import fwsvm
for path in sorted(Path({str(CORPUS / "regressions")!r}).iterdir()):
    try:
        if path.suffix == ".fwm":
            fwsvm.load_model(path)
        elif path.suffix == ".model":
            model = fwsvm.load_libsvm_model(path)
            assert path.name == "sv_index_1e8.model", path.name  # the only one that is valid
            assert model.support_vectors_.shape[1] == 100_000_000
            continue
        else:
            fwsvm.load_svmlight_file(path)
    except (fwsvm.ModelFormatError, fwsvm.LibsvmModelError, fwsvm.LibsvmFormatError) as exc:
        assert str(exc), path.name
        continue
    raise AssertionError(f"{{path.name}} was accepted")
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


def _mutate(data: bytearray, edits) -> bytes:
    for position, replacement in edits:
        p = position % (len(data) + 1)
        data[p : p + len(replacement)] = replacement
    return bytes(data)


_edits = st.lists(st.tuples(st.integers(0, 4000), st.binary(min_size=0, max_size=4)), min_size=1, max_size=4)


@FUZZ
@given(st.sampled_from(_LIBSVM_MODELS), _edits)
def test_mutated_libsvm_model_files(tmp_path_factory, seed, edits) -> None:
    path = tmp_path_factory.mktemp("case") / "m.model"
    path.write_bytes(_mutate(bytearray(seed.read_bytes()), edits))
    try:
        model = load_libsvm_model(path)
    except (LibsvmModelError, ValueError):
        return
    _predicts_or_refuses(model)


@FUZZ
@given(st.sampled_from(_DATA_FILES), _edits)
def test_mutated_corpus_data_files(seed, edits) -> None:
    data = _mutate(bytearray(seed.read_bytes()), edits)
    try:
        X, y = load_svmlight_file(io.BytesIO(data))
    except LibsvmFormatError as exc:
        assert "line" in str(exc)
        return
    except ValueError:
        return
    assert X.shape[0] == len(y)


@pytest.fixture(scope="module")
def fwm_parts():
    return [CORPUS_SCRIPT.fwm_parts(path) for path in _FWM_MODELS]


_values = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 2**31, 10**9]),
)


@FUZZ
@given(st.data())
def test_mutated_fwm_files(tmp_path_factory, fwm_parts, data) -> None:
    base_meta, base_files = fwm_parts[data.draw(st.integers(0, len(fwm_parts) - 1))]
    meta, files = json.loads(json.dumps(base_meta)), dict(base_files)
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
    try:
        blob = CORPUS_SCRIPT.fwm_bytes(meta, files)
    except (ValueError, OverflowError):
        return
    path = tmp_path_factory.mktemp("case") / "m.fwm"
    path.write_bytes(blob)
    try:
        model = load_model(path)
    except ModelFormatError:
        return
    _predicts_or_refuses(model)
