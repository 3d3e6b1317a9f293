"""``MemoBaseVectorStore``: a memo knowledge base as a LlamaIndex vector store.

Nodes live in the base's SQLite file (one memo document per node, see
``nodes.py``), so keyword search (FTS5/BM25), vector search (sqlite-vec) and
their fusion all run on the same rows. Query modes:

``DEFAULT``
    Nearest neighbours of ``query_embedding`` (cosine similarity as the score).
    Without ``query_embedding`` the base's own embedder embeds ``query_str``.
``TEXT_SEARCH`` (and ``SPARSE``, memo's sparse leg is BM25)
    Keyword search of ``query_str``; score = negated BM25 (higher is better).
``HYBRID``
    Both legs fused by Reciprocal Rank Fusion (:func:`memo_core.search.rrf.rrf`,
    ``k`` from ``kb.searcher.settings.rrf_k``). The vector leg returns
    ``similarity_top_k`` candidates, the keyword leg ``sparse_top_k`` (default
    ``similarity_top_k``); the fused list is cut to ``hybrid_top_k`` (default
    ``similarity_top_k``). ``alpha`` weighs the legs: vector weight ``alpha``,
    keyword weight ``1 - alpha`` (``alpha=1`` is vector only, ``0`` keyword only,
    a leg of weight 0 is not run); with ``alpha=None`` the weights are the
    base's ``SearchSettings`` (``vector_weight``/``keyword_weight``). Score = RRF.

Filters (every ``FilterOperator``, nested AND/OR/NOT) become memo filter dicts
compiled to SQL with bound parameters; ``doc_ids``/``node_ids`` restrict the same
way, an empty list meaning no restriction. A base without vectors (no embedder,
or an SQLite driver without sqlite-vec) answers DEFAULT and HYBRID queries with
keyword search when a ``query_str`` is given, and says so once in the log.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.indices.query.embedding_utils import get_top_k_mmr_embeddings
from llama_index.core.schema import BaseNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
    VectorStoreQueryResult,
)

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError
from memo_core.kb.base import DEFAULT_COLLECTION, MemoBase
from memo_core.search.rrf import rrf
from memo_core.types import Hit
from memo_integrations.llamaindex.filters import scope_filter
from memo_integrations.llamaindex.nodes import DOC_ID_KEY, NODE_ID_KEY, hit_to_node, node_record

__all__ = ["MemoBaseVectorStore"]

log = logging.getLogger(__name__)

_NO_LIMIT = sys.maxsize
#: An MMR query chooses among this many times ``similarity_top_k`` nearest chunks.
_MMR_PREFETCH = 4
_KEYWORD_MODES = (VectorStoreQueryMode.TEXT_SEARCH, VectorStoreQueryMode.SPARSE)

Ranked = list[tuple[int, float]]


def _as_memo_embedder(embed_model: BaseEmbedding | None) -> Embedder | str:
    """A memo embedder for a LlamaIndex embedding (``"auto"``: the local default)."""
    if embed_model is None:
        return "auto"
    from memo_integrations.llamaindex.embeddings import LlamaIndexEmbedder, MemoEmbedding

    if isinstance(embed_model, MemoEmbedding):
        return embed_model.embedder
    return LlamaIndexEmbedder(embed_model, model_name=embed_model.model_name or "llamaindex")


class MemoBaseVectorStore(BasePydanticVectorStore):
    """A LlamaIndex vector store over one collection of a :class:`MemoBase`.

    ``kb`` should be opened with an embedder producing the same vectors as the
    index's ``embed_model`` (for example ``MemoBase(path, embedder=HashEmbedder())``
    with ``MemoEmbedding(that embedder)``, or ``LlamaIndexEmbedder(embed_model,
    model_name=...)`` the other way round): the file records the embedder and
    checks every vector's dimension.
    """

    stores_text: bool = True
    is_embedding_query: bool = True
    collection: str = DEFAULT_COLLECTION

    _kb: MemoBase = PrivateAttr()
    _degraded_noted: bool = PrivateAttr(default=False)

    def __init__(
        self,
        kb: MemoBase | str | Path,
        *,
        collection: str = DEFAULT_COLLECTION,
        embed_model: BaseEmbedding | None = None,
        **kwargs: Any,
    ):
        if isinstance(kb, MemoBase):
            if embed_model is not None:
                raise InvalidInputError(
                    "an open MemoBase already has its embedder; pass embed_model= only with a path"
                )
        elif isinstance(kb, (str, Path)):
            # The same defaults as the LangChain side: the local embedder, or the given model.
            kb = MemoBase(kb, embedder=_as_memo_embedder(embed_model))
        else:
            raise InvalidInputError("MemoBaseVectorStore needs a MemoBase or a file path")
        if not isinstance(collection, str) or not collection:
            raise InvalidInputError("collection must be a non-empty string")
        super().__init__(collection=collection, **kwargs)  # type: ignore[call-arg]  # pydantic field
        self._kb = kb

    @classmethod
    def class_name(cls) -> str:
        return "MemoBaseVectorStore"

    @property
    def client(self) -> MemoBase:
        """The underlying :class:`MemoBase`."""
        return self._kb

    @property
    def kb(self) -> MemoBase:
        return self._kb

    # -- helpers ------------------------------------------------------------

    def _vectors_available(self) -> bool:
        store = self._kb.store
        return store.vector_table is not None and self._kb.db.has_vec

    def _note_degraded(self, what: str) -> None:
        if not self._degraded_noted:
            self._degraded_noted = True
            log.warning("%s has no vector index: %s", self._kb.path, what)

    def _filtered_hits(self, flt: dict[str, Any] | None) -> list[Hit]:
        rowids = self._kb.store.filtered_rowids(
            self._kb.owner, collections=[self.collection], filter=flt, limit=_NO_LIMIT
        )
        rows = self._kb.store.hits_by_rowid(rowids)
        return [rows[r] for r in rowids if r in rows]

    # -- writes -------------------------------------------------------------

    def add(self, nodes: Sequence[BaseNode], **add_kwargs: Any) -> list[str]:
        """Store ``nodes`` in one transaction; a node id already present is replaced."""
        if not nodes:
            return []
        records = [node_record(n) for n in nodes]
        texts = [t for t, _ in records]
        metadatas = [m for _, m in records]
        ids = [n.node_id for n in nodes]
        kb = self._kb
        if self._vectors_available():
            vectors: list[list[float] | None] = [n.embedding for n in nodes]
            missing = [i for i, v in enumerate(vectors) if v is None]
            if missing:
                if kb.embedder is None:
                    raise InvalidInputError(
                        f"node {ids[missing[0]]!r} has no embedding and the base has no embedder"
                    )
                computed = kb.embedder.embed_documents([texts[i] for i in missing])
                for i, vec in zip(missing, computed, strict=True):
                    vectors[i] = vec
            full = [v for v in vectors if v is not None]
            with kb.db.transaction():
                kb.add_texts(texts, metadatas, ids, collection=self.collection, vectors=full)
        else:
            if any(n.embedding is not None for n in nodes):
                self._note_degraded("node embeddings are not stored, keyword search only")
            with kb.db.transaction():
                kb.add_texts(texts, metadatas, ids, collection=self.collection)
        return ids

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Delete every node of source document ``ref_doc_id`` (one transaction).

        A memo document with that id in this collection (one written by memo's own
        ingestion) is deleted too. FTS and vector rows go with their chunks.
        """
        kb = self._kb
        with kb.db.transaction():
            hits = self._filtered_hits({DOC_ID_KEY: ref_doc_id})
            if hits:
                kb.delete_chunks([h.chunk_id for h in hits])
            info = kb.store.get_document(kb.owner, ref_doc_id)
            if info is not None and info.collection == self.collection:
                kb.delete([ref_doc_id])

    def delete_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
        **delete_kwargs: Any,
    ) -> None:
        """Delete nodes matching ``node_ids`` AND ``filters``.

        ``node_ids=None`` and no filters deletes the whole collection (as
        LlamaIndex's ``SimpleVectorStore`` does); an empty list deletes nothing.
        """
        if node_ids is not None and not node_ids:
            return
        flt = scope_filter(
            filters, node_ids=node_ids, node_id_key=NODE_ID_KEY, doc_id_key=DOC_ID_KEY
        )
        if flt is None:
            self.clear()
            return
        with self._kb.db.transaction():
            hits = self._filtered_hits(flt)
            if hits:
                self._kb.delete_chunks([h.chunk_id for h in hits])

    def clear(self) -> None:
        """Delete every document of this store's collection."""
        self._kb.store.delete_collection(self._kb.owner, self.collection)

    # -- reads --------------------------------------------------------------

    def get_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
    ) -> list[BaseNode]:
        """Nodes matching ``node_ids`` AND ``filters`` (``None`` or ``[]`` ids: any).

        With ids, nodes come back in the order asked; otherwise in insertion order.
        """
        flt = scope_filter(
            filters, node_ids=node_ids, node_id_key=NODE_ID_KEY, doc_id_key=DOC_ID_KEY
        )
        nodes = [hit_to_node(h) for h in self._filtered_hits(flt)]
        if node_ids:
            order = {nid: i for i, nid in enumerate(node_ids)}
            nodes.sort(key=lambda n: order.get(n.node_id, len(order)))
        return nodes

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        """Run ``query`` in its mode (see the module docstring for the semantics)."""
        mode = VectorStoreQueryMode(query.mode)
        flt = scope_filter(
            query.filters,
            node_ids=query.node_ids,
            doc_ids=query.doc_ids,
            node_id_key=NODE_ID_KEY,
            doc_id_key=DOC_ID_KEY,
        )
        k = int(query.similarity_top_k)
        if k <= 0:
            return VectorStoreQueryResult(nodes=[], similarities=[], ids=[])
        if mode in _KEYWORD_MODES:
            ranked = self._keyword(query.query_str, k, flt, required=True)
        elif mode is VectorStoreQueryMode.DEFAULT:
            if self._vectors_available():
                ranked = self._vector(query, k, flt)
            else:
                self._note_degraded("vector queries run as keyword search")
                ranked = self._keyword(query.query_str, k, flt, required=True)
        elif mode is VectorStoreQueryMode.HYBRID:
            ranked = self._hybrid(query, flt)
        elif mode is VectorStoreQueryMode.MMR:
            threshold = kwargs.get("mmr_threshold", query.mmr_threshold)
            prefetch = int(kwargs.get("mmr_prefetch_factor", _MMR_PREFETCH))
            ranked = self._mmr(query, k, flt, threshold, prefetch)
        else:
            raise InvalidInputError(
                f"MemoBaseVectorStore does not support query mode {mode.value!r}; "
                "use default, text_search, sparse, hybrid or mmr"
            )
        return self._result(ranked)

    def _keyword(
        self, query_str: str | None, limit: int, flt: dict[str, Any] | None, *, required: bool
    ) -> Ranked:
        if not query_str:
            if required:
                raise InvalidInputError("a keyword search needs query_str")
            return []
        found = self._kb.searcher.keyword_leg(
            self._kb.owner, query_str, limit, collections=[self.collection], filter=flt
        )
        return [(rowid, -bm25) for rowid, bm25 in found]  # FTS5 bm25: lower is better

    def _query_vector(self, query: VectorStoreQuery) -> Sequence[float]:
        if query.query_embedding is not None:
            return query.query_embedding
        if self._kb.embedder is None or not query.query_str:
            raise InvalidInputError("a vector query needs query_embedding (or query_str)")
        return self._kb.embedder.embed_query(query.query_str)

    def _vector(self, query: VectorStoreQuery, limit: int, flt: dict[str, Any] | None) -> Ranked:
        vector = self._query_vector(query)
        return self._kb.searcher.vector_leg(
            self._kb.owner, vector, limit, collections=[self.collection], filter=flt
        )

    def _mmr(
        self,
        query: VectorStoreQuery,
        k: int,
        flt: dict[str, Any] | None,
        threshold: float | None,
        prefetch: int,
    ) -> Ranked:
        """Maximal marginal relevance over the ``k * prefetch`` nearest chunks.

        LlamaIndex's own selection (``get_top_k_mmr_embeddings``, as its
        ``SimpleVectorStore`` runs it); ``threshold`` weighs relevance against
        novelty (1.0: relevance only; LlamaIndex's default 0.5 when None).
        """
        if threshold is not None and not 0.0 <= float(threshold) <= 1.0:
            raise InvalidInputError("mmr_threshold must be between 0 and 1")
        if prefetch < 1:
            raise InvalidInputError("mmr_prefetch_factor must be at least 1")
        if not self._vectors_available():
            raise InvalidInputError("an mmr query needs a base with vectors (an embedder)")
        vector = self._query_vector(query)
        candidates = self._kb.searcher.vector_leg(
            self._kb.owner, vector, k * prefetch, collections=[self.collection], filter=flt
        )
        stored = self._kb.store.vectors_by_rowid([r for r, _ in candidates])
        ids = [r for r, _ in candidates if r in stored]
        if not ids:
            return []
        scores, picked = get_top_k_mmr_embeddings(
            list(vector),
            [stored[r] for r in ids],
            similarity_top_k=k,
            embedding_ids=ids,
            mmr_threshold=threshold,
        )
        return [(int(r), float(score)) for r, score in zip(picked, scores, strict=True)]

    def _hybrid(self, query: VectorStoreQuery, flt: dict[str, Any] | None) -> Ranked:
        settings = self._kb.searcher.settings
        if query.alpha is None:
            keyword_weight, vector_weight = settings.keyword_weight, settings.vector_weight
        else:
            alpha = float(query.alpha)
            if not 0.0 <= alpha <= 1.0:
                raise InvalidInputError("alpha must be between 0 (keyword) and 1 (vector)")
            keyword_weight, vector_weight = 1.0 - alpha, alpha
        dense_k = int(query.similarity_top_k)
        sparse_k = int(query.sparse_top_k or dense_k)
        out_k = int(query.hybrid_top_k or dense_k)
        legs: list[list[int]] = []
        weights: list[float] = []
        if keyword_weight > 0 and query.query_str:
            legs.append(
                [r for r, _ in self._keyword(query.query_str, sparse_k, flt, required=False)]
            )
            weights.append(keyword_weight)
        if vector_weight > 0:
            if self._vectors_available():
                legs.append([r for r, _ in self._vector(query, dense_k, flt)])
                weights.append(vector_weight)
            else:
                self._note_degraded("hybrid queries run keyword search only")
        if not legs:
            return []
        return rrf(legs, k=settings.rrf_k, weights=weights)[:out_k]

    def _result(self, ranked: Ranked) -> VectorStoreQueryResult:
        rows = self._kb.store.hits_by_rowid([r for r, _ in ranked])
        nodes: list[BaseNode] = []
        scores: list[float] = []
        for rowid, score in ranked:
            hit = rows.get(rowid)
            if hit is not None:
                nodes.append(hit_to_node(hit))
                scores.append(float(score))
        return VectorStoreQueryResult(
            nodes=nodes, similarities=scores, ids=[n.node_id for n in nodes]
        )

    # -- async twins: SQLite work runs in a thread (the connection is thread-safe) --

    async def async_add(self, nodes: Sequence[BaseNode], **kwargs: Any) -> list[str]:
        return await asyncio.to_thread(self.add, nodes, **kwargs)

    async def adelete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        await asyncio.to_thread(self.delete, ref_doc_id, **delete_kwargs)

    async def adelete_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
        **delete_kwargs: Any,
    ) -> None:
        await asyncio.to_thread(self.delete_nodes, node_ids, filters, **delete_kwargs)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)

    async def aget_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
    ) -> list[BaseNode]:
        return await asyncio.to_thread(self.get_nodes, node_ids, filters)

    async def aquery(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        return await asyncio.to_thread(self.query, query, **kwargs)
