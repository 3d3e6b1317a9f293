"""MemoHoodChatMessageHistory: transcripts per session, user turns captured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.history import RunnableWithMessageHistory
from pydantic import Field

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.langchain import MemoHoodChatMessageHistory


class EchoCountModel(BaseChatModel):
    """Replies 'reply N' and records every prompt it was given."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "echo-count"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.prompts.append(list(messages))
        reply = AIMessage(content=f"reply {len(self.prompts)}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@pytest.fixture
def memory(backend_url: str) -> Iterator[MemoHood]:
    """A fresh memory on each storage backend."""
    hood = MemoHood(backend_url, embedder=HashEmbedder(64), gate=RecallGate())
    yield hood
    hood.close()


def test_messages_round_trip_losslessly(memory: MemoHood) -> None:
    history = MemoHoodChatMessageHistory(memory, "s1", namespace=("u1",))
    sent: list[BaseMessage] = [
        SystemMessage(content="You are helpful."),
        HumanMessage(content="What's the weather in Oslo?", id="h1"),
        AIMessage(
            content="",
            tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "call_1"}],
        ),
        ToolMessage(content="-3°C, snow", tool_call_id="call_1"),
        AIMessage(content="It is -3°C and snowing in Oslo."),
        ChatMessage(role="user", content="thanks"),
    ]
    history.add_messages(sent)
    assert history.messages == sent
    assert [m.role for m in memory.get_messages("s1", ("u1",))] == [
        "system",
        "user",
        "assistant",
        "assistant",
        "assistant",
        "user",
    ]


def test_sessions_and_namespaces_are_separate(memory: MemoHood) -> None:
    a = MemoHoodChatMessageHistory(memory, "s1", namespace=("u1",))
    b = MemoHoodChatMessageHistory(memory, "s2", namespace=("u1",))
    c = MemoHoodChatMessageHistory(memory, "s1", namespace=("u2",))
    a.add_user_message("hello from a")
    b.add_user_message("hello from b")
    assert [m.content for m in a.messages] == ["hello from a"]
    assert [m.content for m in b.messages] == ["hello from b"]
    assert c.messages == []
    with pytest.raises(NamespaceRequiredError):
        MemoHoodChatMessageHistory(memory, "s1", namespace=())
    with pytest.raises(InvalidInputError):
        MemoHoodChatMessageHistory(memory, "", namespace=("u1",))


def test_user_turns_become_long_term_memory(memory: MemoHood) -> None:
    history = MemoHoodChatMessageHistory(memory, "monday", namespace=("u1",))
    history.add_messages(
        [
            HumanMessage(content="By the way, I'm allergic to penicillin."),
            AIMessage(content="Noted. You are also allergic to peanuts, right?"),
        ]
    )
    facts = [f.statement for f in memory.list_facts(("u1",))]
    assert any("penicillin" in f for f in facts)
    assert not any("peanut" in f for f in facts)  # the assistant's words are not user facts
    # Another session of the same user recalls it.
    recall = memory.recall("Which antibiotic can I take?", namespace=("u1",))
    assert "penicillin" in recall.block
    # clear() deletes the transcript, not what was learned from it.
    history.clear()
    assert history.messages == []
    assert any("penicillin" in f.statement for f in memory.list_facts(("u1",)))


def test_capture_can_be_turned_off(memory: MemoHood) -> None:
    history = MemoHoodChatMessageHistory(memory, "s", namespace=("u1",), capture=False)
    history.add_user_message("I'm allergic to penicillin.")
    assert [m.content for m in history.messages] == ["I'm allergic to penicillin."]
    assert memory.list_facts(("u1",)) == []


def test_transcript_persists_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mem.db"
    MemoHoodChatMessageHistory(path, "s", namespace="u1").add_ai_message("saved")
    again = MemoHoodChatMessageHistory(path, "s", namespace="u1")
    assert again.messages == [AIMessage(content="saved")]
    again.memory.close()


def test_messages_written_directly_in_memo_are_readable(memory: MemoHood) -> None:
    memory.add_message(("u1",), "s", "user", "hi there", capture=False)
    memory.add_message(("u1",), "s", "assistant", "hello", capture=False)
    memory.add_message(("u1",), "s", "system", "be brief", capture=False)
    history = MemoHoodChatMessageHistory(memory, "s", namespace=("u1",))
    assert history.messages == [
        HumanMessage(content="hi there"),
        AIMessage(content="hello"),
        SystemMessage(content="be brief"),
    ]


async def test_async_methods(memory: MemoHood) -> None:
    history = MemoHoodChatMessageHistory(memory, "s", namespace=("u1",))
    await history.aadd_messages([HumanMessage(content="one"), AIMessage(content="two")])
    assert [m.content for m in await history.aget_messages()] == ["one", "two"]
    await history.aclear()
    assert await history.aget_messages() == []


def test_runnable_with_message_history(memory: MemoHood) -> None:
    model = EchoCountModel()
    prompt = ChatPromptTemplate.from_messages(
        [MessagesPlaceholder("history"), ("human", "{input}")]
    )
    chain = RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: MemoHoodChatMessageHistory(memory, session_id, namespace=("u1",)),
        input_messages_key="input",
        history_messages_key="history",
    )
    config: RunnableConfig = {"configurable": {"session_id": "chat-1"}}
    assert chain.invoke({"input": "My name is Ada."}, config=config).content == "reply 1"
    assert chain.invoke({"input": "What is my name?"}, config=config).content == "reply 2"
    second_prompt = [m.content for m in model.prompts[1]]
    assert second_prompt == ["My name is Ada.", "reply 1", "What is my name?"]
    stored = MemoHoodChatMessageHistory(memory, "chat-1", namespace=("u1",)).messages
    assert [m.content for m in stored] == [
        "My name is Ada.",
        "reply 1",
        "What is my name?",
        "reply 2",
    ]
    assert memory.list_session_keys(("u1",)) == ["chat-1"]
