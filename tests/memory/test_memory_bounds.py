"""Credentials in chat are redacted before anything is stored; turns have a size bound;
a sentence repeated in a turn is one fact. Fake credentials are built at run time."""

from __future__ import annotations

import pytest

from memo_core.errors import SecretFoundError
from memo_core.memory import MemoHood, MemoryConfig, RecallGate

from .conftest import MONDAY

TOKEN = "gh" + "p_" + ("Zq7Lm2Xc9Vb4Nt6Rw8Ys1Kd3Hf5Jg0Pa" * 2)[:36]


def _stored_text(memory: MemoHood) -> str:
    turns = memory.db.query("SELECT text FROM mem_turns")
    facts = memory.db.query("SELECT statement FROM mem_facts")
    return " ".join(r[0] for r in [*turns, *facts])


def test_a_credential_in_a_turn_is_redacted_in_the_turn_and_its_fact(memory: MemoHood) -> None:
    result = memory.capture(
        f"Remember my deploy token for the staging box is {TOKEN}.", namespace="u1", at=MONDAY
    )
    assert result.added and "redacted" in result.reason
    assert TOKEN not in _stored_text(memory) and "[REDACTED:" in _stored_text(memory)
    recall = memory.recall("what is my staging deploy token?", namespace="u1", use_gate=False)
    assert TOKEN not in recall.block
    memory.remember(f"The CI secret is {TOKEN}", namespace="u1")
    assert TOKEN not in _stored_text(memory)


def test_secrets_policy_block_and_allow(backend_url: str) -> None:
    with MemoHood(
        backend_url, embedder=None, gate=RecallGate(), config=MemoryConfig(secrets="block")
    ) as memory:
        with pytest.raises(SecretFoundError):
            memory.capture(f"my token is {TOKEN}", namespace="u1")
        assert memory.db.query_one("SELECT count(*) FROM mem_turns")[0] == 0
    with MemoHood(
        backend_url, embedder=None, gate=RecallGate(), config=MemoryConfig(secrets="allow")
    ) as memory:
        memory.capture(f"my token is {TOKEN}", namespace="u2")
        assert TOKEN in _stored_text(memory)


def test_a_turn_over_the_size_bound_is_stored_truncated_with_a_note(backend_url: str) -> None:
    config = MemoryConfig(max_turn_chars=2_000)
    with MemoHood(backend_url, embedder=None, gate=RecallGate(), config=config) as memory:
        head = "I'm allergic to shellfish. "
        filler = "We talked about the weather for a while. " * 5_000  # ~200 kB
        tail = "My locker code is 7719."
        result = memory.capture(head + filler + tail, namespace="u1", at=MONDAY)
        [stored] = [r[0] for r in memory.db.query("SELECT text FROM mem_turns")]
        assert len(stored) < 2_100 and stored.endswith("characters were not stored]")
        assert "truncated" in result.reason
        statements = [f.statement for f in memory.list_facts("u1")]
        assert any("shellfish" in s for s in statements)
        assert not any("7719" in s for s in statements)  # past the bound: not analysed


def test_facts_per_turn_are_bounded_and_repeats_do_not_reinforce(memory: MemoHood) -> None:
    many = " ".join(f"My locker number {i} holds box {i * 7}." for i in range(60))
    memory.capture(many, namespace="u1", at=MONDAY)
    assert len(memory.list_facts("u1")) == MemoryConfig().max_facts_per_turn
    result = memory.capture("I'm allergic to kiwi. " * 40, namespace="u2", at=MONDAY)
    [fact] = memory.list_facts("u2")
    assert len(result.added) == 1 and fact.reinforcements == 0 and result.reinforced == ()
