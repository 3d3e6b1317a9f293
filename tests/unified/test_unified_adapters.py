"""The LangChain and LlamaIndex retrievers over both sources, end to end (hash embedder)."""

from __future__ import annotations

from typing import Any

import pytest

from memo_core.kb import MemoBase
from memo_core.memory import MemoHood

from .conftest import USER, add_grant, tell_hollis

QUESTION = "When is the Hollis report due?"


@pytest.fixture
def both(memory: MemoHood, kb: MemoBase) -> tuple[MemoHood, MemoBase]:
    tell_hollis(memory)
    add_grant(kb)
    return memory, kb


def _check_metadata(items: list[tuple[str, dict[str, Any]]]) -> None:
    """``items``: (text, metadata) in the retriever's order."""
    sources = [m["source"] for _, m in items]
    assert set(sources) == {"memory", "kb"}
    memory_meta = next(m for t, m in items if "March 27" in t)
    assert memory_meta["source"] == "memory" and memory_meta["kind"] == "fact"
    assert memory_meta["valid_from"].startswith("2026-03-08") and memory_meta["valid_to"] is None
    assert memory_meta["version"] == 3 and memory_meta["label"].startswith("[memory, said")
    kb_meta = next(m for _, m in items if m["source"] == "kb")
    assert kb_meta["heading"] == "Hollis grant" and kb_meta["title"] == "Grant schedule"
    assert kb_meta["document_source"] == "notes/grant-schedule.md"
    assert kb_meta["label"] == "[document: Grant schedule, § Hollis grant]"
    for meta in (memory_meta, kb_meta):
        [conflict] = meta["conflicts"]
        assert conflict["kind"] == "date" and conflict["attribute"] == "deadline"
    scores = [m["score"] for _, m in items]
    assert scores == sorted(scores, reverse=True)


def test_langchain_retriever(both: tuple[MemoHood, MemoBase]) -> None:
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    from memo_integrations.langchain.unified import MemoUnifiedRetriever

    memory, kb = both
    retriever = MemoUnifiedRetriever(memory=memory, kb=kb, namespace=USER)
    docs = retriever.invoke(QUESTION)
    _check_metadata([(d.page_content, d.metadata) for d in docs])
    assert docs[0].id is not None and docs[0].id.startswith(("memory:", "kb:"))
    assert len(retriever.invoke(QUESTION, k=1)) == 1
    assert "<context>" in retriever.recall(QUESTION).render()


async def test_langchain_retriever_async(both: tuple[MemoHood, MemoBase]) -> None:
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    from memo_integrations.langchain.unified import MemoUnifiedRetriever

    memory, kb = both
    docs = await MemoUnifiedRetriever(memory=memory, kb=kb, namespace="alice").ainvoke(QUESTION)
    _check_metadata([(d.page_content, d.metadata) for d in docs])


@pytest.fixture
def no_llamaindex_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any read or write of LlamaIndex's global models fails the test."""
    pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")
    from llama_index.core.settings import _Settings

    def forbidden(self: object, value: object = None) -> Any:
        raise AssertionError("LlamaIndex global Settings were used")

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(_Settings, "llm", property(forbidden, forbidden))
    monkeypatch.setattr(_Settings, "embed_model", property(forbidden, forbidden))


def test_llamaindex_retriever(
    both: tuple[MemoHood, MemoBase], no_llamaindex_settings: None
) -> None:
    from memo_integrations.llamaindex.unified import MemoUnifiedRetriever

    memory, kb = both
    retriever = MemoUnifiedRetriever(memory, kb, namespace=USER, k=4)
    nodes = retriever.retrieve(QUESTION)
    _check_metadata([(n.node.get_content(), n.node.metadata) for n in nodes])
    assert [n.score for n in nodes] == [n.node.metadata["score"] for n in nodes]
    assert retriever.last_recall is not None and len(retriever.last_recall.conflicts) == 1
    llm_view = nodes[0].node.get_content(metadata_mode="llm")  # type: ignore[arg-type]
    assert "conflicts" not in llm_view and "source: " in llm_view


async def test_llamaindex_retriever_async(
    both: tuple[MemoHood, MemoBase], no_llamaindex_settings: None
) -> None:
    from memo_integrations.llamaindex.unified import MemoUnifiedRetriever

    memory, kb = both
    nodes = await MemoUnifiedRetriever(memory, kb, namespace=USER).aretrieve(QUESTION)
    _check_metadata([(n.node.get_content(), n.node.metadata) for n in nodes])


def test_llamaindex_retriever_needs_a_source(no_llamaindex_settings: None) -> None:
    from memo_core.errors import InvalidInputError
    from memo_integrations.llamaindex.unified import MemoUnifiedRetriever

    with pytest.raises(InvalidInputError):
        MemoUnifiedRetriever()
