"""knowledge_base_tools: search and quote-or-refuse ask, as tools in a create_agent agent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain.agents", reason="langchain (1.x) is not installed")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.kb.store import ChunkInput
from memo_integrations.langchain import ScriptedChatModel, knowledge_base_tools

HANDBOOK = (
    "Employees accrue twenty-five days of paid leave per year. "
    "Unused leave can be carried over until the end of March. "
    "The office closes at six in the evening on Fridays."
)


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_document(
        HANDBOOK,
        document_id="handbook",
        source="handbook.pdf",
        title="Staff handbook",
        chunks=[ChunkInput(HANDBOOK, 0, len(HANDBOOK), locator={"page": 4})],
    )
    yield base
    base.close()


def tools_by_name(kb: MemoBase) -> dict[str, object]:
    return {t.name: t for t in knowledge_base_tools(kb)}


def test_search_returns_passages_with_locators(kb: MemoBase) -> None:
    search = knowledge_base_tools(kb)[0]
    assert search.name == "search_knowledge_base"
    payload = json.loads(search.invoke({"query": "paid leave days", "k": 2}))
    assert payload["query"] == "paid leave days"
    top = payload["results"][0]
    assert "twenty-five days" in top["text"]
    assert top["source"] == "handbook.pdf"
    assert top["title"] == "Staff handbook"
    assert top["locator"] == {"page": 4}


def test_ask_quotes_with_citation_or_refuses(kb: MemoBase) -> None:
    ask = knowledge_base_tools(kb)[1]
    assert ask.name == "ask_knowledge_base"
    answer = json.loads(
        ask.invoke({"question": "How many days of paid leave do employees accrue per year?"})
    )
    assert answer["refused"] is False
    quote = answer["citations"][0]
    assert quote["quote"] in HANDBOOK and "twenty-five" in quote["quote"]
    assert quote["source"] == "handbook.pdf"
    assert quote["locator"] == {"page": 4}
    refused = json.loads(ask.invoke({"question": "What is the parking fee at the airport?"}))
    assert refused["refused"] is True and refused["reason"]
    assert not refused.get("citations")


def test_bad_arguments_are_typed_errors(kb: MemoBase) -> None:
    search, ask = knowledge_base_tools(kb)
    with pytest.raises(InvalidInputError):
        search.func(query="  ")  # type: ignore[attr-defined]
    with pytest.raises(InvalidInputError):
        ask.func(question="")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="greater than or equal"):  # the schema, before memo
        search.invoke({"query": "leave", "k": 0})


def test_tools_in_an_agent(kb: MemoBase) -> None:
    model = ScriptedChatModel(
        replies=[
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "ask_knowledge_base",
                        "args": {"question": "Until when can unused leave be carried over?"},
                        "id": "call_ask",
                    }
                ],
            ),
            "Until the end of March (handbook, page 4).",
        ]
    )
    agent = create_agent(model, knowledge_base_tools(kb))
    out = agent.invoke({"messages": [HumanMessage("Can I keep my leave days?")]})
    assert model.bound_tools == ["search_knowledge_base", "ask_knowledge_base"]
    result = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    payload = json.loads(str(result.content))
    assert payload["refused"] is False
    assert "end of March" in payload["citations"][0]["quote"]
    # the model's second call saw the verified quote
    assert any("end of March" in str(m.content) for m in model.calls[1])
