"""The filter tree, and the SQL each renderer emits for it, pinned in golden files.

``golden/filters.sqlite.sql`` and ``golden/filters.postgres.sql`` hold, for every
operator and connective, the statement text and its parameters. A change to either
renderer shows up here as a diff to read; after reading it, rewrite the files with
``MEMO_UPDATE_GOLDEN=1 pytest tests/core/test_filter_golden.py``. That the SQL selects
the right rows is ``test_filters_backends.py``'s job.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path
from typing import Any

import pytest

from memo_core.errors import ConfigError, InvalidInputError
from memo_core.search import filter_tree
from memo_core.search.filter_tree import And, Condition, Not, Or, parse_filter
from memo_core.search.filters import RENDERERS, compile_filter

GOLDEN = Path(__file__).parent / "golden"

CASES: list[dict[str, Any]] = [
    {},
    {"lang": "en"},
    {"draft": True},
    {"page": {"$eq": 3}},
    {"page": {"$ne": 3}},
    {"page": {"$eq": None}},
    {"page": {"$ne": None}},
    {"page": {"$gt": 2}},
    {"page": {"$gte": 2.5}},
    {"title": {"$lt": "m"}},
    {"page": {"$lte": 9}},
    {"page": {"$gte": 2, "$lte": 5}},
    {"lang": {"$in": ["en", "de", 3]}},
    {"lang": {"$in": []}},
    {"lang": {"$nin": ["en", None]}},
    {"lang": {"$nin": []}},
    {"tags": {"$contains": "legal"}},
    {"tags": {"$contains": 1.5}},
    {"tags": {"$any": ["a", "b"]}},
    {"tags": {"$any": []}},
    {"tags": {"$all": ["a", 1, True]}},
    {"tags": {"$all": []}},
    {"title": {"$text_match": "Intro"}},
    {"title": {"$text_match_insensitive": "intro"}},
    {"author": {"$exists": True}},
    {"author": {"$exists": False}},
    {"tags": {"$is_empty": True}},
    {"tags": {"$is_empty": False}},
    {"$and": [{"lang": "en"}, {"page": {"$gt": 1}}]},
    {"$or": [{"lang": "en"}, {"tags": {"$contains": "legal"}}]},
    {"$not": {"kind": "news"}},  # keeps rows without "kind", as {"kind": {"$ne": "news"}}
    {"$not": {"kind": {"$in": ["news", "blog"]}}},
    {"$not": {}},
    {"$or": [{}, {"lang": "en"}]},
    {"lang": "en", "$not": {"$or": [{"page": 1}, {"draft": False}]}},
]

COLUMNS = {"sqlite": "c.metadata", "postgres": "c.metadata"}


def _render(dialect: str) -> str:
    out = [f"-- emitted by memo_core.search.filters.compile_filter(..., dialect={dialect!r})"]
    for spec in CASES:
        params: list[Any] = []
        sql = compile_filter(spec, params, column=COLUMNS[dialect], dialect=dialect)
        assert sql.count("?") == len(params), spec  # one bound parameter per placeholder
        out += [
            "",
            f"-- filter: {json.dumps(spec, ensure_ascii=False)}",
            f"-- params: {json.dumps(params, ensure_ascii=False)}",
            sql + ";",
        ]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("dialect", sorted(RENDERERS))
def test_emitted_sql_matches_the_golden_file(dialect: str) -> None:
    path = GOLDEN / f"filters.{dialect}.sql"
    text = _render(dialect)
    if os.environ.get("MEMO_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_golden_cases_cover_every_operator() -> None:
    used: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, Condition):
            used.add(node.op)
        elif isinstance(node, Not):
            used.add("$not")
            walk(node.part)
        else:
            used.add("$and" if isinstance(node, And) else "$or")
            for part in node.parts:
                walk(part)

    for spec in CASES:
        walk(parse_filter(spec))
    assert used == {*filter_tree.OPERATORS, "$and", "$or", "$not"}


def test_parse_builds_the_tree() -> None:
    tree = parse_filter(
        {"lang": "en", "page": {"$gte": 2, "$lt": 5}, "$or": [{"draft": True}, {"$not": {}}]}
    )
    assert tree == And(
        (
            Condition("lang", "$eq", "en"),
            Condition("page", "$gte", 2),
            Condition("page", "$lt", 5),
            Or((Condition("draft", "$eq", 1), Not(And()))),
        )
    )
    assert parse_filter(None) == parse_filter({}) == And()
    assert parse_filter({"k": 1}) == Condition("k", "$eq", 1)  # one condition needs no And
    assert parse_filter(tree) is tree  # a tree passes through: parse once, render anywhere
    assert Condition("t", "$in", ["a", False]).value == ("a", 0)
    assert Condition("t", "$exists", 0).value is False


@pytest.mark.parametrize(
    ("field", "op", "value"),
    [('a"b', "$eq", 1), ("", "$eq", 1), ("k", "$regex", "x"), ("k", "$in", 3), ("k", "$eq", [1])],
)
def test_a_hand_built_condition_is_checked_like_a_parsed_one(
    field: str, op: str, value: Any
) -> None:
    with pytest.raises(InvalidInputError):
        Condition(field, op, value)


def test_a_tree_renders_on_both_engines_alike_to_the_dict() -> None:
    spec = {"$or": [{"k": {"$in": ["a", 2]}}, {"$not": {"t": {"$all": ["x", "y"]}}}]}
    for dialect in RENDERERS:
        from_dict: list[Any] = []
        from_tree: list[Any] = []
        sql = compile_filter(spec, from_dict, dialect=dialect)
        assert compile_filter(parse_filter(spec), from_tree, dialect=dialect) == sql
        assert from_tree == from_dict
    with pytest.raises(ConfigError):
        compile_filter(spec, [], dialect="mysql")


def test_the_renderers_import_the_tree_and_not_each_other() -> None:
    """No cycle: the tree imports no renderer; a renderer imports neither the other nor
    the dispatching module (``filters.py`` imports all three)."""
    search = Path(filter_tree.__file__).parent

    def imports(name: str) -> set[str]:
        tree = ast.parse((search / f"{name}.py").read_text(encoding="utf-8"))
        return {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            if node.module.startswith("memo_core.search")
        }

    assert imports("filter_tree") == set()
    assert imports("sqlite_filters") == {"memo_core.search.filter_tree"}
    assert imports("pg_filters") == {"memo_core.search.filter_tree"}
    assert imports("filters") == {
        "memo_core.search.filter_tree",
        "memo_core.search.sqlite_filters",
        "memo_core.search.pg_filters",
    }
