"""Writes the committed fuzz corpus in tests/fuzz_corpus (run from the repository root).

Seeds for the three untrusted inputs: LIBSVM data files (``data/``), LIBSVM model files
(``libsvm_model/``) and fwsvm model files (``fwm/``): every model kind, dense and sparse support
vectors, every kernel, and the edge cases of the format notes (comments, qid, CRLF, blank lines,
exponents, a missing final newline, index 2³¹−1). The fuzz tests mutate these; inputs that once
crashed are kept in ``regressions/`` and must stay refused. Deterministic: rerunning rewrites
the same models (up to floating point of the solver's summation order).
"""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import fwsvm

ROOT = Path("tests/fuzz_corpus")

DATA = {
    "basic.svm": "1 1:0.5 3:1\n-1 2:-1.25\n+1 1:1e-3 2:2E2 4:7\n",
    "comments_qid.svm": "# header comment\n2 qid:1 1:1 2:0 # trailing\n\n3 qid:2 5:0.25\n",
    "crlf_no_final_newline.svm": "1 1:1 2:2\r\n-1 3:3\r\n1 1:-4",
    "huge_index.svm": "1 1:1 2147483647:1\n-1 1:2\n1 2:1\n-1 3:1\n",
    "multilabel.svm": "0,2 1:1\n 2:1\n1 3:0.5\n",
    "regression.svm": "0.25 1:1\n-3.5e1 2:0.5 7:1\n1e-2 1:-1 2:-1\n",
    "zero_based.svm": "1 0:1 1:2\n-1 0:-1 5:3\n",
}


def models() -> dict[str, object]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y2 = (X[:, 0] + X[:, 1] > 0).astype(int)
    y3 = rng.integers(0, 3, 40)
    Xs = sp.random(40, 6, density=0.4, format="csr", random_state=1)
    out: dict[str, object] = {
        "svc_rbf_binary": fwsvm.SVC(gamma=0.5).fit(X, y2),
        "svc_rbf_3class": fwsvm.SVC(gamma=0.5).fit(X, y3),
        "svc_sparse_3class": fwsvm.SVC(gamma=0.5).fit(Xs, y3),
        "svc_linear_squared_hinge": fwsvm.SVC(kernel="linear", loss="squared_hinge").fit(X, y2),
        "svc_poly": fwsvm.SVC(kernel="poly", degree=3, coef0=1.0).fit(X, y2),
        "svc_sigmoid": fwsvm.SVC(kernel="sigmoid", gamma=0.1).fit(X, y2),
        "svr_rbf": fwsvm.SVR(gamma=0.5).fit(X, X[:, 0]),
        "one_class_rbf": fwsvm.OneClassSVM(gamma=0.5).fit(X),
        "crammer_singer_rbf": fwsvm.CrammerSingerSVC(gamma=0.5, random_state=0).fit(X, y3),
        "crammer_singer_sparse": fwsvm.CrammerSingerSVC(kernel="linear", max_iter=2000, random_state=0).fit(Xs, y3),
        "sgd_binary": fwsvm.SGDSVC(random_state=0, max_epochs=3).fit(X, y2),
        "sgd_3class": fwsvm.SGDSVC(random_state=0, max_epochs=3).fit(X, y3),
        "nystroem_sparse": fwsvm.Nystroem(n_components=8, random_state=0).fit(Xs),
        "fourier_laplacian": fwsvm.RandomFourierFeatures(kernel="laplacian", n_components=8, random_state=0).fit(X),
    }
    return out


def _libsvm_regressions(binary: str) -> dict[str, str]:
    """LIBSVM model files whose headers drove huge allocations or unclear errors (issue 16)."""
    def header(key: str, value: str) -> str:
        lines = binary.splitlines(keepends=True)
        return "".join(f"{key} {value}\n" if line.split(" ", 1)[0] == key else line for line in lines)

    sv_line = next(line for line in binary.splitlines() if ":" in line)
    return {
        "total_sv_2e9.model": header("total_sv", "2000000000"),
        "nr_class_1e8.model": header("nr_class", "100000000"),
        "degree_overflow.model": header("degree", "9" * 40) if "degree" in binary else
        binary.replace("kernel_type rbf", "kernel_type poly\ndegree " + "9" * 40),
        "negative_nr_sv.model": header("nr_sv", "-5 3"),
        "missing_gamma.model": "".join(l for l in binary.splitlines(keepends=True) if not l.startswith("gamma")),
        "sv_index_1e8.model": binary.replace(sv_line, sv_line.split(" ")[0] + " 100000000:1"),
    }


def fwm_parts(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """A saved .fwm file's metadata and arrays (the tests that tamper with models use it too)."""
    from fwsvm.persistence import _HEADER

    archive = np.load(io.BytesIO(path.read_bytes()[_HEADER.size :]), allow_pickle=False)
    files = {k: archive[k] for k in archive.files}
    meta = json.loads(files.pop("__meta__").tobytes().decode())
    return meta, files


def fwm_bytes(meta: dict, files: dict[str, np.ndarray]) -> bytes:
    """A .fwm file of this metadata and these arrays, with a valid checksum."""
    from fwsvm.persistence import _HEADER, FORMAT_VERSION, MAGIC

    buf = io.BytesIO()
    np.savez(buf, __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **files)
    payload = buf.getvalue()
    return _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload), zlib.crc32(payload)) + payload


def tampered(path: Path, edit) -> bytes:
    """A saved .fwm rewritten through ``edit(meta, files)`` with a valid checksum."""
    meta, files = fwm_parts(path)
    edit(meta, files)
    return fwm_bytes(meta, files)


def _fwm_regressions(sparse: Path, svr: Path) -> dict[str, bytes]:
    """.fwm files that corrupted memory or set arbitrary attributes before (issue 16)."""

    def indptr(meta, files):
        bad = files["support_vectors_.csr.indptr"].copy()
        bad[3] = 10**6
        files["support_vectors_.csr.indptr"] = bad

    return {
        "corrupt_indptr.fwm": tampered(sparse, indptr),  # was "double free or corruption"
        "sets_predict.fwm": tampered(sparse, lambda m, f: m["scalars"].update(predict=1)),
        "evil_kernel.fwm": tampered(sparse, lambda m, f: m["params"].update(kernel="evil")),
        "short_dual_coef.fwm": tampered(sparse, lambda m, f: f.update(dual_coef_=f["dual_coef_"][:, :3])),
        # Found by the long fuzz run (30,000 mutations): an IndexError at predict.
        "svr_empty_intercept.fwm": tampered(svr, lambda m, f: f.update(intercept_=np.zeros(0))),
    }


def main() -> None:
    for sub in ("data", "libsvm_model", "fwm", "regressions"):
        (ROOT / sub).mkdir(parents=True, exist_ok=True)
    for name, text in DATA.items():
        (ROOT / "data" / name).write_bytes(text.encode())
    for name, model in models().items():
        model.save(ROOT / "fwm" / f"{name}.fwm")
        # One-class (an MEB model) and the estimators LIBSVM has not: no LIBSVM counterpart.
        if hasattr(model, "save_libsvm_model") and not isinstance(model, fwsvm.OneClassSVM):
            model.save_libsvm_model(ROOT / "libsvm_model" / f"{name}.model")
    binary = (ROOT / "libsvm_model" / "svc_rbf_binary.model").read_text()
    for name, text in _libsvm_regressions(binary).items():
        (ROOT / "regressions" / name).write_text(text)
    for name, blob in _fwm_regressions(ROOT / "fwm" / "svc_sparse_3class.fwm", ROOT / "fwm" / "svr_rbf.fwm").items():
        (ROOT / "regressions" / name).write_bytes(blob)
    (ROOT / "regressions" / "nul_line.svm").write_bytes(b"1 1:1\n" + b"\0" * 64 + b"\n")
    (ROOT / "regressions" / "bad_index.svm").write_bytes(b"1 1:1\n-1 3:1 2:1 x:1\n")
    print(f"wrote {sum(1 for p in ROOT.rglob('*') if p.is_file())} files under {ROOT}")


if __name__ == "__main__":
    main()
