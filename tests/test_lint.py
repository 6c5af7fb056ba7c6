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
