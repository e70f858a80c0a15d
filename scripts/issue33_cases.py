#!/usr/bin/env python3
"""Runs every case of issue 33 against this build and prints the table case → before → after of
docs/SECURITY.md ("before" is what the issue reports for main 915f465; "after" is measured
here). Each case runs in its own process under a 3 GB address-space limit and a timeout, on
temporary copies of the data.

    python scripts/issue33_cases.py [--fwsvm PATH_TO_fwsvm]

``--fwsvm`` defaults to the ``fwsvm`` console script next to this Python; the Python cases use
the ``fwsvm`` package this Python imports.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

DATA = Path(os.environ.get("FWSVM_DATA", "/work/shared/data"))
LIMIT = 3 << 30


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run(argv: list[str], cwd: Path, timeout: float = 120) -> tuple[int | str, str, float]:
    began = time.perf_counter()
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace",
                           timeout=timeout, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.perf_counter() - began
    return p.returncode, (p.stderr.strip() or p.stdout.strip()), time.perf_counter() - began


def python(code: str, cwd: Path, timeout: float = 300) -> tuple[int | str, str, float]:
    """A Python case: what it prints (its warnings, on stderr, only when it prints nothing)."""
    began = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(code)], cwd=cwd,
                           capture_output=True, text=True, errors="replace", timeout=timeout, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.perf_counter() - began
    return p.returncode, (p.stdout.strip() or p.stderr.strip()), time.perf_counter() - began


def short(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fwsvm", default=str(Path(sys.executable).parent / "fwsvm"))
    args = parser.parse_args()
    fw = args.fwsvm
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="issue33-") as tmp:
        t = Path(tmp)
        shutil.copy(DATA / "heart_scale", t / "d.svm")
        assert run([fw, "train", "-q", "d.svm", "m.model"], t)[0] == 0
        model = (t / "m.model").read_text()

        def cli(case: str, before: str, argv: list[str], guard: list[str], timeout: float = 120) -> None:
            sums = {g: digest(t / g) for g in guard}
            code, out, seconds = run([fw, *argv], t, timeout)
            kept = all(digest(t / g) == s for g, s in sums.items())
            after = f"exit {code}, {seconds:.2f} s: {short(out)}" + ("" if not guard else
                                                                     "; inputs unchanged" if kept else "; INPUT CHANGED")
            rows.append((case, before, after))
            shutil.copy(DATA / "heart_scale", t / "d.svm")
            (t / "m.model").write_text(model)

        # Data loss.
        cli("`train -q d.svm d.svm`", "exit 0, data replaced by the model", ["train", "-q", "d.svm", "d.svm"], ["d.svm"])
        cli("`predict d.svm m.model d.svm`", "exit 0, data replaced by predictions",
            ["predict", "d.svm", "m.model", "d.svm"], ["d.svm", "m.model"])
        cli("`predict d.svm m.model m.model`", "exit 0, model replaced",
            ["predict", "d.svm", "m.model", "m.model"], ["d.svm", "m.model"])
        cli("`scale -s d.svm d.svm`", "exit 0, data replaced by the parameters", ["scale", "-s", "d.svm", "d.svm"],
            ["d.svm"])
        cli("`grid … -out d.svm d.svm`", "exit 0, data replaced by grid results",
            ["grid", "-log2c", "0,1,1", "-log2g", "-3,-2,1", "-out", "d.svm", "d.svm"], ["d.svm"])
        os.symlink("d.svm", t / "link.svm")
        cli("`train -q d.svm link.svm` (symlink)", "exit 0, data replaced", ["train", "-q", "d.svm", "link.svm"],
            ["d.svm"])
        os.link(t / "d.svm", t / "hard.svm")
        cli("`train -q d.svm hard.svm` (hard link)", "exit 0, data replaced", ["train", "-q", "d.svm", "hard.svm"],
            ["d.svm"])

        # Aborts and panics.
        code, out, s = python("""
            import numpy as np, fwsvm
            X = np.random.default_rng(0).normal(size=(60, 4)); y = (X[:, 0] > 0).astype(int)
            m = fwsvm.SGDSVC(batch_size=10**9, max_epochs=3, tol=0.1).fit(X, y)
            print("fitted, accuracy %.2f" % m.score(X, y))
        """, t)
        rows.append(("`SGDSVC(batch_size=10**9).fit(X60×4, y)`", "interpreter aborted (16 GB allocation)",
                     f"exit {code}: {short(out)}"))

        # LIBSVM model files.
        def model_case(case: str, before: str, edit) -> None:
            (t / "bad.model").write_text(edit(model))
            code, out, s = run([fw, "predict", "d.svm", "bad.model", "out.txt"], t)
            py_code, py_out, _ = python("""
                import fwsvm
                try:
                    fwsvm.load_libsvm_model("bad.model"); print("loaded")
                except fwsvm.LibsvmModelError as e:
                    print("LibsvmModelError:", e)
            """, t)
            rows.append((case, before, f"`fwsvm predict`: exit {code}: {short(out, 110)}; "
                                       f"`load_libsvm_model`: {short(py_out, 90)}"))

        sv_line = next(i for i, line in enumerate(model.splitlines()) if line and line[0] in "-0123456789")
        lines = model.splitlines()

        def sv(change) -> callable:
            def edit(text: str) -> str:
                ls = text.splitlines()
                ls[sv_line] = change(ls[sv_line])
                return "\n".join(ls) + "\n"
            return edit

        def header(key: str, value: str):
            return lambda text: "\n".join(f"{key} {value}" if l.split(" ")[0] == key else l
                                          for l in text.splitlines()) + "\n"

        model_case("coefficient `nan`", "accepted, garbage predictions", sv(lambda l: "nan " + l.split(" ", 1)[1]))
        model_case("coefficient `inf`", "accepted", sv(lambda l: "inf " + l.split(" ", 1)[1]))
        model_case("`rho nan`", "accepted", header("rho", "nan"))
        model_case("`rho inf`", "accepted", header("rho", "inf"))
        model_case("`label nan 1`", "accepted", header("label", "nan 1"))
        model_case("`label 1 1`", "accepted: every prediction 1, “Accuracy = 44.4%”, exit 0", header("label", "1 1"))
        model_case("NaN feature value in an SV", "accepted", sv(lambda l: l.replace("1:", "1:nan x", 1).replace(" x", "", 1).split("nan")[0] + "nan " + " ".join(l.split(" ")[2:])))
        model_case("repeated feature index in an SV", "accepted (values summed)",
                   sv(lambda l: l.split(" ")[0] + " 2:1 2:1"))
        model_case("SV index ≥ 2⁶³", "Python traceback (OverflowError from scipy)",
                   sv(lambda l: l.split(" ")[0] + " 9223372036854775808:1"))
        code, out, s = run([fw, "predict", "d.svm", "/dev/zero", "out.txt"], t, 60)
        rows.append(("`predict heart_scale /dev/zero out`", "reads until memory runs out, then an empty message",
                     f"exit {code}, {s:.2f} s: {short(out)}"))

        # Out of proportion.
        cli("`grid -log2c 0,1e9,1 …`", "37 s building 10⁹ points, then an empty message",
            ["grid", "-log2c", "0,1e9,1", "-log2g", "-3,-2,1", "d.svm"], ["d.svm"])
        (t / "huge.range").write_text("x\n-1 1\n1 -1 1\n1000000000000 0 1\n")
        cli("`scale -r` with feature index 10¹²", "asks for 7.28 TiB", ["scale", "-r", "huge.range", "d.svm"], [])
        (t / "huge.svm").write_text("1 1:0.5 2147483647:1\n-1 1:-1\n")
        cli("`scale -s` on data with index 2³¹−1", "(not in the issue; 48 GiB asked before this change)",
            ["scale", "-s", "huge.out", "huge.svm"], [])

        # Smaller.
        (t / "bin.range").write_bytes(b"x\n-1 1\n\xff\xfe\x00\x01 1 2\n")
        cli("`scale -r` on a binary file", "ascii-codec error without the file name", ["scale", "-r", "bin.range", "d.svm"], [])
        cli("`train -v 100000`", "“n_splits=270 cannot be greater than…”", ["train", "-q", "-v", "100000", "d.svm"], [])
        cli("`train -w7 2` (label 7 not in the data)", "“The classes, [-1, 1], are not in class_weight”",
            ["train", "-q", "-w7", "2", "d.svm", "w.model"], [])
        code, out, s = python("""
            import io, fwsvm
            try:
                fwsvm.load_svmlight_file(io.BytesIO(b"1 1:1\\n-1 2:1\\n"), n_features=3, offset=-5); print("loaded")
            except Exception as e:
                print(type(e).__name__ + ":", e)
        """, t)
        rows.append(("`load_svmlight_file(f, n_features=3, offset=-5)`",
                     "`OverflowError: can't convert negative int to unsigned`", short(out)))
        (t / "big.svm").write_text("1 1:1\n-1 2:1e300\n")
        code, out, s = python("""
            import numpy as np, fwsvm
            try:
                X, y = fwsvm.load_svmlight_file("big.svm", dtype=np.float32); print("loaded", X.data)
            except Exception as e:
                print(type(e).__name__ + ":", e)
        """, t)
        rows.append(("`load_svmlight_file(..., dtype=float32)` with 1e300", "inf, silently", short(out)))
        code, out, s = python("""
            import numpy as np, fwsvm
            X = np.random.default_rng(0).normal(size=(6, 2)); y = np.array([0, 0, 1, 1, 2, 2])
            try:
                fwsvm.SVC(probability=True).fit(X, y); print("fitted")
            except Exception as e:
                print(type(e).__name__ + ":", e)
        """, t)
        rows.append(("`SVC(probability=True)` with 2 samples per class", "“n_splits=4/5…” (no folds were set)",
                     short(out)))
        code, out, s = python("""
            import numpy as np, fwsvm
            X = np.random.default_rng(0).normal(size=(6, 2)); y = np.array([1e300, 1e300, 1e300, 1, 1, 1])
            try:
                m = fwsvm.SVC().fit(X, y); print("fitted, classes", m.classes_)
            except Exception as e:
                print(type(e).__name__ + ":", e)
        """, t)
        rows.append(("labels of 1e300", "“Unknown label type”", short(out)))
        code, out, s = python("""
            import numpy as np, fwsvm, warnings
            warnings.simplefilter("ignore")
            X = np.random.default_rng(0).normal(size=(90, 4)); y = np.arange(90) % 3
            for est in (fwsvm.CrammerSingerSVC(max_iter=5000), fwsvm.SGDSVC(tol=0.1), fwsvm.Nystroem(n_components=10),
                        fwsvm.RandomFourierFeatures(n_components=10)):
                est.fit(X, y); est.save("e.fwm"); back = fwsvm.load_model("e.fwm")
                f = "predict" if hasattr(est, "predict") else "transform"
                same = np.array_equal(getattr(est, f)(X), getattr(back, f)(X))
                print(type(back).__name__, "saved and loaded,", f, "identical" if same else "DIFFERS")
        """, t)
        rows.append(("`save` of CrammerSingerSVC, SGDSVC, Nystroem, RandomFourierFeatures", "no `save`",
                     short(out, 300)))
        code, out, s = python("""
            import numpy as np, fwsvm
            X = np.random.default_rng(0).normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
            m = fwsvm.SVC().fit(X, y); before = m.decision_function(X)
            m.set_params(kernel="poly")
            print("predictions unchanged" if np.array_equal(before, m.decision_function(X)) else "predictions CHANGED")
        """, t)
        rows.append(("`set_params(kernel=\"poly\")` after fit", "predictions silently change", short(out)))
    print("| case | before (915f465, issue 33) | after (this build) |\n|---|---|---|")
    for case, before, after in rows:
        print(f"| {case} | {before} | {after.replace('|', '/')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
