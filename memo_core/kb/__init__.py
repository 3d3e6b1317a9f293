"""MemoBase: the knowledge base (documents, chunks, hybrid search)."""

from memo_core.kb.base import DEFAULT_COLLECTION, DEFAULT_OWNER, MemoBase
from memo_core.kb.store import ChunkInput, DocumentInfo, KnowledgeStore

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_OWNER",
    "ChunkInput",
    "DocumentInfo",
    "KnowledgeStore",
    "MemoBase",
]
