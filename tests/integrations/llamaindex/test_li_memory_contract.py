"""``Memory`` on memo against what LlamaIndex checks of it (llama-index-core
tests/memory/test_memory_base.py and test_memory_blocks_base.py).

M1..M14: the short-term queue. ``Memory`` decides what to flush; memo keeps the
queue. So each scenario runs twice, on LlamaIndex's default SQLAlchemy store and on
:class:`MemoHoodDBChatStore`, and the two must leave the same active and archived
messages, besides the assertions LlamaIndex makes (which hold for its version).
B1..B8: the blocks, with :class:`MemoHoodMemoryBlock` as one of them.

Deliberate differences: memo's block has priority 0 by default (LlamaIndex's
default too: never truncated), and when given a priority its truncation drops the
least important lines of the recalled memory instead of the whole block;
``memo_memory`` fences the blocks with memo's own template, which renders text
only (build ``Memory`` with a :class:`MemoHoodMemoryBlock` for media blocks, B5).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    AudioBlock,
    ChatMessage,
    CitableBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    VideoBlock,
)
from llama_index.core.memory.memory import BaseMemoryBlock, InsertMethod, Memory
from llama_index.core.memory.memory_blocks.static import StaticMemoryBlock
from llama_index.core.storage.chat_store.base_db import MessageStatus

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood
from memo_integrations.llamaindex import MemoHoodDBChatStore, MemoHoodMemoryBlock, memo_memory

Scenario = Callable[[Memory], Awaitable[None]]


def say(text: str, role: str = "user") -> ChatMessage:
    return ChatMessage(role=role, content=text)


def shape(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role.value, m.content or "") for m in messages]


def queue(hood: MemoHood | None, session: str, **options: Any) -> Memory:
    """A Memory on LlamaIndex's default store (hood None) or on memo's."""
    store = {} if hood is None else {"chat_store": MemoHoodDBChatStore(hood, namespace="q")}
    return Memory.from_defaults(session_id=session, **options, **store)


async def both(hood: MemoHood, scenario: Scenario, **options: Any) -> Memory:
    """Run ``scenario`` on both stores; memo must end where LlamaIndex's store ends."""
    theirs, ours = queue(None, "s", **options), queue(hood, "s", **options)
    await scenario(theirs)
    await scenario(ours)
    for status in (MessageStatus.ACTIVE, MessageStatus.ARCHIVED):
        assert shape(await ours.aget_all(status=status)) == shape(
            await theirs.aget_all(status=status)
        ), status
    assert shape(await ours.aget()) == shape(await theirs.aget())
    return ours


ROOMY = {"token_limit": 1000, "token_flush_size": 700, "chat_history_token_ratio": 0.9}


# -- M1..M14: the queue -----------------------------------------------------------------


def test_m1_memo_memory_takes_memorys_own_options(hood: MemoHood) -> None:
    memory = memo_memory(hood, namespace="q", session_id="s", **ROOMY)
    assert (memory.token_limit, memory.token_flush_size, memory.session_id) == (1000, 700, "s")
    assert memory.chat_history_token_ratio == 0.9
    with pytest.raises(InvalidInputError, match="chat_store"):
        memo_memory(hood, namespace="q", chat_store=None)


@pytest.mark.parametrize(
    "block",
    [
        TextBlock(text="Plain words in a message"),
        ImageBlock(url="http://example.com/image.jpg"),
        VideoBlock(url="http://example.com/video.mp4"),
        AudioBlock(url="http://example.com/audio.mp3"),
        DocumentBlock(url="http://example.com/doc.pdf", document_mimetype="application/pdf"),
        ToolCallBlock(tool_call_id="c1", tool_name="lookup", tool_kwargs={"q": "word " * 30}),
        ThinkingBlock(content="weighing the two options"),
        CitableBlock(
            title="t",
            source="s",
            content=[TextBlock(text="cited words"), ImageBlock(url="http://example.com/i.jpg")],
        ),
    ],
    ids=lambda b: type(b).__name__,
)
async def test_m2_to_m9_every_block_kind_comes_back_and_counts_the_same(
    hood: MemoHood, block: Any
) -> None:
    memory = queue(hood, "blocks", **ROOMY)
    original = ChatMessage(role="assistant", blocks=[block])
    await memory.aput(original)
    [back] = await memory.aget_all()
    assert back.blocks == original.blocks
    assert memory._estimate_token_count(back) == memory._estimate_token_count(original)


async def test_m10_tool_call_history_flushes_as_on_llamaindexs_store(hood: MemoHood) -> None:
    async def scenario(memory: Memory) -> None:
        for i in range(10):
            await memory.aput(say("hi"))
            await memory.aput(
                ChatMessage(
                    role="assistant",
                    blocks=[
                        ToolCallBlock(
                            tool_call_id=f"c{i}", tool_name="search", tool_kwargs={"q": "w " * 200}
                        )
                    ],
                )
            )

    await both(
        hood,
        scenario,
        token_limit=50,
        token_flush_size=10,
        chat_history_token_ratio=1.0,
        tokenizer_fn=str.split,
    )


async def test_m11_under_the_limit_nothing_flushes(hood: MemoHood) -> None:
    async def scenario(memory: Memory) -> None:
        await memory.aput_messages([say("Short message")])

    ours = await both(hood, scenario, **ROOMY)
    assert shape(await ours.aget()) == [("user", "Short message")]


async def test_m12_over_the_limit_the_oldest_are_archived(hood: MemoHood) -> None:
    async def scenario(memory: Memory) -> None:
        await memory.aput_messages([say("x " * 500), say("y " * 500, "assistant"), say("z " * 500)])

    ours = await both(hood, scenario, **ROOMY)
    [left] = await ours.aget()
    assert "z " in (left.content or "")
    assert len(await ours.aget_all(status=MessageStatus.ARCHIVED)) == 2


async def test_m13_put_set_get_all_and_reset(hood: MemoHood) -> None:
    async def scenario(memory: Memory) -> None:
        await memory.aput(say("New message"))
        await memory.aput_messages([say("Message 1"), say("Response 1", "assistant")])
        await memory.aset([say("Message 1"), say("Response 1", "assistant")])

    ours = await both(hood, scenario, **ROOMY)
    assert shape(await ours.aget_all(status=MessageStatus.ACTIVE)) == [
        ("user", "Message 1"),
        ("assistant", "Response 1"),
    ]
    await ours.areset(status=MessageStatus.ACTIVE)
    assert await ours.aget() == []


@pytest.mark.parametrize(
    ("options", "messages"),
    [
        (  # a big user turn, a tiny answer: the queue must not start with the answer
            {"token_limit": 100, "token_flush_size": 50, "chat_history_token_ratio": 0.5},
            [say("x " * 100), say("ok", "assistant")],
        ),
        (  # several turns: at least one whole turn stays
            {"token_limit": 200, "token_flush_size": 100, "chat_history_token_ratio": 0.5},
            [
                say("a " * 50),
                say("b " * 50, "assistant"),
                say("c " * 50),
                say("d " * 50, "assistant"),
            ],
        ),
        (  # a tool-calling turn stays together
            {"token_limit": 150, "token_flush_size": 80, "chat_history_token_ratio": 0.5},
            [
                say("a " * 40),
                say("b " * 20, "assistant"),
                say("c " * 20, "tool"),
                say("d " * 20, "assistant"),
            ],
        ),
        (  # only a tool result would be left
            {"token_limit": 80, "token_flush_size": 40, "chat_history_token_ratio": 0.5},
            [say("x " * 50), say("call", "assistant"), say("result", "tool")],
        ),
    ],
    ids=["first-is-user", "keeps-a-turn", "tool-turn", "only-tool-left"],
)
async def test_m14_a_flush_keeps_whole_turns(
    hood: MemoHood, options: dict[str, Any], messages: list[ChatMessage]
) -> None:
    async def scenario(memory: Memory) -> None:
        await memory.aput_messages([m.model_copy() for m in messages])

    ours = await both(hood, scenario, **options)
    left = await ours.aget()
    if left:
        assert left[0].role.value == "user"
    for before, after in itertools.pairwise(left):
        if after.role.value == "tool":
            assert before.role.value in ("assistant", "tool")


# -- B1..B8: memo's block among others ------------------------------------------------

FACTS = [
    "I am allergic to penicillin.",
    "My daughter is called Mila.",
    "I live in Lisbon.",
    "I work as a nurse at the city hospital.",
]
QUESTION = "Which antibiotic is safe for me, given my allergy to penicillin?"


@pytest.fixture
def remembered(hood: MemoHood) -> MemoHood:
    for fact in FACTS:
        hood.remember(fact, namespace="b")
    return hood


def memo_block(hood: MemoHood, **options: Any) -> MemoHoodMemoryBlock:
    return MemoHoodMemoryBlock(hood, namespace="b", use_gate=False, **options)


class TwoMessages(BaseMemoryBlock[list[ChatMessage]]):
    async def _aget(self, messages: Any = None, **kwargs: Any) -> list[ChatMessage]:
        return [say("an earlier question"), say("an earlier answer", "assistant")]

    async def _aput(self, messages: list[ChatMessage]) -> None:
        return None


class Media(BaseMemoryBlock[list[Any]]):
    async def _aget(self, messages: Any = None, **kwargs: Any) -> list[Any]:
        return [
            TextBlock(text="media context"),
            VideoBlock(url="https://example.com/v.mp4"),
            DocumentBlock(url="https://example.com/d.pdf", document_mimetype="application/pdf"),
        ]

    async def _aput(self, messages: list[ChatMessage]) -> None:
        return None


def system_text(messages: list[ChatMessage]) -> str:
    return "\n".join(
        b.text
        for m in messages
        if m.role.value == "system"
        for b in m.blocks
        if isinstance(b, TextBlock)
    )


async def test_b1_the_block_text_reaches_the_system_message(remembered: MemoHood) -> None:
    memory = Memory.from_defaults(session_id="b1", memory_blocks=[memo_block(remembered)], **ROOMY)
    await memory.aput(say(QUESTION))
    text = system_text(await memory.aget())
    assert "penicillin" in text
    assert text.count("<memory>") == 1  # memo's fence once inside LlamaIndex's block tag


async def test_b2_extra_block_parameters_do_not_break_it(remembered: MemoHood) -> None:
    memory = Memory.from_defaults(session_id="b2", memory_blocks=[memo_block(remembered)], **ROOMY)
    await memory.aput(say(QUESTION))
    assert "penicillin" in system_text(await memory.aget(test_parameter="custom"))


async def test_b3_truncation_drops_the_least_important_lines(remembered: MemoHood) -> None:
    block = memo_block(remembered)
    full = await block.aget([say(QUESTION)])
    assert full.count("\n- ") >= 2
    shorter = await block.atruncate(full, 12)
    assert shorter is not None and len(shorter) < len(full)
    assert shorter.splitlines()[-1] in full.splitlines()  # lines dropped from the end
    assert "penicillin" in shorter  # the best fact stays
    assert await block.atruncate(full, 10_000) is None  # nothing useful fits
    assert await block.atruncate("text this block never produced", 1) is None


async def test_b4_with_every_kind_of_block(remembered: MemoHood) -> None:
    memory = Memory.from_defaults(
        session_id="b4",
        memory_blocks=[
            memo_block(remembered, priority=1),
            StaticMemoryBlock(name="house_rules", static_content="Answer briefly.", priority=2),
            TwoMessages(name="earlier", priority=3),
        ],
        **ROOMY,
    )
    await memory.aput(say(QUESTION))
    messages = await memory.aget()
    text = system_text(messages)
    assert "penicillin" in text and "Answer briefly." in text
    assert "an earlier question" in [m.content for m in messages]


async def test_b5_media_blocks_beside_memos_survive_the_default_template(
    remembered: MemoHood,
) -> None:
    memory = Memory.from_defaults(
        session_id="b5",
        memory_blocks=[memo_block(remembered), Media(name="media", priority=1)],
        token_limit=4096,
    )
    await memory.aput(say(QUESTION))
    [system] = [m for m in await memory.aget() if m.role.value == "system"]
    kinds = [type(b).__name__ for b in system.blocks]
    assert "VideoBlock" in kinds and "DocumentBlock" in kinds
    assert "penicillin" in system_text([system])


@pytest.mark.parametrize("method", [InsertMethod.USER, InsertMethod.SYSTEM])
async def test_b6_the_insert_method_is_respected(
    remembered: MemoHood, method: InsertMethod
) -> None:
    memory = memo_memory(remembered, namespace="b", session_id="b6", insert_method=method)
    await memory.aput(say(QUESTION))
    messages = await memory.aget()
    systems = [m for m in messages if m.role.value == "system"]
    if method is InsertMethod.SYSTEM:
        assert systems and "penicillin" in system_text(systems)
    else:
        assert systems == []
        assert "penicillin" in (messages[-1].content or "")


async def test_b7_priority_zero_is_never_truncated(remembered: MemoHood) -> None:
    block = memo_block(remembered)  # priority 0 by default
    memory = Memory.from_defaults(
        session_id="b7",
        memory_blocks=[
            block,
            StaticMemoryBlock(name="extra", static_content="Disposable words. " * 40, priority=1),
        ],
        token_limit=120,
        token_flush_size=10,
        chat_history_token_ratio=0.5,
    )
    await memory.aput(say(QUESTION))
    text = system_text(await memory.aget())
    full = await block.aget([say(QUESTION)])
    assert "penicillin" in full and full in text  # the whole recalled block
    assert "Disposable words." not in text


async def test_b8_a_truncated_memo_block_keeps_its_best_fact(remembered: MemoHood) -> None:
    block = memo_block(remembered, priority=1)
    full = await block.aget([say(QUESTION)])
    memory = Memory.from_defaults(
        session_id="b8",
        memory_blocks=[block],
        token_limit=len(full) // 4 + 20,  # room for the question and about half the block
        token_flush_size=10,
        chat_history_token_ratio=0.9,
    )
    await memory.aput(say(QUESTION))
    text = system_text(await memory.aget())
    assert "penicillin" in text
    assert len(text) < len(full) + 200  # shorter than the whole block in its tags
