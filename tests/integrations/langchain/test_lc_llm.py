"""LangChainLLM: a LangChain chat model as memo's LLM protocol."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from pydantic import Field

from memo_core.errors import InvalidInputError, ProviderError
from memo_core.llm import LLM, ChatMessage
from memo_integrations.langchain.llm import LangChainLLM


class RecordingChatModel(BaseChatModel):
    """Replies with a fixed text and records the messages and call kwargs."""

    reply: str = "ok"
    max_tokens: int | None = None
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.calls.append((list(messages), dict(kwargs)))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


class OpenAIStyleModel(RecordingChatModel):
    pass


OpenAIStyleModel.__module__ = "langchain_openai.chat_models.base"  # provider detection


def test_messages_are_converted_and_text_returned() -> None:
    model = RecordingChatModel(reply="the answer")
    llm = LangChainLLM(model)
    assert isinstance(llm, LLM)
    out = llm.complete(
        [
            ChatMessage("system", "be terse"),
            ChatMessage("user", "q?"),
            ChatMessage("assistant", "a."),
            ChatMessage("user", "and?"),
        ]
    )
    assert out == "the answer"
    sent, kwargs = model.calls[0]
    assert [type(m) for m in sent] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]
    assert [m.content for m in sent] == ["be terse", "q?", "a.", "and?"]
    assert "tools" not in kwargs and "response_format" not in kwargs


def test_json_mode_only_for_providers_that_support_it() -> None:
    plain = RecordingChatModel()
    llm = LangChainLLM(plain)
    assert llm.supports_json_mode is False
    llm.complete([ChatMessage("user", "x")], json_mode=True, max_tokens=50)
    assert plain.calls[0][1] == {"max_tokens": 50}

    openai_like = OpenAIStyleModel()
    llm = LangChainLLM(openai_like)
    assert llm.supports_json_mode is True
    llm.complete([ChatMessage("user", "x")], json_mode=True)
    assert openai_like.calls[0][1] == {"response_format": {"type": "json_object"}}
    llm.complete([ChatMessage("user", "x")])
    assert openai_like.calls[1][1] == {}
    off = LangChainLLM(openai_like, json_mode=False)
    assert off.supports_json_mode is False


def test_max_tokens_not_sent_to_models_without_the_field() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content="hi")]))
    assert LangChainLLM(model).complete([ChatMessage("user", "x")], max_tokens=10) == "hi"


def test_content_blocks_are_flattened_to_text() -> None:
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content=[{"type": "text", "text": "block text"}])])
    )
    assert LangChainLLM(model).complete([ChatMessage("user", "x")]) == "block text"


def test_tool_bound_models_are_refused() -> None:
    @tool
    def lookup(q: str) -> str:
        """Look something up."""
        return q

    model = RecordingChatModel()
    with pytest.raises(InvalidInputError, match="tools bound"):
        LangChainLLM(model.bind(tools=[lookup]))
    with pytest.raises(InvalidInputError):
        LangChainLLM(FakeListChatModel(responses=["x"]).bind(tool_choice="any"))
    with pytest.raises(InvalidInputError):
        LangChainLLM(object())  # type: ignore[arg-type]


def test_provider_failures_become_provider_error() -> None:
    model = FakeListChatModel(responses=[])
    with pytest.raises(ProviderError, match="chat model call failed"):
        LangChainLLM(model).complete([ChatMessage("user", "x")])
