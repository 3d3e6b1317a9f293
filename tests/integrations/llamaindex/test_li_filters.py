"""MetadataFilters -> memo filters: every operator, nested conditions, bound parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)
from llama_index.core.vector_stores.utils import build_metadata_filter_fn

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex import MemoBaseVectorStore, to_memo_filter

F = FilterOperator

# Every node has every field, so LlamaIndex's own in-memory evaluator is an exact oracle.
ROWS: dict[str, dict[str, Any]] = {
    "a": {"author": "Ann Lee", "year": 2019, "score": 0.5, "tags": ["law", "eu"], "lang": "en"},
    "b": {"author": "bob", "year": 2021, "score": 2.5, "tags": ["law"], "lang": "fr"},
    "c": {"author": "Carol Ann", "year": 2023, "score": 1.0, "tags": ["food", "eu"], "lang": "en"},
    "d": {"author": "dave", "year": 2021, "score": 3.0, "tags": [], "lang": ""},
    "e": {"author": "Eve", "year": 2025, "score": 0.0, "tags": ["news"], "lang": "de"},
}


def mf(key: str, value: Any, op: FilterOperator = F.EQ) -> MetadataFilter:
    return MetadataFilter(key=key, value=value, operator=op)


@pytest.fixture
def rows_store(store: MemoBaseVectorStore, node_factory: Any) -> MemoBaseVectorStore:
    store.add([node_factory(k, f"Document {k} text.", f"doc-{k}", m) for k, m in ROWS.items()])
    return store


def matching(store: MemoBaseVectorStore, filters: MetadataFilters) -> set[str]:
    return {n.node_id for n in store.get_nodes(filters=filters)}


def oracle(filters: MetadataFilters) -> set[str]:
    fn = build_metadata_filter_fn(lambda node_id: ROWS[node_id], filters)
    return {k for k in ROWS if fn(k)}


CASES: list[tuple[MetadataFilter, set[str]]] = [
    (mf("lang", "en"), {"a", "c"}),
    (mf("year", 2021, F.NE), {"a", "c", "e"}),
    (mf("year", 2021, F.GT), {"c", "e"}),
    (mf("year", 2021, F.GTE), {"b", "c", "d", "e"}),
    (mf("score", 1.0, F.LT), {"a", "e"}),
    (mf("score", 1.0, F.LTE), {"a", "c", "e"}),
    (mf("lang", ["fr", "de"], F.IN), {"b", "e"}),
    (mf("year", [2019, 2025], F.NIN), {"b", "c", "d"}),
    (mf("tags", ["eu", "news"], F.ANY), {"a", "c", "e"}),
    (mf("tags", ["law", "eu"], F.ALL), {"a"}),
    (mf("tags", "law", F.CONTAINS), {"a", "b"}),
    (mf("author", "Ann", F.TEXT_MATCH), {"a", "c"}),
    (mf("author", "ann", F.TEXT_MATCH_INSENSITIVE), {"a", "c"}),
    (mf("tags", None, F.IS_EMPTY), {"d"}),
]


def test_is_empty_on_scalar_fields(store: MemoBaseVectorStore, node_factory: Any) -> None:
    store.add(
        [
            node_factory("s", "x", metadata={"k": "en"}),
            node_factory("n", "y", metadata={"k": 5}),
            node_factory("e", "z", metadata={"k": ""}),
            node_factory("m", "w"),
        ]
    )
    assert matching(store, MetadataFilters(filters=[mf("k", None, F.IS_EMPTY)])) == {"e", "m"}


def test_cases_cover_every_operator() -> None:
    assert {c[0].operator for c in CASES} == set(FilterOperator)


@pytest.mark.parametrize(("flt", "expected"), CASES, ids=lambda v: getattr(v, "operator", ""))
def test_every_operator_runs_in_sql(
    rows_store: MemoBaseVectorStore, flt: MetadataFilter, expected: set[str]
) -> None:
    filters = MetadataFilters(filters=[flt])
    assert matching(rows_store, filters) == expected
    assert oracle(filters) == expected  # the expectation agrees with LlamaIndex's own reading


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        (FilterCondition.AND, {"c"}),
        (FilterCondition.OR, {"a", "c", "e"}),
        (FilterCondition.NOT, {"b", "d"}),
    ],
)
def test_conditions(
    rows_store: MemoBaseVectorStore, condition: FilterCondition, expected: set[str]
) -> None:
    filters = MetadataFilters(
        filters=[mf("lang", "en"), mf("year", 2020, F.GT)]
        if condition is FilterCondition.AND
        else [mf("lang", "en"), mf("lang", "de")],
        condition=condition,
    )
    assert matching(rows_store, filters) == expected
    assert oracle(filters) == expected


def test_nested_conditions(rows_store: MemoBaseVectorStore) -> None:
    # (lang == en OR year >= 2025) AND NOT (tags contains law)
    filters = MetadataFilters(
        filters=[
            MetadataFilters(
                filters=[mf("lang", "en"), mf("year", 2025, F.GTE)], condition=FilterCondition.OR
            ),
            MetadataFilters(filters=[mf("tags", "law", F.CONTAINS)], condition=FilterCondition.NOT),
        ],
        condition=FilterCondition.AND,
    )
    assert matching(rows_store, filters) == {"c", "e"}
    assert to_memo_filter(filters) == {
        "$and": [
            {"$or": [{"lang": {"$eq": "en"}}, {"year": {"$gte": 2025}}]},
            {"$not": {"tags": {"$contains": "law"}}},
        ]
    }


def test_empty_groups_restrict_nothing(rows_store: MemoBaseVectorStore) -> None:
    assert to_memo_filter(None) is None
    assert to_memo_filter(MetadataFilters(filters=[])) is None
    nested_empty = MetadataFilters(filters=[MetadataFilters(filters=[]), mf("lang", "fr")])
    assert to_memo_filter(nested_empty) == {"lang": {"$eq": "fr"}}
    assert matching(rows_store, MetadataFilters(filters=[])) == set(ROWS)


def test_missing_field_semantics_match_llamaindex(
    store: MemoBaseVectorStore, node_factory: Any
) -> None:
    store.add([node_factory("has", "x", metadata={"k": 1}), node_factory("lacks", "y")])
    assert matching(store, MetadataFilters(filters=[mf("k", 1, F.NE)])) == {"lacks"}
    assert matching(store, MetadataFilters(filters=[mf("k", [1], F.NIN)])) == {"lacks"}


def test_filters_apply_in_every_query_mode(
    rows_store: MemoBaseVectorStore, embedder: HashEmbedder
) -> None:
    filters = MetadataFilters(filters=[mf("lang", "en")])
    vec = embedder.embed_query("Document text")
    for mode in ("default", "text_search", "hybrid"):
        q = VectorStoreQuery(
            query_str="document text",
            query_embedding=vec,
            mode=mode,
            similarity_top_k=5,
            filters=filters,
        )
        assert set(rows_store.query(q).ids or []) == {"a", "c"}, mode


def test_filter_values_are_bound_parameters(tmp_path: Path, node_factory: Any) -> None:
    statements: list[tuple[str, Any]] = []
    kb = MemoBase(
        tmp_path / "t.db",
        embedder=HashEmbedder(64),
        tracer=lambda sql, params: statements.append((sql, params)),
    )
    store = MemoBaseVectorStore(kb)
    store.add([node_factory("a", "alpha", metadata={"author": "x"})])
    hostile = "x' OR 1=1 --"
    statements.clear()
    result = store.query(
        VectorStoreQuery(
            query_str="alpha",
            mode="text_search",
            filters=MetadataFilters(filters=[mf("author", hostile)]),
        )
    )
    assert result.ids == []
    assert any("MATCH" in sql for sql, _ in statements)  # the keyword leg ran
    assert all(hostile not in sql for sql, _ in statements)
    assert any(hostile in (params or ()) for _, params in statements)  # bound, where it applies
    kb.close()


# -- property: memo's SQL agrees with LlamaIndex's in-memory evaluator -------------

_STR_FIELDS = {"author": ["Ann", "ann", "bob", "Eve", "Carol Ann"], "lang": ["en", "fr", "de", ""]}
_NUM_FIELDS = {"year": [2019, 2021, 2023, 2025, 2020], "score": [0.0, 0.5, 1.0, 2.5, 3.0]}


@st.composite
def leaf(draw: st.DrawFn) -> MetadataFilter:
    kind = draw(st.sampled_from(["str", "num", "list"]))
    if kind == "str":
        key = draw(st.sampled_from(sorted(_STR_FIELDS)))
        pool = _STR_FIELDS[key]
        op = draw(
            st.sampled_from(
                [F.EQ, F.NE, F.IN, F.NIN, F.TEXT_MATCH, F.TEXT_MATCH_INSENSITIVE, F.CONTAINS]
            )
        )
    elif kind == "num":
        key = draw(st.sampled_from(sorted(_NUM_FIELDS)))
        pool = _NUM_FIELDS[key]
        op = draw(st.sampled_from([F.EQ, F.NE, F.GT, F.GTE, F.LT, F.LTE, F.IN, F.NIN]))
    else:
        key, pool = "tags", ["law", "eu", "food", "news", "none"]
        op = draw(st.sampled_from([F.ANY, F.ALL, F.CONTAINS, F.IS_EMPTY]))
    if op is F.IS_EMPTY:
        return mf(key, None, op)
    if op in (F.IN, F.NIN, F.ANY, F.ALL):
        return mf(
            key, draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True)), op
        )
    return mf(key, draw(st.sampled_from(pool)), op)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    leaves=st.lists(leaf(), min_size=1, max_size=3),
    condition=st.sampled_from(list(FilterCondition)),
)
def test_sql_agrees_with_llamaindex_oracle(
    rows_store: MemoBaseVectorStore, leaves: list[MetadataFilter], condition: FilterCondition
) -> None:
    filters = MetadataFilters(filters=leaves, condition=condition)
    assert matching(rows_store, filters) == oracle(filters)


def test_not_keeps_nodes_without_the_key(store: MemoBaseVectorStore, node_factory: Any) -> None:
    """FilterCondition.NOT over "news" keeps untagged nodes, as NE does (and LlamaIndex)."""
    rows = {"n": {"kind": "news"}, "b": {"kind": "blog"}, "u": {"author": "untagged"}}
    store.add([node_factory(k, f"Node {k} text.", f"doc-{k}", m) for k, m in rows.items()])
    except_news = MetadataFilters(filters=[mf("kind", "news")], condition=FilterCondition.NOT)
    assert matching(store, except_news) == {"b", "u"}
    assert matching(store, MetadataFilters(filters=[mf("kind", "news", F.NE)])) == {"b", "u"}
    fn = build_metadata_filter_fn(lambda node_id: rows[node_id], except_news)
    assert {k for k in rows if fn(k)} == {"b", "u"}  # LlamaIndex's own reading
