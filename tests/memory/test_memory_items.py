"""The keyed-item layer (LangGraph BaseStore): put/get/delete/search/list_namespaces."""

from __future__ import annotations

import pytest

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood
from memo_core.memory.items import matches_filter, render_value

from .conftest import MONDAY, day


def test_put_get_and_supersede_keeps_history(memory: MemoHood) -> None:
    ns = ("memories", "u1")
    first = memory.put_item(ns, "food", {"text": "likes sushi", "score": 3}, at=MONDAY)
    assert memory.get_item(ns, "food").item_value == {"text": "likes sushi", "score": 3}
    unchanged = memory.put_item(ns, "food", {"text": "likes sushi", "score": 3}, at=day(1))
    assert unchanged.id == first.id
    second = memory.put_item(ns, "food", {"text": "likes ramen", "score": 4}, at=day(2))
    assert second.chain_id == first.chain_id and second.version == 2
    assert memory.get_item(ns, "food").item_value["text"] == "likes ramen"
    assert [v.item_value["text"] for v in memory.history(second.id, namespace=ns)] == [
        "likes sushi",
        "likes ramen",
    ]
    assert memory.get_item(("memories", "u2"), "food") is None
    assert memory.delete_item(ns, "food") is True
    assert memory.get_item(ns, "food") is None
    assert memory.delete_item(ns, "food") is False
    assert memory.db.query_one("SELECT count(*) FROM mem_facts")[0] == 0


def test_search_items_is_prefix_scoped_current_only_and_filtered(memory: MemoHood) -> None:
    memory.put_item(("m", "u1", "a"), "k1", {"text": "python version 3.12", "kind": "tech"})
    memory.put_item(("m", "u1", "b"), "k2", {"text": "python snake named Monty", "kind": "pet"})
    memory.put_item(("m", "u1", "b"), "k3", {"text": "tea over coffee", "kind": "food", "n": 5})
    memory.put_item(("m", "u2"), "k1", {"text": "python 2 forever", "kind": "tech"})
    memory.put_item(("m", "u1", "a"), "k1", {"text": "python version 3.13", "kind": "tech"})
    hits = memory.search_items(("m", "u1"), "python")
    texts = [h.item_value["text"] for h in hits]
    # every current item under the prefix, matches first: no hidden relevance floor
    assert set(texts[:2]) == {"python version 3.13", "python snake named Monty"}
    assert texts[2:] == ["tea over coffee"]
    assert all(h.score is not None and 0.0 <= h.score <= 1.0 for h in hits)
    assert [h.key for h in memory.search_items(("m", "u1"), "python", min_score=0.99)] == []
    assert [
        h.item_value["text"]
        for h in memory.search_items(("m", "u1"), "python", filter={"kind": "pet"})
    ] == ["python snake named Monty"]
    assert [h.key for h in memory.search_items(("m", "u1"), filter={"n": {"$gte": 5}})] == ["k3"]
    assert len(memory.search_items(("m", "u1"), limit=2)) == 2
    assert len(memory.search_items(("m", "u1"), limit=2, offset=2)) == 1
    assert memory.search_items(("m", "u3"), "python") == []


def test_list_namespaces(memory: MemoHood) -> None:
    for ns in [("m", "u1", "a"), ("m", "u1", "b"), ("m", "u2"), ("x", "u1")]:
        memory.put_item(ns, "k", {"text": "v"})
    assert memory.list_namespaces() == [
        ("m", "u1", "a"),
        ("m", "u1", "b"),
        ("m", "u2"),
        ("x", "u1"),
    ]
    assert memory.list_namespaces(prefix=("m",)) == [
        ("m", "u1", "a"),
        ("m", "u1", "b"),
        ("m", "u2"),
    ]
    assert memory.list_namespaces(suffix=("u1",)) == [("x", "u1")]
    assert memory.list_namespaces(prefix=("*", "u1")) == [
        ("m", "u1", "a"),
        ("m", "u1", "b"),
        ("x", "u1"),
    ]
    assert memory.list_namespaces(max_depth=2) == [("m", "u1"), ("m", "u2"), ("x", "u1")]
    assert memory.list_namespaces(limit=1, offset=1) == [("m", "u1", "b")]


def test_captured_facts_are_items_too(memory: MemoHood) -> None:
    memory.capture("I live in Berlin.", namespace=("u1",), at=MONDAY)
    item = memory.get_item(("u1",), "self.residence")
    assert item is not None and item.item_value["text"] == "I live in Berlin."


def test_item_values_and_filters() -> None:
    assert render_value({"content": "hello"}) == "hello"
    assert render_value({"a": "x", "b": {"c": "y", "d": 2}}) == "x y 2"
    assert matches_filter({"a": {"b": 2}}, {"a.b": 2})
    assert not matches_filter({"a": 1}, {"a": {"$gt": 1}})
    assert matches_filter({"a": "x"}, {"a": {"$in": ["x", "y"]}})
    assert not matches_filter({"a": "x"}, {"a": {"$nin": ["x"]}})


def test_put_item_rejects_bad_values(memory: MemoHood) -> None:
    with pytest.raises(InvalidInputError):
        memory.put_item("u1", "", {"text": "v"})
    with pytest.raises(InvalidInputError):
        memory.put_item("u1", "k", {"bad": object()})
    unindexed = memory.put_item("u1", "secret", {"text": "not searchable"}, index_text="")
    assert memory.get_item("u1", "secret").id == unindexed.id
    # an unindexed item is still listed by a query search, unscored
    assert [(f.key, f.score) for f in memory.search_items("u1", "searchable")] == [("secret", None)]
