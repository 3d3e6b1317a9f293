"""No engine branch above the storage layer, read from the source.

* Engine-specific code lives in the storage layer (``memo_core/storage/``) and in
  the backend modules the registries name (``kb/sqlite_backend.py``,
  ``kb/pg_backend.py`` and their schema and text modules). Anywhere else, reading
  ``.dialect``, comparing with an engine's name (``== "postgres"``) or testing the
  class of a database or backend (``isinstance(x, PostgresDatabase)``) is the
  question "which engine am I on", and fails here: ask the backend instead.

The import graph's check (no cycle) is ``tests/test_import_graph.py``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import memo_core
import memo_integrations

ROOTS = (Path(memo_core.__file__).parent, Path(memo_integrations.__file__).parent)
ENGINE_NAMES = {"sqlite", "postgres", "postgresql"}
#: Where an engine may be named: the storage layer and the backend modules.
BACKEND_PLACES = (
    "memo_core/storage/",
    "memo_core/kb/sqlite_backend.py",
    "memo_core/kb/schema.py",
    "memo_core/kb/pg_backend.py",
    "memo_core/kb/pg_schema.py",
    "memo_core/kb/pg_fts.py",
    "memo_core/memory/sqlite_backend.py",
    "memo_core/memory/schema.py",
    "memo_core/memory/pg_backend.py",
    "memo_core/memory/pg_schema.py",
)


def _sources() -> Iterator[tuple[str, Path]]:
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            yield path.relative_to(root.parent).as_posix(), path


def _engine_class(name: str) -> bool:
    """A class that belongs to one engine (a database, store or backend), not an error."""
    if name.endswith(("Error", "Warning")):
        return False
    return name == "Database" or any(w in name for w in ("Postgres", "Sqlite", "SQLite"))


def _names_an_engine_test(func: ast.expr) -> bool:
    """A call like ``is_postgres_url(...)``: asking a URL which engine it names."""
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name.startswith("is_") and any(engine in name for engine in ENGINE_NAMES)


def _engine_questions(tree: ast.AST) -> list[str]:
    """Each place ``tree`` asks which engine it runs on, as ``line: code``."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "dialect":
            found.append(f"{node.lineno}: .dialect")
        elif isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                if isinstance(operand, ast.Constant) and operand.value in ENGINE_NAMES:
                    found.append(f"{node.lineno}: compares with {operand.value!r}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            names = ast.unparse(node.args[1])
            classes = re.findall(r"\w+", names)
            if any(_engine_class(c) for c in classes):
                found.append(f"{node.lineno}: {node.func.id}(..., {names})")
        elif isinstance(node, ast.Call) and _names_an_engine_test(node.func):
            found.append(f"{node.lineno}: {ast.unparse(node.func)}()")
    return sorted(found, key=lambda entry: int(entry.split(":")[0]))


def engine_branches() -> dict[str, list[str]]:
    out = {}
    for name, path in _sources():
        if name.startswith(BACKEND_PLACES):
            continue
        found = _engine_questions(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            out[name] = found
    return out


def test_no_engine_branch_above_the_storage_layer() -> None:
    assert engine_branches() == {}


def test_the_engine_check_finds_each_form() -> None:
    source = (
        "if db.dialect == 'sqlite':\n    pass\n"
        "if backend_of(db).name != 'postgres':\n    pass\n"
        "if isinstance(store.db, PostgresDatabase):\n    pass\n"
        "ok = isinstance(value, str) and kind == 'text'\n"
        "if url.is_postgres_url(target):\n    pass\n"
    )
    found = _engine_questions(ast.parse(source))
    assert found == [
        "1: compares with 'sqlite'",
        "1: .dialect",
        "3: compares with 'postgres'",
        "5: isinstance(..., PostgresDatabase)",
        "8: url.is_postgres_url()",
    ]
