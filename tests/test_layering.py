"""Layering rules read from the source: no engine branch above storage, no import cycle.

* Engine-specific code lives in the storage layer (``memo_core/storage/``) and in
  the backend modules the registries name (``kb/sqlite_backend.py``,
  ``kb/pg_backend.py`` and their schema and text modules). Anywhere else, reading
  ``.dialect``, comparing with an engine's name (``== "postgres"``) or testing the
  class of a database or backend (``isinstance(x, PostgresDatabase)``) is the
  question "which engine am I on", and fails here: ask the backend instead.
* The import graph of ``memo_core`` and ``memo_integrations`` has no cycle,
  counting imports inside functions (a function-level import is how a cycle hides)
  and leaving out ``if TYPE_CHECKING:`` blocks (annotations only).
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
    "memo_core/memory/pg_store.py",
    "memo_core/memory/pg_schema.py",
    "memo_core/memory/pg_vectors.py",
)
#: Memory's move behind its backend protocol (issue 18.1, memory part) is still
#: under way in these modules; each entry goes when its branch does.
PENDING_MEMORY = ("memo_core/memory/store.py", "memo_core/memory/migrate.py")
#: Import cycles that memory's move removes (store <-> pg_store) and the unified
#: recall's types <-> render; nothing else may join them.
PENDING_CYCLES: set[frozenset[str]] = {
    frozenset({"memo_core.memory.store", "memo_core.memory.pg_store"}),
    frozenset({"memo_core.unified.types", "memo_core.unified.render"}),
}


def _sources() -> Iterator[tuple[str, Path]]:
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            yield path.relative_to(root.parent).as_posix(), path


def _engine_class(name: str) -> bool:
    """A class that belongs to one engine (a database, store or backend), not an error."""
    if name.endswith(("Error", "Warning")):
        return False
    return name == "Database" or any(w in name for w in ("Postgres", "Sqlite", "SQLite"))


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
    return sorted(found, key=lambda entry: int(entry.split(":")[0]))


def engine_branches() -> dict[str, list[str]]:
    out = {}
    for name, path in _sources():
        if name.startswith(BACKEND_PLACES) or name in PENDING_MEMORY:
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
    )
    found = _engine_questions(ast.parse(source))
    assert found == [
        "1: compares with 'sqlite'",
        "1: .dialect",
        "3: compares with 'postgres'",
        "5: isinstance(..., PostgresDatabase)",
    ]


def _module_name(name: str) -> str:
    module = name.removesuffix(".py").replace("/", ".")
    return module.removesuffix(".__init__")


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere, TYPE_CHECKING blocks aside)."""
    files = {_module_name(name): path for name, path in _sources()}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parent = ".".join(parts[: len(parts) - node.level + 1])
                    base = f"{parent}.{base}" if base else parent
                # "from pkg import name": the submodule pkg.name if there is one.
                targets = [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    found = [c for c in cycles(import_graph()) if frozenset(c) not in PENDING_CYCLES]
    assert found == []


def test_the_cycle_check_finds_a_cycle_closed_inside_a_function() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    real = import_graph()
    assert "memo_core.storage.base" in real["memo_core.storage.registry"]
    assert "memo_core.kb.sqlite_backend" in real["memo_core.kb.store"]
    assert cycles({**real, "memo_core.storage.base": {"memo_core.kb.store"}}) != []
