"""Credentials in chat are redacted before anything is stored; turns have a size bound;
a sentence repeated in a turn is one fact. Fake credentials are built at run time."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable

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


def test_a_credential_in_a_transcript_message_is_redacted(memory: MemoHood) -> None:
    memory.add_message("u1", "s1", "user", f"here is the CI token: {TOKEN}", at=MONDAY)
    [message] = memory.get_messages("s1", "u1")
    assert TOKEN not in message.content and "[REDACTED:" in message.content
    stored = " ".join(r[0] for r in memory.db.query("SELECT content FROM mem_messages"))
    assert TOKEN not in stored and TOKEN not in _stored_text(memory)


def test_an_imported_credential_is_redacted(
    base_url: Callable[[str], str], memory: MemoHood
) -> None:
    with MemoHood(
        base_url("allowing"), embedder=None, gate=RecallGate(), config=MemoryConfig(secrets="allow")
    ) as allowing:
        allowing.capture(f"Remember my staging token is {TOKEN}.", namespace="u9", at=MONDAY)
        allowing.add_message("u9", "s9", "user", f"token again: {TOKEN}", capture=False)
        out = io.StringIO()
        allowing.export_jsonl(out, namespace="u9")
    assert TOKEN in out.getvalue()  # the allowing memory kept it
    report = memory.import_jsonl(out.getvalue().splitlines())
    assert report.facts and report.turns and report.messages
    stored = " ".join(r[0] for r in memory.db.query("SELECT content FROM mem_messages"))
    assert TOKEN not in _stored_text(memory) + stored and "[REDACTED:" in stored


def test_repeats_in_other_case_and_spacing_are_one_fact(memory: MemoHood) -> None:
    text = "I'm allergic to kiwi. i'm  allergic to KIWI. I'M ALLERGIC TO KIWI. " * 5
    result = memory.capture(text, namespace="u1", at=MONDAY)
    [fact] = memory.list_facts("u1")
    assert len(result.added) == 1 and fact.reinforcements == 0 and result.reinforced == ()


def _calls_to_capture(memory: MemoHood, text: str, namespace: str) -> int:
    """Python function calls made by one capture (a measure of work that no load skews)."""
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        memory.capture(text, namespace=namespace, at=MONDAY)
    finally:
        sys.setprofile(None)
    return calls


def test_capture_work_grows_linearly_with_the_turn(backend_url: str) -> None:
    """Each doubling of a turn adds about twice the work the doubling before it added
    (quadratic work would add four times): fixed costs cancel out, no clock is read."""
    config = MemoryConfig(max_turn_chars=1_000_000)
    with MemoHood(backend_url, embedder=None, gate=RecallGate(), config=config) as memory:
        memory.capture("warm up: I like tea.", namespace="w", at=MONDAY)

        def turn(n: int) -> str:  # new numbers in every turn: no cache hit helps a larger one
            return " ".join(
                f"My locker {i} is on floor {i % 9}. We chatted about film number {i} for ages."
                for i in range(n * 1000, n * 1000 + n)
            )

        work = [_calls_to_capture(memory, turn(n), f"u{n}") for n in (100, 200, 400)]
    assert work[2] - work[1] < 2.6 * (work[1] - work[0])
