"""MemoHoodStore against the behaviour LangGraph's own stores are tested for.

Every behaviour LangGraph checks for ``InMemoryStore`` and ``SqliteStore`` (sync and
async): batches in order, namespace validation and listing (prefix, suffix, ``*``,
depth, pages, segment boundaries, literal metacharacters, case), key-value round
trips, query search with an ``index`` configuration (auto-embedding, updates that
move the score, ``index=False``, per-put and store-level ``fields``), filters before
the limit, pagination, operators, injection-shaped values, non-ASCII text, TTLs and
many concurrent async operations. These tests are memo's own; run on both storage
backends.

Deliberate differences, each pinned by a test below:

* an empty namespace prefix (LangGraph: search everything) fails closed with
  ``NamespaceRequiredError``;
* an item indexed on several fields has one vector of those fields' text together
  (LangGraph keeps one vector per field and scores an item by its best field);
* query search orders by memo's fusion of keyword and vector matches; ``score`` is
  the cosine similarity in [0, 1], so it can differ from the order where the two
  legs disagree;
* a filter key is a dotted path compared in Python, never SQL: a key shaped like an
  injection simply matches nothing (SqliteStore raises ``ValueError``);
* scores are cosine similarities only: ``distance_type`` "l2" or "inner_product"
  (SqliteStore) is refused, SqliteStore's ``text_fields`` is read as ``fields``;
* the whole value (``fields`` ``["$"]``, the default) is indexed as memo's readable
  rendering of it, not as its JSON text, so an ``embed`` function sees words, not
  braces and quotes;
* sync methods also work on an event loop's thread (AsyncSqliteStore raises
  ``InvalidStateError``): one store serves both.

Implementation checks of LangGraph's suites with no observable behaviour here (its
SQL migrations, GLOB escaping helpers, query-plan shape, ``AsyncBatchedBaseStore``
call counts through mocks) are not ported; their observable halves are (metacharacter
labels, concurrent identical reads, writes applied in the order issued).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest

pytest.importorskip("langgraph.store.base", reason="langgraph-checkpoint is not installed")

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import RecallGate, timeutil
from memo_integrations.langchain import MemoEmbeddings, MemoHoodStore

DIMS = 128


def embeddings() -> MemoEmbeddings:
    """A LangChain ``Embeddings``, as LangGraph's ``index={"embed": ...}`` takes it."""
    return MemoEmbeddings(HashEmbedder(DIMS))


@pytest.fixture
def url(backend_url: str) -> str:
    return backend_url


@pytest.fixture
def store(url: str) -> Iterator[MemoHoodStore]:
    s = MemoHoodStore(url, index={"dims": DIMS, "embed": embeddings()}, gate=RecallGate())
    yield s
    s.close()


def open_store(url: str, **options: Any) -> MemoHoodStore:
    options.setdefault("index", {"dims": DIMS, "embed": embeddings()})
    return MemoHoodStore(url, gate=RecallGate(), **options)


def keys(items: list[SearchItem]) -> list[str]:
    return [i.key for i in items]


# -- batches ----------------------------------------------------------------------


def test_batch_results_follow_operation_order(store: MemoHoodStore) -> None:
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})
    results = store.batch(
        [
            GetOp(("test", "foo"), "key1"),
            PutOp(("test", "bar"), "key2", {"data": "value2"}),
            SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            GetOp(("test",), "key3"),
            PutOp(("test",), "key3", {"data": "value3"}),
            GetOp(("test",), "key3"),
        ]
    )
    assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
    assert results[0].namespace == ("test", "foo") and results[0].key == "key1"
    assert results[1] is None
    assert [i.key for i in results[2]] == ["key1"]  # type: ignore[union-attr]
    assert ("test", "foo") in results[3] and ("test", "bar") in results[3]  # type: ignore[operator]
    assert results[4] is None
    assert results[5] is None
    assert isinstance(results[6], Item) and results[6].value == {"data": "value3"}


async def test_abatch_results_follow_operation_order(store: MemoHoodStore) -> None:
    results = await store.abatch(
        [
            PutOp(("a",), "k", {"data": "one"}),
            GetOp(("a",), "k"),
            PutOp(("a",), "k", None),
            GetOp(("a",), "k"),
        ]
    )
    assert results[0] is None and results[2] is None and results[3] is None
    assert isinstance(results[1], Item) and results[1].value == {"data": "one"}


def test_large_batches(store: MemoHoodStore) -> None:
    ops: list[Any] = [PutOp(("big", f"n{i % 5}"), f"k{i}", {"i": i}) for i in range(200)]
    store.batch(ops)
    got = store.batch([GetOp(("big", f"n{i % 5}"), f"k{i}") for i in range(200)])
    assert [g.value["i"] for g in got] == list(range(200))  # type: ignore[union-attr]
    assert len(store.search(("big",), limit=1000)) == 200


async def test_many_concurrent_async_operations(store: MemoHoodStore) -> None:
    colors = ["red", "blue", "green", "yellow", "purple"]
    things = ["apple", "car", "house", "book", "phone"]
    docs = [
        (f"doc{i}", {"text": f"{colors[i % 5]} {things[i % 5]}", "color": colors[i % 5], "i": i})
        for i in range(50)
    ]
    await asyncio.gather(
        *[store.aput(("test",), k, v) for k, v in docs],
        *[store.adelete(("test",), k) for k, _ in docs],
    )
    await asyncio.gather(*[store.aput(("test",), k, v) for k, v in docs])
    queries = [
        ("apple", {"color": "red"}),
        ("car", {"color": "blue"}),
        ("house", {"i": {"$gt": 25}}),
        ("phone", {"i": {"$lte": 10}}),
    ]
    results = await asyncio.gather(
        *[store.asearch(("test",), query=q, filter=f, limit=100) for q, f in queries]
    )
    assert [len(r) for r in results] == [10, 10, 24, 11]
    assert all(r.value["color"] == "red" for r in results[0])
    assert all(r.value["i"] > 25 for r in results[2])
    assert results[0][0].value["text"] == "red apple"


# -- namespaces -------------------------------------------------------------------


def test_invalid_namespaces_are_refused(store: MemoHoodStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    assert store.get(("foo", "langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert store.search(("foo", "langgraph", "foo"), query="bar")[0].value == doc
    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None


async def test_invalid_namespaces_are_refused_async(store: MemoHoodStore) -> None:
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            await store.aput(bad, "foo", {"foo": "bar"})


def test_difference_empty_prefix_fails_closed(store: MemoHoodStore) -> None:
    """LangGraph: an empty prefix searches every namespace. memo: refused."""
    store.put(("a",), "k", {"v": 1})
    with pytest.raises(NamespaceRequiredError):
        store.search(())
    with pytest.raises(NamespaceRequiredError):
        store.batch([SearchOp((), query="v")])


NAMESPACES = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("admin", "users", "789"),
]


def test_list_namespaces(store: MemoHoodStore) -> None:
    for i, ns in enumerate(NAMESPACES):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    ab = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b")) == ab
    assert sorted(store.list_namespaces(suffix=("f",))) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == ab[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == ab[2:]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert len(store.list_namespaces(suffix=("*", "f"))) == 3
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]
    assert sorted(store.list_namespaces()) == sorted(NAMESPACES)


def test_list_namespaces_wildcards_depth_and_pages(store: MemoHoodStore) -> None:
    for i, ns in enumerate(
        [("users", "1"), ("users", "2", "settings"), ("guests", "3", "preferences")]
    ):
        store.put(ns, f"id_{i}", {"v": i})
    assert store.list_namespaces(prefix=("users", "*")) == [
        ("users", "1"),
        ("users", "2", "settings"),
    ]
    assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "3", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []
    assert store.list_namespaces(max_depth=1) == [("guests",), ("users",)]
    for i in range(20):
        store.put(("namespace", f"sub_{i:02d}"), "k", {"v": i})
    pages = [store.list_namespaces(prefix=("namespace",), limit=5, offset=o) for o in (0, 5, 15)]
    assert pages == [[("namespace", f"sub_{i:02d}") for i in range(o, o + 5)] for o in (0, 5, 15)]


def test_list_namespaces_of_an_empty_store(store: MemoHoodStore) -> None:
    assert store.list_namespaces() == []


def test_namespace_segments_are_exact(store: MemoHoodStore) -> None:
    for ns in [("foo",), ("foo", "child"), ("foobar",), ("foo2",), ("Foo",)]:
        store.put(ns, "k", {"v": 1})
    assert {i.namespace for i in store.search(("foo",), limit=100)} == {("foo",), ("foo", "child")}
    assert {i.namespace for i in store.search(("Foo",), limit=100)} == {("Foo",)}
    assert store.search(("fo",), limit=100) == []
    assert set(store.list_namespaces(prefix=["foo"])) == {("foo",), ("foo", "child")}
    store.put(("uid", "users", "alice"), "k", {"v": 1})
    store.put(("uid", "users", "malice"), "k", {"v": 1})
    store.put(("users", "alice\n"), "k", {"v": 1})
    assert set(store.list_namespaces(suffix=["alice"])) == {("uid", "users", "alice")}


def test_metacharacters_in_labels_are_literal(store: MemoHoodStore) -> None:
    pairs = [("star*", "starX"), ("q?m", "qXm"), ("user_1", "userX1"), ("a%b", "axxb")]
    for label, decoy in pairs:
        store.put((label,), "k", {"v": 1})
        store.put((decoy,), "k", {"v": 1})
        store.put((label, "child"), "k", {"v": 1})
    for label, decoy in pairs:
        assert set(store.list_namespaces(prefix=[label])) == {(label,), (label, "child")}
        assert {i.namespace for i in store.search((label,), limit=100)} == {
            (label,),
            (label, "child"),
        }
        assert (decoy,) not in store.list_namespaces(prefix=[label])


# -- key-value --------------------------------------------------------------------


def test_put_get_update_delete(store: MemoHoodStore) -> None:
    ns = ("u", "test", "documents")
    assert store.search(("u",)) == []
    store.put(ns, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    item = store.get(ns, "doc1")
    assert item is not None and item.namespace == ns and item.key == "doc1"
    assert item.value == {"title": "Test Document", "content": "Hello, World!"}
    store.put(ns, "doc1", {"title": "Updated", "content": "Hello, LangGraph!"})
    updated = store.get(ns, "doc1")
    assert updated is not None and updated.value["title"] == "Updated"
    assert updated.updated_at >= item.updated_at and updated.created_at == item.created_at
    assert store.get(("u", "test", "other"), "doc1") is None
    store.put(ns, "doc2", {"title": "Another", "content": "Greetings!"})
    assert set(keys(store.search(("u", "test"), limit=10))) == {"doc1", "doc2"}
    store.delete(ns, "doc1")
    store.delete(ns, "doc2")
    assert store.get(ns, "doc1") is None and store.search(("u", "test")) == []


def test_listing_search_pages_and_filters(store: MemoHoodStore) -> None:
    base = "listing"
    rows = [
        (
            (base, "documents", "user1"),
            {"title": "Doc 1", "author": "John Doe", "tags": ["important"]},
        ),
        (
            (base, "documents", "user2"),
            {"title": "Doc 2", "author": "Jane Smith", "tags": ["draft"]},
        ),
        ((base, "reports", "dep1"), {"title": "Report A", "author": "John Doe", "tags": ["final"]}),
        (
            (base, "reports", "dep2"),
            {"title": "Report B", "author": "Alice Jones", "tags": ["draft"]},
        ),
    ]
    for ns, value in rows:
        store.put(ns, f"item_{ns[-1]}", value)
    assert len(store.search((base, "documents"))) == 2
    first, second = store.search((base,), limit=2), store.search((base,), limit=2, offset=2)
    assert len(first) == 2 and len(second) == 2 and set(keys(first)).isdisjoint(keys(second))
    assert len(store.search((base,))) == 4
    assert len(store.search((base,), filter={"author": "John Doe"})) == 2
    assert len(store.search((base,), filter={"tags": ["draft"]})) == 2


def test_filter_operators_and_odd_values(store: MemoHoodStore) -> None:
    for i, price in enumerate([10, 20, 30]):
        store.put(("items",), f"item{i + 1}", {"price": price, "quantity": 5 - 2 * i})
    assert len(store.search(("items",), filter={"price": {"$gt": 15}})) == 2
    assert len(store.search(("items",), filter={"price": {"$lt": math.inf}})) == 3
    assert len(store.search(("items",), filter={"price": {"$gt": -math.inf}})) == 3
    assert store.search(("items",), filter={"price": {"$eq": math.nan}}) == []
    assert len(store.search(("items",), filter={"price": {"$lt": 10**100}})) == 3
    assert keys(store.search(("items",), filter={"price": {"$ne": 20}})) == ["item3", "item1"]
    store.put(("items",), "item4", {"price": -10, "quantity": 0})
    assert keys(store.search(("items",), filter={"price": {"$lt": 0}})) == ["item4"]
    store.put(("flags",), "f1", {"active": True})
    store.put(("flags",), "f2", {"active": False})
    assert keys(store.search(("flags",), filter={"active": True})) == ["f1"]
    assert keys(store.search(("flags",), filter={"active": False})) == ["f2"]


def test_injection_shaped_filters_match_nothing(store: MemoHoodStore) -> None:
    store.put(("docs",), "public", {"access": "public", "title": "O'Brien's Document"})
    store.put(("docs",), "private", {"access": "private", "password": "123"})
    for value in ["public' OR '1'='1", "public'; --", "public\x00' OR '1'='1", "''''"]:
        assert store.search(("docs",), filter={"access": value}) == []
    assert store.search(("docs",), filter={"access') = 'public' OR '1'='1": "x"}) == []
    assert keys(store.search(("docs",), filter={"title": "O'Brien's Document"})) == ["public"]


def test_filter_keys_with_hyphens_digits_and_paths(store: MemoHoodStore) -> None:
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    assert keys(store.search(("docs",), filter={"access-level": "public"})) == ["hyphen"]
    assert keys(store.search(("docs",), filter={"user.access-level": "nested"})) == ["hyphen"]
    assert keys(store.search(("docs",), filter={"123abc": "ok"})) == ["digit"]
    assert keys(store.search(("docs",), filter={"user.123abc": "ok2"})) == ["digit"]


# -- query search -----------------------------------------------------------------


def test_index_config_is_kept(store: MemoHoodStore) -> None:
    assert store.index_config is not None and store.index_config["dims"] == DIMS
    assert store.memory.has_vectors


def test_auto_embedding_finds_the_closest(store: MemoHoodStore) -> None:
    for key, value in [
        ("doc1", {"text": "short text"}),
        ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}),
        ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}),
        ("doc6", {"body": "text in body field"}),
    ]:
        store.put(("test",), key, value)
    found = keys(store.search(("test",), query="longer document"))
    assert found[0] == "doc2" and "doc3" in found[:3]


async def test_updating_an_item_moves_its_score(store: MemoHoodStore) -> None:
    await store.aput(("test",), "doc1", {"text": "zany zebra Xerxes"})
    await store.aput(("test",), "doc2", {"text": "something about dogs"})
    await store.aput(("test",), "doc3", {"text": "text about birds"})
    first = await store.asearch(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1" and first[0].score is not None
    await store.aput(("test",), "doc1", {"text": "new text about dogs"})
    after = next(
        r.score for r in await store.asearch(("test",), query="Zany Xerxes") if r.key == "doc1"
    )
    assert after is not None and after < first[0].score
    dogs = next(
        r for r in await store.asearch(("test",), query="new text about dogs") if r.key == "doc1"
    )
    assert dogs.score is not None and dogs.score > after
    await store.aput(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    top3 = await store.asearch(("test",), query="new text about dogs", limit=3)
    assert "doc4" not in keys(top3)
    everything = await store.asearch(("test",), query="new text about dogs", limit=10)
    assert everything[-1].key == "doc4" and everything[-1].score is None


def test_scores_are_cosine_similarities(store: MemoHoodStore) -> None:
    store.put(("test",), "doc", {"key0": "aaa"}, index=["key0", "key1"])
    emb = embeddings()
    for query in ["aaa", "aaa bbb", "zzz"]:
        [hit] = store.search(("test",), query=query)
        a, b = emb.embed_query("aaa"), emb.embed_query(query)
        cosine = sum(x * y for x, y in zip(a, b, strict=True))
        assert hit.score == pytest.approx(max(0.0, cosine), abs=1e-3)
        assert 0.0 <= hit.score <= 1.0


def test_vector_search_with_filters(store: MemoHoodStore) -> None:
    for key, value in [
        ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]:
        store.put(("test",), key, value)
    assert keys(store.search(("test",), query="apple", filter={"color": "red"})) == ["doc1", "doc2"]
    assert keys(store.search(("test",), query="car", filter={"color": "red"})) == ["doc2", "doc1"]
    blue = store.search(("test",), query="bbbbluuu", filter={"score": {"$gt": 3.2}})
    assert len(blue) == 3
    assert keys(
        store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    ) == ["doc3"]


def test_filters_apply_before_the_limit_over_the_whole_namespace(store: MemoHoodStore) -> None:
    """The defect this store once had: a filter applied after a pool of ~50 matches."""
    store.batch(
        [
            PutOp(("n",), f"k{i}", {"text": f"walrus note number {i}", "tag": "x"})
            for i in range(120)
        ]
        + [PutOp(("n",), "needle", {"text": "an unrelated line", "tag": "needle"})]
    )
    assert keys(store.search(("n",), query="walrus note", filter={"tag": "needle"})) == ["needle"]
    tagged = [
        store.search(("n",), query="walrus", filter={"tag": "x"}, limit=25, offset=o)
        for o in range(0, 125, 25)
    ]
    flat = [k for page in tagged for k in keys(page)]
    assert len(flat) == 120 and len(set(flat)) == 120  # every page distinct, none lost
    assert [len(p) for p in tagged] == [25, 25, 25, 25, 20]


def test_no_relevance_floor_unless_asked(url: str) -> None:
    store = open_store(url)
    store.put(("t",), "near", {"text": "the walrus sleeps on ice"})
    store.put(("t",), "far", {"text": "quarterly budget spreadsheet"})
    assert keys(store.search(("t",), query="walrus ice")) == ["near", "far"]
    store.close()
    floored = open_store(url, min_score=0.3)
    assert keys(floored.search(("t",), query="walrus ice")) == ["near"]
    floored.close()


def test_pagination_of_a_query_search(store: MemoHoodStore) -> None:
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    assert len(page1) == 2 and len(page2) == 2 and set(keys(page1)).isdisjoint(keys(page2))
    assert len(store.search(("test",), query="test", limit=10)) == 5


def test_query_edge_cases(store: MemoHoodStore) -> None:
    store.put(("test",), "doc1", {"text": "test document"})
    for query in ["", None, "test " * 100, "test!@#$%^&*()", '"NEAR" * - :']:
        assert keys(store.search(("test",), query=query)) == ["doc1"]


def test_fields_at_store_and_put_level(url: str) -> None:
    store = open_store(url, index={"dims": DIMS, "embed": embeddings(), "fields": ["key0", "key1"]})
    store.put(("test",), "doc1", {"key0": "aaa walrus", "key2": "ccc octopus"})
    store.put(("test",), "doc2", {"key1": "bbb", "key2": "ddd"}, index=["key2"])
    store.put(("test",), "doc3", {"key0": "hhh", "key1": "iii"}, index=False)
    walrus = store.search(("test",), query="walrus")
    assert walrus[0].key == "doc1" and walrus[0].score is not None and walrus[0].score > 0.3
    octopus = {h.key: h.score for h in store.search(("test",), query="octopus")}
    assert octopus["doc1"] is not None and octopus["doc1"] < 0.2  # key2 is not indexed
    assert store.search(("test",), query="ddd")[0].key == "doc2"  # the put's own fields
    hhh = store.search(("test",), query="hhh")
    assert len(hhh) == 3 and next(h for h in hhh if h.key == "doc3").score is None
    store.close()


def test_difference_one_vector_for_several_fields(url: str) -> None:
    """LangGraph scores a multi-field item by its best field; memo by all fields together."""
    store = open_store(url, index={"dims": DIMS, "embed": embeddings(), "fields": ["a", "b"]})
    store.put(("t",), "one", {"a": "xxx"})
    store.put(("t",), "two", {"a": "xxx", "b": "completely different words here"})
    scores = {h.key: h.score for h in store.search(("t",), query="xxx")}
    assert scores["one"] == pytest.approx(1.0, abs=1e-3)
    assert scores["two"] is not None and scores["two"] < scores["one"]
    store.close()


def test_embed_may_be_a_function(url: str) -> None:
    memo = HashEmbedder(DIMS)
    store = open_store(url, index={"dims": DIMS, "embed": memo.embed_documents})
    store.put(("t",), "k", {"text": "a function embeds this"})
    assert store.search(("t",), query="a function embeds this")[0].score == pytest.approx(1.0)
    store.close()


def test_non_ascii(store: MemoHoodStore) -> None:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for i, text in enumerate(texts, 1):
        store.put(("user_123", "memories"), str(i), {"text": text})
    for i, text in enumerate(texts, 1):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(i)


def test_local_embedder_by_default(tmp_path: Any) -> None:
    pytest.importorskip("fastembed", reason="the local embedder needs memo[local]")
    store = MemoHoodStore(tmp_path / "default.db", gate=RecallGate())
    assert store.memory.has_vectors
    store.put(("u",), "pet", {"text": "My dog is called Biscuit."})
    store.put(("u",), "job", {"text": "I work as a tax accountant."})
    assert store.search(("u",), query="what is the name of my puppy")[0].key == "pet"
    store.close()


# -- further behaviours of LangGraph's store tests ----------------------------------


def test_a_batch_may_write_under_the_reserved_root(store: MemoHoodStore) -> None:
    """``put`` refuses the reserved ``langgraph`` root; a raw ``PutOp`` in a batch is
    LangGraph's own way past that check, and works here too."""
    doc = {"foo": "bar"}
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert store.search(("langgraph", "foo"))[0].value == doc
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


async def test_concurrent_writes_apply_in_the_order_issued(store: MemoHoodStore) -> None:
    for round_ in range(12):
        await asyncio.gather(
            store.aput(("c",), "key", {"value": 1, "round": round_}),
            store.aput(("c",), "key", {"value": 2, "round": round_}),
        )
        item = await store.aget(("c",), "key")
        assert item is not None and item.value == {"value": 2, "round": round_}
    same = await asyncio.gather(store.aget(("c",), "key"), store.aget(("c",), "key"))
    assert same[0] == same[1]
    both = await asyncio.gather(
        store.asearch(("c",), filter={"value": 2}), store.asearch(("c",), filter={"value": 2})
    )
    assert both[0] == both[1] and len(both[0]) == 1


async def test_a_large_mixed_async_workload_ends_where_its_order_says(
    store: MemoHoodStore,
) -> None:
    coros: list[Any] = []
    for m in range(2):
        ns = ("test", "foo", "bar", "baz", str(m % 2))
        for i in range(50):
            coros += [
                store.aput(ns, f"key{i}", {"foo": f"bar{i}"}),
                store.aget(ns, f"key{i}"),
                store.alist_namespaces(prefix=None, max_depth=m + 1),
                store.asearch(("test",)),
                store.aput(ns, f"key{i}", {"foo": f"bar{i}"}),
                store.adelete(ns, f"key{i}"),
            ]
    results = await asyncio.gather(*coros)
    assert len(results) == 600
    assert await store.asearch(("test",), limit=1000) == []  # every key's last write: delete


def test_labels_with_a_trailing_newline_by_prefix_and_suffix(store: MemoHoodStore) -> None:
    store.put(("users", "alice"), "k", {"v": 1})
    store.put(("users", "alice\n"), "k", {"v": 2})
    assert store.list_namespaces(prefix=["users", "alice"]) == [("users", "alice")]
    assert store.list_namespaces(suffix=["alice"]) == [("users", "alice")]
    assert {i.namespace for i in store.search(("users", "alice"))} == {("users", "alice")}


def test_bracket_and_plus_labels_are_literal(store: MemoHoodStore) -> None:
    for label, decoy in [("br[ack]et", "brXacXket"), ("plus+", "plusX"), ("dot^$", "dotX")]:
        store.put((label,), "k", {"v": 1})
        store.put((decoy,), "k", {"v": 1})
        store.put((label, "child"), "k", {"v": 1})
        assert set(store.list_namespaces(prefix=[label])) == {(label,), (label, "child")}
        assert store.list_namespaces(prefix=[label, "child"]) == [(label, "child")]


P = "tenant-7f"
DEEP = [
    (P, "test", "documents", "public", P),
    (P, "test", "documents", "private", P),
    (P, "test", "images", "public", P),
    (P, "test", "images", "private", P),
    (P, "prod", "documents", "public", P),
    (P, "prod", "documents", "some", "nesting", "public", P),
    (P, "prod", "documents", "private", P),
]


def test_list_namespaces_over_deep_and_wildcard_paths(store: MemoHoodStore) -> None:
    for ns in DEEP:
        store.put(ns, "dummy", {"content": "dummy"})
    assert len(store.list_namespaces(prefix=(P, "test"))) == 4
    assert len(store.list_namespaces(prefix=(P, "test", "documents"))) == 2
    assert len(store.list_namespaces(suffix=("public", P))) == 4
    assert len(store.list_namespaces(prefix=(P, "test"), suffix=("public", P))) == 2
    assert len(store.list_namespaces(prefix=(P, "*", "documents"))) == 5
    assert len(store.list_namespaces(suffix=("*", "public", P))) == 4
    assert store.list_namespaces(suffix=("some", "*", "public", P)) == [DEEP[5]]
    assert all(len(ns) <= 3 for ns in store.list_namespaces(max_depth=3))
    cut = store.list_namespaces(max_depth=4, prefix=(P, "*", "documents"))
    assert len(cut) == len(set(cut)) == 5
    assert len(store.list_namespaces(prefix=(P,), limit=3)) == 3
    assert len(store.list_namespaces(prefix=(P,), offset=3)) == len(DEEP) - 3
    assert set(store.list_namespaces(prefix=(P,))) == set(DEEP)


def test_match_conditions_in_a_batch(store: MemoHoodStore) -> None:
    for ns in [("t", "documents", "public"), ("t", "documents", "private"), ("p", "img", "public")]:
        store.put(ns, "k", {"v": 1})
    every, shallow, public, both = store.batch(
        [
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            ListNamespacesOp(match_conditions=None, max_depth=2, limit=10, offset=0),
            ListNamespacesOp(
                match_conditions=(MatchCondition("suffix", ("public",)),),
                max_depth=None,
                limit=10,
                offset=0,
            ),
            ListNamespacesOp(
                match_conditions=(
                    MatchCondition("prefix", ("t",)),
                    MatchCondition("suffix", ("public",)),
                ),
                max_depth=None,
                limit=10,
                offset=0,
            ),
        ]
    )
    assert len(every) == 3  # type: ignore[arg-type]
    assert sorted(shallow) == [("p", "img"), ("t", "documents")]  # type: ignore[type-var]
    assert sorted(public) == [("p", "img", "public"), ("t", "documents", "public")]  # type: ignore[type-var]
    assert both == [("t", "documents", "public")]


class FixedVectors(Embeddings):
    """Hand-placed vectors by item text."""

    dims = 3
    vectors: ClassVar[dict[str, list[float]]] = {
        "a": [1.0, 0.0, 0.0],
        "b": [2.0, 0.1, 0.0],
        "c": [0.0, 0.0, 1.0],
    }

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(self.vectors.get(text.strip(), [0.0, 1.0, 0.0]))


def test_scores_of_hand_placed_vectors(url: str) -> None:
    store = open_store(url, index={"dims": 3, "embed": FixedVectors(), "fields": ["text"]})
    for key in "abc":
        store.put(("docs",), key, {"text": key})
    found = store.search(("docs",), query="a")
    assert keys(found) == ["a", "b", "c"]
    assert [h.score for h in found] == pytest.approx([1.0, 2.0 / math.sqrt(4.01), 0.0], abs=1e-5)
    store.close()


def test_difference_only_cosine_and_sqlitestores_text_fields(url: str) -> None:
    """SqliteStore also ranks by l2 or inner product; memo's scores are cosine, so
    another ``distance_type`` is refused rather than ignored. SqliteStore's
    ``text_fields`` is read as ``fields``."""
    for metric in ("l2", "inner_product"):
        with pytest.raises(InvalidInputError, match="cosine"):
            open_store(url, index={"dims": DIMS, "embed": embeddings(), "distance_type": metric})
    with pytest.raises(InvalidInputError):
        open_store(
            url, index={"dims": DIMS, "embed": embeddings(), "fields": [], "text_fields": []}
        )
    store = open_store(
        url,
        index={
            "dims": DIMS,
            "embed": embeddings(),
            "text_fields": ["key1"],
            "distance_type": "cosine",
        },
    )
    store.put(("t",), "doc", {"key1": "walrus colony", "key2": "octopus ink"})
    hits = {h.key: h.score for h in store.search(("t",), query="walrus colony")}
    assert hits["doc"] == pytest.approx(1.0, abs=1e-3)  # only key1 was embedded
    store.close()


def test_an_update_moves_updated_at_and_keeps_created_at(store: MemoHoodStore, clock: Any) -> None:
    store.put(("u",), "doc", {"title": "first"})
    first = store.get(("u",), "doc")
    clock.advance(1)
    store.put(("u",), "doc", {"title": "second"})
    second = store.get(("u",), "doc")
    assert first is not None and second is not None
    assert second.updated_at > first.updated_at and second.created_at == first.created_at


def test_difference_sync_methods_work_inside_an_event_loop(store: MemoHoodStore) -> None:
    """AsyncSqliteStore's sync methods raise InvalidStateError on the loop's thread;
    MemoHoodStore is one store for both, so they simply run (and block)."""

    async def inside() -> None:
        store.put(("loop",), "k", {"v": 1})
        assert store.get(("loop",), "k") is not None

    asyncio.run(inside())


# -- TTL ---------------------------------------------------------------------------


class Clock:
    """memo's "now", moved by hand: TTL tests never wait for the wall clock."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(timeutil, "utcnow", lambda: c.now)
    return c


def test_ttl_on_put_expires_and_refreshes(store: MemoHoodStore, clock: Clock) -> None:
    assert store.supports_ttl
    store.put(("t",), "short", {"text": "fleeting"}, ttl=10)
    store.put(("t",), "kept", {"text": "kept"})
    clock.advance(9)
    assert store.get(("t",), "short", refresh_ttl=False) is not None
    clock.advance(2)
    assert store.get(("t",), "short") is None
    assert keys(store.search(("t",), query="fleeting")) == ["kept"]
    assert store.list_namespaces() == [("t",)]
    assert store.sweep_ttl() == 1
    assert store.memory.get_item(("t",), "short") is None  # deleted, not only hidden
    # a read refreshes the clock (refresh_on_read defaults to True, as in LangGraph)
    store.put(("t",), "read", {"text": "read often"}, ttl=10)
    for _ in range(3):
        clock.advance(8)
        assert store.get(("t",), "read") is not None
    clock.advance(8)
    assert keys(store.search(("t",), query="read often")) == ["read", "kept"]  # refreshes too
    clock.advance(8)
    assert store.get(("t",), "read", refresh_ttl=False) is not None
    clock.advance(3)
    assert store.get(("t",), "read") is None
    # a put without a TTL removes the earlier one
    store.put(("t",), "again", {"text": "x"}, ttl=1)
    store.put(("t",), "again", {"text": "x"})
    clock.advance(60)
    assert store.get(("t",), "again") is not None


async def test_store_level_ttl_config(url: str, clock: Clock) -> None:
    store = open_store(url, ttl={"default_ttl": 10, "refresh_on_read": False})
    await store.aput(("t",), "a", {"text": "default ttl"})
    await store.aput(("t",), "b", {"text": "no ttl"}, ttl=None)
    clock.advance(6)
    assert await store.aget(("t",), "a") is not None  # no refresh: the clock runs on
    clock.advance(6)
    assert await store.aget(("t",), "a") is None
    assert keys(await store.asearch(("t",))) == ["b"]
    assert await store.asweep_ttl() == 1
    store.close()


def test_bad_ttl_and_config_are_refused(url: str) -> None:
    store = open_store(url)
    for bad in (-1, 0, math.inf, "ten"):
        with pytest.raises(InvalidInputError):
            store.put(("t",), "k", {"v": 1}, ttl=bad)  # type: ignore[arg-type]
    store.close()
    with pytest.raises(InvalidInputError):
        open_store(url, ttl={"default_tll": 5})
    with pytest.raises(InvalidInputError):
        open_store(url, index={"dims": DIMS, "embed": embeddings(), "feilds": ["a"]})
    with pytest.raises(InvalidInputError):
        open_store(url, min_score=2.0)
