"""``MemoBaseVectorStore``: a memo knowledge base as a LlamaIndex vector store.

Nodes live in the base's file (one memo document per node, see ``nodes.py``), so
keyword search (FTS5/BM25), vector search and their fusion all run on the same
rows. Every query is one call into :class:`~memo_core.kb.base.MemoBase`; this
module only maps LlamaIndex's knobs onto it. Query modes:

``DEFAULT``
    Nearest neighbours of ``query_embedding`` (``MemoBase.search_by_vector``,
    cosine similarity as the score). Without ``query_embedding`` the base's own
    embedder embeds ``query_str``.
``TEXT_SEARCH`` (and ``SPARSE``: memo's sparse leg is BM25)
    ``MemoBase.search(mode="keyword")``; score = negated BM25 (higher is better).
``HYBRID``
    ``MemoBase.search(mode="hybrid", weights=...)``: both legs fused by Reciprocal
    Rank Fusion. ``alpha`` gives the weights (vector ``alpha``, keyword ``1 -
    alpha``; a leg of weight 0 is not run), ``alpha=None`` the base's
    ``SearchSettings``. The vector leg ranks ``similarity_top_k`` candidates, the
    keyword leg ``sparse_top_k`` (default ``similarity_top_k``); ``hybrid_top_k``
    (default ``similarity_top_k``) nodes come back. Score = the RRF sum.
``MMR``
    ``MemoBase.search_mmr``: maximal marginal relevance among ``similarity_top_k *
    mmr_prefetch_factor`` (default 4) nearest nodes, ``mmr_threshold`` as its
    ``lambda_mult`` (LlamaIndex's default 0.5 when None).

Filters (every ``FilterOperator``, nested AND/OR/NOT) become memo filter dicts
compiled to SQL with bound parameters; ``doc_ids``/``node_ids`` restrict the same
way, an empty list meaning no restriction. A base without vectors (no embedder,
or an SQLite driver without sqlite-vec) answers DEFAULT and HYBRID queries with
keyword search when a ``query_str`` is given, and says so once in the log.

Deliberate differences from LlamaIndex's ``SimpleVectorStore`` (tested in
``tests/integrations/llamaindex/test_li_simple_contract.py``):

- MMR penalises a candidate by its similarity to the *closest* node picked so far
  (Carbonell & Goldstein), where LlamaIndex uses only the latest pick; the
  similarities returned are cosine similarities to the query, not MMR objective
  values; ``mmr_threshold=0.0`` means pure novelty (LlamaIndex reads 0 as 0.5).
- In HYBRID mode with both legs running, keyword matches far weaker than the best
  one are left out of the fusion (``SearchSettings.keyword_cutoff``), as in every
  memo hybrid search; the base's reranker, if one is configured, reorders hybrid,
  text and ``query_str`` vector results.
- A keyword-mode query without ``query_str`` is an
  :class:`~memo_core.errors.InvalidInputError`, not an empty result.
- Filters: a text match on a number looks for the text in the number's digits
  (memo's filter language, the same on both backends) where LlamaIndex's in-memory
  evaluator raises ``TypeError``; nested ``MetadataFilters`` are evaluated where
  that evaluator refuses them.
- Persistence: every write is in the base's file already; ``persist()`` writes
  nothing more, and reopening the file (``MemoBaseVectorStore(path)``) is
  LlamaIndex's ``from_persist_dir``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.schema import BaseNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
    VectorStoreQueryResult,
)

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.kb.base import DEFAULT_COLLECTION, MemoBase
from memo_core.types import Hit
from memo_integrations.llamaindex.filters import scope_filter
from memo_integrations.llamaindex.nodes import DOC_ID_KEY, NODE_ID_KEY, hit_to_node, node_record

__all__ = ["MemoBaseVectorStore"]

log = logging.getLogger(__name__)

#: An MMR query chooses among this many times ``similarity_top_k`` nearest chunks.
_MMR_PREFETCH = 4
#: LlamaIndex's own default balance of relevance and novelty.
_DEFAULT_MMR_THRESHOLD = 0.5
_KEYWORD_MODES = (VectorStoreQueryMode.TEXT_SEARCH, VectorStoreQueryMode.SPARSE)


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

    def _note_degraded(self, what: str) -> None:
        if not self._degraded_noted:
            self._degraded_noted = True
            log.warning("%s has no vector index: %s", self._kb.path, what)

    def _matching(self, flt: dict[str, Any] | None) -> list[Hit]:
        return self._kb.filter_chunks(flt, collection=self.collection)

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
        if kb.has_vectors:
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
            with kb.transaction():
                kb.add_texts(texts, metadatas, ids, collection=self.collection, vectors=full)
        else:
            if any(n.embedding is not None for n in nodes):
                self._note_degraded("node embeddings are not stored, keyword search only")
            with kb.transaction():
                kb.add_texts(texts, metadatas, ids, collection=self.collection)
        return ids

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Delete every node of source document ``ref_doc_id`` (one transaction).

        A memo document with that id in this collection (one written by memo's own
        ingestion) is deleted too. FTS and vector rows go with their chunks.
        """
        kb = self._kb
        with kb.transaction():
            hits = self._matching({DOC_ID_KEY: ref_doc_id})
            if hits:
                kb.delete_chunks([h.chunk_id for h in hits])
            try:
                info = kb.get_document(ref_doc_id)
            except NotFoundError:
                return
            if info.collection == self.collection:
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
        with self._kb.transaction():
            hits = self._matching(flt)
            if hits:
                self._kb.delete_chunks([h.chunk_id for h in hits])

    def clear(self) -> None:
        """Delete every document of this store's collection."""
        self._kb.delete_collection(self.collection)

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
        nodes = [hit_to_node(h) for h in self._matching(flt)]
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
            hits = self._keyword(query.query_str, k, flt)
        elif mode is VectorStoreQueryMode.DEFAULT:
            if self._kb.has_vectors:
                hits = self._vector(query, k, flt)
            else:
                self._note_degraded("vector queries run as keyword search")
                hits = self._keyword(query.query_str, k, flt)
        elif mode is VectorStoreQueryMode.HYBRID:
            hits = self._hybrid(query, flt)
        elif mode is VectorStoreQueryMode.MMR:
            threshold = kwargs.get("mmr_threshold", query.mmr_threshold)
            prefetch = int(kwargs.get("mmr_prefetch_factor", _MMR_PREFETCH))
            hits = self._mmr(query, k, flt, threshold, prefetch)
        else:
            raise InvalidInputError(
                f"MemoBaseVectorStore does not support query mode {mode.value!r}; "
                "use default, text_search, sparse, hybrid or mmr"
            )
        nodes = [hit_to_node(h) for h in hits]
        return VectorStoreQueryResult(
            nodes=nodes, similarities=[float(h.score) for h in hits], ids=[n.node_id for n in nodes]
        )

    def _keyword(self, query_str: str | None, k: int, flt: dict[str, Any] | None) -> list[Hit]:
        if not query_str:
            raise InvalidInputError("a keyword search needs query_str")
        return self._kb.search(
            query_str, k=k, mode="keyword", collection=self.collection, filter=flt
        )

    def _vector(self, query: VectorStoreQuery, k: int, flt: dict[str, Any] | None) -> list[Hit]:
        if query.query_embedding is not None:
            return self._kb.search_by_vector(
                query.query_embedding, k=k, collection=self.collection, filter=flt
            )
        if self._kb.embedder is None or not query.query_str:
            raise InvalidInputError("a vector query needs query_embedding (or query_str)")
        return self._kb.search(
            query.query_str, k=k, mode="vector", collection=self.collection, filter=flt
        )

    def _mmr(
        self,
        query: VectorStoreQuery,
        k: int,
        flt: dict[str, Any] | None,
        threshold: float | None,
        prefetch: int,
    ) -> list[Hit]:
        """Maximal marginal relevance over the ``k * prefetch`` nearest chunks
        (:meth:`MemoBase.search_mmr`); ``mmr_threshold`` is its ``lambda_mult``
        (1.0: relevance only; LlamaIndex's default 0.5 when None)."""
        if threshold is not None and not 0.0 <= float(threshold) <= 1.0:
            raise InvalidInputError("mmr_threshold must be between 0 and 1")
        if prefetch < 1:
            raise InvalidInputError("mmr_prefetch_factor must be at least 1")
        if query.query_embedding is None and not query.query_str:
            raise InvalidInputError("an mmr query needs query_embedding (or query_str)")
        return self._kb.search_mmr(
            query.query_str,
            query_vector=query.query_embedding,
            k=k,
            fetch_k=k * prefetch,
            lambda_mult=_DEFAULT_MMR_THRESHOLD if threshold is None else float(threshold),
            collection=self.collection,
            filter=flt,
        )

    def _hybrid(self, query: VectorStoreQuery, flt: dict[str, Any] | None) -> list[Hit]:
        """One hybrid search of the base with LlamaIndex's knobs mapped onto it."""
        weights: dict[str, float] = {}
        if query.alpha is not None:
            alpha = float(query.alpha)
            if not 0.0 <= alpha <= 1.0:
                raise InvalidInputError("alpha must be between 0 (keyword) and 1 (vector)")
            weights = {"keyword": 1.0 - alpha, "vector": alpha}
        if not query.query_str:  # nothing for the keyword leg to match
            weights["keyword"] = 0.0
        if not self._kb.has_vectors:
            self._note_degraded("hybrid queries run keyword search only")
            weights["vector"] = 0.0
        if not any(weights.get(leg, 1.0) > 0 for leg in ("keyword", "vector")):
            return []
        dense_k = int(query.similarity_top_k)
        return self._kb.search(
            query.query_str or "",
            k=int(query.hybrid_top_k or dense_k),
            mode="hybrid",
            collection=self.collection,
            filter=flt,
            weights=weights or None,
            candidates={"keyword": int(query.sparse_top_k or dense_k), "vector": dense_k},
            query_vector=query.query_embedding,
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
