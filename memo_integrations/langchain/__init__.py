"""LangChain and LangGraph adapters for memo (pip install "memo[langchain]").

Thin adapters, one module per LangChain abstraction; every behaviour lives in
``memo_core``:

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
  conflict-aware retriever.
"""

from memo_integrations.langchain.chat_history import MemoHoodChatMessageHistory
from memo_integrations.langchain.embeddings import LangChainEmbedder, MemoEmbeddings
from memo_integrations.langchain.llm import LangChainLLM
from memo_integrations.langchain.qa import GuardedQA
from memo_integrations.langchain.retriever import MemoBaseRetriever, hit_to_document
from memo_integrations.langchain.store import MemoHoodStore, remember_and_recall
from memo_integrations.langchain.unified import MemoUnifiedRetriever
from memo_integrations.langchain.vectorstore import MemoBaseVectorStore

__all__ = [
    "GuardedQA",
    "LangChainEmbedder",
    "LangChainLLM",
    "MemoBaseRetriever",
    "MemoBaseVectorStore",
    "MemoEmbeddings",
    "MemoHoodChatMessageHistory",
    "MemoHoodStore",
    "MemoUnifiedRetriever",
    "hit_to_document",
    "remember_and_recall",
]
