"""Namespaces: fail closed, isolation between users, ancestors visible to recall."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.errors import NamespaceRequiredError, NotFoundError
from memo_core.memory import MemoHood, normalize_namespace
from memo_core.memory.namespace import decode_namespace, encode_namespace

from .conftest import MONDAY, day


@pytest.mark.parametrize("bad", [None, "", (), ("",), ("u1", " "), []])
def test_missing_namespace_fails_closed_everywhere(memory: MemoHood, bad) -> None:
    calls = [
        lambda: memory.capture("I'm allergic to penicillin.", namespace=bad),
        lambda: memory.remember("x", namespace=bad),
        lambda: memory.recall("antibiotic?", namespace=bad),
        lambda: memory.list_facts(bad),
        lambda: memory.forget(namespace=bad, query="penicillin"),
        lambda: memory.put_item(bad, "k", {"text": "v"}),
        lambda: memory.get_item(bad, "k"),
        lambda: memory.search_items(bad, "v"),
        lambda: memory.add_message(bad, "s1", "user", "hi"),
        lambda: memory.get_messages("s1", bad),
        lambda: memory.list_session_keys(bad),
    ]
    for call in calls:
        with pytest.raises(NamespaceRequiredError):
            call()
    assert memory.db.query_one("SELECT count(*) FROM mem_facts")[0] == 0
    assert memory.db.query_one("SELECT count(*) FROM mem_turns")[0] == 0


def test_namespace_encoding_round_trips() -> None:
    for ns in [("u1",), ("u/1", "agent%", "session 3"), ("пользователь", "сессия")]:
        assert decode_namespace(encode_namespace(ns)) == ns
    assert normalize_namespace("u1") == ("u1",)
    assert not encode_namespace(("u1",)).startswith(encode_namespace(("u",)))
    assert not encode_namespace(("u10",)).startswith(encode_namespace(("u1",)))


def test_users_are_isolated(memory: MemoHood) -> None:
    memory.capture(
        "We adopted a dog, his name is Biscuit, he's a beagle.", namespace="u1", at=MONDAY
    )
    memory.capture("Introducing my dog Pepper: she's a border collie.", namespace="u2", at=MONDAY)
    one = memory.recall("What's my dog's name?", namespace="u1", at=day(30))
    two = memory.recall("What's my dog's name?", namespace="u2", at=day(30))
    assert "Biscuit" in one.block and "Pepper" not in one.block
    assert "Pepper" in two.block and "Biscuit" not in two.block
    fact_of_u1 = memory.list_facts("u1")[0]
    with pytest.raises(NotFoundError):
        memory.get(fact_of_u1.id, namespace="u2")
    with pytest.raises(NotFoundError):
        memory.forget(fact_of_u1.id, namespace="u2")
    assert memory.list_facts("u1")


def test_randomised_multi_user_recall_never_crosses(memory: MemoHood) -> None:
    rng = random.Random(5)
    users = [f"user{i}" for i in range(6)]
    words = ["falcon", "harbor", "violet", "granite", "maple", "comet", "saffron", "tundra"]
    for i in range(60):
        user = rng.choice(users)
        memory.remember(
            f"My {rng.choice(words)} project code is {user}-{i}.",
            namespace=user,
            category="fact",
            at=MONDAY,
        )
    for _ in range(120):
        user = rng.choice(users)
        result = memory.recall(
            f"{rng.choice(words)} project code?", namespace=user, at=day(1), use_gate=False
        )
        for fact in result.facts:
            assert fact.namespace == (user,)
            assert f"{user}-" in fact.statement
        for other in users:
            if other != user:
                assert f"{other}-" not in result.block


def test_recall_sees_ancestors_but_not_siblings_or_descendants(memory: MemoHood) -> None:
    memory.capture("I'm allergic to penicillin.", namespace=("u1",), at=MONDAY)
    memory.remember(
        "In this session we debug the billing export.",
        namespace=("u1", "agent", "s1"),
        category="fact",
        at=MONDAY,
    )
    in_session = memory.recall(
        "what's up with billing export, and any antibiotic?",
        namespace=("u1", "agent", "s1"),
        at=day(1),
    )
    assert "penicillin" in in_session.block and "billing" in in_session.block
    sibling = memory.recall("billing export?", namespace=("u1", "agent", "s2"), at=day(1))
    assert "billing" not in sibling.block
    user_level = memory.recall("billing export?", namespace=("u1",), at=day(1))
    assert "billing" not in user_level.block
    assert len(memory.list_facts(("u1",), prefix=True)) == 2
    assert len(memory.list_facts(("u1",))) == 1


_component = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() and "\x00" not in s)


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(_component, min_size=1, max_size=4), b=st.lists(_component, min_size=1, max_size=4)
)
def test_encoded_prefix_means_namespace_prefix(a: list[str], b: list[str]) -> None:
    ns_a, ns_b = tuple(a), tuple(b)
    assert decode_namespace(encode_namespace(ns_a)) == ns_a
    is_prefix = ns_b[: len(ns_a)] == ns_a
    assert encode_namespace(ns_b).startswith(encode_namespace(ns_a)) == is_prefix
