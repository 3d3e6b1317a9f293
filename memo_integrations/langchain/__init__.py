"""LangChain and LangGraph adapters for memo (pip install "memo[langchain]").

Thin adapters, one module per LangChain abstraction; every behaviour lives in
``memo_core``:

* :class:`MemoHoodMiddleware` (``middleware``): recall before each model call and
  capture after each run, for a LangChain 1.x ``create_agent`` agent;
* :func:`knowledge_base_tools` (``tools``): ``search_knowledge_base`` and
  ``ask_knowledge_base`` (quote or refuse) as LangChain tools;
* :class:`MemoBaseRetriever` (``retriever``) and :class:`MemoBaseVectorStore`
  (``vectorstore``) over a knowledge base;
* :class:`MemoEmbeddings` / :class:`LangChainEmbedder` (``embeddings``): embedders
  both ways;
* :class:`MemoHoodStore` and :func:`remember_and_recall` (``store``): long-term
  memory as a LangGraph ``BaseStore``;
* :class:`MemoHoodChatMessageHistory` (``chat_history``);
* :class:`LangChainLLM` (``llm``): a chat model as memo's tool-less ``LLM``;
* :class:`GuardedQA` (``qa``): the quote-or-refuse answer engine as a Runnable;
* :class:`MemoUnifiedRetriever` (``unified``): memory and documents in one ranked,
  conflict-aware retriever;
* :class:`ScriptedChatModel` (``fake``): a deterministic tool-calling chat model for
  tests and notebooks with no key.

Names load lazily, each with its own module: with ``langchain-core`` alone the
retriever, vector store, embeddings, chat history, QA and tools work, and the
LangGraph store (``langgraph``) and the middleware (``langchain``) raise
:class:`~memo_core.errors.MissingDependencyError` naming the extra when used.
"""

from __future__ import annotations

import typing

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from memo_core.errors import MissingDependencyError

    raise MissingDependencyError(
        "langchain-core", "langchain", "the LangChain integration"
    ) from exc

from memo_core.lazy import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from memo_integrations.langchain.chat_history import MemoHoodChatMessageHistory
    from memo_integrations.langchain.embeddings import LangChainEmbedder, MemoEmbeddings
    from memo_integrations.langchain.fake import ScriptedChatModel
    from memo_integrations.langchain.llm import LangChainLLM
    from memo_integrations.langchain.middleware import MemoHoodMiddleware
    from memo_integrations.langchain.qa import GuardedQA
    from memo_integrations.langchain.retriever import MemoBaseRetriever, hit_to_document
    from memo_integrations.langchain.store import MemoHoodStore, remember_and_recall
    from memo_integrations.langchain.tools import knowledge_base_tools
    from memo_integrations.langchain.unified import MemoUnifiedRetriever
    from memo_integrations.langchain.vectorstore import MemoBaseVectorStore

#: Where each public name lives (the module is imported on first use).
_MODULES = {
    "GuardedQA": "qa",
    "LangChainEmbedder": "embeddings",
    "LangChainLLM": "llm",
    "MemoBaseRetriever": "retriever",
    "MemoBaseVectorStore": "vectorstore",
    "MemoEmbeddings": "embeddings",
    "MemoHoodChatMessageHistory": "chat_history",
    "MemoHoodMiddleware": "middleware",
    "MemoHoodStore": "store",
    "MemoUnifiedRetriever": "unified",
    "ScriptedChatModel": "fake",
    "hit_to_document": "retriever",
    "knowledge_base_tools": "tools",
    "remember_and_recall": "store",
}

__all__ = [
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


__getattr__, __dir__ = _lazy_exports(__name__, _MODULES, globals())
