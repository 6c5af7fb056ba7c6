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
