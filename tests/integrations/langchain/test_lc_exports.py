"""The public surface of memo_integrations.langchain, pinned (a change must be deliberate)."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph.store.base", reason="the langchain extra is not installed")

import memo_integrations.langchain as lc

EXPECTED = [
    "GuardedQA",
    "LangChainEmbedder",
    "LangChainLLM",
    "MemoBaseRetriever",
    "MemoBaseVectorStore",
    "MemoEmbeddings",
    "MemoHoodChatMessageHistory",
    "MemoHoodMiddleware",
    "MemoHoodStore",
    "MemoUnifiedRetriever",
    "ScriptedChatModel",
    "hit_to_document",
    "knowledge_base_tools",
    "remember_and_recall",
]


def test_exported_names() -> None:
    assert lc.__all__ == EXPECTED
    assert lc.__all__ == sorted(lc.__all__)
    for name in EXPECTED:
        assert getattr(lc, name).__module__.startswith("memo_integrations.langchain.")
