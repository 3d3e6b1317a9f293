"""GuardedQA: the quote-or-refuse engine as a Runnable, with LangChain fake chat models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.llm import FakeLLM
from memo_integrations.langchain.qa import GuardedQA

LEASE = (
    "The lease term is 24 months. The notice period is thirty days. "
    "Rent is due on the first day of each month."
)


class ScriptedChatModel(BaseChatModel):
    """Replies with queued texts; records each call's messages and kwargs."""

    replies: list[str] = Field(default_factory=list)
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.calls.append((list(messages), dict(kw)))
        reply = AIMessage(content=self.replies.pop(0))
        return ChatResult(generations=[ChatGeneration(message=reply)])


def claim(text: str, quote: str, passage: int = 1) -> str:
    return json.dumps(
        {"claims": [{"text": text, "citations": [{"passage": passage, "quote": quote}]}]}
    )


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_document(
        LEASE, document_id="lease", source="lease.txt", title="Lease", collection="legal"
    )
    base.add_document(
        "The cafeteria opens at 8 am and serves vegetarian lunches on Fridays.",
        document_id="caf",
        source="cafeteria.txt",
        collection="office",
    )
    yield base
    base.close()


def test_answer_with_a_verified_quote_from_a_chat_model(kb: MemoBase) -> None:
    model = ScriptedChatModel(
        replies=[claim("The term is 24 months.", "The lease term is 24 months.")]
    )
    out = GuardedQA(kb, model).invoke("How long is the lease term?")
    assert out["refused"] is False
    assert out["answer"].startswith("The term is 24 months.")
    [citation] = out["citations"]
    assert citation["quote"] == "The lease term is 24 months."
    assert citation["document_id"] == "lease" and citation["source"] == "lease.txt"
    assert LEASE[citation["start"] : citation["end"]] == citation["quote"]
    [(messages, kwargs)] = model.calls
    assert isinstance(messages[0], SystemMessage)
    assert "ONLY the numbered passages" in str(messages[0].content)
    assert "tools" not in kwargs and "tool_choice" not in kwargs


def test_a_perturbed_quote_is_refused(kb: MemoBase) -> None:
    model = ScriptedChatModel(
        replies=[claim("The term is 12 months.", "The lease term is 12 months.")]
    )
    out = GuardedQA(kb, model).invoke("How long is the lease term?")
    assert out["refused"] is True
    assert "verified quote" in out["reason"]
    assert out["answer"] is None and out["citations"] == []
    # The nearest passages, marked as not an answer.
    assert out["related"] and all(r["answer"] is False for r in out["related"])
    assert any("lease term" in r["text"].lower() for r in out["related"])


def test_off_topic_question_is_refused_before_any_model_call(kb: MemoBase) -> None:
    model = ScriptedChatModel(replies=[claim("Ulaanbaatar.", "Ulaanbaatar")])
    out = GuardedQA(kb, model).invoke({"question": "What is the capital of Mongolia?"})
    assert out["refused"] is True
    assert model.calls == []


def test_extractive_mode_without_a_model(kb: MemoBase) -> None:
    out = GuardedQA(kb).invoke("When is the rent due?")
    assert out["refused"] is False
    assert any("first day of each month" in c["quote"] for c in out["citations"])


def test_dict_input_options_and_defaults(kb: MemoBase) -> None:
    qa = GuardedQA(kb, FakeLLM(default_reply='{"claims": []}'), collection="office")
    # The constructor's collection hides the lease; a dict input can point elsewhere.
    assert qa.invoke("How long is the lease term?")["refused"] is True
    out = GuardedQA(kb).invoke(
        {"question": "How long is the lease term?", "collection": "legal", "k": 2}
    )
    assert out["refused"] is False
    assert GuardedQA(kb).invoke({"question": "lease term", "filter": {"source": "cafeteria.txt"}})[
        "refused"
    ]
    with pytest.raises(InvalidInputError):
        qa.invoke({"query": "missing the question key"})
    with pytest.raises(InvalidInputError):
        qa.invoke({"question": "x", "temperature": 0})
    with pytest.raises(InvalidInputError):
        qa.invoke(42)  # type: ignore[arg-type]


async def test_async_and_batch(kb: MemoBase) -> None:
    qa = GuardedQA(kb)
    out = await qa.ainvoke("When is the rent due?")
    assert out == qa.invoke("When is the rent due?")
    results = await qa.abatch(["When is the rent due?", "What is the capital of Mongolia?"])
    assert [r["refused"] for r in results] == [False, True]


def test_composes_in_lcel(kb: MemoBase) -> None:
    def to_input(question: str) -> dict[str, Any]:
        return {"question": question.strip()}

    def to_text(result: dict[str, Any]) -> str:
        return "I don't know." if result["refused"] else str(result["answer"])

    chain = RunnableLambda(to_input) | GuardedQA(kb) | RunnableLambda(to_text)
    assert "first day of each month" in chain.invoke("  When is the rent due? ")
    assert chain.invoke("Who won the 1998 World Cup?") == "I don't know."


def test_tool_bound_models_are_refused(kb: MemoBase) -> None:
    model = ScriptedChatModel()
    with pytest.raises(InvalidInputError, match="tools bound"):
        GuardedQA(kb, model.bind(tools=[{"type": "function", "function": {"name": "f"}}]))


def test_as_tool_asks_and_refuses(kb: MemoBase) -> None:
    tool = GuardedQA(kb).as_tool()
    assert tool.name == "ask_knowledge_base"
    assert set(tool.args) == {"question", "k"}
    answer = tool.invoke({"question": "How long is the lease term?"})
    assert answer["refused"] is False
    assert "24 months" in answer["citations"][0]["quote"]
    refused = tool.invoke({"question": "What colour is the front door of the office?", "k": 2})
    assert refused["refused"] is True
    named = GuardedQA(kb).as_tool(name="lease_qa", description="Questions about the lease.")
    assert (named.name, named.description) == ("lease_qa", "Questions about the lease.")
