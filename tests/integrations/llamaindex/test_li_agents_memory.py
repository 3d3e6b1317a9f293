"""LlamaIndex agents remembering across sessions through memo: history and memory in one file.

Scripted LLMs record what they are sent, so each test asserts the recalled memory
reached the model, with ``ReActAgent`` and with ``FunctionAgent``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
)
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.base_db import MessageStatus
from pydantic import Field

from memo_core.embedders import HashEmbedder
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.llamaindex import MemoHoodDBChatStore, MemoHoodMemoryBlock, memo_memory


class ScriptedReActLLM(CustomLLM):
    """Always answers at once in ReAct form; keeps every prompt it was sent."""

    prompts: list[list[ChatMessage]] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="Thought: I can answer without tools.\nAnswer: Noted.")

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        yield self.complete(prompt)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self.prompts.append(list(messages))
        text = "Thought: I can answer without tools.\nAnswer: Noted."
        return ChatResponse(message=ChatMessage(role="assistant", content=text))

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages)


@pytest.fixture
def hood(tmp_path: Path) -> Iterator[MemoHood]:
    with MemoHood(tmp_path / "li-agent.db", embedder=HashEmbedder(64), gate=RecallGate()) as h:
        yield h


def seen(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in messages)


async def test_react_agent_remembers_across_sessions(hood: MemoHood) -> None:
    llm = ScriptedReActLLM()
    agent = ReActAgent(tools=[], llm=llm, streaming=False)
    first = memo_memory(hood, namespace=("alice",), session_id="monday")
    await agent.run("By the way, I'm allergic to penicillin.", memory=first)
    later = memo_memory(hood, namespace=("alice",), session_id="friday")  # a new session
    await agent.run("Which antibiotic can I take for a sore throat?", memory=later)
    prompt = seen(llm.prompts[-1])
    assert "penicillin" in prompt
    assert prompt.count("<memory>") == 1  # one fence around the block, not three
    # the history of each session is in the memo file
    store = later.sql_store
    assert isinstance(store, MemoHoodDBChatStore)
    monday = await store.get_messages("monday")
    assert (monday[0].content or "").startswith("By the way")
    assert set(await store.get_keys()) == {"monday", "friday"}


async def test_function_agent_remembers_across_sessions(hood: MemoHood) -> None:
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall()
    agent = FunctionAgent(tools=[], llm=llm, streaming=False)
    await agent.run("My daughter is called Mila.", memory=memo_memory(hood, namespace="bob"))
    await agent.run("What is my daughter's name?", memory=memo_memory(hood, namespace="bob"))
    assert llm.last_chat_messages is not None
    assert "Mila" in seen(llm.last_chat_messages)
    await agent.run("What is my daughter's name?", memory=memo_memory(hood, namespace="carol"))
    assert "Mila" not in seen(llm.last_chat_messages)  # another user's memory never shows


async def test_default_memory_template_wraps_once(hood: MemoHood) -> None:
    hood.remember("I am allergic to latex.", namespace="dana")
    block = MemoHoodMemoryBlock(hood, namespace="dana")
    memory = Memory.from_defaults(
        session_id="s",
        chat_store=MemoHoodDBChatStore(hood, namespace="dana"),
        memory_blocks=[block],
    )
    await memory.aput(ChatMessage(role="user", content="Can I wear surgical gloves?"))
    system = seen([m for m in await memory.aget() if m.role.value == "system"])
    assert "latex" in system
    assert system.count("<memory>") == 1 and "<memo_memory>" in system


async def test_db_chat_store_queue(hood: MemoHood) -> None:
    store = MemoHoodDBChatStore(hood, namespace="erin")
    msgs = [ChatMessage(role="user", content=f"message {i}") for i in range(5)]
    await store.add_messages("k", msgs)
    assert await store.count_messages("k") == 5
    archived = await store.archive_oldest_messages("k", 2)
    assert [m.content for m in archived] == ["message 0", "message 1"]
    assert await store.count_messages("k") == 3
    assert await store.count_messages("k", status=MessageStatus.ARCHIVED) == 2
    assert await store.count_messages("k", status=None) == 5
    page = await store.get_messages("k", limit=2, offset=1)
    assert [m.content for m in page] == ["message 3", "message 4"]
    deleted = await store.delete_oldest_messages("k", 1)
    assert [m.content for m in deleted] == ["message 2"]
    await store.delete_messages("k", status=MessageStatus.ARCHIVED)
    assert [m.content for m in await store.get_messages("k", status=None)] == [
        "message 3",
        "message 4",
    ]
    removed = await store.delete_message("k", 0)
    assert removed is not None and removed.content == "message 3"
    await store.set_messages("k", [ChatMessage(role="assistant", content="fresh")])
    assert [m.role.value for m in await store.get_messages("k")] == ["assistant"]
    await store.delete_messages("k")
    assert await store.get_messages("k", status=None) == []
    # a user message is captured into long-term memory as it arrives, once
    await store.add_message("k", ChatMessage(role="user", content="I'm allergic to peanuts."))
    await store.archive_oldest_messages("k", 1)
    assert [f.statement for f in hood.list_facts("erin")] == ["I'm allergic to peanuts."]
    tool = ChatMessage(role="tool", content="42", additional_kwargs={"tool_call_id": "c1"})
    await store.add_message("t", tool)
    [back] = await store.get_messages("t")
    assert back.role.value == "tool" and back.additional_kwargs == {"tool_call_id": "c1"}
