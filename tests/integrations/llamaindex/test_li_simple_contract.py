"""MemoBaseVectorStore against the contract LlamaIndex checks of its own stores.

LlamaIndex tests ``SimpleVectorStore`` (llama-index-core tests/vector_stores/
test_simple.py) and its metadata filter evaluator (test_metadata_filters_logic.py);
every behaviour those tests check has a test here, written for memo, run on both
storage backends. The numbered comments (S1..S24, F1..F15) are the behaviours, so
the count in the module docstring of ``vector_store.py`` can be checked.

Deliberate differences (documented in ``memo_integrations/llamaindex/vector_store.py``):
a text match on a number looks for the text in its digits instead of raising
TypeError (F13, F14: the filter runs in SQL, a query never fails half-way); nested
MetadataFilters are supported instead of raising ValueError (F15); the base
persists on every write, so "persist and reload" is "reopen the file" (S23, S24).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex import MemoBaseVectorStore, MemoEmbedding, to_memo_filter

F = FilterOperator
C = FilterCondition
DIMS = 64  # the conftest's HashEmbedder


def pad(*head: float) -> list[float]:
    return [*head, *([0.0] * (DIMS - len(head)))]


# Three nodes placed by hand: for the query (1, 1) the order is heavy, light, tall.
LIGHT, TALL, HEAVY = "light-a", "tall-c", "heavy-c"
NODES: list[tuple[str, list[float], str, dict[str, Any]]] = [
    (
        LIGHT,
        pad(1.0, 0.0),
        "src-0",
        {"weight": 1.0, "rank": "a", "grade": ["mid", "top"], "code": "QX7-alpha"},
    ),
    (
        TALL,
        pad(0.0, 1.0),
        "src-1",
        {"weight": 2.0, "rank": "c", "grade": ["mid"], "code": "QX7-beta"},
    ),
    (
        HEAVY,
        pad(1.0, 1.0),
        "src-2",
        {"weight": 3.0, "rank": "c", "grade": ["low", "mid", "top"], "code": "QY9-gamma"},
    ),
]
QUERY = pad(1.0, 1.0)


def nodes() -> list[TextNode]:
    out = []
    for node_id, vector, source, meta in NODES:
        node = TextNode(id_=node_id, text="shared filler text", embedding=vector, metadata=meta)
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=source)
        out.append(node)
    return out


@pytest.fixture
def three(store: MemoBaseVectorStore) -> MemoBaseVectorStore:
    store.add(nodes())
    return store


def ask(store: MemoBaseVectorStore, *leaves: Any, top_k: int = 3, **query: Any) -> list[str]:
    condition = query.pop("condition", C.AND)
    filters = MetadataFilters(filters=list(leaves), condition=condition) if leaves else None
    found = store.query(
        VectorStoreQuery(query_embedding=QUERY, similarity_top_k=top_k, filters=filters, **query)
    )
    return list(found.ids or [])


def mf(key: str, value: Any, op: FilterOperator = F.EQ) -> MetadataFilter:
    return MetadataFilter(key=key, value=value, operator=op)


# -- S1..S9: ranking, top-k, ids, deletion -------------------------------------------


def test_s1_no_filter_returns_every_node_best_first(three: MemoBaseVectorStore) -> None:
    found = three.query(VectorStoreQuery(query_embedding=QUERY, similarity_top_k=3))
    assert found.ids is not None and set(found.ids) == {LIGHT, TALL, HEAVY}
    assert found.ids[0] == HEAVY  # light and tall tie behind it
    assert found.similarities == sorted(found.similarities or [], reverse=True)
    assert found.similarities and found.similarities[0] == pytest.approx(1.0, abs=1e-5)


def test_s2_a_filter_keeps_every_match_in_similarity_order(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("rank", "c")) == [HEAVY, TALL]


def test_s3_top_k_applies_after_the_filter(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("rank", "c"), top_k=1) == [HEAVY]


def test_s4_node_ids_and_filters_combine(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("rank", "c"), node_ids=[HEAVY]) == [HEAVY]
    assert ask(three, mf("rank", "a"), node_ids=[HEAVY]) == []


def test_s5_two_exact_filters_are_both_required(three: MemoBaseVectorStore) -> None:
    # VectorStoreQuery's default similarity_top_k is 1, as in LlamaIndex's own test.
    only = three.query(
        VectorStoreQuery(
            query_embedding=QUERY,
            filters=MetadataFilters(filters=[mf("rank", "c"), mf("weight", 2.0)]),
        )
    )
    assert only.ids == [TALL]


def test_s6_contradicting_filters_match_nothing(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("weight", 2), mf("weight", 3)) == []


def test_s7_a_filter_on_an_unknown_key_matches_nothing(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("no_such_key", "c")) == []


def test_s8_delete_by_source_document_removes_its_nodes(three: MemoBaseVectorStore) -> None:
    three.delete("src-1")
    assert ask(three, top_k=2) == [HEAVY, LIGHT]
    assert [n.node_id for n in three.get_nodes()] == [LIGHT, HEAVY]


def test_s9_integer_and_float_values_compare_as_numbers(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("weight", 2)) == [TALL]  # stored 2.0, asked 2
    assert ask(three, mf("weight", 1, F.GT)) == [HEAVY, TALL]


# -- S10..S12: conditions ----------------------------------------------------------


def test_s10_or_matches_either(three: MemoBaseVectorStore) -> None:
    assert set(ask(three, mf("rank", "c"), mf("weight", 1.0), condition=C.OR)) == {
        LIGHT,
        TALL,
        HEAVY,
    }


def test_s11_and_matches_both(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("rank", "c"), mf("weight", 1.0), condition=C.AND) == []


def test_s12_not_excludes_the_matches(three: MemoBaseVectorStore) -> None:
    assert ask(three, mf("rank", "a"), condition=C.NOT) == [HEAVY, TALL]


# -- S13..S22: each operator, counted over the three nodes ---------------------------


@pytest.mark.parametrize(
    ("leaf", "expected"),
    [
        (mf("weight", 1.0, F.EQ), {LIGHT}),  # S13
        (mf("weight", 1.0, F.NE), {TALL, HEAVY}),  # S14
        (mf("weight", 1.5, F.GT), {TALL, HEAVY}),  # S15
        (mf("weight", 1.0, F.GTE), {LIGHT, TALL, HEAVY}),  # S16
        (mf("weight", 1.1, F.LT), {LIGHT}),  # S17
        (mf("weight", 1.0, F.LTE), {LIGHT}),  # S18
        (mf("rank", ["a", "c"], F.IN), {LIGHT, TALL, HEAVY}),  # S19
        (mf("rank", ["c"], F.NIN), {LIGHT}),  # S20
        (mf("grade", "top", F.CONTAINS), {LIGHT, HEAVY}),  # S21
        (mf("code", "QX7", F.TEXT_MATCH), {LIGHT, TALL}),  # S22
        (mf("grade", ["top", "low"], F.ANY), {LIGHT, HEAVY}),  # S22b
        (mf("grade", ["mid", "top"], F.ALL), {LIGHT, HEAVY}),  # S22c
        (mf("not_a_key", None, F.IS_EMPTY), {LIGHT, TALL, HEAVY}),  # S22d
    ],
    ids=lambda v: getattr(v, "operator", ""),
)
def test_s13_to_s22_each_operator(
    three: MemoBaseVectorStore, leaf: MetadataFilter, expected: set[str]
) -> None:
    assert set(ask(three, leaf)) == expected


# -- S23, S24: clearing and deleting nodes; persistence --------------------------------


def test_s23_clear_empties_the_store(three: MemoBaseVectorStore) -> None:
    three.clear()
    assert ask(three) == []
    assert three.get_nodes() == []


def test_s24_delete_nodes_by_id(three: MemoBaseVectorStore) -> None:
    three.delete_nodes([LIGHT, TALL])
    assert ask(three) == [HEAVY]


def test_s25_what_an_index_persists_is_in_the_file(tmp_path: Path) -> None:
    """LlamaIndex persists SimpleVectorStore to a folder and reloads it; memo's base is
    its own persistence: persisting the index writes the docstore, and reopening the
    file finds the nodes again."""
    embedder = HashEmbedder(DIMS)
    path = tmp_path / "kb.db"
    storage = StorageContext.from_defaults(
        vector_store=MemoBaseVectorStore(path, embed_model=MemoEmbedding(embedder))
    )
    index = VectorStoreIndex(nodes(), storage_context=storage, embed_model=MemoEmbedding(embedder))
    index.storage_context.persist(str(tmp_path / "index"))
    assert (tmp_path / "index" / "docstore.json").exists()
    storage.vector_store.client.close()  # type: ignore[attr-defined]
    with MemoBase(path, embedder=embedder) as reopened:
        again = MemoBaseVectorStore(reopened)
        assert ask(again, top_k=1) == [HEAVY]
        assert {n.node_id for n in again.get_nodes()} == {LIGHT, TALL, HEAVY}


# -- F1..F15: metadata filter logic ----------------------------------------------------

ROWS: dict[str, dict[str, Any]] = {
    "r1": {"rank": "a", "weight": 1.0, "labels": ["red", "blue"], "tag": "KLM101"},
    "r2": {"rank": "b", "weight": 2.0, "labels": ["blue"], "tag": "klm202"},
    "r3": {"rank": "c", "weight": 3.0, "labels": [], "tag": "PQR303"},
}


@pytest.fixture
def rows(store: MemoBaseVectorStore, node_factory: Any) -> MemoBaseVectorStore:
    store.add([node_factory(k, f"Row {k}.", f"doc-{k}", m) for k, m in ROWS.items()])
    return store


def matching(store: MemoBaseVectorStore, *leaves: Any, condition: Any = C.AND) -> set[str]:
    filters = MetadataFilters(filters=list(leaves), condition=condition)
    return {n.node_id for n in store.get_nodes(filters=filters)}


def test_f1_and(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("rank", "a", F.NE), mf("weight", 2.0, F.GTE)) == {"r2", "r3"}


def test_f2_no_condition_means_and(rows: MemoBaseVectorStore) -> None:
    leaves = [mf("rank", "a", F.NE), mf("weight", 2.0, F.GTE)]
    assert matching(rows, *leaves, condition=None) == {"r2", "r3"}


def test_f3_or(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("rank", "a"), mf("rank", "c"), condition=C.OR) == {"r1", "r3"}


def test_f4_not(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("rank", "a"), condition=C.NOT) == {"r2", "r3"}


def test_f5_is_empty_matches_a_missing_key_and_an_empty_list(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("missing", None, F.IS_EMPTY)) == {"r1", "r2", "r3"}
    assert matching(rows, mf("labels", None, F.IS_EMPTY)) == {"r3"}


def test_f6_to_f8_ne_and_nin_match_a_missing_key(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("missing", "a", F.NE)) == {"r1", "r2", "r3"}
    assert matching(rows, mf("missing", ["a"], F.NIN)) == {"r1", "r2", "r3"}
    assert matching(rows, mf("missing", ["news", "blog"], F.NIN)) == {"r1", "r2", "r3"}


def test_f9_eq_never_matches_a_missing_key(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("missing", "news")) == set()


def test_f10_ne_on_a_missing_key_equals_not_eq(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("missing", "news", F.NE)) == matching(
        rows, mf("missing", "news"), condition=C.NOT
    )
    assert matching(rows, mf("rank", "b", F.NE)) == matching(rows, mf("rank", "b"), condition=C.NOT)


def test_f11_ne_on_a_missing_key_leaves_the_other_filter_to_decide(
    rows: MemoBaseVectorStore,
) -> None:
    assert matching(rows, mf("missing", "news", F.NE), mf("rank", "b")) == {"r2"}


def test_f12_case_insensitive_text_match(rows: MemoBaseVectorStore) -> None:
    assert matching(rows, mf("tag", "klm", F.TEXT_MATCH_INSENSITIVE)) == {"r1", "r2"}
    assert matching(rows, mf("tag", "klm", F.TEXT_MATCH)) == {"r2"}  # case-sensitive


@pytest.mark.parametrize("op", [F.TEXT_MATCH, F.TEXT_MATCH_INSENSITIVE])
def test_f13_f14_a_text_match_on_a_number_reads_its_digits(
    rows: MemoBaseVectorStore, op: FilterOperator
) -> None:
    """LlamaIndex's in-memory evaluator raises TypeError here; memo's filter language
    reads a number's text (memo_core/search/pg_filters.py), on both backends, and a
    query never fails half-way because one node holds a number."""
    assert matching(rows, mf("weight", "1", op)) == {"r1"}  # 1.0
    assert matching(rows, mf("weight", "7", op)) == set()


def test_f15_nested_filters_are_supported(rows: MemoBaseVectorStore) -> None:
    """LlamaIndex's in-memory evaluator refuses nested MetadataFilters; memo (like most
    LlamaIndex vector stores) evaluates them."""
    inner = MetadataFilters(filters=[mf("rank", "a")])
    outer = MetadataFilters(filters=[inner], condition=C.AND)
    assert {n.node_id for n in rows.get_nodes(filters=outer)} == {"r1"}
    assert to_memo_filter(outer) == {"rank": {"$eq": "a"}}
