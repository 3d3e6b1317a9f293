"""memo's chat stores against what LlamaIndex checks of its own (llama-index-core
tests/storage/chat_store/: test_simple_chat_store.py for ``BaseChatStore``,
test_sql.py and test_sql_schema.py for the ``AsyncDBChatStore`` that ``Memory``
uses), on both backends.

C1..C8 are SimpleChatStore's behaviours on :class:`MemoHoodChatStore`; D1..D10 are
SQLAlchemyChatStore's on :class:`MemoHoodDBChatStore` (``test_li_db_chat_store.py``
holds the first versions of D1..D10; here each has its own test); D11, D12 are the
observable part of the schema tests (the rest mock SQLAlchemy engines). Deliberate
differences: ``delete_message(key, idx)`` takes the message's position in the key's
whole transcript (memo exposes no row ids; LlamaIndex's SQL store takes its row id,
which its own test reads from the private table); the file is the persistence, so
SimpleChatStore's ``persist``/``from_persist_path`` is "reopen the file" (C8).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.llms import ChatMessage
from llama_index.core.storage.chat_store.base_db import MessageStatus

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.llamaindex import MemoHoodChatStore, MemoHoodDBChatStore


def say(text: str, role: str = "user") -> ChatMessage:
    return ChatMessage(role=role, content=text)


def texts(messages: list[ChatMessage] | None) -> list[str | None]:
    return [m.content for m in messages or []]


@pytest.fixture
def chat(hood: MemoHood) -> MemoHoodChatStore:
    return MemoHoodChatStore(hood, namespace="c-user")


@pytest.fixture
def db(hood: MemoHood) -> MemoHoodDBChatStore:
    return MemoHoodDBChatStore(hood, namespace="d-user")


# -- C1..C8: BaseChatStore (SimpleChatStore's tests) ----------------------------------


def test_c1_messages_are_kept_per_key_in_order(chat: MemoHoodChatStore) -> None:
    for key in ("first", "second"):
        chat.add_message(key, say("good"))
        chat.add_message(key, say("morning"))
    assert chat.get_messages("first") == [say("good"), say("morning")]
    assert chat.get_messages("second") == [say("good"), say("morning")]
    assert chat.get_keys() == ["first", "second"]


def test_c2_add_at_an_index_inserts_there(chat: MemoHoodChatStore, hood: MemoHood) -> None:
    chat.add_message("k", say("second"))
    chat.add_message("k", say("third"))
    chat.add_message("k", say("I live in Porto."), idx=0)
    assert texts(chat.get_messages("k")) == ["I live in Porto.", "second", "third"]
    chat.add_message("k", say("last"), idx=99)
    assert texts(chat.get_messages("k"))[-1] == "last"
    # the inserted user message was captured once, like an appended one
    assert [f.statement for f in hood.list_facts("c-user")].count("I live in Porto.") == 1
    with pytest.raises(InvalidInputError):
        chat.add_message("k", say("x"), idx="0")  # type: ignore[arg-type]


def test_c3_deleting_a_key_leaves_the_others(chat: MemoHoodChatStore) -> None:
    chat.add_message("gone", say("a"))
    chat.add_message("kept", say("b"))
    assert texts(chat.delete_messages("gone")) == ["a"]
    assert chat.get_messages("gone") == []
    assert texts(chat.get_messages("kept")) == ["b"]


def test_c4_delete_last_message(chat: MemoHoodChatStore) -> None:
    chat.add_message("k", say("one"))
    chat.add_message("k", say("two"))
    assert texts([chat.delete_last_message("k")]) == ["two"]  # type: ignore[list-item]
    assert texts(chat.get_messages("k")) == ["one"]


def test_c5_delete_message_at_an_index(chat: MemoHoodChatStore) -> None:
    chat.add_message("k", say("one"))
    chat.add_message("k", say("two"))
    assert texts([chat.delete_message("k", 0)]) == ["one"]  # type: ignore[list-item]
    assert texts(chat.get_messages("k")) == ["two"]


def test_c6_an_index_out_of_range_deletes_nothing(chat: MemoHoodChatStore) -> None:
    chat.add_message("k", say("only"))
    assert chat.delete_message("k", -2) is None
    assert chat.delete_message("k", 1) is None
    assert texts(chat.get_messages("k")) == ["only"]
    assert texts([chat.delete_message("k", -1)]) == ["only"]  # type: ignore[list-item]


def test_c7_delete_last_of_an_emptied_history_is_none(chat: MemoHoodChatStore) -> None:
    message = say("hello")
    chat.add_message("k", message)
    assert chat.delete_last_message("k") == message
    assert chat.delete_last_message("k") is None


def test_c8_non_ascii_text_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "chat.db"
    with MemoHood(path, gate=RecallGate()) as hood:
        MemoHoodChatStore(hood, namespace="u").add_message("k", say("ハロー héllo привет"))
    with MemoHood(path, gate=RecallGate()) as again:
        assert MemoHoodChatStore(again, namespace="u").get_messages("k") == [
            say("ハロー héllo привет")
        ]


# -- D1..D10: AsyncDBChatStore (SQLAlchemyChatStore's tests) -----------------------------


async def test_d1_add_and_get_in_order_with_roles(db: MemoHoodDBChatStore) -> None:
    await db.add_message("k", say("hello"))
    await db.add_message("k", say("world", "assistant"))
    got = await db.get_messages("k")
    assert [(m.role.value, m.content) for m in got] == [("user", "hello"), ("assistant", "world")]
    assert await db.get_messages("nobody") == []


async def test_d2_add_a_batch(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say("a"), say("b", "assistant"), say("c")])
    assert texts(await db.get_messages("k")) == ["a", "b", "c"]


async def test_d3_count(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say("a"), say("b", "assistant"), say("c")])
    assert await db.count_messages("k") == 3
    assert await db.count_messages("nobody") == 0


async def test_d4_set_replaces(db: MemoHoodDBChatStore) -> None:
    await db.add_message("k", say("before"))
    await db.set_messages("k", [say("after1"), say("after2", "assistant")])
    assert texts(await db.get_messages("k")) == ["after1", "after2"]


async def test_d5_delete_one_message(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say("a"), say("b", "assistant"), say("c")])
    removed = await db.delete_message("k", 1)
    assert removed is not None and removed.content == "b"
    assert texts(await db.get_messages("k")) == ["a", "c"]


async def test_d6_delete_a_keys_messages(db: MemoHoodDBChatStore) -> None:
    await db.add_message("gone", say("a"))
    await db.add_message("kept", say("b"))
    await db.delete_messages("gone")
    assert await db.get_messages("gone") == []
    assert texts(await db.get_messages("kept")) == ["b"]


async def test_d7_delete_oldest(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say("oldest"), say("middle", "assistant"), say("newest")])
    assert texts(await db.delete_oldest_messages("k", 1)) == ["oldest"]
    assert texts(await db.get_messages("k")) == ["middle", "newest"]


async def test_d8_archive_oldest(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say("oldest"), say("middle", "assistant"), say("newest")])
    assert texts(await db.archive_oldest_messages("k", 1)) == ["oldest"]
    assert texts(await db.get_messages("k", status=MessageStatus.ACTIVE)) == ["middle", "newest"]
    assert texts(await db.get_messages("k", status=MessageStatus.ARCHIVED)) == ["oldest"]
    assert texts(await db.get_messages("k", status=None)) == ["oldest", "middle", "newest"]


async def test_d9_limit_and_offset(db: MemoHoodDBChatStore) -> None:
    await db.add_messages("k", [say(f"m{i}") for i in range(1, 6)])
    assert texts(await db.get_messages("k", limit=2)) == ["m1", "m2"]
    assert texts(await db.get_messages("k", offset=2)) == ["m3", "m4", "m5"]
    assert texts(await db.get_messages("k", limit=2, offset=1)) == ["m2", "m3"]


async def test_d10_keys(db: MemoHoodDBChatStore) -> None:
    for key in ("k1", "k2", "k3"):
        await db.add_message(key, say(key))
    assert await db.get_keys() == ["k1", "k2", "k3"]


# -- D11, D12: SQLAlchemyChatStore's schema tests (test_sql_schema.py) -----------------


def test_d11_the_configuration_serialises(db: MemoHoodDBChatStore) -> None:
    """LlamaIndex keeps ``db_schema`` in the store's dump; memo's store is located by
    the MemoHood's URL (``postgresql://...?schema=name``, as D1..D10 run on one), and
    what the dump keeps is whose messages these are."""
    dumped = db.model_dump()
    assert dumped["namespace"] == ("d-user",)
    assert dumped["capture_roles"] == ("user",)
    assert MemoHoodDBChatStore.class_name() == "MemoHoodDBChatStore"


async def test_d12_two_namespaces_in_one_file_stay_apart(hood: MemoHood) -> None:
    """The schema tests' point, two stores side by side in one database, for memo's
    unit of separation: the namespace."""
    alice = MemoHoodDBChatStore(hood, namespace="alice")
    bob = MemoHoodDBChatStore(hood, namespace="bob")
    await alice.add_message("s", say("from alice"))
    await bob.add_message("s", say("from bob"))
    assert texts(await alice.get_messages("s")) == ["from alice"]
    assert texts(await bob.get_messages("s")) == ["from bob"]
    await alice.delete_messages("s")
    assert texts(await bob.get_messages("s")) == ["from bob"]
