"""The adapters are thin: they call memo_core's public API and nothing behind it.

Read from the source (ast), so a new adapter line that reaches into a store, a
database handle, a search leg or any private name fails here, whichever test
exercises it or not.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import memo_integrations

ROOT = Path(memo_integrations.__file__).parent
MODULES = sorted(ROOT.rglob("*.py"))

#: memo_core's internals behind its facades (MemoBase, MemoHood, GuardedAnswerer ...).
INTERNAL_ATTRIBUTES = {"store", "db", "searcher", "conn"}
INTERNAL_MODULES = (
    "memo_core.storage",
    "memo_core.kb.store",
    "memo_core.kb.backend",
    "memo_core.kb.pg_backend",
    "memo_core.kb.sqlite_backend",
    "memo_core.memory.store",
    "memo_core.memory.backend",
    "memo_core.memory.sqlite_backend",
    "memo_core.memory.pg_backend",
    "memo_core.search.hybrid",
    "memo_core.search.keyword",
)
#: The frameworks each adapter package may import (besides memo_core and the stdlib).
FOREIGN = {
    "langchain": {"llama_index", "mcp"},
    "llamaindex": {"langchain", "langchain_core", "langgraph", "mcp"},
}


def _own(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def reaches(path: Path) -> list[str]:
    """Every place in ``path`` that reaches behind memo_core's public API."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and not _own(node.value):
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            if private or node.attr in INTERNAL_ATTRIBUTES:
                found.append(f"{where} {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memo_core"):
            module = node.module or ""
            if module.startswith(INTERNAL_MODULES) or any(
                part.startswith("_") for part in module.split(".")
            ):
                found.append(f"{where} from {module}")
            found += [f"{where} {a.name}" for a in node.names if a.name.startswith("_")]
    return found


def foreign_imports(path: Path, foreign: set[str]) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        out += [f"{path.name}:{node.lineno} {n}" for n in names if n.split(".")[0] in foreign]
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_adapter_reaches_behind_the_public_api(path: Path) -> None:
    assert reaches(path) == []


@pytest.mark.parametrize("package", sorted(FOREIGN))
def test_each_adapter_package_imports_only_its_framework(package: str) -> None:
    modules = sorted((ROOT / package).glob("*.py"))
    assert modules
    assert [hit for m in modules for hit in foreign_imports(m, FOREIGN[package])] == []


def test_the_checks_can_fail(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from memo_core.kb.store import KnowledgeStore\n"
        "from memo_core.search.filters import _compile\n"
        "import llama_index.core\n"
        "def f(kb, self):\n"
        "    kb.store.counts(); kb._owner(None); self._kb.db; self._ok\n",
        encoding="utf-8",
    )
    assert sorted(hit.split(" ", 1)[1] for hit in reaches(sample)) == [
        "_compile",
        "from memo_core.kb.store",
        "kb._owner",
        "kb.store",
        "self._kb.db",
    ]
    assert foreign_imports(sample, {"llama_index"}) == ["sample.py:3 llama_index.core"]
