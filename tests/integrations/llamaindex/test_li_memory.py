"""MemoHoodChatStore (all seven methods + async) and MemoHoodMemoryBlock inside Memory."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import MessageRole, TextBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import ChatMemoryBuffer, Memory
from sqlalchemy.ext.asyncio import create_async_engine

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.llamaindex import MemoHoodChatStore, MemoHoodMemoryBlock

ALLERGY = "By the way, I'm allergic to penicillin."


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def bot(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def statements(hood: MemoHood, namespace: str = "u1") -> list[str]:
    return [f.statement for f in hood.list_facts(namespace)]


@pytest.fixture
def chat(hood: MemoHood) -> MemoHoodChatStore:
    return MemoHoodChatStore(hood, namespace="u1")


# -- chat store ---------------------------------------------------------------------


def test_add_and_get_messages_round_trip(chat: MemoHoodChatStore) -> None:
    tool = ChatMessage(
        role=MessageRole.TOOL, content="42", additional_kwargs={"tool_call_id": "c1"}
    )
    for m in (ChatMessage(role="system", content="be kind"), user("hi"), bot("hello"), tool):
        chat.add_message("k1", m)
    got = chat.get_messages("k1")
    assert [(m.role, m.content) for m in got] == [
        (MessageRole.SYSTEM, "be kind"),
        (MessageRole.USER, "hi"),
        (MessageRole.ASSISTANT, "hello"),
        (MessageRole.TOOL, "42"),
    ]
    assert got[3].additional_kwargs == {"tool_call_id": "c1"}
    assert chat.get_messages("never-used") == []


def test_user_messages_are_captured_assistant_ones_are_not(
    chat: MemoHoodChatStore, hood: MemoHood
) -> None:
    chat.add_message("k1", user(ALLERGY))
    chat.add_message("k1", bot("I'm allergic to nothing, I am a bot. Try amoxicillin."))
    assert statements(hood) == ["I'm allergic to penicillin."]
    recall = hood.recall("Which antibiotic can I take?", namespace="u1")
    assert "penicillin" in recall.block


def test_capture_roles_can_be_narrowed(hood: MemoHood) -> None:
    silent = MemoHoodChatStore(hood, namespace="u1", capture_roles=())
    silent.add_message("k1", user(ALLERGY))
    assert statements(hood) == []
    assert len(silent.get_messages("k1")) == 1


def test_set_messages_replaces_and_captures_only_new_messages(
    chat: MemoHoodChatStore, hood: MemoHood
) -> None:
    chat.add_message("k1", user("I live in Lisbon."))
    chat.add_message("k1", bot("Nice city."))
    before = len(hood.list_facts("u1"))
    chat.set_messages("k1", [user("I live in Lisbon."), bot("Nice city."), user(ALLERGY)])
    assert [m.content for m in chat.get_messages("k1")] == [
        "I live in Lisbon.",
        "Nice city.",
        ALLERGY,
    ]
    facts = statements(hood)
    assert len(facts) == before + 1  # Lisbon was not captured twice
    assert "I'm allergic to penicillin." in facts
    chat.set_messages("k1", [user("fresh start")])
    assert [m.content for m in chat.get_messages("k1")] == ["fresh start"]


def test_delete_methods(chat: MemoHoodChatStore) -> None:
    for text in ("one", "two", "three", "four"):
        chat.add_message("k1", user(text))
    assert chat.delete_message("k1", 1).content == "two"  # type: ignore[union-attr]
    assert chat.delete_message("k1", 10) is None
    assert chat.delete_last_message("k1").content == "four"  # type: ignore[union-attr]
    assert [m.content for m in chat.get_messages("k1")] == ["one", "three"]
    deleted = chat.delete_messages("k1")
    assert [m.content for m in deleted or []] == ["one", "three"]
    assert chat.get_messages("k1") == []
    assert chat.delete_messages("k1") is None
    assert chat.delete_last_message("k1") is None


def test_keys_are_isolated_and_namespaces_do_not_cross(hood: MemoHood) -> None:
    alice = MemoHoodChatStore(hood, namespace="alice")
    bob = MemoHoodChatStore(hood, namespace="bob")
    alice.add_message("k1", user("alice one"))
    alice.add_message("k2", user("alice two"))
    bob.add_message("k1", user("bob one"))
    assert [m.content for m in alice.get_messages("k1")] == ["alice one"]
    assert [m.content for m in alice.get_messages("k2")] == ["alice two"]
    assert [m.content for m in bob.get_messages("k1")] == ["bob one"]
    assert alice.get_keys() == ["k1", "k2"]
    assert bob.get_keys() == ["k1"]
    alice.delete_messages("k1")
    assert [m.content for m in bob.get_messages("k1")] == ["bob one"]
    assert alice.get_keys() == ["k2"]


def test_constructor_fails_closed(hood: MemoHood) -> None:
    with pytest.raises(NamespaceRequiredError):
        MemoHoodChatStore(hood, namespace="")
    with pytest.raises(InvalidInputError):
        MemoHoodChatStore("memory.db", namespace="u1")  # type: ignore[arg-type]
    assert MemoHoodChatStore(hood, namespace=["u1", "agent"]).namespace == ("u1", "agent")


async def test_async_methods(chat: MemoHoodChatStore, hood: MemoHood) -> None:
    await chat.async_add_message("k1", user(ALLERGY))
    await chat.aset_messages("k2", [user("a"), bot("b"), user("c")])
    assert [m.content for m in await chat.aget_messages("k2")] == ["a", "b", "c"]
    assert (await chat.adelete_message("k2", 0)).content == "a"  # type: ignore[union-attr]
    assert (await chat.adelete_last_message("k2")).content == "c"  # type: ignore[union-attr]
    assert sorted(await chat.aget_keys()) == ["k1", "k2"]
    assert [m.content for m in await chat.adelete_messages("k2") or []] == ["b"]
    assert await chat.aget_keys() == ["k1"]
    assert "I'm allergic to penicillin." in statements(hood)


def test_chat_memory_buffer_on_memo(chat: MemoHoodChatStore, hood: MemoHood) -> None:
    buffer = ChatMemoryBuffer.from_defaults(
        chat_store=chat, chat_store_key="conv-1", token_limit=500
    )
    buffer.put(user(ALLERGY))
    buffer.put(bot("Noted."))
    assert [m.content for m in buffer.get()] == [ALLERGY, "Noted."]
    assert "I'm allergic to penicillin." in statements(hood)
    reopened = ChatMemoryBuffer.from_defaults(chat_store=chat, chat_store_key="conv-1")
    assert [m.content for m in reopened.get_all()] == [ALLERGY, "Noted."]


# -- memory block -------------------------------------------------------------------


def test_block_captures_on_put_and_recalls_on_get(hood: MemoHood) -> None:
    block = MemoHoodMemoryBlock(hood, namespace="u1")
    asyncio.run(block.aput([user(ALLERGY), bot("Sure, I'm allergic to cats.")]))
    assert statements(hood) == ["I'm allergic to penicillin."]
    text = asyncio.run(block.aget([user("Suggest an antibiotic for my sore throat")]))
    assert "penicillin" in text
    assert block.last_recall is not None and block.last_recall.gate.recall
    assert asyncio.run(block.aget([user("ok thanks")])) == ""  # small talk: gate skips
    assert block.last_recall.gate.action == "skip"
    assert asyncio.run(block.aget([])) == ""
    ungated = MemoHoodMemoryBlock(hood, namespace="u1", use_gate=False, name="always")
    assert "penicillin" in asyncio.run(ungated.aget([user("ok thanks")]))


def _memory(session: str, block: MemoHoodMemoryBlock, **store: Any) -> Memory:
    # A tiny token limit makes short-term memory flush into the block quickly.
    return Memory.from_defaults(
        session_id=session, token_limit=60, token_flush_size=20, memory_blocks=[block], **store
    )


def _system_text(messages: list[ChatMessage]) -> str:
    return "\n".join(
        b.text
        for m in messages
        if m.role == MessageRole.SYSTEM
        for b in m.blocks
        if isinstance(b, TextBlock)
    )


def test_memory_across_two_sessions_recalls_a_fact(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with MemoHood(path, embedder=HashEmbedder(64), gate=RecallGate()) as hood:
        first = _memory("session-1", MemoHoodMemoryBlock(hood, namespace="u1"))
        first.put(user(ALLERGY))
        first.put(bot("Thanks for telling me, I will keep that in mind."))
        for i in range(6):
            first.put(user(f"Let us talk about the weather on day {i} of the trip."))
            first.put(bot(f"Day {i} looks sunny with a light breeze."))
        assert "I'm allergic to penicillin." in statements(hood)  # flushed, then captured

    # A new process, a new session: only the memory file is shared.
    with MemoHood(path, embedder=HashEmbedder(64), gate=RecallGate()) as hood:
        second = _memory("session-2", MemoHoodMemoryBlock(hood, namespace="u1"))
        messages = second.get(input="Can you suggest an antibiotic for my sore throat?")
        assert "penicillin" in _system_text(messages)
        other_user = _memory("session-3", MemoHoodMemoryBlock(hood, namespace="u2"))
        leaked = other_user.get(input="Can you suggest an antibiotic for my sore throat?")
        assert "penicillin" not in _system_text(leaked)


async def test_memory_async_path(hood: MemoHood) -> None:
    # LlamaIndex's default short-term store on an engine the test owns and disposes
    # while its event loop runs: left to the collector, aiosqlite's worker thread
    # answers the closed loop later and fails in another test's teardown.
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    block = MemoHoodMemoryBlock(hood, namespace="u1")
    memory = _memory("s-async", block, async_engine=engine)
    try:
        await memory.aput(user(ALLERGY))
        for i in range(6):
            await memory.aput(user(f"Tell me a fact about the number {i}, please."))
            await memory.aput(bot(f"Filler reply number {i} about nothing in particular at all."))
        assert "I'm allergic to penicillin." in statements(hood)
        messages = await memory.aget(input="Which antibiotic is safe for me?")
        assert "penicillin" in _system_text(messages)
    finally:
        await engine.dispose()


def test_block_validates(hood: MemoHood) -> None:
    with pytest.raises(NamespaceRequiredError):
        MemoHoodMemoryBlock(hood, namespace="")
    with pytest.raises(InvalidInputError):
        MemoHoodMemoryBlock(object(), namespace="u1")  # type: ignore[arg-type]
    assert MemoHoodMemoryBlock(hood, namespace="u1").name == "memo_memory"
