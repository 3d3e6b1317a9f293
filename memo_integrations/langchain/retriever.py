"""``MemoBaseRetriever``: a LangChain retriever over a memo knowledge base.

Runs :meth:`memo_core.kb.base.MemoBase.search` (hybrid by default: FTS5/BM25 and
vectors fused by RRF) and returns one ``Document`` per chunk, carrying what a
chain needs to cite it: source, title, page/heading/timecode locators, chunk and
document ids, the character span and the scores.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field

from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.types import Hit

__all__ = ["MemoBaseRetriever", "hit_to_document", "merge_filters"]

Mode = Literal["hybrid", "keyword", "vector", "mmr"]

#: ``as_retriever()``'s ``search_type`` names, as memo search modes.
_SEARCH_TYPES: dict[str, Mode] = {
    "similarity": "vector",
    "vector": "vector",
    "hybrid": "hybrid",
    "keyword": "keyword",
    "mmr": "mmr",
}
_SEARCH_KWARGS = ("k", "filter", "collection", "mode", "fetch_k", "lambda_mult", "weights")


def hit_to_document(hit: Hit) -> Document:
    """A ``Document`` for a memo hit: chunk text plus citation metadata.

    The chunk's own metadata (document metadata, then its locator: ``page``,
    ``heading``, ``timecode``...) comes first; memo's fields (``source``, ``title``,
    ``chunk_id``, ``document_id``, ``collection``, ``start``, ``end``, ``score`` and
    the per-leg ranks) override same-named keys, so they can always be trusted.
    """
    metadata: dict[str, Any] = {**hit.metadata, **hit.locator}
    metadata.update(
        source=hit.source,
        title=hit.title,
        chunk_id=hit.chunk_id,
        document_id=hit.document_id,
        collection=hit.collection,
        start=hit.start,
        end=hit.end,
        score=hit.score,
        keyword_rank=hit.keyword_rank,
        vector_rank=hit.vector_rank,
        vector_similarity=hit.vector_similarity,
    )
    if hit.rerank_score is not None:
        metadata["rerank_score"] = hit.rerank_score
    return Document(id=hit.chunk_id, page_content=hit.text, metadata=metadata)


def merge_filters(*filters: dict[str, Any] | None) -> dict[str, Any] | None:
    """AND together the non-empty metadata filters (``None`` when there are none)."""
    present = [f for f in filters if f]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return {"$and": present}


def _from_as_retriever_arguments(data: dict[str, Any]) -> dict[str, Any]:
    """Read ``search_type`` / ``search_kwargs`` as ``VectorStore.as_retriever()`` takes them.

    ``search_type``: ``"similarity"`` (vector), ``"hybrid"``, ``"keyword"`` or
    ``"mmr"``; ``search_kwargs``: ``k``, ``filter``, ``collection``, ``fetch_k`` and
    ``lambda_mult`` (MMR), ``weights`` (hybrid: per-leg fusion weights). Anything
    else (``"similarity_score_threshold"``, ``score_threshold``, a misspelt key) is
    refused, never silently ignored.
    """
    data = dict(data)
    search_type = data.pop("search_type", None)
    search_kwargs = data.pop("search_kwargs", None) or {}
    if not isinstance(search_kwargs, dict):
        raise InvalidInputError("search_kwargs must be a dict")
    unknown = sorted(set(search_kwargs) - set(_SEARCH_KWARGS))
    if unknown:
        raise InvalidInputError(
            f"MemoBaseRetriever does not take search_kwargs {unknown}; "
            f"it takes {list(_SEARCH_KWARGS)}"
        )
    for key, value in search_kwargs.items():
        if key in data and data[key] != value:
            raise InvalidInputError(f"{key} given twice (as an argument and in search_kwargs)")
        data[key] = value
    fetch_k = data.get("fetch_k", 1)
    if isinstance(fetch_k, bool) or not isinstance(fetch_k, int) or fetch_k < 1:
        raise InvalidInputError(f"fetch_k must be a positive integer, not {fetch_k!r}")
    lambda_mult = data.get("lambda_mult", 0.5)
    if isinstance(lambda_mult, bool) or not isinstance(lambda_mult, int | float):
        raise InvalidInputError(f"lambda_mult must be a number, not {lambda_mult!r}")
    if not 0.0 <= lambda_mult <= 1.0:
        raise InvalidInputError("lambda_mult must be between 0 and 1")
    if search_type is not None:
        if search_type not in _SEARCH_TYPES:
            raise InvalidInputError(
                f"MemoBaseRetriever does not support search_type {search_type!r}; "
                f"use one of {sorted(_SEARCH_TYPES)}"
            )
        mode = _SEARCH_TYPES[search_type]
        if data.get("mode", mode) != mode:
            raise InvalidInputError("search_type and mode disagree")
        data["mode"] = mode
    return data


class MemoBaseRetriever(BaseRetriever):
    """Retrieve chunks from a :class:`~memo_core.kb.base.MemoBase`.

    ``k``, ``mode``, ``collection`` and ``filter`` set the defaults; each can be
    overridden per call: ``retriever.invoke("query", k=3, filter={"page": 2})``.
    ``mode="mmr"`` picks ``k`` of the ``fetch_k`` nearest chunks by maximal marginal
    relevance (``lambda_mult`` 1: relevance only, 0: diversity only);
    ``weights={"keyword": ..., "vector": ...}`` sets the hybrid legs' fusion weights.
    ``search_type`` and ``search_kwargs`` are accepted as ``as_retriever()`` takes
    them (unknown ones are refused).
    A per-call ``filter`` is ANDed with the constructor's, so a retriever built for
    one tenant's documents cannot be widened by a call. ``owner`` scopes the search
    to another owner of the same file (default: the base's own owner).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    def __init__(self, **data: Any) -> None:
        # Checked here, not in a pydantic validator, so the error stays a typed MemoError.
        super().__init__(**_from_as_retriever_arguments(data))

    kb: MemoBase
    k: int = Field(default=4, ge=0)
    mode: Mode = "hybrid"
    collection: str | list[str] | None = None
    filter: dict[str, Any] | None = None
    owner: str | None = None
    fetch_k: int = 20
    lambda_mult: float = 0.5
    weights: dict[str, float] | None = None

    def search_hits(
        self,
        query: str,
        *,
        k: int | None = None,
        mode: Mode | None = None,
        collection: str | list[str] | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[Hit]:
        """The raw memo hits behind :meth:`invoke` (for callers that want ``Hit``)."""
        run = mode or self.mode
        k = self.k if k is None else k
        collection = collection if collection is not None else self.collection
        scope = merge_filters(self.filter, filter)
        if run == "mmr":
            return self.kb.search_mmr(
                query,
                k=k,
                fetch_k=self.fetch_k,
                lambda_mult=self.lambda_mult,
                collection=collection,
                filter=scope,
                owner=self.owner,
            )
        return self.kb.search(
            query,
            k=k,
            mode=run,
            collection=collection,
            filter=scope,
            owner=self.owner,
            weights=self.weights if run == "hybrid" else None,
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        mode: Mode | None = None,
        collection: str | list[str] | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[Document]:
        hits = self.search_hits(query, k=k, mode=mode, collection=collection, filter=filter)
        return [hit_to_document(h) for h in hits]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        mode: Mode | None = None,
        collection: str | list[str] | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[Document]:
        # The database object is thread-safe (one connection behind a lock).
        hits = await run_in_executor(
            None,
            lambda: self.search_hits(query, k=k, mode=mode, collection=collection, filter=filter),
        )
        return [hit_to_document(h) for h in hits]
