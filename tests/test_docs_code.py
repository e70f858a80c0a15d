"""Every Python code block of the documentation runs as pasted: each ``.. code-block:: python``
of docs/**/*.rst and each ```` ```python ```` fence of docs/**/*.md and README.md is written to a
script of its own and run in a fresh interpreter, in an empty directory (so blocks cannot lean on each other
or on the repository). A block that reads a LIBSVM dataset gets it from the shared data
directory (``FWSVM_DATA``) and skips without it; no other block is skipped. The blocks that
start a Dask cluster take a few seconds each and are marked ``slow``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import DATA_DIR

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Generated pages (sphinx-gallery's copies of the gallery scripts, which the docs build runs).
GENERATED = ("_build", "auto_examples", "generated")

# Blocks that read files a user brings: the names they read from the shared data directory.
NEEDS_DATA = {"a9a": ["a9a", "a9a.t"]}


def _rst_blocks(text: str) -> list[tuple[int, str]]:
    blocks, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^(\s*)\.\. code-block:: python\s*$", lines[i])
        if not match:
            i += 1
            continue
        start, indent = i + 1, len(match.group(1))
        body = []
        i += 1
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            if lines[i].strip().startswith(":") and not body:  # directive options
                i += 1
                continue
            body.append(lines[i])
            i += 1
        blocks.append((start, textwrap.dedent("\n".join(body)).strip() + "\n"))
    return blocks


def _md_blocks(text: str) -> list[tuple[int, str]]:
    blocks = []
    for match in re.finditer(r"^```python[^\n]*\n(.*?)^```", text, flags=re.S | re.M):
        blocks.append((text[: match.start()].count("\n") + 1, match.group(1)))
    return blocks


def _collect() -> list:
    params = []
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*"))]:
        relative = path.relative_to(ROOT)
        if relative.parts[1:2] and relative.parts[1] in GENERATED or path.suffix not in (".rst", ".md"):
            continue
        text = path.read_text(encoding="utf-8")
        blocks = _rst_blocks(text) if path.suffix == ".rst" else _md_blocks(text)
        for line, code in blocks:
            marks = [pytest.mark.slow] if "LocalCluster" in code else []
            params.append(pytest.param(code, id=f"{relative}:{line}", marks=marks))
    return params


BLOCKS = _collect()


def test_the_docs_have_python_blocks() -> None:
    assert len(BLOCKS) >= 15, [p.id for p in BLOCKS]


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_code_block_runs_as_pasted(code: str, tmp_path: Path) -> None:
    for marker, names in NEEDS_DATA.items():
        if f'"{marker}"' in code:
            for name in names:
                if not (DATA_DIR / name).exists():
                    pytest.skip(f"the block reads {name}, not found in {DATA_DIR} (set FWSVM_DATA)")
                os.symlink(DATA_DIR / name, tmp_path / name)
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600, env=env)
    assert run.returncode == 0, f"--- block\n{code}--- stderr\n{run.stderr[-4000:]}"


def _modules_with_examples() -> list[str]:
    package = Path(__file__).resolve().parents[1] / "python" / "fwsvm"
    return sorted(f"fwsvm.{p.stem}" for p in package.glob("*.py") if ">>> " in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples_run(name: str) -> None:
    """The Examples sections of the docstrings (the API pages show them) run and print what
    they say."""
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, result
