"""Chat transcripts per session key (chat-history adapters) and their capture."""

from __future__ import annotations

from memo_core.memory import MemoHood

from .conftest import MONDAY, day


def test_messages_round_trip_and_user_messages_are_captured(memory: MemoHood) -> None:
    memory.add_message("u1", "s1", "user", "By the way, I'm allergic to penicillin.", at=MONDAY)
    memory.add_message(
        "u1",
        "s1",
        "assistant",
        "Noted! Maybe try amoxicillin next time.",
        at=MONDAY,
        metadata={"model": "fake"},
    )
    memory.add_message("u1", "s2", "user", "hello", at=day(1), capture=False)
    messages = memory.get_messages("s1", "u1")
    assert [(m.index, m.role) for m in messages] == [(0, "user"), (1, "assistant")]
    assert messages[1].metadata == {"model": "fake"}
    assert messages[0].turn_id is not None
    assert [f.category for f in memory.list_facts("u1")] == ["health"]  # not the assistant's
    assert memory.list_session_keys("u1") == ["s1", "s2"]
    assert memory.get_messages("s1", "u2") == []


def test_deletes_and_set_messages(memory: MemoHood) -> None:
    for i in range(4):
        memory.add_message("u1", "s1", "user", f"message {i}", capture=False, at=day(i))
    removed = memory.delete_message("s1", "u1", 1)
    assert removed is not None and removed.content == "message 1"
    assert memory.delete_last_message("s1", "u1").content == "message 3"
    assert [m.content for m in memory.get_messages("s1", "u1")] == ["message 0", "message 2"]
    assert memory.delete_message("s1", "u1", 9) is None
    replaced = memory.set_messages(
        "s1", "u1", [("user", "a"), {"role": "assistant", "content": "b"}]
    )
    assert [(m.role, m.content) for m in replaced] == [("user", "a"), ("assistant", "b")]
    assert memory.delete_messages("s1", "u1") == 2
    assert memory.get_messages("s1", "u1") == []
    assert memory.list_facts("u1") == []  # set_messages and capture=False never capture
