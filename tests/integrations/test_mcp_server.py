"""``memo mcp`` through the official MCP SDK's own stdio client, and through
``langchain-mcp-adapters`` into a ``create_agent`` agent."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_core.kb.store import ChunkInput

POLICY = (
    "Refunds are accepted within fourteen days of delivery. Opened software cannot be returned."
)
LAUNCH = "from memo_core.cli import main; raise SystemExit(main())"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    kb_path = tmp_path / "kb.db"
    with MemoBase(kb_path, embedder=HashEmbedder(256)) as kb:
        kb.add_document(
            POLICY,
            document_id="policy",
            source="policy.pdf",
            title="Returns policy",
            chunks=[ChunkInput(POLICY, 0, len(POLICY), locator={"page": 3})],
        )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Warranty\n\nThe warranty lasts two years.\n")
    return {"kb": kb_path, "memory": tmp_path / "memory.db", "docs": docs, "tmp": tmp_path}


def server(files: dict[str, Path], *extra: str) -> StdioServerParameters:
    args = [
        "-c", LAUNCH, "mcp",
        "--kb", str(files["kb"]), "--kb-embedder", "hash",
        "--memory", str(files["memory"]), "--memory-embedder", "hash",
        "--root", str(files["docs"]),
        *extra,
    ]  # fmt: skip
    # The SDK passes the child only a safe subset of the environment: give it ours, so it
    # imports this checkout of memo (PYTHONPATH) as the test does.
    return StdioServerParameters(
        command=sys.executable, args=args, cwd=str(files["tmp"]), env=dict(os.environ)
    )


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    result = await session.call_tool(tool, arguments)
    if result.isError:
        return {"error": result.content[0].text}  # type: ignore[union-attr]
    return json.loads(result.content[0].text) if result.content else None  # type: ignore[union-attr]


async def test_the_sdk_client_over_stdio(files: dict[str, Path]) -> None:
    async with (
        stdio_client(server(files, "--namespace", "alice")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert names == {
            "search_knowledge_base", "ask_knowledge_base", "ingest",
            "remember", "recall", "memory_history", "forget", "pin",
        }  # fmt: skip
        found = await call(session, "search_knowledge_base", query="refund delivery", k=2)
        assert found["results"][0]["locator"] == {"page": 3}
        answer = await call(
            session, "ask_knowledge_base", question="Within how many days are refunds accepted?"
        )
        assert answer["refused"] is False
        assert "fourteen days" in answer["citations"][0]["quote"]
        assert answer["citations"][0]["locator"] == {"page": 3}
        refusal = await call(
            session, "ask_knowledge_base", question="Who painted the office mural?"
        )
        assert refusal["refused"] is True
        # ingest: inside the configured root only
        report = await call(session, "ingest", paths=[str(files["docs"] / "note.md")])
        assert report["added"] or report.get("documents")
        outside = await call(session, "ingest", paths=[str(files["kb"])])
        assert "error" in outside or outside.get("failed")
        # memory
        fact = await call(session, "remember", statement="I am allergic to penicillin.")
        assert fact["pinned"] is True  # health facts pin by default
        recalled = await call(session, "recall", message="Suggest an antibiotic for my cough")
        assert "penicillin" in recalled["block"]
        history = await call(session, "memory_history", fact_id=fact["id"])
        assert "versions" in history, history
        assert [h["statement"] for h in history["versions"]] == ["I am allergic to penicillin."]
        other = await call(session, "recall", message="antibiotic", namespace=["bob"])
        assert "error" in other and "refuses" in other["error"]
        pinned = await call(session, "pin", fact_id=fact["id"])
        assert pinned["pinned"] is True
        gone = await call(session, "forget", fact_id=fact["id"])
        assert gone["deleted_versions"] == 1
        after = await call(session, "recall", message="Suggest an antibiotic for my cough")
        assert "penicillin" not in after["block"]


async def test_memory_tools_fail_closed_without_a_namespace(files: dict[str, Path]) -> None:
    async with stdio_client(server(files)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        refused = await call(session, "remember", statement="I live in Oslo.")
        assert "error" in refused and "namespace" in refused["error"]
        explicit = await call(session, "remember", statement="I live in Oslo.", namespace=["carol"])
        assert explicit["statement"] == "I live in Oslo."


async def test_langchain_mcp_adapters_load_the_tools_into_create_agent(
    files: dict[str, Path],
) -> None:
    pytest.importorskip("langchain_mcp_adapters", reason="langchain-mcp-adapters is not installed")
    pytest.importorskip("langchain.agents", reason="langchain (1.x) is not installed")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_mcp_adapters.tools import load_mcp_tools

    from memo_integrations.langchain import ScriptedChatModel

    async with (
        stdio_client(server(files, "--namespace", "alice")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await load_mcp_tools(session)
        model = ScriptedChatModel(
            replies=[
                AIMessage(
                    content="",
                    tool_calls=[
                        {
                            "name": "ask_knowledge_base",
                            "args": {"question": "Can opened software be returned?"},
                            "id": "call_1",
                        }
                    ],
                ),
                "No: opened software cannot be returned (policy, page 3).",
            ]
        )
        agent = create_agent(model, tools)
        out = await agent.ainvoke({"messages": [HumanMessage("May I return opened software?")]})
        assert "ask_knowledge_base" in model.bound_tools and "remember" in model.bound_tools
        result = next(m for m in out["messages"] if isinstance(m, ToolMessage))
        text = result.content if isinstance(result.content, str) else result.content[0]["text"]
        payload = json.loads(text)
        assert payload["refused"] is False
        assert "cannot be returned" in payload["citations"][0]["quote"]
