"""Metadata filters select the same rows on SQLite (TEXT json) and PostgreSQL (JSONB).

The SQLite compiler is the reference: every expected set below is SQLite's reading
(bools are 1/0, numbers order before strings, a missing field makes a comparison
NULL), and the PostgreSQL compiler must agree row for row.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memo_core.errors import ConfigError, InvalidInputError, MemoError
from memo_core.search.filter_tree import parse_filter
from memo_core.search.filters import compile_filter
from memo_core.search.pg_filters import render_postgres, sqlite_text
from memo_core.storage import SQLDatabase, open_database


class Pair:
    """One table ``t(id, metadata)`` in each backend, loaded with the same rows."""

    def __init__(self, sqlite: SQLDatabase, postgres: SQLDatabase) -> None:
        self.sqlite, self.postgres = sqlite, postgres
        sqlite.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, metadata TEXT)")
        postgres.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, metadata JSONB)")

    def load(self, rows: dict[int, dict[str, Any] | None]) -> None:
        for db, cast in ((self.sqlite, ""), (self.postgres, "::jsonb")):
            with db.transaction():
                db.execute("DELETE FROM t")
                db.executemany(
                    f"INSERT INTO t (id, metadata) VALUES (?, ?{cast})",
                    [
                        (i, None if m is None else json.dumps(m, ensure_ascii=False))
                        for i, m in rows.items()
                    ],
                )

    def ids(self, db: SQLDatabase, spec: Any) -> set[int]:
        params: list[Any] = []
        where = compile_filter(spec, params, column="t.metadata", dialect=db.dialect)
        return {r[0] for r in db.query(f"SELECT id FROM t WHERE {where}", params)}

    def both(self, spec: Any) -> tuple[set[int], set[int]]:
        return self.ids(self.sqlite, spec), self.ids(self.postgres, spec)


@pytest.fixture
def pair(postgres_url: str) -> Iterator[Pair]:
    sqlite = open_database("sqlite:///:memory:", load_vec=False)
    postgres = open_database(postgres_url, load_vec=False)
    try:
        yield Pair(sqlite, postgres)
    finally:
        sqlite.close()
        postgres.close()


# -- explicit cases: every operator, type mixing, missing fields -----------------------

ROWS: dict[int, dict[str, Any] | None] = {
    1: {"s": "apple", "n": 5, "f": 1.5, "b": True, "tags": ["law", "eu"], "nul": None, "e": ""},
    2: {"s": "Banana", "n": 10, "f": 2.0, "b": False, "tags": [], "e": "x", "flags": [False]},
    3: {
        "s": "élan",
        "n": 1,
        "f": 0.5,
        "tags": ["law", 1, True],
        "obj": {"k": 1},
        "nested": [["a"]],
    },
    4: {"s": "10", "n": "5", "b": 1, "tags": "law"},
    5: {},
    6: None,
}
ALL = set(ROWS)

CASES: list[tuple[dict[str, Any], set[int]]] = [
    ({}, ALL),
    ({"s": "apple"}, {1}),
    ({"n": 5}, {1}),  # the string "5" is not the number 5
    ({"n": 5.0}, {1}),
    ({"b": True}, {1, 4}),  # true is 1 in SQLite's JSON functions
    ({"b": 1}, {1, 4}),
    ({"b": False}, {2}),
    ({"nul": None}, ALL),  # JSON null and missing are both SQL NULL
    ({"s": None}, {5, 6}),
    ({"s": {"$ne": None}}, {1, 2, 3, 4}),
    ({"n": {"$gt": None}}, {5, 6}),  # any comparison with None is "IS NULL"
    ({"n": {"$ne": 5}}, {2, 3, 4, 5, 6}),  # missing fields are "not equal"
    ({"n": {"$gt": 5}}, {2, 4}),  # every string is greater than every number
    ({"n": {"$lt": "a"}}, {1, 2, 3, 4}),
    ({"s": {"$gte": "b"}}, {3}),  # byte order: "B" < "b" < "é"
    ({"s": {"$lte": 10}}, set()),
    ({"f": {"$lte": 1.5}}, {1, 3}),
    ({"f": {"$gt": 1, "$lt": 2.5}}, {1, 2}),
    ({"n": {"$gt": 1, "$lt": 10}}, {1}),  # "5" > 1 but not < 10
    ({"tags": {"$gt": "["}}, {1, 2, 3, 4}),  # an array compares as its JSON text
    ({"obj": {"$gt": "{"}}, {3}),
    ({"s": {"$in": ["apple", "10", 10]}}, {1, 4}),
    ({"n": {"$in": [1, None]}}, {3}),
    ({"$not": {"n": {"$in": [1, None]}}}, {1, 2, 4, 5, 6}),  # "not true": NULL counts as no
    ({"$not": {"n": {"$in": [1]}}}, {1, 2, 4, 5, 6}),  # missing n kept, as $nin keeps it
    ({"n": {"$in": []}}, set()),
    ({"n": {"$nin": [5, 10]}}, {3, 4, 5, 6}),
    ({"n": {"$nin": [5, None]}}, {2, 3, 4, 5, 6}),
    ({"n": {"$nin": []}}, ALL),
    ({"tags": {"$contains": "law"}}, {1, 3, 4}),  # array member, or substring of a string
    ({"tags": {"$contains": 1}}, {3}),  # true and 1 are both members of row 3
    ({"tags": {"$contains": None}}, set()),
    ({"flags": {"$contains": 0}}, {2}),  # false is 0
    ({"flags": {"$contains": False}}, {2}),
    ({"nested": {"$contains": '["a"]'}}, {3}),  # a nested array is its compact JSON text
    ({"nested": {"$any": ['["a"]', "zz"]}}, {3}),
    ({"f": {"$any": [1.5, 2]}}, {1, 2}),  # floats compare element by element
    ({"tags": {"$all": [1, "eu"]}}, set()),
    ({"$not": {"s": "apple"}}, {2, 3, 4, 5, 6}),  # rows without s are "not apple"
    ({"$not": {"nul": "x"}}, ALL),  # JSON null compares as NULL, like a missing field
    ({"s": {"$contains": "an"}}, {2, 3}),
    ({"n": {"$contains": 0}}, {2}),  # the digits of 10
    ({"f": {"$contains": ".5"}}, {1, 3}),
    ({"f": {"$contains": 2.0}}, {2}),  # SQLite prints the value as "2.0"
    ({"b": {"$contains": "1"}}, {1, 4}),
    ({"tags": {"$any": ["eu", "x"]}}, {1}),
    ({"tags": {"$any": ["law"]}}, {1, 3, 4}),  # a scalar field is its own single element
    ({"tags": {"$any": []}}, set()),
    ({"tags": {"$all": ["law", "eu"]}}, {1}),
    ({"tags": {"$all": ["law", True, 1.0]}}, {3}),  # true == 1 == 1.0: one value
    ({"tags": {"$all": ["law", None]}}, set()),
    ({"tags": {"$all": []}}, ALL),
    ({"obj": {"$any": [1]}}, {3}),  # an object's values
    ({"s": {"$text_match": "an"}}, {2, 3}),
    ({"s": {"$text_match": ""}}, {1, 2, 3, 4}),
    ({"s": {"$text_match_insensitive": "BAN"}}, {2}),
    ({"s": {"$text_match_insensitive": "ÉLAN"}}, set()),  # lower() folds ASCII only
    ({"tags": {"$text_match": '"law","eu"'}}, {1}),  # compact JSON text, as SQLite prints
    ({"b": {"$text_match": "1"}}, {1, 4}),
    ({"nul": {"$exists": True}}, {1}),
    ({"nul": {"$exists": False}}, {2, 3, 4, 5, 6}),
    ({"obj": {"$exists": 1}}, {3}),  # truthiness, as in the SQLite compiler
    ({"e": {"$is_empty": True}}, {1, 3, 4, 5, 6}),
    ({"tags": {"$is_empty": True}}, {2, 5, 6}),
    ({"tags": {"$is_empty": False}}, {1, 3, 4}),
    ({"$or": [{"n": 1}, {"s": "apple"}]}, {1, 3}),
    ({"$and": [{"b": True}, {"n": {"$gt": 1}}]}, {1, 4}),
    ({"$not": {"n": 5}}, {2, 3, 4, 5, 6}),  # the same rows as {"n": {"$ne": 5}}
    ({"$not": {"$not": {"n": 5}}}, {1}),
    ({"$not": {"$or": [{"n": 5}, {"s": "Banana"}]}}, {3, 4, 5, 6}),
    ({"$not": {"n": {"$gt": 1}}}, {3, 5, 6}),
    ({"$not": {}}, set()),
    ({"$or": [{}, {"n": 5}]}, ALL),
    ({"s": "apple", "n": {"$ne": 5}}, set()),
    ({"n": float("nan")}, set()),  # NaN binds as NULL: "= NULL" matches nothing...
    ({"n": {"$ne": float("nan")}}, {1, 2, 3, 4}),  # ...and "IS NOT NULL" every present value
    ({"f": {"$lt": float("inf")}}, {1, 2, 3}),
    ({"s": {"$contains": float("inf")}}, set()),
]


def test_cases_cover_every_operator() -> None:
    used = {op for spec, _ in CASES for cond in _conditions(spec) for op in cond}
    assert used >= {
        "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains", "$any",
        "$all", "$text_match", "$text_match_insensitive", "$exists", "$is_empty",
        "$and", "$or", "$not",
    }  # fmt: skip


def _conditions(spec: Any) -> Iterator[dict[str, Any]]:
    for key, value in spec.items():
        if key in ("$and", "$or"):
            yield {key: value}
            for sub in value:
                yield from _conditions(sub)
        elif key == "$not":
            yield {key: value}
            yield from _conditions(value)
        else:
            yield value if isinstance(value, dict) else {"$eq": value}


def test_not_keeps_rows_without_the_field_like_ne(pair: Pair) -> None:
    """ "Everything except news": untagged rows stay, on both backends, as with $ne."""
    pair.load({1: {"kind": "news"}, 2: {"kind": "blog"}, 3: {}, 4: None, 5: {"kind": None}})
    for spec in ({"$not": {"kind": "news"}}, {"kind": {"$ne": "news"}}):
        assert pair.both(spec) == ({2, 3, 4, 5}, {2, 3, 4, 5}), spec
    assert pair.both({"$not": {"kind": {"$in": ["news", "blog"]}}}) == ({3, 4, 5}, {3, 4, 5})


def test_every_case_on_both_backends(pair: Pair) -> None:
    pair.load(ROWS)
    for spec, expected in CASES:
        sqlite_ids, postgres_ids = pair.both(spec)
        assert sqlite_ids == expected, ("sqlite", spec)
        assert postgres_ids == expected, ("postgres", spec)


def test_field_names_are_bound_not_interpolated(pair: Pair) -> None:
    odd = ["a.b", "[0]", "a' OR '1'='1", "?", "%s", "%", "x -> 'y'", "é ключ", " "]
    pair.load({i: {name: i} for i, name in enumerate(odd)} | {99: {"a": 1, "b": {"c": 5}}})
    for i, name in enumerate(odd):
        assert pair.both({name: i}) == ({i}, {i}), name
        assert pair.both({name: {"$exists": True}}) == ({i}, {i}), name
    assert pair.both({"b.c": 5}) == (set(), set())  # a dotted name is one key, not a path


@pytest.mark.parametrize(
    "value", ["x' OR 1=1 --", "'; DROP TABLE t; --", "?", "%s", "%", "$1", "\\", "?|", "'{}'"]
)
def test_hostile_values_are_just_values(pair: Pair, value: str) -> None:
    pair.load({1: {"k": value}, 2: {"k": "other"}})
    for spec in (
        {"k": value},
        {"k": {"$in": [value]}},
        {"k": {"$contains": value}},
        {"k": {"$text_match": value}},
        {"k": {"$any": [value]}},
    ):
        assert pair.both(spec) == ({1}, {1}), spec
    params: list[Any] = []
    sql = compile_filter_pg({"k": value}, params)
    assert value in params
    assert sql == compile_filter_pg({"k": "benign"}, [])  # the text never depends on a value


@pytest.mark.parametrize(
    "spec",
    [
        {'a"b': 1},
        {"a\\b": 1},
        {"x\x00": 1},
        {"": 1},
        {"x" * 201: 1},
        {7: 1},
        {"\ud800": 1},
        {"$bogus": 1},
        {"k": {"$regex": "x"}},
        {"k": {}},
        {"k": [1, 2]},
        {"k": {"$in": 3}},
        {"k": {"$any": "abc"}},
        {"k": {"$text_match": 5}},
        {"k": {"$contains": {"a": 1}}},
        {"$or": []},
        {"$and": "x"},
        {"$not": [1]},
        {"k": 2**70},
        {"k": {"$in": [1, -(2**64)]}},
        {"k": {"$all": [2**63]}},
        {"k": "\ud800"},
        {"k": {"$text_match": "\udfff"}},
    ],
)
def test_bad_filters_are_typed_errors_on_both(pair: Pair, spec: dict[Any, Any]) -> None:
    pair.load({1: {"k": 1}})
    for db in (pair.sqlite, pair.postgres):
        with pytest.raises(InvalidInputError):
            pair.ids(db, spec)


def test_nul_in_a_value_is_a_typed_error_on_postgres(pair: Pair) -> None:
    pair.load({1: {"k": "a"}})
    for spec in ({"k": "a\x00"}, {"k": {"$text_match": "\x00"}}, {"k": {"$in": ["\x00"]}}):
        assert pair.ids(pair.sqlite, spec) == set()
        with pytest.raises(InvalidInputError):
            pair.ids(pair.postgres, spec)


def test_deep_nesting_is_a_typed_error() -> None:
    spec: dict[str, Any] = {"k": 1}
    for _ in range(100):
        spec = {"$not": spec}
    with pytest.raises(InvalidInputError):
        compile_filter_pg(spec, [])


def test_dispatch_and_compiled_text() -> None:
    spec = {"$or": [{"k": {"$in": ["a", 2, 2.5]}}, {"t": {"$all": ["x", "y"]}}]}
    sqlite_params: list[Any] = []
    assert compile_filter(spec, sqlite_params).startswith("(")  # the old signature
    assert "json_extract(c.metadata" in compile_filter(spec, [])
    direct: list[Any] = []
    via: list[Any] = []
    sql = compile_filter_pg(spec, direct, column="c.metadata")
    assert compile_filter(spec, via, dialect="postgres") == sql
    assert via == direct
    assert sql.count("?") == len(direct)
    assert "?|" not in sql and "?&" not in sql
    assert compile_filter_pg(None, []) == "TRUE"
    with pytest.raises(ConfigError):
        compile_filter(spec, [], dialect="mysql")
    with pytest.raises(InvalidInputError):
        compile_filter_pg(spec, [], column="metadata; DROP TABLE t")


def compile_filter_pg(spec: Any, params: list[Any], column: str = "metadata") -> str:
    return render_postgres(parse_filter(spec), params, column=column)


def _sqlite_cast(value: float) -> str:
    db = open_database(":memory:", load_vec=False)
    try:
        return str(db.query_one("SELECT CAST(? AS TEXT)", [value])[0])
    finally:
        db.close()


# Floats with at most 15 significant digits, the printable range SQLite rounds exactly.
readable_floats = st.builds(
    lambda digits, exponent, sign: sign * float(f"{digits}e{exponent}"),
    st.integers(0, 10**15 - 1),
    st.integers(-300, 290),
    st.sampled_from([1, -1]),
)


@settings(max_examples=200, deadline=None)
@given(value=st.one_of(readable_floats, st.sampled_from([math.inf, -math.inf, -0.0, 1e15, 1e-5])))
def test_sqlite_text_matches_sqlite_cast(value: float) -> None:
    assert sqlite_text(value) == _sqlite_cast(value)


# -- property: random metadata, random filters, same rows ------------------------------

KEYS = ["a", "b", "c", "é", "a.b", "k y"]
TEXTS = ["", "a", "A", "ab", "b", "é", "É", "1", "1.5", "5", "[", '["a"', "true", "law", "x y"]

texts = st.one_of(
    st.sampled_from(TEXTS),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=5),
)
numbers = st.one_of(
    st.integers(-3, 3),
    st.integers(-(2**53), 2**53),
    st.integers(-3000, 3000).map(lambda n: n / 1000),  # floats SQLite and PG print alike
)
scalars = st.one_of(numbers, texts, st.booleans())
nullable = st.one_of(st.none(), scalars)
stored = st.one_of(nullable, st.lists(nullable, max_size=4))
metadata = st.one_of(st.none(), st.dictionaries(st.sampled_from(KEYS), stored, max_size=4))

OPERANDS: dict[str, st.SearchStrategy[Any]] = {
    **{op: nullable for op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$contains")},
    **{op: st.lists(nullable, max_size=4) for op in ("$in", "$nin", "$any", "$all")},
    "$text_match": texts,
    "$text_match_insensitive": texts,
    "$exists": st.booleans(),
    "$is_empty": st.booleans(),
}


@st.composite
def condition(draw: st.DrawFn) -> Any:
    ops = draw(st.lists(st.sampled_from(sorted(OPERANDS)), min_size=1, max_size=2, unique=True))
    if ops == ["$eq"] and draw(st.booleans()):
        return draw(nullable)  # the {"field": value} shorthand
    return {op: draw(OPERANDS[op]) for op in ops}


leaf = st.dictionaries(st.sampled_from([*KEYS, "zz"]), condition(), min_size=1, max_size=2)
filters = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.builds(
            lambda k, v: {k: v},
            st.sampled_from(["$and", "$or"]),
            st.lists(inner, min_size=1, max_size=3),
        ),
        st.builds(lambda v: {"$not": v}, inner),
    ),
    max_leaves=5,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=st.lists(metadata, min_size=1, max_size=8), specs=st.lists(filters, min_size=1, max_size=6)
)
def test_random_filters_select_the_same_rows(
    pair: Pair, rows: list[dict[str, Any] | None], specs: list[dict[str, Any]]
) -> None:
    pair.load(dict(enumerate(rows)))
    for spec in specs:
        try:
            expected = pair.ids(pair.sqlite, spec)
        except MemoError:
            with pytest.raises(MemoError):
                pair.ids(pair.postgres, spec)
            continue
        assert pair.ids(pair.postgres, spec) == expected, spec
