"""The import rules of docs/architecture.md, read from the code itself (ast, nothing imported):
each package imports only what its paragraph there allows, the Streamlit side never imports
TensorFlow, the engine never imports Streamlit, and the sandbox never imports the UI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import repo_paths

ROOT = repo_paths.ROOT
PACKAGE = ROOT / "playground"

# package -> the playground packages it may import (docs/architecture.md, "The packages")
MAY_IMPORT: dict[str, set[str]] = {
    "contract": set(),
    "gallery": {"contract"},
    "engine": {"contract"},
    "sandbox": {"contract", "engine"},  # engine: in the worker process only (lazily)
    "runs": {"contract", "sandbox"},
    "reports": {"contract", "gallery"},
    "front_door": {"contract"},
    "cli": {"contract", "gallery", "reports", "runs", "sandbox", "engine", "trace"},  # engine: --in-process
    "trace": {"contract", "reports", "engine"},  # engine: in the user's own process, once a watch starts
    "ui": {"contract", "gallery", "reports", "runs", "front_door"},
    "api": {"contract", "gallery", "reports", "runs", "front_door"},
    "jupyter": {"contract", "reports", "cli", "engine", "trace"},  # engine: the magic runs in the kernel
    "app.py": {"ui", "api", "front_door", "runs", "contract"},  # runs: the drain at SIGTERM
}
# What may be imported only inside a function, never when the module loads: the package stays
# importable on the other side of the boundary.
LAZY_ONLY: dict[str, set[str]] = {
    "sandbox": {"engine"},
    "cli": {"engine", "trace"},
    "jupyter": {"engine", "trace"},
    "trace": {"engine"},
}
# Third-party packages that cross the boundary: never imported by these, not even lazily.
NEVER: dict[str, set[str]] = {
    "ui": {"tensorflow", "engine"},
    "front_door": {"tensorflow", "engine"},
    "runs": {"tensorflow", "engine", "streamlit"},
    "reports": {"tensorflow", "streamlit"},
    "gallery": {"tensorflow", "streamlit"},
    "engine": {"streamlit", "ui", "front_door"},
    "sandbox": {"streamlit", "ui", "front_door"},
    "cli": {"streamlit", "ui", "api"},
    "api": {"tensorflow", "engine", "streamlit", "ui"},
    "jupyter": {"tensorflow", "streamlit", "ui", "api", "runs", "sandbox"},
    "trace": {"tensorflow", "streamlit", "ui", "api", "runs", "sandbox"},
    "app.py": {"tensorflow", "engine"},
}
# contract.seeded imports TF inside the function the engine calls (and a notebook embeds).
CONTRACT_LAZY_TF = {"seeded.py"}


def _package(path: Path) -> str:
    if path == ROOT / "app.py":
        return "app.py"
    return path.relative_to(PACKAGE).parts[0] if len(path.relative_to(PACKAGE).parts) > 1 else path.name


def _module(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imports(path: Path) -> list[tuple[str, bool]]:
    package = _module(path) if path.name == "__init__.py" else _module(path)[:-1]
    return imports_of(path.read_text(), package)


def imports_of(source: str, package: list[str]) -> list[tuple[str, bool]]:
    """(what is imported: a playground package or a top-level library, at module load?) for
    the source of a module in package (["playground", "ui"])."""
    tree = ast.parse(source)
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - child.level + 1]
                    name = ".".join(base + ([child.module] if child.module else []))
                else:
                    name = child.module or ""
                if name == "playground":
                    names = [f"playground.{a.name}" for a in child.names]
                else:
                    names = [name]
                found.extend((_target(n), top) for n in names)
            elif isinstance(child, ast.Import):
                found.extend((_target(a.name), top) for a in child.names)
            visit(child, nested)

    visit(tree, True)
    return found


def _target(name: str) -> str:
    parts = name.split(".")
    if parts[0] != "playground":
        return parts[0]
    return parts[1] if len(parts) > 1 else "playground"


FILES = sorted(PACKAGE.rglob("*.py")) + [ROOT / "app.py"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_imports_what_its_package_may(path):
    package = _package(path)
    if package.endswith(".py") and package != "app.py":
        allowed = set(MAY_IMPORT)  # playground/__main__.py, __init__.py
    else:
        allowed = MAY_IMPORT[package] | {package}
    ours = set(MAY_IMPORT) - {"app.py"}
    for target, at_load in imports(path):
        if target in ours or target == "playground":
            assert target in allowed or target == "playground" and package == "sandbox", (
                f"{path.relative_to(ROOT)} imports {target}, which {package} may not"
            )
            if at_load and target in LAZY_ONLY.get(package, set()):
                pytest.fail(
                    f"{path.relative_to(ROOT)} imports {target} when it loads: "
                    f"{package} may import it only inside a function"
                )
        assert target not in NEVER.get(package, set()), (
            f"{path.relative_to(ROOT)} imports {target}: {package} never may"
        )
        if package == "contract" and target == "tensorflow":
            assert path.name in CONTRACT_LAZY_TF and not at_load, path


def test_the_rules_cover_every_package():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(MAY_IMPORT) - {"app.py"}


def test_the_reader_sees_each_kind_of_import():
    """The reader is not blind: a UI module importing TF and the engine at load, and Streamlit
    inside a function, are each seen for what they are."""
    source = (
        "import tensorflow as tf\nfrom ..engine.pipeline import analyze\ndef later():\n    import streamlit\n"
    )
    found = imports_of(source, ["playground", "ui"])
    assert ("tensorflow", True) in found and ("engine", True) in found
    assert ("streamlit", False) in found


def test_tests_sit_in_a_tier_and_helpers_in_support():
    """The tier follows the folder (tests/conftest.py), so a test module outside the three tiers
    would run in no tier's intended place, and a helper among the tests would be collected."""
    tests = ROOT / "tests"
    tiers = {tests / "unit", tests / "integration", tests / "e2e"}
    stray = [
        str(p.relative_to(tests))
        for p in tests.rglob("test_*.py")
        if not tiers & set(p.parents) and "snippets" not in p.parts
    ]
    assert stray == []
    assert not list((tests / "support").glob("test_*.py"))
    # One basename per test module: pytest imports them by name (no __init__.py).
    stems = [p.stem for p in tests.rglob("test_*.py") if "snippets" not in p.parts]
    assert len(stems) == len(set(stems))
