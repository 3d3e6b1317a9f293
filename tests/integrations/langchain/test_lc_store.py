"""MemoHoodStore: the LangGraph BaseStore contract over a MemoHood file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.store.base", reason="langgraph-checkpoint is not installed")

from langgraph.store.base import GetOp, Item, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.langchain import MemoHoodStore, remember_and_recall


@pytest.fixture
def store(backend_url: str) -> Iterator[MemoHoodStore]:
    """The LangGraph store over a fresh memory on each storage backend."""
    s = MemoHoodStore(backend_url, embedder=HashEmbedder(64), gate=RecallGate())
    yield s
    s.close()


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest, store: MemoHoodStore) -> Any:
    """The same operations through ``batch`` and through ``abatch``."""
    import asyncio

    def call(*ops: Any) -> list[Any]:
        if request.param == "sync":
            return store.batch(list(ops))
        return asyncio.run(store.abatch(list(ops)))

    return call


def test_put_get_roundtrip(run: Any) -> None:
    put = PutOp(("u1", "prefs"), "food", {"text": "likes spicy ramen", "level": 3})
    assert run(put) == [None]
    [item] = run(GetOp(("u1", "prefs"), "food"))
    assert isinstance(item, Item)
    assert item.namespace == ("u1", "prefs")
    assert item.key == "food"
    assert item.value == {"text": "likes spicy ramen", "level": 3}
    assert isinstance(item.created_at, datetime) and item.created_at == item.updated_at
    assert run(GetOp(("u1", "prefs"), "missing"), GetOp(("u2", "prefs"), "food")) == [None, None]


def test_batch_runs_in_order(run: Any) -> None:
    results = run(
        PutOp(("u1",), "k", {"text": "first"}),
        GetOp(("u1",), "k"),
        PutOp(("u1",), "k", None),
        GetOp(("u1",), "k"),
    )
    assert results[1].value == {"text": "first"}
    assert results[3] is None


def test_put_supersedes_and_search_sees_current_versions_only(store: MemoHoodStore) -> None:
    store.put(("u1",), "city", {"text": "lives in Lisbon"})
    first = store.get(("u1",), "city")
    store.put(("u1",), "city", {"text": "lives in Berlin"})
    now = store.get(("u1",), "city")
    assert first is not None and now is not None
    assert now.value == {"text": "lives in Berlin"}
    assert now.created_at == first.created_at
    assert now.updated_at > first.updated_at
    # The old value is kept as history, not overwritten...
    fact = store.memory.get_item(("u1",), "city")
    assert fact is not None
    assert [v.statement for v in store.memory.history(fact.id, namespace=("u1",))] == [
        "lives in Lisbon",
        "lives in Berlin",
    ]
    # ...but search only ever returns the current version.
    hits = store.search(("u1",), query="lives in")
    assert [h.value["text"] for h in hits] == ["lives in Berlin"]
    # only the old version says Lisbon: the current one is returned, never the old
    assert [h.value["text"] for h in store.search(("u1",), query="Lisbon")] == ["lives in Berlin"]
    assert all(h.value["text"] != "lives in Lisbon" for h in store.search(("u1",)))


def test_delete_removes_from_get_and_search(store: MemoHoodStore) -> None:
    store.put(("u1",), "a", {"text": "alpha note"})
    store.put(("u1",), "b", {"text": "beta note"})
    store.delete(("u1",), "a")
    assert store.get(("u1",), "a") is None
    assert [h.key for h in store.search(("u1",), query="alpha note")] == ["b"]
    store.delete(("u1",), "never-existed")  # no error


def test_search_query_filter_limit_offset(run: Any) -> None:
    run(
        PutOp(
            ("u1", "notes"), "n1", {"text": "the dentist appointment is on Friday", "kind": "plan"}
        ),
        PutOp(("u1", "notes"), "n2", {"text": "favourite colour is green", "kind": "pref", "n": 2}),
        PutOp(
            ("u1", "notes"), "n3", {"text": "dentist said floss daily", "kind": "health", "n": 5}
        ),
        PutOp(("u1", "other"), "n4", {"text": "dentist parking is free", "kind": "plan"}),
    )
    [hits] = run(SearchOp(("u1", "notes"), query="dentist appointment", limit=10))
    keys = [h.key for h in hits]
    assert keys[0] == "n1" and "n4" not in keys
    assert hits[0].score is not None and hits[0].score >= hits[-1].score
    [plans] = run(SearchOp(("u1",), filter={"kind": "plan"}))
    assert sorted(h.key for h in plans) == ["n1", "n4"]
    [big] = run(SearchOp(("u1",), filter={"n": {"$gte": 3}}))
    assert [h.key for h in big] == ["n3"]
    [page1] = run(SearchOp(("u1",), limit=2, offset=0))
    [page2] = run(SearchOp(("u1",), limit=2, offset=2))
    assert len(page1) == 2 and len(page2) == 2
    assert {h.key for h in page1} | {h.key for h in page2} == {"n1", "n2", "n3", "n4"}


def test_namespaces_are_isolated(store: MemoHoodStore) -> None:
    store.put(("alice", "prefs"), "food", {"text": "likes sushi"})
    store.put(("bob", "prefs"), "food", {"text": "likes sushi too"})
    assert [h.namespace for h in store.search(("alice",), query="sushi")] == [("alice", "prefs")]
    assert store.get(("bob", "prefs"), "food").value == {"text": "likes sushi too"}  # type: ignore[union-attr]
    assert store.search(("carol",), query="sushi") == []
    # Memo fails closed: no "search everything" with an empty namespace.
    with pytest.raises(NamespaceRequiredError):
        store.batch([SearchOp((), query="sushi")])


def test_index_option(tmp_path: Path) -> None:
    # Keyword-only memory: what matches is exactly what was indexed.
    with MemoHood(tmp_path / "kw.db", embedder=None, gate=RecallGate()) as memory:
        _index_option(MemoHoodStore(memory))


def _index_option(store: MemoHoodStore) -> None:
    store.put(("u1",), "hidden", {"text": "secret walrus plan"}, index=False)
    store.put(
        ("u1",), "titled", {"title": "walrus facts", "body": "tusks are teeth"}, index=["body"]
    )
    store.put(("u1",), "plain", {"text": "a walrus sunbathes"})
    assert store.get(("u1",), "hidden") is not None
    # what matches ranks first; the rest follows (no floor), the unindexed item last
    assert next(h.key for h in store.search(("u1",), query="walrus")) == "plain"
    assert next(h.key for h in store.search(("u1",), query="tusks teeth")) == "titled"
    assert [h.key for h in store.search(("u1",), query="walrus")][-1] == "hidden"
    assert {h.key for h in store.search(("u1",))} == {"hidden", "titled", "plain"}


def test_unindexed_items_come_last_with_no_score(store: MemoHoodStore) -> None:
    store.put(("u1",), "hidden", {"text": "secret walrus plan"}, index=False)
    store.put(("u1",), "shown", {"text": "the walrus plan"})
    hits = store.search(("u1",), query="secret walrus plan")
    assert [(h.key, h.score is None) for h in hits] == [("shown", False), ("hidden", True)]
    assert [h.key for h in store.search(("u1",), query="secret walrus plan", limit=1)] == ["shown"]


def test_list_namespaces(run: Any) -> None:
    run(
        PutOp(("u1", "prefs"), "a", {"text": "x"}),
        PutOp(("u1", "notes", "work"), "b", {"text": "y"}),
        PutOp(("u2", "prefs"), "c", {"text": "z"}),
    )
    [everything] = run(ListNamespacesOp())
    assert everything == [("u1", "notes", "work"), ("u1", "prefs"), ("u2", "prefs")]
    [u1] = run(ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("u1",)),)))
    assert u1 == [("u1", "notes", "work"), ("u1", "prefs")]
    [prefs] = run(ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("prefs",)),)))
    assert prefs == [("u1", "prefs"), ("u2", "prefs")]
    [wild] = run(ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("*", "prefs")),)))
    assert wild == [("u1", "prefs"), ("u2", "prefs")]
    [shallow] = run(ListNamespacesOp(max_depth=1))
    assert shallow == [("u1",), ("u2",)]
    [limited] = run(ListNamespacesOp(limit=1, offset=1))
    assert limited == [("u1", "prefs")]


def test_unsupported_requests_are_refused(store: MemoHoodStore) -> None:
    with pytest.raises(InvalidInputError):
        store.put(("u1",), "k", {"text": "x"}, ttl=-5.0)
    two_prefixes = (MatchCondition("prefix", ("a",)), MatchCondition("prefix", ("b",)))
    with pytest.raises(InvalidInputError):
        store.batch([ListNamespacesOp(match_conditions=two_prefixes)])
    with pytest.raises(InvalidInputError):
        MemoHoodStore(store.memory, embedder=HashEmbedder(8))


def test_captured_facts_are_items(store: MemoHoodStore) -> None:
    store.memory.capture("By the way, I'm allergic to penicillin.", namespace=("u1",))
    hits = store.search(("u1",), query="penicillin allergy")
    assert hits and "penicillin" in hits[0].value["text"]
    assert hits[0].value["category"] == "health"
    assert store.get(("u1",), hits[0].key) is not None


def test_remember_and_recall(store: MemoHoodStore) -> None:
    assert remember_and_recall(store, ("u1",), "I'm allergic to penicillin.") == ""
    block = remember_and_recall(store, ("u1",), "Which antibiotic is safe for my sore throat?")
    assert "penicillin" in block and block.startswith("<memory>")
    assert remember_and_recall(store.memory, ("u2",), "Which antibiotic is safe?") == ""
    assert remember_and_recall(store, ("u1",), "hi!") == ""  # small talk: the gate skips


async def test_async_convenience_methods(store: MemoHoodStore) -> None:
    await store.aput(("u1",), "k", {"text": "async value"})
    item = await store.aget(("u1",), "k")
    assert item is not None and item.value == {"text": "async value"}
    assert [h.key for h in await store.asearch(("u1",), query="async")] == ["k"]
    assert (await store.asearch(("u1",), query="async value"))[0].score == pytest.approx(1.0)
    assert await store.alist_namespaces() == [("u1",)]
    await store.adelete(("u1",), "k")
    assert await store.aget(("u1",), "k") is None


def test_store_over_an_open_memory_persists(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    with MemoHood(path, embedder=None) as memory:
        MemoHoodStore(memory).put(("u1",), "k", {"text": "kept"})
    with MemoHood(path, embedder=None) as memory:
        item = MemoHoodStore(memory).get(("u1",), "k")
        assert item is not None and item.value == {"text": "kept"}


def test_a_scoped_store_sees_and_touches_only_its_subtree(store: MemoHoodStore) -> None:
    """Unscoped, list_namespaces() lists every user; ``namespace_prefix`` confines all ops."""
    for user in ("alice", "bob"):
        store.put(("users", user, "prefs"), "tea", {"text": f"{user} drinks green tea"})
    assert store.list_namespaces() == [("users", "alice", "prefs"), ("users", "bob", "prefs")]
    alice = MemoHoodStore(store.memory, namespace_prefix=("users", "alice"))
    assert alice.list_namespaces() == [("users", "alice", "prefs")]
    assert alice.list_namespaces(prefix=("users",)) == [("users", "alice", "prefs")]
    assert alice.list_namespaces(prefix=("users", "*", "prefs")) == [("users", "alice", "prefs")]
    assert alice.list_namespaces(prefix=("users", "bob")) == []
    assert alice.list_namespaces(max_depth=2) == [("users", "alice")]
    hits = alice.search(("users",), query="green tea")
    assert [h.namespace for h in hits] == [("users", "alice", "prefs")]
    assert alice.get(("users", "alice", "prefs"), "tea") is not None
    for call in (
        lambda: alice.get(("users", "bob", "prefs"), "tea"),
        lambda: alice.put(("users", "bob", "prefs"), "tea", {"text": "overwritten"}),
        lambda: alice.delete(("users", "bob", "prefs"), "tea"),
        lambda: alice.search(("users", "bob")),
        lambda: alice.put(("users",), "tea", {"text": "above the scope"}),
    ):
        with pytest.raises(InvalidInputError):
            call()
    assert store.get(("users", "bob", "prefs"), "tea").value == {"text": "bob drinks green tea"}
