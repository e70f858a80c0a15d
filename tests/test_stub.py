"""``fwsvm/_core.pyi`` describes the extension module as built: every public name of
``fwsvm._core`` is declared there and nothing removed from it lingers (a removed binding's stub
misleads type checkers and readers)."""

import ast
import inspect
from pathlib import Path

import fwsvm
from fwsvm import _core

STUB = Path(fwsvm.__file__).with_name("_core.pyi")

# Type aliases and TypedDicts the stub defines for its signatures (not part of the module).
_STUB_ONLY = {"Features", "Samples", "KernelParams", "FitParams", "NumpyState", "CocoaShard"}


def _stub_names() -> dict[str, ast.AST]:
    tree = ast.parse(STUB.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            names.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
    return names


def test_every_public_name_is_in_the_stub_and_no_stale_one() -> None:
    module = {name for name in dir(_core) if not name.startswith("_")}
    stub = {name for name in _stub_names() if not name.startswith("_")} - _STUB_ONLY
    assert module - stub == set(), f"in fwsvm._core but not in _core.pyi: {sorted(module - stub)}"
    assert stub - module == set(), f"in _core.pyi but not in fwsvm._core: {sorted(stub - module)}"


def test_the_stubs_functions_take_the_modules_keywords() -> None:
    # pyo3 gives every function a text signature: its keyword arguments must be the stub's.
    for name, node in _stub_names().items():
        if not isinstance(node, ast.FunctionDef):
            continue
        try:
            actual = inspect.signature(getattr(_core, name))
        except (ValueError, TypeError):
            continue
        declared = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        assert list(actual.parameters) == declared, f"{name}: module {list(actual.parameters)}, stub {declared}"
