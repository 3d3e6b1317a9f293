"""What an agent's knowledge-base tools return, shared by every agent framework.

The LangChain tools (:func:`memo_integrations.langchain.knowledge_base_tools`) and
the MCP server (``memo mcp``) expose the same two tools with the same payloads,
so an agent sees one contract whichever way it reaches memo:

* ``search_knowledge_base``: the best passages, each with what is needed to cite
  it (source, title, locator such as page / heading / timecode, character span);
* ``ask_knowledge_base``: memo's guarded answer, verified quotes with their
  locators, or an honest refusal (``{"refused": true, "reason": ...}``) with the
  nearest passages clearly marked as not an answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memo_core.answer.engine import GuardedAnswerer
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.types import Hit

__all__ = [
    "ASK_DESCRIPTION",
    "SEARCH_DESCRIPTION",
    "ask_knowledge_base",
    "hit_payload",
    "search_knowledge_base",
]

SEARCH_DESCRIPTION = (
    "Search the user's private knowledge base (their documents, notes, web pages). "
    "Returns the most relevant passages, each with its source, title and locator "
    "(page, heading or timecode), to read and cite."
)
ASK_DESCRIPTION = (
    "Answer a question from the user's private knowledge base with verbatim, verified "
    "quotes and their locations, or an explicit refusal when the documents do not "
    "answer it. Prefer this to guessing; never present a refusal as an answer."
)

#: The most passages one tool call may return (a model asking for 10,000 gets this).
MAX_K = 50


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError("k must be a positive integer")
    return min(k, MAX_K)


def hit_payload(hit: Hit) -> dict[str, Any]:
    """A search hit as a tool returns it: the text and how to cite it."""
    return {
        "text": hit.text,
        "source": hit.source,
        "title": hit.title,
        "locator": dict(hit.locator),
        "chunk_id": hit.chunk_id,
        "document_id": hit.document_id,
        "start": hit.start,
        "end": hit.end,
        "score": hit.score,
    }


def search_knowledge_base(
    kb: MemoBase, query: str, *, k: int = 5, filter: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``{"query": ..., "results": [hit_payload, ...]}`` for a hybrid search."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("query must be a non-empty string")
    hits = kb.search(query, k=_check_k(k), filter=filter)
    return {"query": query, "results": [hit_payload(h) for h in hits]}


def ask_knowledge_base(
    answerer: GuardedAnswerer,
    question: str,
    *,
    k: int | None = None,
    filter: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The guarded answer as a dict: ``refused`` says whether it is an answer at all."""
    if not isinstance(question, str) or not question.strip():
        raise InvalidInputError("question must be a non-empty string")
    result = answerer.ask(
        question,
        k=None if k is None else _check_k(k),
        filter=dict(filter) if filter is not None else None,
    )
    return result.to_dict()
