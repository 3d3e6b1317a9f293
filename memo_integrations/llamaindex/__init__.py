"""LlamaIndex adapters for memo (``pip install "memo[llamaindex]"``).

Thin adapters, one module per LlamaIndex abstraction; every behaviour lives in
``memo_core``:

- :class:`MemoBaseVectorStore` (``vector_store.py``): a memo knowledge base as a
  ``BasePydanticVectorStore`` (default, text-search and hybrid queries, filters).
- :class:`GuardedQueryEngine` (``query_engine.py``): memo's quote-or-refuse answers
  as a ``CustomQueryEngine`` (cited source nodes, refusals flagged in metadata).
- :class:`MemoEmbedding` / :class:`LlamaIndexEmbedder` (``embeddings.py``):
  embeddings both ways.
- :class:`LlamaIndexLLM` (``llm.py``): a LlamaIndex LLM as memo's ``LLM``.
- :class:`MemoHoodChatStore` (``chat_store.py``): chat histories in a MemoHood file,
  user messages captured into long-term memory.
- :class:`MemoHoodMemoryBlock` (``memory_block.py``): MemoHood as a block of
  ``llama_index.core.memory.Memory`` (capture on flush, gated recall on get), and
  :func:`memo_memory`, a ``Memory`` whose history and long-term memory both live in
  the memo file and reach the model with ``ReActAgent`` and ``FunctionAgent``.
- :class:`MemoHoodDBChatStore` (``db_chat_store.py``): the ``AsyncDBChatStore`` that
  ``Memory`` keeps its short-term queue in.
- :class:`MemoUnifiedRetriever` (``unified.py``): memory and documents in one
  ranked, conflict-aware retriever.

Names load lazily, each with its own module, so importing the package costs only
``llama_index.core`` and never imports LangChain or LangGraph.

LlamaIndex's global ``Settings`` are never read: pass ``embed_model=`` and
``llm=`` explicitly (its defaults resolve to OpenAI).
"""

from __future__ import annotations

import typing

try:
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    from memo_core.errors import MissingDependencyError

    raise MissingDependencyError(
        "llama-index-core", "llamaindex", "the LlamaIndex integration"
    ) from exc

from memo_core.lazy import lazy_exports as _lazy_exports

if typing.TYPE_CHECKING:
    from memo_integrations.llamaindex.chat_store import MemoHoodChatStore
    from memo_integrations.llamaindex.db_chat_store import MemoHoodDBChatStore
    from memo_integrations.llamaindex.embeddings import LlamaIndexEmbedder, MemoEmbedding
    from memo_integrations.llamaindex.filters import to_memo_filter
    from memo_integrations.llamaindex.llm import LlamaIndexLLM
    from memo_integrations.llamaindex.memory_block import MemoHoodMemoryBlock, memo_memory
    from memo_integrations.llamaindex.query_engine import GuardedQueryEngine
    from memo_integrations.llamaindex.unified import MemoUnifiedRetriever
    from memo_integrations.llamaindex.vector_store import MemoBaseVectorStore

#: Where each public name lives (the module is imported on first use).
_MODULES = {
    "GuardedQueryEngine": "query_engine",
    "LlamaIndexEmbedder": "embeddings",
    "LlamaIndexLLM": "llm",
    "MemoBaseVectorStore": "vector_store",
    "MemoEmbedding": "embeddings",
    "MemoHoodChatStore": "chat_store",
    "MemoHoodDBChatStore": "db_chat_store",
    "MemoHoodMemoryBlock": "memory_block",
    "MemoUnifiedRetriever": "unified",
    "memo_memory": "memory_block",
    "to_memo_filter": "filters",
}

__all__ = [
    "GuardedQueryEngine",
    "LlamaIndexEmbedder",
    "LlamaIndexLLM",
    "MemoBaseVectorStore",
    "MemoEmbedding",
    "MemoHoodChatStore",
    "MemoHoodDBChatStore",
    "MemoHoodMemoryBlock",
    "MemoUnifiedRetriever",
    "memo_memory",
    "to_memo_filter",
]


__getattr__, __dir__ = _lazy_exports(__name__, _MODULES, globals())
