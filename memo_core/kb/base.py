"""MemoBase: a private knowledge base in one SQLite file (or one PostgreSQL schema).

The facade users hold: open a file, add texts or ingest sources, search them
(keyword, vector or hybrid), delete, re-index. Storage is in ``kb/store.py``,
ranking in ``search/``, source extraction in ``ingest/``, guarded answers in
``answer/``; this module only wires them together.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.embedders.auto import AUTO, resolve_embedder
from memo_core.embedders.base import Embedder
from memo_core.errors import EmbedderMismatchError, InvalidInputError, NotFoundError
from memo_core.kb.claims import DocumentClaims
from memo_core.kb.embed_clock import add_embed_seconds
from memo_core.kb.gc_pause import collector_paused
from memo_core.kb.locators import locator_from_metadata
from memo_core.kb.records import source_document_id
from memo_core.kb.sentence_vectors import SentenceVectorCache
from memo_core.kb.store import (
    ChunkInput,
    DocumentInfo,
    DocumentWrite,
    KnowledgeStore,
    require_owner,
    sha256,
)
from memo_core.rerank.base import Reranker
from memo_core.search.hybrid import HybridSearcher, SearchSettings
from memo_core.search.mmr import mmr_select
from memo_core.search.text import DEFAULT_LANGUAGES
from memo_core.storage import open_database
from memo_core.storage.base import SQLDatabase, Tracer
from memo_core.storage.registry import backend_of
from memo_core.types import Hit, SearchMode

if TYPE_CHECKING:
    from memo_core.ingest import IngestPolicy
    from memo_core.kb.ingest import IngestReport

__all__ = ["DEFAULT_COLLECTION", "DEFAULT_OWNER", "MemoBase", "open_store"]

log = logging.getLogger(__name__)

DEFAULT_OWNER = "default"
DEFAULT_COLLECTION = "default"

#: Documents per transaction when ``add_texts`` stores precomputed vectors: a commit
#: per document cost more than the rows themselves; a killed process loses at most
#: the batch it was writing (nothing committed). Each batch inserts its shingle rows
#: in key order, one pass over ``chunk_shingles``, whose random keys put nearly
#: every new row on its own page once the table is large: the fewer the batches,
#: the fewer the passes (at 40,000 chunks, 5,000 a batch cost ~200-220 µs of CPU
#: per chunk against ~300-340 with 1,000; the rows of a batch held meanwhile are
#: ~10 KB a chunk, ``bench/write_path.py``).
BULK_BATCH = 5000


def open_store(db: SQLDatabase, *, languages: Sequence[str] = DEFAULT_LANGUAGES) -> KnowledgeStore:
    """The knowledge-base store of ``db`` (its engine's backend comes from
    :data:`~memo_core.kb.store.KB_BACKENDS`, by the database URL)."""
    return KnowledgeStore(db, languages=languages)


class MemoBase:
    """A knowledge base file, scoped to one ``owner`` (every query fails closed without one).

    ``path``: a file path, ``sqlite:///file.db`` or ``postgresql://...?schema=name``
    (a schema of a PostgreSQL server with pgvector, shared by many processes).

    ``embedder``: an :class:`~memo_core.embedders.base.Embedder`, ``"auto"`` (the
    default: the offline MiniLM model when ``memo[local]`` is installed) or ``None``
    (keyword-only). Opening a file indexed with another embedder raises
    :class:`~memo_core.errors.EmbedderMismatchError` (see :meth:`reindex`).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        embedder: Embedder | str | None = AUTO,
        reranker: Reranker | None = None,
        owner: str = DEFAULT_OWNER,
        settings: SearchSettings | None = None,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        tracer: Tracer | None = None,
        check_embedder: bool = True,
    ) -> None:
        self.owner = require_owner(owner)
        self.db = open_database(path, tracer=tracer)
        self.path = self.db.path
        try:
            self.store = open_store(self.db, languages=languages)
            self._claims = DocumentClaims(self.store)
            self.embedder = resolve_embedder(embedder)
            if self.embedder is not None and check_embedder:
                self.store.attach_embedder(self.embedder.fingerprint)
        except BaseException:
            self.db.close()  # a refused open must not leave a connection pool running
            raise
        #: The answer loop's sentence vectors, kept by the questions that needed them.
        self.sentence_vectors = SentenceVectorCache(self.db)
        self.searcher = HybridSearcher(
            self.store,
            self.embedder if check_embedder else None,
            reranker=reranker,
            settings=settings,
            open_reader=self._reader_opener(languages),
        )

    def _reader_opener(self, languages: Sequence[str]) -> Callable[[], KnowledgeStore] | None:
        """A way to open the same file on a new connection (the search aids are built
        on one, off the query path); None for a base in RAM or on PostgreSQL."""
        path = self.db.local_file
        if path is None:
            return None
        return lambda: open_store(open_database(path), languages=languages)

    # -- lifecycle ----------------------------------------------------------

    def close(self) -> None:
        self.searcher.close()  # before the file closes: a background build reads it
        self.sentence_vectors.flush()
        self.db.close()

    def __enter__(self) -> MemoBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def for_owner(self, owner: str) -> MemoBase:
        """A view of the same file scoped to another owner (shares the connection)."""
        view = object.__new__(MemoBase)
        view.__dict__.update(self.__dict__)
        view.owner = require_owner(owner)
        return view

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Several writes as one: they commit together at the end of the block, or,
        on any exception, none of them does. Nested blocks join the outer one.
        Embed before entering it: the block holds the base's write lock."""
        with self.db.transaction():
            yield

    @property
    def has_vectors(self) -> bool:
        """Whether the base keeps and searches vectors: it has a vector table made by
        an embedder, and this Python's driver loads sqlite-vec (PostgreSQL: pgvector).
        Without them vector and hybrid searches run as keyword searches."""
        return self.store.search_state().vector_table is not None

    def _owner(self, owner: str | None) -> str:
        """An explicit owner wins (and an empty one fails closed); None means this view's."""
        return require_owner(self.owner if owner is None else owner)

    # -- writes -------------------------------------------------------------

    def _embed_chunks(
        self, owner: str, document_id: str, chunks: Sequence[ChunkInput]
    ) -> list[Sequence[float] | bytes] | None:
        if self.embedder is None or not self._embeds():
            return None
        reusable = self.store.reusable_vectors(owner, document_id)
        out: list[Sequence[float] | bytes | None] = [reusable.get(sha256(c.text)) for c in chunks]
        todo = [i for i, v in enumerate(out) if v is None]
        if todo:
            started = time.perf_counter()
            try:
                vectors = self.embedder.embed_documents([chunks[i].text for i in todo])
            finally:
                add_embed_seconds(time.perf_counter() - started)
            for i, vec in zip(todo, vectors, strict=True):
                out[i] = vec
        return [v for v in out if v is not None]

    def add_document(
        self,
        text: str,
        *,
        document_id: str | None = None,
        chunks: Sequence[ChunkInput] | None = None,
        source: str = "",
        title: str = "",
        kind: str = "text",
        metadata: Mapping[str, Any] | None = None,
        collection: str = DEFAULT_COLLECTION,
        owner: str | None = None,
    ) -> DocumentInfo:
        """Store one document (replacing one with the same id atomically).

        ``chunks`` default to structure-aware chunks of ``text``. An unchanged
        document (same content hash and metadata) is skipped: no embedding call.
        """
        if document_id:
            doc_id = document_id
        elif source:
            doc_id = source_document_id(collection, source)
        else:
            doc_id = uuid.uuid4().hex
        return self._put_document(
            text,
            doc_id=doc_id,
            chunks=chunks,
            source=source,
            title=title,
            kind=kind,
            metadata=metadata,
            collection=collection,
            owner=self._owner(owner),
            shared_id=bool(document_id or source),
        )

    def _put_document(
        self,
        text: str,
        *,
        doc_id: str,
        chunks: Sequence[ChunkInput] | None,
        source: str,
        title: str,
        kind: str,
        metadata: Mapping[str, Any] | None,
        collection: str,
        owner: str,
        shared_id: bool,
    ) -> DocumentInfo:
        """Store one document; ``shared_id``: another writer may use the same id.

        A document about to be embedded under a shared id is claimed first
        (``kb/claims.py``), so overlapping ingests embed it once; a fresh random id
        cannot be another writer's, and storing without embedding is cheap.
        """
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("document text is empty")
        if "\x00" in text:
            raise InvalidInputError("document text contains NUL characters")
        meta = dict(metadata or {})
        digest = sha256(text + "\x00" + repr(sorted(meta.items())) + "\x00" + title)
        stored = self._stored_unchanged(owner, doc_id, digest, collection)
        if stored is not None:
            return stored
        if chunks is None:
            chunks = default_chunks(text, locator=locator_from_metadata(meta))
        if not shared_id or not self._embeds():
            return self._store_document(
                owner, collection, doc_id, text, chunks, source, title, kind, meta, digest
            )
        with self._claims.hold(owner, doc_id):
            # The writer we may have waited for may just have stored this very content.
            stored = self._stored_unchanged(owner, doc_id, digest, collection)
            if stored is not None:
                return stored
            return self._store_document(
                owner, collection, doc_id, text, chunks, source, title, kind, meta, digest
            )

    def _stored_unchanged(
        self, owner: str, doc_id: str, digest: str, collection: str
    ) -> DocumentInfo | None:
        if self.store.document_hash(owner, doc_id) != digest:
            return None
        existing = self.store.get_document(owner, doc_id)
        return existing if existing is not None and existing.collection == collection else None

    def _embeds(self) -> bool:
        return self.embedder is not None and self.store.vector_table is not None and self.db.has_vec

    def _store_document(
        self,
        owner: str,
        collection: str,
        doc_id: str,
        text: str,
        chunks: Sequence[ChunkInput],
        source: str,
        title: str,
        kind: str,
        meta: dict[str, Any],
        digest: str,
    ) -> DocumentInfo:
        vectors = self._embed_chunks(owner, doc_id, chunks)
        made_by = self.embedder.fingerprint if vectors is not None and self.embedder else None
        return self.store.replace_document(
            owner=owner,
            collection=collection,
            document_id=doc_id,
            text=text,
            chunks=chunks,
            vectors=vectors,
            source=source,
            title=title,
            kind=kind,
            metadata=meta,
            content_hash=digest,
            fingerprint=made_by,
        )

    def add_texts(
        self,
        texts: Sequence[str],
        metadatas: Sequence[Mapping[str, Any]] | None = None,
        ids: Sequence[str] | None = None,
        *,
        collection: str = DEFAULT_COLLECTION,
        chunk: bool = False,
        owner: str | None = None,
        vectors: Sequence[Sequence[float]] | None = None,
    ) -> list[str]:
        """Store each text as a document; returns their ids.

        ``chunk=False`` (the vector-store convention) keeps each text as one chunk
        whose chunk id equals the document id. ``vectors`` lets a caller supply
        precomputed embeddings (checked for dimension).
        """
        owner = self._owner(owner)
        if metadatas is not None and len(metadatas) != len(texts):
            raise InvalidInputError("one metadata dict per text")
        if ids is not None and len(ids) != len(texts):
            raise InvalidInputError("one id per text")
        if vectors is not None and len(vectors) != len(texts):
            raise InvalidInputError("one vector per text")
        # Nothing is embedded when every vector is given: the rows are built and
        # written with the cyclic collector paused (kb/gc_pause.py).
        given = vectors is not None and not chunk
        with collector_paused() if given else contextlib.nullcontext():
            out: list[str] = []
            # Texts with their vectors need no embedder: stored BULK_BATCH per transaction.
            batch: list[DocumentWrite] = []
            for i, text in enumerate(texts):
                doc_id = ids[i] if ids is not None and ids[i] else uuid.uuid4().hex
                meta = dict(metadatas[i]) if metadatas is not None else {}
                # page / heading / timecode / url in the metadata: where the citation points.
                where = locator_from_metadata(meta)
                if chunk or vectors is None:
                    chunks = (
                        default_chunks(text, locator=where)
                        if chunk
                        else [ChunkInput(text, 0, len(text), where, id=doc_id)]
                    )
                    info = self._put_document(
                        text,
                        doc_id=doc_id,
                        chunks=chunks,
                        source=str(meta.get("source", "")),
                        title=str(meta.get("title", "")),
                        kind="text",
                        metadata=meta,
                        collection=collection,
                        owner=owner,
                        shared_id=bool(ids is not None and ids[i]),
                    )
                    out.append(info.id)
                    continue
                if not isinstance(text, str):
                    raise InvalidInputError("texts must be strings")
                batch.append(
                    DocumentWrite(
                        owner=owner,
                        collection=collection,
                        document_id=doc_id,
                        text=text,
                        chunks=[ChunkInput(text, 0, len(text), where, id=doc_id)],
                        vectors=[vectors[i]],
                        source=str(meta.get("source", "")),
                        title=str(meta.get("title", "")),
                        metadata=meta,
                    )
                )
                out.append(doc_id)
                if len(batch) >= BULK_BATCH:
                    self.store.replace_documents(batch)
                    batch.clear()
            if batch:
                self.store.replace_documents(batch)
        self.searcher.after_ingest()
        return out

    def ingest(
        self,
        paths: str | Path | Sequence[str | Path],
        roots: Sequence[str | Path] | None = None,
        *,
        collection: str = DEFAULT_COLLECTION,
        owner: str | None = None,
        secrets: str = "redact",
        policy: IngestPolicy | None = None,
        progress: Callable[[int, int | None, str], None] | None = None,
        **extract_options: Any,
    ) -> IngestReport:
        """Ingest files, folders, Obsidian vaults, URLs and YouTube ids; returns the report
        ``memo kb ingest`` prints (added, updated, unchanged, failed, skipped, chunks).

        Local paths must lie under ``roots`` (default: the current folder), the
        guard for paths that arrive from code, agents or a model; folder walks
        never leave them. ``policy`` gives every other limit (sizes, URLs, secrets)
        and its own ``allowed_roots``; pass ``roots`` or ``policy``, not both. A
        source that fails is reported and the others go in; a storage error stops
        the run with :class:`~memo_core.errors.IngestAbortedError`.
        ``extract_options`` reach the extractors (``transcriber``, ``ledger``,
        ``caption_fetcher``, ``http_transport``).
        """
        from memo_core.ingest import IngestPolicy
        from memo_core.kb.ingest import ingest_sources

        if policy is not None and roots is not None:
            raise InvalidInputError("pass roots= or policy= (with its allowed_roots), not both")
        if policy is None:
            policy = (
                IngestPolicy(secrets=secrets)  # type: ignore[arg-type]
                if roots is None
                else IngestPolicy.for_roots(roots, secrets=secrets)
            )
        sources = [paths] if isinstance(paths, str | Path) else list(paths)
        report = ingest_sources(
            self,
            sources,
            policy=policy,
            collection=collection,
            owner=owner,
            progress=progress,
            **extract_options,
        )
        self.searcher.after_ingest()
        return report

    def delete(self, document_ids: Sequence[str], *, owner: str | None = None) -> int:
        """Delete documents with all their chunk, FTS and vector rows."""
        return self.store.delete_documents(self._owner(owner), document_ids)

    def delete_chunks(self, chunk_ids: Sequence[str], *, owner: str | None = None) -> int:
        """Delete chunks by id (a document left with no chunk goes too)."""
        return self.store.delete_chunks(self._owner(owner), chunk_ids)

    def delete_collection(self, collection: str, *, owner: str | None = None) -> int:
        """Delete every document of ``collection``; returns how many went."""
        if not isinstance(collection, str) or not collection:
            raise InvalidInputError("collection must be a non-empty string")
        return self.store.delete_collection(self._owner(owner), collection)

    # -- reads --------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        k: int = 5,
        mode: SearchMode | str = SearchMode.HYBRID,
        collection: str | Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        owner: str | None = None,
        rerank: bool = True,
        weights: Mapping[str, float] | None = None,
        candidates: int | Mapping[str, int] | None = None,
        query_vector: Sequence[float] | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` (hybrid by default).

        Scores: cosine similarity (``"vector"``), negated BM25 (``"keyword"``,
        higher is better), the RRF sum (``"hybrid"``), or the reranker's score.

        ``weights`` (hybrid mode only): the fusion weight of each leg,
        ``{"keyword": wk, "vector": wv}``; a leg left out keeps the base's
        ``SearchSettings`` weight, a leg of weight 0 is not run (``{"vector": 0}`` is
        a keyword search scored by RRF), and at least one must be above 0. The
        fused score of a chunk is ``wk / (rrf_k + keyword rank) + wv / (rrf_k +
        vector rank)``. When both legs run, keyword matches far weaker than the best
        one are left out (``SearchSettings.keyword_cutoff``).

        ``candidates``: how many chunks each leg ranks before fusion, one number for
        both or ``{"keyword": n, "vector": m}``; default ``max(k,
        SearchSettings.candidates)``.

        ``query_vector``: the query's embedding, computed by the caller in the base's
        embedding space, instead of embedding ``query`` (vector and hybrid modes;
        ``query`` still feeds the keyword leg and the reranker).
        """
        if not isinstance(query, str):
            raise InvalidInputError("query must be a string")
        collections = [collection] if isinstance(collection, str) else collection
        run = _check_mode(mode)
        scope = self._owner(owner)  # fail closed before any statement runs
        if weights is not None and run is not SearchMode.HYBRID:
            raise InvalidInputError(f"weights= apply to hybrid search, not to {run.value} search")
        if query_vector is not None and run is SearchMode.KEYWORD:
            raise InvalidInputError("a keyword search takes no query_vector")
        if run is not SearchMode.KEYWORD:
            self._check_embedder_current()
        return self.searcher.search(
            query,
            owner=scope,
            k=_check_k(k),
            mode=run,
            collections=collections,
            filter=filter,
            query_vector=query_vector,
            rerank=rerank,
            weights=weights,
            candidates=candidates,
        )

    def _check_embedder_current(self) -> None:
        """Another process may have re-indexed the file with another embedder since it
        was opened here: query vectors from this one would then rank garbage, silently."""
        embedder = self.searcher.embedder
        if embedder is None:
            return
        stored = self.store.search_state().fingerprint
        if stored is not None and stored != embedder.fingerprint:
            raise EmbedderMismatchError(
                f"{self.path} was re-indexed with {stored.describe()} since it was opened "
                f"with {embedder.fingerprint.describe()}; reopen it with that embedder"
            )

    def search_by_vector(
        self,
        vector: Sequence[float],
        *,
        k: int = 5,
        collection: str | Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        owner: str | None = None,
    ) -> list[Hit]:
        """Nearest chunks to a precomputed vector (cosine similarity as score), on the
        base's configured vector index."""
        collections = [collection] if isinstance(collection, str) else collection
        owner = self._owner(owner)
        k = _check_k(k)
        with self.store.reading():
            ranked = self.searcher.vector_leg(owner, vector, k, collections, filter)
            rows = self.store.hits_by_rowid([r for r, _ in ranked])
        return [
            replace(rows[r], score=s, vector_similarity=s, vector_rank=i)
            for i, (r, s) in enumerate(ranked, start=1)
            if r in rows
        ]

    def search_mmr(
        self,
        query: str | None = None,
        *,
        query_vector: Sequence[float] | None = None,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        collection: str | Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        owner: str | None = None,
    ) -> list[Hit]:
        """``k`` chunks picked by Maximal Marginal Relevance (:mod:`memo_core.search.mmr`)
        among the ``fetch_k`` nearest to the query, in the order picked.

        ``lambda_mult`` 1 is plain similarity order, 0 maximal diversity. Give the
        ``query`` text (embedded by the base's embedder) or its ``query_vector``.
        Each hit's ``score`` is its cosine similarity to the query.
        """
        if query_vector is None:
            if not isinstance(query, str) or not query.strip():
                raise InvalidInputError("an MMR search needs a query or a query_vector")
            if self.embedder is None:
                raise InvalidInputError("an MMR search of a text needs an embedder")
            self._check_embedder_current()
            query_vector = self.embedder.embed_query(query)
        if not self.has_vectors:
            raise InvalidInputError(f"{self.path} keeps no vectors: an MMR search needs them")
        k = _check_k(k)
        fetch_k = max(k, _check_k(fetch_k))
        if not 0.0 <= float(lambda_mult) <= 1.0:
            raise InvalidInputError("lambda_mult must be between 0 and 1")
        nearest = self.search_by_vector(
            query_vector, k=fetch_k, collection=collection, filter=filter, owner=owner
        )
        rowids = self.store.chunk_rowids(self._owner(owner), [h.chunk_id for h in nearest])
        stored = self.store.vectors_by_rowid(list(rowids.values()))
        usable = [h for h in nearest if rowids.get(h.chunk_id) in stored]
        picked = mmr_select(
            query_vector, [stored[rowids[h.chunk_id]] for h in usable], k, float(lambda_mult)
        )
        return [usable[i] for i in picked]

    def filter_chunks(
        self,
        filter: Mapping[str, Any] | None = None,
        *,
        collection: str | Sequence[str] | None = None,
        owner: str | None = None,
        limit: int | None = None,
    ) -> list[Hit]:
        """Every chunk matching ``filter`` (memo's filter language, as in
        :meth:`search`), in the order stored; ``limit`` caps how many."""
        collections = [collection] if isinstance(collection, str) else collection
        owner = self._owner(owner)
        cap = sys.maxsize if limit is None else _check_k(limit)
        with self.store.reading():
            rowids = self.store.filtered_rowids(
                owner, collections=collections, filter=filter, limit=cap
            )
            rows = self.store.hits_by_rowid(rowids)
        return [rows[r] for r in rowids if r in rows]

    def get_chunks(self, chunk_ids: Sequence[str], *, owner: str | None = None) -> list[Hit]:
        return self.store.get_chunks(self._owner(owner), chunk_ids)

    def get_document(self, document_id: str, *, owner: str | None = None) -> DocumentInfo:
        info = self.store.get_document(self._owner(owner), document_id)
        if info is None:
            raise NotFoundError(f"no document {document_id!r}")
        return info

    def document_slice(
        self, document_id: str, start: int, end: int, *, owner: str | None = None
    ) -> str | None:
        """``text[start:end]`` of a stored document (chunk spans index it); ``None``
        when there is no such document. The answer loop reads the sentences a chunk
        cut at its edges from here."""
        return self.store.document_slice(self._owner(owner), document_id, start, end)

    def list_documents(
        self,
        collection: str | None = None,
        *,
        owner: str | None = None,
        limit: int = 1000,
        offset: int = 0,
    ) -> list[DocumentInfo]:
        return self.store.list_documents(self._owner(owner), collection, limit=limit, offset=offset)

    def status(self) -> dict[str, Any]:
        """Counts, the embedder fingerprint, the driver and whether the *base* can be
        searched by vector (for ``memo kb status``): it holds a vector table made by a
        known embedder and this Python's driver loads sqlite-vec. It does not depend on
        the embedder this handle was opened with (``embedder=None`` opens it cheaply)."""
        fp = self.store.fingerprint
        out: dict[str, Any] = {
            "path": self.path,
            **self.store.counts(),
            "embedder": fp.describe() if fp else None,
            "vector_search": False,
            "backend": backend_of(self.db).name,
            "driver": getattr(getattr(self.db, "driver", None), "name", "psycopg"),
            # Chunks that address an AI assistant with instructions (never quoted as answers).
            "flagged_chunks": self.store.flagged_chunks(),
            # Chunks mostly made of text repeated across documents (ranked below the rest).
            "repeated_chunks": self.store.repeated_count(),
        }
        if not self.db.has_vec:
            out["vector_search_off"] = (
                "this Python's sqlite3 cannot load sqlite-vec; pip install 'memo[local]' "
                "(sqlean-py) to search by vector"
            )
        elif fp is None or self.store.search_state().vector_table is None:
            out["vector_search_off"] = "the base was built without an embedder (keyword-only)"
        else:
            out["vector_search"] = True
        # Which engine serves each leg, and whether the "auto" aids are on (and why not).
        out["search_aids"] = self.searcher.describe_aids()
        return out

    # -- maintenance --------------------------------------------------------

    def prepare_search(self) -> dict[str, Any]:
        """Load or build the search aids the settings ask for (``vector_index`` "hnsw" or
        "memory", ``keyword_index`` "memory") now rather than on the first query, and
        describe them. With the defaults (``"auto"``) that is the aids of a base past
        ``SearchSettings.aids_from_chunks`` (nothing below it), built here instead of
        in the background; a running background build is waited for. A large base's
        first HNSW build takes minutes."""
        out: dict[str, Any] = {}
        for name, prepare in (
            ("vector_index", self.searcher.prepare_vector_index),
            ("keyword_index", self.searcher.prepare_keyword_index),
        ):
            start = time.perf_counter()
            described = prepare()
            if described is not None:
                out[name] = {**described, "seconds": round(time.perf_counter() - start, 3)}
        return out

    def reindex(
        self, embedder: Embedder, *, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Switch to ``embedder``: new vectors are built beside the old ones, then swapped."""
        done = self.store.rebuild_vectors(
            embedder.fingerprint, embedder.embed_documents, progress=progress
        )
        self.embedder = embedder
        self.searcher.embedder = embedder
        return done


def _check_k(k: object) -> int:
    """A hostile ``k`` (a string, a bool, 2**70) is a typed error, not a TypeError deep down."""
    if isinstance(k, bool) or not isinstance(k, int) or k > 1_000_000:
        raise InvalidInputError(f"k must be an integer up to 1,000,000, not {k!r}")
    return k


def _check_mode(mode: SearchMode | str) -> SearchMode:
    try:
        return SearchMode(mode)
    except ValueError:
        modes = ", ".join(m.value for m in SearchMode)
        raise InvalidInputError(f"unknown search mode {mode!r}; use one of {modes}") from None


def default_chunks(text: str, *, locator: Mapping[str, Any] | None = None) -> list[ChunkInput]:
    """Structure-aware chunks of plain text (delegates to the ingest chunker), each
    located by its line range plus the caller's ``locator`` (a page, a heading...)."""
    from memo_core.ingest import ExtractedDocument, Section, chunk_document

    doc = ExtractedDocument(
        text=text,
        source="",
        title="",
        kind="text",
        sections=[Section(0, len(text), {})],
        metadata={},
    )
    given = dict(locator or {})
    return [ChunkInput(c.text, c.start, c.end, {**c.locator, **given}) for c in chunk_document(doc)]
