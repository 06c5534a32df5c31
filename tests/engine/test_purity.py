"""The engine stays pure: standard library and its own package only (no I/O frameworks)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "app" / "engine"


def imported_modules(source: Path) -> set[str]:
    tree = ast.parse(source.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("source", sorted(ENGINE.glob("*.py")), ids=lambda path: path.name)
def test_engine_imports_only_the_standard_library_and_itself(source: Path) -> None:
    foreign = {
        name
        for name in imported_modules(source)
        if not name.startswith("app.engine") and name.split(".")[0] not in sys.stdlib_module_names
    }
    assert not foreign, f"{source.name} imports {sorted(foreign)}"
    assert {"asyncio", "socket", "sqlite3"}.isdisjoint(
        name.split(".")[0] for name in imported_modules(source)
    )
