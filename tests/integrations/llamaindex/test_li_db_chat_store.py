"""MemoHoodDBChatStore against what LlamaIndex checks of its own AsyncDBChatStore."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from llama_index.core.llms import ChatMessage
from llama_index.core.storage.chat_store.base_db import MessageStatus

from memo_core.memory import MemoHood, RecallGate
from memo_integrations.llamaindex import MemoHoodDBChatStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoHoodDBChatStore]:
    with MemoHood(tmp_path / "chat.db", embedder=None, gate=RecallGate()) as hood:
        yield MemoHoodDBChatStore(hood, namespace="u")


def msgs(*texts: str) -> list[ChatMessage]:
    roles = ("user", "assistant")
    return [ChatMessage(role=roles[i % 2], content=t) for i, t in enumerate(texts)]


def contents(messages: list[ChatMessage]) -> list[str | None]:
    return [m.content for m in messages]


async def test_add_get_count_and_unknown_keys(store: MemoHoodDBChatStore) -> None:
    await store.add_message("a", ChatMessage(role="user", content="hello"))
    await store.add_message("a", ChatMessage(role="assistant", content="world"))
    got = await store.get_messages("a")
    assert [(m.role.value, m.content) for m in got] == [("user", "hello"), ("assistant", "world")]
    assert await store.get_messages("nonexistent") == []
    assert await store.count_messages("nonexistent") == 0
    await store.add_messages("b", msgs("m1", "m2", "m3"))
    assert await store.count_messages("b") == 3


async def test_set_replaces_and_delete_is_per_key(store: MemoHoodDBChatStore) -> None:
    await store.add_message("r", ChatMessage(role="user", content="initial"))
    await store.set_messages("r", msgs("replaced1", "replaced2"))
    assert contents(await store.get_messages("r")) == ["replaced1", "replaced2"]
    await store.add_message("other", ChatMessage(role="user", content="kept"))
    await store.delete_messages("r")
    assert await store.get_messages("r") == []
    assert contents(await store.get_messages("other")) == ["kept"]


async def test_delete_one_oldest_and_archive(store: MemoHoodDBChatStore) -> None:
    await store.add_messages("d", msgs("message1", "message2", "message3"))
    removed = await store.delete_message("d", 1)
    assert removed is not None and removed.content == "message2"
    assert contents(await store.get_messages("d")) == ["message1", "message3"]
    await store.add_messages("o", msgs("oldest", "middle", "newest"))
    assert contents(await store.delete_oldest_messages("o", 1)) == ["oldest"]
    assert contents(await store.get_messages("o")) == ["middle", "newest"]
    assert contents(await store.archive_oldest_messages("o", 1)) == ["middle"]
    assert contents(await store.get_messages("o", status=MessageStatus.ACTIVE)) == ["newest"]
    assert contents(await store.get_messages("o", status=MessageStatus.ARCHIVED)) == ["middle"]


async def test_limit_offset_and_keys(store: MemoHoodDBChatStore) -> None:
    await store.add_messages("p", msgs(*(f"message{i}" for i in range(1, 6))))
    assert contents(await store.get_messages("p", limit=2)) == ["message1", "message2"]
    assert contents(await store.get_messages("p", offset=2)) == ["message3", "message4", "message5"]
    assert contents(await store.get_messages("p", limit=2, offset=1)) == ["message2", "message3"]
    for key in ("k1", "k2", "k3"):
        await store.add_message(key, ChatMessage(role="user", content=key))
    assert {"k1", "k2", "k3"} <= set(await store.get_keys())
