"""``MemoBaseVectorStore``: a LangChain vector store kept in a memo knowledge-base file.

Each added text is one document and one chunk whose id is the LangChain id, so
``add_documents(..., ids=...)`` upserts, ``delete(ids)`` and ``get_by_ids(ids)``
address exactly what was added. Searches run in memo: ``search_mode="vector"`` by
default (LangChain users expect semantic search), ``"hybrid"`` to add the BM25 leg
fused by RRF, ``"keyword"`` for FTS5 only. Metadata filters are memo's Mongo-style
filters, compiled to SQL with bound parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Self

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.kb.base import DEFAULT_COLLECTION, DEFAULT_OWNER, MemoBase
from memo_core.types import Hit
from memo_integrations.langchain.embeddings import (
    LangChainEmbedder,
    MemoEmbeddings,
    as_memo_embedder,
)

__all__ = ["MemoBaseVectorStore"]

SearchModeName = Literal["vector", "hybrid", "keyword"]
_STORE_DEFAULTS = ("source", "title")


class MemoBaseVectorStore(VectorStore):
    """A vector store over one collection of a memo knowledge base.

    ``kb``: an open :class:`~memo_core.kb.base.MemoBase`, or a path to open one with
    ``embedding`` (any LangChain ``Embeddings``; a :class:`MemoEmbeddings` keeps the
    memo model's fingerprint; ``None`` with a path means the offline default model).
    ``owner`` scopes every call to another owner of the same file.
    """

    def __init__(
        self,
        kb: MemoBase | str | Path,
        embedding: Embeddings | None = None,
        *,
        collection: str = DEFAULT_COLLECTION,
        search_mode: SearchModeName = "vector",
        owner: str | None = None,
    ) -> None:
        if isinstance(kb, MemoBase):
            if embedding is not None:
                raise InvalidInputError(
                    "an open MemoBase already has its embedder; pass embedding= only with a path"
                )
            base = kb.for_owner(owner) if owner else kb
        else:
            embedder: Embedder | str = as_memo_embedder(embedding) if embedding else "auto"
            base = MemoBase(kb, embedder=embedder, owner=owner or DEFAULT_OWNER)
        if search_mode not in ("vector", "hybrid", "keyword"):
            raise InvalidInputError(f"unknown search_mode {search_mode!r}")
        if not collection:
            raise InvalidInputError("collection must be a non-empty string")
        self.kb = base
        self.collection = collection
        self.search_mode: SearchModeName = search_mode

    # -- LangChain plumbing -------------------------------------------------

    @property
    def embeddings(self) -> Embeddings | None:
        embedder = self.kb.embedder
        if embedder is None:
            return None
        if isinstance(embedder, LangChainEmbedder):
            return embedder.embeddings
        return MemoEmbeddings(embedder)

    def _documents(self, hits: Sequence[Hit]) -> list[Document]:
        """Documents whose metadata is what the caller stored: memo adds ``source`` and
        ``title`` to every chunk's metadata, which are dropped again unless the caller's
        own document metadata had them."""
        own: dict[str, dict[str, Any]] = {}
        out = []
        for hit in hits:
            if hit.document_id not in own:
                try:
                    own[hit.document_id] = self.kb.get_document(hit.document_id).metadata
                except NotFoundError:  # deleted since the search: keep what the hit has
                    own[hit.document_id] = hit.metadata
            meta = {
                key: value
                for key, value in hit.metadata.items()
                if key not in _STORE_DEFAULTS or key in own[hit.document_id]
            }
            out.append(Document(id=hit.chunk_id, page_content=hit.text, metadata=meta))
        return out

    # -- writes -------------------------------------------------------------

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Store each text as one chunk; an existing id is replaced atomically."""
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        items = list(texts)
        return self.kb.add_texts(
            items,
            metadatas=metadatas,
            ids=[i or "" for i in ids] if ids is not None else None,
            collection=self.collection,
        )

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete by id (missing ids are ignored); ``ids=None`` empties the collection."""
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        if ids is None:
            while docs := self.kb.list_documents(self.collection, limit=500):
                self.kb.delete([d.id for d in docs])
            return True
        mine = [
            h.document_id for h in self.kb.get_chunks(list(ids)) if h.collection == self.collection
        ]
        self.kb.delete(mine)
        return True

    # -- reads --------------------------------------------------------------

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        hits = [h for h in self.kb.get_chunks(list(ids)) if h.collection == self.collection]
        return self._documents(hits)

    def similarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Best ``k`` documents with memo's score for the store's ``search_mode``
        (cosine similarity for ``"vector"``, RRF for ``"hybrid"``, -BM25 for ``"keyword"``)."""
        mode = kwargs.pop("search_mode", self.search_mode)
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        hits = self.kb.search(query, k=k, mode=mode, collection=self.collection, filter=filter)
        return list(zip(self._documents(hits), (h.score for h in hits), strict=True))

    def similarity_search(
        self,
        query: str,
        k: int = 4,
        filter: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter, **kwargs)]

    def _similarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Relevance in [0, 1] is the cosine similarity clipped at 0, whatever the mode
        (RRF and BM25 scores have no absolute scale)."""
        where = kwargs.pop("filter", None)
        mode = kwargs.pop("search_mode", self.search_mode)
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        if self.kb.embedder is None:
            raise InvalidInputError("relevance scores need an embedder (cosine similarity)")
        hits = self.kb.search(query, k=k, mode=mode, collection=self.collection, filter=where)
        sims = [max(0.0, min(1.0, h.vector_similarity or 0.0)) for h in hits]
        return list(zip(self._documents(hits), sims, strict=True))

    def similarity_search_by_vector_with_score(
        self,
        embedding: list[float],
        k: int = 4,
        filter: dict[str, Any] | None = None,
    ) -> list[tuple[Document, float]]:
        hits = self.kb.search_by_vector(embedding, k=k, collection=self.collection, filter=filter)
        return list(zip(self._documents(hits), (h.score for h in hits), strict=True))

    def similarity_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        filter: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        return [d for d, _ in self.similarity_search_by_vector_with_score(embedding, k, filter)]

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        if self.kb.embedder is None:
            raise InvalidInputError("max marginal relevance needs an embedder")
        vector = self.kb.embedder.embed_query(query)
        return self.max_marginal_relevance_search_by_vector(
            vector, k, fetch_k, lambda_mult, filter=filter, **kwargs
        )

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """``fetch_k`` nearest chunks, re-ranked by MMR on their stored vectors
        (:meth:`MemoBase.search_mmr`)."""
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        hits = self.kb.search_mmr(
            query_vector=embedding,
            k=k,
            fetch_k=fetch_k,
            lambda_mult=lambda_mult,
            collection=self.collection,
            filter=filter,
        )
        return self._documents(hits)

    # -- construction -------------------------------------------------------

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[str, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        path: str | Path = ":memory:",
        collection: str = DEFAULT_COLLECTION,
        search_mode: SearchModeName = "vector",
        owner: str | None = None,
        **kwargs: Any,
    ) -> Self:
        """A store at ``path`` (in memory by default) holding ``texts``."""
        if kwargs:
            raise TypeError(f"unexpected arguments: {sorted(kwargs)}")
        store = cls(path, embedding, collection=collection, search_mode=search_mode, owner=owner)
        store.add_texts(texts, metadatas, ids=ids)
        return store
