"""MemoHoodMiddleware in a real ``create_agent`` agent, with a scripted tool-calling model.

The model never calls a memory tool: whatever memory it sees, the middleware put there.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="langchain (1.x) is not installed")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import MemoHood, RecallGate
from memo_integrations.langchain import MemoHoodMiddleware, ScriptedChatModel


@dataclass
class Context:
    user_id: str


@tool
def weather(city: str) -> str:
    """Today's weather in a city."""
    return f"Sunny in {city}."


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoHood]:
    with MemoHood(tmp_path / "agent.db", embedder=HashEmbedder(64), gate=RecallGate()) as m:
        yield m


def turns(memory: MemoHood, namespace: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every raw turn memory kept for ``namespace`` (through the public export)."""
    out = io.StringIO()
    memory.export_jsonl(out, namespace=namespace)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return [r for r in records if r["type"] == "turn"]


def system_text(call: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in call if isinstance(m, SystemMessage))


def test_allergy_reaches_a_later_thread_without_any_tool_call(memory: MemoHood) -> None:
    model = ScriptedChatModel(
        replies=[
            # turn 1: the model calls an unrelated tool, then answers
            AIMessage(
                content="",
                tool_calls=[{"name": "weather", "args": {"city": "Lyon"}, "id": "call_1"}],
            ),
            "Noted, and it is sunny in Lyon.",
            # turn 2 (fresh thread): a plain answer
            "Here is a suggestion.",
        ]
    )
    agent = create_agent(
        model,
        [weather],
        system_prompt="You are a careful assistant.",
        middleware=[MemoHoodMiddleware(memory)],
        context_schema=Context,
        checkpointer=InMemorySaver(),
    )
    agent.invoke(
        {"messages": [HumanMessage("By the way, I'm allergic to penicillin. Weather in Lyon?")]},
        {"configurable": {"thread_id": "t1"}},
        context=Context(user_id="alice"),
    )
    assert model.bound_tools == ["weather"]  # the agent has no memory tool at all
    out = agent.invoke(
        {"messages": [HumanMessage("Which antibiotic should I take for a sore throat?")]},
        {"configurable": {"thread_id": "t2"}},
        context=Context(user_id="alice"),
    )
    later = model.calls[-1]
    # a fresh thread: the model sees only the new question, the system prompt and memory
    assert [type(m) for m in later] == [SystemMessage, HumanMessage]
    system = system_text(later)
    assert system.startswith("You are a careful assistant.")
    assert "penicillin" in system
    assert "penicillin" not in str(later[-1].content)
    # memory stays out of the thread's state: the block was added to the call only
    assert all("penicillin" not in str(m.content) for m in out["messages"])
    # another user never sees it
    model.queue("Ok.")
    agent.invoke(
        {"messages": [HumanMessage("Which antibiotic should I take for a sore throat?")]},
        {"configurable": {"thread_id": "t3"}},
        context=Context(user_id="bob"),
    )
    assert "penicillin" not in system_text(model.calls[-1])


def test_user_turns_become_facts_and_assistant_turns_stay_episodic(memory: MemoHood) -> None:
    model = ScriptedChatModel(replies=["You are allergic to peanuts, I will remember."])
    agent = create_agent(model, [], middleware=[MemoHoodMiddleware(memory)], context_schema=Context)
    agent.invoke(
        {"messages": [HumanMessage("I'm allergic to peanuts.")]}, context=Context(user_id="alice")
    )
    facts = memory.list_facts(namespace=("alice",))
    statements = [f.statement for f in facts]
    assert any("peanut" in s for s in statements)
    assert not any("I will remember" in s for s in statements)  # never the user's fact
    kept = [(t["role"], t["text"], t["decision"]) for t in turns(memory, ("alice",))]
    assert kept == [
        ("user", "I'm allergic to peanuts.", "keep"),
        ("assistant", "You are allergic to peanuts, I will remember.", "drop"),
    ]


def test_a_thread_is_captured_once(memory: MemoHood) -> None:
    """With a checkpointer, a second run does not capture the first run's turns again."""
    model = ScriptedChatModel(default_reply="ok")
    agent = create_agent(
        model,
        [],
        middleware=[MemoHoodMiddleware(memory, capture_assistant=False)],
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "same"}}
    ctx = {"user_id": "carol"}
    agent.invoke({"messages": [HumanMessage("I live in Porto.")]}, config, context=ctx)
    agent.invoke({"messages": [HumanMessage("I work as a nurse.")]}, config, context=ctx)
    kept = turns(memory, ("carol",))
    assert [t["text"] for t in kept] == ["I live in Porto.", "I work as a nurse."]
    assert {t["session_id"] for t in kept} == {"same"}


def test_missing_namespace_fails_closed(memory: MemoHood) -> None:
    model = ScriptedChatModel(default_reply="ok")
    agent = create_agent(model, [], middleware=[MemoHoodMiddleware(memory)])
    with pytest.raises(NamespaceRequiredError):
        agent.invoke({"messages": [HumanMessage("I'm allergic to penicillin.")]})
    assert model.calls == []  # the model was never reached without a namespace
    assert memory.list_namespaces() == []


def test_namespace_function_is_replaceable(memory: MemoHood) -> None:
    memory.remember("I am allergic to latex.", namespace=("org", "dana"))
    model = ScriptedChatModel(default_reply="ok")
    middleware = MemoHoodMiddleware(
        memory, namespace=lambda runtime: ("org", runtime.context["person"])
    )
    agent = create_agent(model, [], middleware=[middleware])
    agent.invoke(
        {"messages": [HumanMessage("Can I wear surgical gloves?")]}, context={"person": "dana"}
    )
    assert "latex" in system_text(model.calls[-1])


def test_fixed_namespace_and_path(tmp_path: Path) -> None:
    path = tmp_path / "fixed.db"
    middleware = MemoHoodMiddleware(
        path, namespace=("erin",), embedder=HashEmbedder(64), gate=RecallGate()
    )
    model = ScriptedChatModel(default_reply="ok")
    agent = create_agent(model, [], middleware=[middleware])
    agent.invoke({"messages": [HumanMessage("My daughter is called Mila.")]})
    agent.invoke({"messages": [HumanMessage("What is my daughter's name?")]})
    assert "Mila" in system_text(model.calls[-1])
    middleware.close()
    with pytest.raises(NamespaceRequiredError):
        MemoHoodMiddleware(path, namespace=())
    with MemoHood(path, embedder=HashEmbedder(64)) as m, pytest.raises(InvalidInputError):
        MemoHoodMiddleware(m, gate=RecallGate())


def test_small_talk_adds_no_block(memory: MemoHood) -> None:
    memory.remember("I am allergic to penicillin.", namespace=("alice",))
    model = ScriptedChatModel(default_reply="ok")
    agent = create_agent(model, [], middleware=[MemoHoodMiddleware(memory)])
    agent.invoke({"messages": [HumanMessage("ok thanks")]}, context={"user_id": "alice"})
    assert system_text(model.calls[-1]) == ""


async def test_async_agent(memory: MemoHood) -> None:
    memory.remember("I am allergic to penicillin.", namespace=("alice",))
    model = ScriptedChatModel(default_reply="ok")
    agent = create_agent(model, [], middleware=[MemoHoodMiddleware(memory)])
    await agent.ainvoke(
        {"messages": [HumanMessage("Suggest an antibiotic for my ear infection.")]},
        context={"user_id": "alice"},
    )
    assert "penicillin" in system_text(model.calls[-1])
    kept = [(t["role"], t["text"]) for t in turns(memory, ("alice",))]
    assert kept == [
        ("user", "Suggest an antibiotic for my ear infection."),
        ("assistant", "ok"),
    ]
