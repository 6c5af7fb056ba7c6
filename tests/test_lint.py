"""Project rules that ruff does not check.

Claim modules (proofs/, simulations/) and tests import no ``_private`` name from another
package: what a test or a claim needs is public, documented API of the library (or of the test
helpers, tests/naive.py and tests/conftest.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = sorted([*ROOT.glob("proofs/*.py"), *ROOT.glob("simulations/*.py"), *ROOT.glob("tests/*.py")])


def _package(path: Path) -> str:
    return path.relative_to(ROOT).parts[0]


def private_imports(path: Path) -> list[str]:
    """``module: name`` for every private name ``path`` imports from another top-level package."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = _package(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            if top == own:
                continue
            private_module = any(part.startswith("_") and not part.startswith("__") for part in node.module.split("."))
            for alias in node.names:
                if private_module or (alias.name.startswith("_") and not alias.name.startswith("__")):
                    found.append(f"{node.module}: {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] != own and any(p.startswith("_") and not p.startswith("__") for p in parts):
                    found.append(alias.name)
    return found


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_imports_from_other_packages(path):
    assert private_imports(path) == []


def test_the_rule_catches_a_private_import(tmp_path, monkeypatch):
    fake = ROOT / "tests" / "_lint_probe_tmp.py"
    fake.write_text("from theorycheck.algorithms._common import seed_sequence\nfrom proofs.hk12 import _dot\n")
    try:
        assert private_imports(fake) == ["theorycheck.algorithms._common: seed_sequence", "proofs.hk12: _dot"]
    finally:
        fake.unlink()


# The command lines (`theorycheck`, `python -m theorycheck`, `python -m theorycheck.calibrate`) sit on top of the
# library; every other module of theorycheck/ is library, which the Python API and the pytest plugin drive too,
# so none of them may reach back up into the command line.
COMMAND_LINES = {"theorycheck/cli.py", "theorycheck/__main__.py", "theorycheck/calibrate.py"}
LIBRARY = sorted(p for p in ROOT.glob("theorycheck/**/*.py") if p.relative_to(ROOT).as_posix() not in COMMAND_LINES)


def imports_of_the_command_line(path: Path) -> list[str]:
    """The statements of ``path`` that import ``theorycheck.cli`` (absolutely or relatively)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [f"{module}.{a.name}" for a in node.names]
            if module == "theorycheck.cli" or "theorycheck.cli" in names:
                found.append(f"line {node.lineno}: from {'.' * node.level}{node.module or ''} import "
                             + ", ".join(a.name for a in node.names))
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name == "theorycheck.cli" or a.name.startswith("theorycheck.cli.")]
    return found


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_does_not_import_the_command_line(path):
    assert not imports_of_the_command_line(path)


def test_the_command_line_rule_catches_both_forms(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "theorycheck" / "report").mkdir(parents=True)
    module = tmp_path / "theorycheck" / "report" / "x.py"
    module.write_text("from ..cli import contract_text\nimport theorycheck.cli\nfrom .. import stats\n")
    assert imports_of_the_command_line(module) == ["line 1: from ..cli import contract_text",
                                                   "line 2: import theorycheck.cli"]
    module.write_text("from .. import cli\n")
    assert imports_of_the_command_line(module) == ["line 1: from .. import cli"]


# No module of theorycheck/ imports, through any chain of imports, a module that imports it back: the library is
# layered, each module below those that use it. Every import counts, at module level or inside a function (a lazy
# import only hides a circle from the interpreter), relative or absolute. An import names the module it reads:
# ``from .conformance.verify import in_verify`` is an arrow to theorycheck.conformance.verify alone (a package's
# __init__ is a module of its own, with its own imports), ``from .. import stats`` one to theorycheck.stats.
def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, package: str = "theorycheck") -> dict[str, set[str]]:
    """{module: the modules of ``package`` it imports} for every module under ``root/package``."""
    paths = {_module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}

    def known(name: str) -> str | None:  # the module a dotted name lies in: itself, or its longest known prefix
        parts = name.split(".")
        while parts and ".".join(parts) not in paths:
            parts.pop()
        return ".".join(parts) or None

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
                source = ".".join([*base, *(node.module.split(".") if node.module else [])])
                targets |= {f"{source}.{a.name}" if f"{source}.{a.name}" in paths else known(source)
                            for a in node.names}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def a_circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of ``graph`` as [a, b, ..., a], or [] when there is none (depth-first, in sorted order)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_import_circle_among_the_library_modules():
    circle = a_circle(import_graph(ROOT))
    assert not circle, "import circle: " + " -> ".join(circle)


def test_the_circle_rule_catches_a_lazy_relative_circle(tmp_path):
    package = tmp_path / "theorycheck"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("from .low import x\n")
    (package / "inner" / "low.py").write_text("x = 1\n\ndef f():\n    from ..top import y\n    return y\n")
    (package / "top.py").write_text("import numpy\nfrom .inner import low\n\ny = low.x\n")
    graph = import_graph(tmp_path)
    assert graph == {"theorycheck": set(), "theorycheck.inner": {"theorycheck.inner.low"},
                     "theorycheck.inner.low": {"theorycheck.top"}, "theorycheck.top": {"theorycheck.inner.low"}}
    assert a_circle(graph) == ["theorycheck.inner.low", "theorycheck.top", "theorycheck.inner.low"]
    (package / "inner" / "low.py").write_text("x = 1\n")
    assert a_circle(import_graph(tmp_path)) == []
