"""A small LangGraph agent whose long-term memory is a MemoHoodStore."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.graph", reason="langgraph is not installed")

from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from memo_core.embedders import HashEmbedder
from memo_core.memory import RecallGate
from memo_integrations.langchain import MemoHoodStore, remember_and_recall


@dataclass
class Context:
    user_id: str


class State(TypedDict, total=False):
    message: str
    memory: str
    reply: str
    notes: list[str]


def recall_node(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    assert runtime.store is not None
    block = remember_and_recall(runtime.store, (runtime.context.user_id,), state["message"])  # type: ignore[arg-type]
    return {"memory": block}


def answer_node(state: State) -> dict[str, Any]:
    # The parrot model returns the last message it was sent: the prompt shows through.
    prompt = [
        SystemMessage(content=state.get("memory") or "(no memory)"),
        HumanMessage(content=state["message"]),
    ]
    model = ParrotFakeChatModel()
    seen = model.invoke([HumanMessage(content="\n".join(str(m.content) for m in prompt))])
    return {"reply": str(seen.content)}


def notes_node(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    store = get_store()  # the same store, through the config accessor
    ns = (runtime.context.user_id, "notes")
    store.put(ns, f"note-{len(store.search(ns, limit=100))}", {"text": state["message"]})
    return {"notes": [i.value["text"] for i in store.search(ns, query=state["message"], limit=3)]}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoHoodStore]:
    s = MemoHoodStore(tmp_path / "agent-memory.db", embedder=HashEmbedder(64), gate=RecallGate())
    yield s
    s.close()


def build(store: MemoHoodStore) -> Any:
    graph = StateGraph(State, context_schema=Context)
    graph.add_node("recall", recall_node)
    graph.add_node("notes", notes_node)
    graph.add_node("answer", answer_node)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "notes")
    graph.add_edge("notes", "answer")
    graph.add_edge("answer", END)
    return graph.compile(store=store)


def test_graph_remembers_across_runs(store: MemoHoodStore) -> None:
    app = build(store)
    first = app.invoke({"message": "I'm allergic to penicillin."}, context=Context("alice"))
    assert first["memory"] == ""
    assert "(no memory)" in first["reply"]
    second = app.invoke(
        {"message": "Can you suggest an antibiotic for strep throat?"}, context=Context("alice")
    )
    assert "penicillin" in second["memory"]
    assert "penicillin" in second["reply"]  # the model saw the recalled block
    # The store holds both the facts capture learned and the node's notes.
    assert ("alice", "notes") in store.list_namespaces(prefix=("alice",))
    assert len(store.search(("alice", "notes"), limit=10)) == 2
    # Another user shares nothing.
    other = app.invoke({"message": "Which antibiotic is safe for me?"}, context=Context("bob"))
    assert other["memory"] == ""
    assert other["notes"] == ["Which antibiotic is safe for me?"]


async def test_graph_async_path(store: MemoHoodStore) -> None:
    async def async_notes(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        assert runtime.store is not None
        ns = (runtime.context.user_id, "notes")
        await runtime.store.aput(ns, "last", {"text": state["message"]})
        items = await runtime.store.asearch(ns, query=state["message"])
        return {"notes": [i.value["text"] for i in items]}

    graph = StateGraph(State, context_schema=Context)
    graph.add_node("notes", async_notes)
    graph.add_edge(START, "notes")
    graph.add_edge("notes", END)
    app = graph.compile(store=store)
    out = await app.ainvoke({"message": "buy oat milk"}, context=Context("carol"))
    assert out["notes"] == ["buy oat milk"]
    out = await app.ainvoke({"message": "buy rye bread"}, context=Context("carol"))
    assert out["notes"] == ["buy rye bread"]  # same key: superseded, one current version
    item = await store.aget(("carol", "notes"), "last")
    assert item is not None and item.value == {"text": "buy rye bread"}
