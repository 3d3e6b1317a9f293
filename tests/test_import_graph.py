"""The packages' import graph has no cycle, counting imports made inside functions.

A cycle closed by an import inside a function still couples the two modules (each
needs the other), it only hides the coupling from the module's head. So every
``import`` and ``from ... import`` anywhere in a module counts here, except those
under ``if TYPE_CHECKING:`` (annotations only, never run). ``from package import
submodule`` is an edge to the submodule, not to the package's ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import memo_core
import memo_integrations

#: Cycles not yet taken apart, each named so that removing one fails this test until
#: the entry goes too (and a new cycle always fails).
KNOWN_CYCLES: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for package in (memo_core, memo_integrations):
        root = Path(package.__file__).parent
        for path in root.rglob("*.py"):
            rel = path.relative_to(root.parent).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = path
    return out


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    return skipped


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                graph[name] |= subs
                if node.module in modules and len(subs) < len(node.names):
                    graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names} & modules.keys()
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle_but_the_known_ones() -> None:
    assert _cycles(_graph(_modules())) == KNOWN_CYCLES


def test_the_check_sees_a_cycle_closed_inside_a_function(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("from pkg.b import thing\n")
    b.write_text("def late():\n    from pkg.a import other\n")
    t = tmp_path / "t.py"
    t.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n")
    graph = _graph({"pkg.a": a, "pkg.b": b, "pkg.t": t})
    assert _cycles(graph) == {frozenset({"pkg.a", "pkg.b"})}
    assert graph["pkg.t"] == set()
