"""The knowledge base's document repository: documents, chunks and what a read may see.

Every write of a document is ONE transaction covering its document row, chunk
rows and, through the engine backend (``kb/backend.py``: FTS5 + sqlite-vec, or
tsvector + pgvector), its keyword and vector rows, so a reader (or a crash) sees
the old version or the new one, never half. Every read is scoped by ``owner``;
an empty owner fails closed. The SQL here is portable; the search legs are the
backend's (``store.backend``, forwarded below for the callers that rank), the
re-indexer is ``kb/reindex.py``. Fusion lives in ``search/hybrid.py``.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.errors import EmbedderMismatchError, InvalidInputError, StorageError
from memo_core.kb.backend import KnowledgeBackend, KnowledgeBackendFactory
from memo_core.kb.flags import chunk_flags, decode_flags, encode_flags
from memo_core.kb.gc_pause import collector_paused
from memo_core.kb.pg_backend import PostgresKnowledgeBackend
from memo_core.kb.records import (
    ChunkInput,
    DocumentInfo,
    DocumentWrite,
    IndexRows,
    SearchState,
    VectorRow,
    chunk_id,
    require_owner,
    sha256,
    utc_now,
    vector_blobs,
)
from memo_core.kb.reindex import VectorReindexer
from memo_core.kb.repeats import (
    ShingledChunk,
    add_chunk_shingles,
    remove_chunk_shingles,
)
from memo_core.kb.scope import chunk_scope, only_scope, visible_rowids
from memo_core.kb.shingle_tally import ShingleTally
from memo_core.kb.sqlite_backend import SqliteKnowledgeBackend
from memo_core.search.repeats import RepeatedText, StoredTerms
from memo_core.search.text import DEFAULT_LANGUAGES, tokenize
from memo_core.storage.base import SQLDatabase
from memo_core.storage.identity import BASE_ID_KEY
from memo_core.storage.registry import Implementations
from memo_core.types import Hit

__all__ = [
    "DOCUMENT_TEXT_SQL",
    "KB_BACKENDS",
    "ChunkInput",
    "DocumentInfo",
    "DocumentWrite",
    "KnowledgeStore",
    "SearchState",
    "require_owner",
    "sha256",
]


_DOCUMENT_COLUMNS = (
    "id, owner, collection, source, title, kind, content_hash, text, metadata,"
    " created_at, updated_at"
)
_CHUNK_COLUMNS = (
    'id, doc_rowid, owner, collection, ord, start, "end", text, locator, metadata,'
    " content_hash, flags"
)


def _marks(columns: str) -> str:
    return ",".join("?" for _ in columns.split(","))


#: SQL giving the text of document ``d``: ``documents.text`` is empty when the document
#: is its one chunk (a text stored as it came, the vector-store way), whose
#: ``chunks.text`` then holds it, rather than the same text twice.
DOCUMENT_TEXT_SQL = (
    "coalesce(nullif(d.text, ''),"
    " (SELECT c.text FROM chunks c WHERE c.doc_rowid = d.rowid ORDER BY c.ord LIMIT 1), '')"
)


#: ``json.dumps(..., ensure_ascii=False, default=str)`` without a new encoder per call.
_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


def _json(value: Mapping[str, Any] | None) -> str:
    """A metadata or locator column's JSON ("{}" without a call for the common empty one)."""
    return _JSON.encode(dict(value)) if value else "{}"


def _stored_text(write: DocumentWrite) -> str:
    """``documents.text`` of a write: '' when its one chunk is the whole text."""
    chunks = write.chunks
    if len(chunks) == 1 and chunks[0].start == 0 and chunks[0].text == write.text:
        return ""
    return write.text


def _document_values(
    write: DocumentWrite, created: str, updated: str, chunk_hashes: Sequence[str]
) -> list[Any]:
    """The ``documents`` row of a write, in :data:`_DOCUMENT_COLUMNS` order
    (``chunk_hashes``: ``sha256`` of each chunk's text; a document that is its one
    chunk has that chunk's hash, not hashed twice)."""
    whole = len(write.chunks) == 1 and write.chunks[0].text == write.text
    return [
        write.document_id,
        write.owner,
        write.collection,
        write.source,
        write.title,
        write.kind,
        write.content_hash or (chunk_hashes[0] if whole else sha256(write.text)),
        _stored_text(write),
        _json(write.metadata),
        created,
        updated,
    ]


def _chunk_values(
    write: DocumentWrite,
    doc_rowid: int,
    ord_: int,
    chunk: ChunkInput,
    words: Sequence[str],
    chunk_hash: str,
) -> list[Any]:
    """The ``chunks`` row of a write's chunk, in :data:`_CHUNK_COLUMNS` order; its
    metadata is the document's, its locator's and its own, merged in that order.
    ``words``: ``tokenize(chunk.text)`` (the flags read them); ``chunk_hash``: its
    ``sha256``."""
    merged = {**dict(write.metadata or {}), **dict(chunk.locator), **dict(chunk.metadata)}
    merged.setdefault("source", write.source)
    merged.setdefault("title", write.title)
    return [
        chunk.id or chunk_id(write.document_id, ord_, chunk.start, chunk_hash),
        doc_rowid,
        write.owner,
        write.collection,
        ord_,
        chunk.start,
        chunk.end,
        chunk.text,
        _json(chunk.locator),
        _json(merged),
        chunk_hash,
        encode_flags(chunk_flags(chunk.text, words)),
    ]


#: The knowledge-base backend of each storage engine (``storage/registry.py``): the
#: one place an engine gets its knowledge-base code.
KB_BACKENDS: Implementations[KnowledgeBackendFactory] = Implementations(
    "knowledge base",
    {"sqlite": SqliteKnowledgeBackend, "postgres": PostgresKnowledgeBackend},
)


class KnowledgeStore:
    """Typed access to one knowledge base (a SQLite file or a PostgreSQL schema).

    ``backend`` is the engine's half (``kb/backend.py``), chosen by the database's
    URL through :data:`KB_BACKENDS`; this class holds no
    engine-specific SQL and is the same class on every engine.
    """

    def __init__(self, db: SQLDatabase, *, languages: Sequence[str] = DEFAULT_LANGUAGES) -> None:
        self.db = db
        self.languages = tuple(languages)
        self._search_state: SearchState | None = None
        self._pins = threading.local()  # a search pins its state per thread
        self._shingle_tally = ShingleTally()  # a first ingest's counts (kb/shingle_tally.py)
        make = KB_BACKENDS.for_database(db)
        self.backend: KnowledgeBackend = make(db, languages=self.languages, state=self.search_state)
        self.backend.migrations.apply(db)
        self._hit_columns = (
            'c.rowid, c.id, d.id, c.text, d.source, d.title, c.collection, c.start, c."end",'
            f" c.locator, {self.backend.json_text('c.metadata')}, c.flags"
        )

    # -- file facts ---------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.query_one("SELECT value FROM kb_meta WHERE key = ?", [key])
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO kb_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    @property
    def fingerprint(self) -> EmbedderFingerprint | None:
        raw = self.meta("embedder")
        return EmbedderFingerprint.from_json(raw) if raw else None

    @property
    def vector_table(self) -> str | None:
        return self.meta("vector_table")

    def attach_embedder(self, fingerprint: EmbedderFingerprint) -> None:
        """Record the embedder on first use; refuse a different one afterwards."""
        stored = self.fingerprint
        if stored is not None:
            if stored != fingerprint:
                raise EmbedderMismatchError(
                    f"{self.db.path} was indexed with {stored.describe()}, not "
                    f"{fingerprint.describe()}; open it with the same embedder, or re-index: "
                    f"memo kb reindex --db {self.db.path} (MemoBase.reindex(new_embedder))"
                )
            return
        if not self.db.has_vec:
            return  # keyword-only file; vectors start when a capable driver opens it
        with self.db.transaction():
            if self.meta("embedder") is not None:
                # Another process attached one since our read: check it like any other.
                return self.attach_embedder(fingerprint)
            name = "vec_chunks_1"
            self.backend.create_vector_table(name, fingerprint.dimensions)
            self.set_meta("embedder", fingerprint.to_json())
            self.set_meta("vector_table", name)
            self.set_meta("vector_generation", "1")

    # -- ingest claims (kb/claims.py) ----------------------------------------

    def try_claim(
        self, owner: str, document_id: str, holder: str, *, expires_at: float, now: float
    ) -> str | None:
        """Claim a document for embedding; returns the other holder when its claim stands.

        One write transaction: a claim by another holder whose lease has not passed
        is kept (and its holder returned); anything else is replaced by ours.
        """
        with self.db.transaction():
            row = self.db.query_one(
                "SELECT holder, expires_at FROM kb_ingest_claims"
                " WHERE owner = ? AND document_id = ?",
                [owner, document_id],
            )
            if row is not None and str(row[0]) != holder and float(row[1]) > now:
                return str(row[0])
            self.db.execute(
                "DELETE FROM kb_ingest_claims WHERE owner = ? AND document_id = ?",
                [owner, document_id],
            )
            self.db.execute(
                "INSERT INTO kb_ingest_claims (owner, document_id, holder, expires_at)"
                " VALUES (?, ?, ?, ?)",
                [owner, document_id, holder, float(expires_at)],
            )
        return None

    def release_claim(self, owner: str, document_id: str, holder: str) -> None:
        """Drop ``holder``'s claim (no-op when another holder has taken it over)."""
        self.db.execute(
            "DELETE FROM kb_ingest_claims WHERE owner = ? AND document_id = ? AND holder = ?",
            [owner, document_id, holder],
        )

    # -- writes -------------------------------------------------------------
    def document_hash(self, owner: str, document_id: str) -> str | None:
        row = self.db.query_one(
            "SELECT content_hash FROM documents WHERE owner = ? AND id = ?",
            [require_owner(owner), document_id],
        )
        return None if row is None else str(row[0])

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        """Stored vectors of a document's chunks by content hash (to skip re-embedding)."""
        return self.backend.reusable_vectors(owner, document_id)

    def replace_document(
        self,
        *,
        owner: str,
        collection: str,
        document_id: str,
        text: str,
        chunks: Sequence[ChunkInput],
        vectors: Sequence[Sequence[float] | bytes] | None,
        source: str = "",
        title: str = "",
        kind: str = "text",
        metadata: Mapping[str, Any] | None = None,
        content_hash: str | None = None,
        fingerprint: EmbedderFingerprint | None = None,
    ) -> DocumentInfo:
        """Insert or atomically replace a document with its chunks and vectors.

        ``fingerprint`` names the embedder that made ``vectors``; the write is refused
        (EmbedderMismatchError) if the file's embedder differs when it commits, as it
        does after a re-index by another process while this one kept the file open.
        """
        write = DocumentWrite(
            owner=owner,
            collection=collection,
            document_id=document_id,
            text=text,
            chunks=chunks,
            vectors=vectors,
            source=source,
            title=title,
            kind=kind,
            metadata=metadata,
            content_hash=content_hash,
        )
        self.replace_documents([write], fingerprint=fingerprint)
        info = self.get_document(owner, document_id)
        if info is None:  # written in that transaction: only a broken database loses it
            raise StorageError(f"document {document_id!r} is missing right after its write")
        return info

    def replace_documents(
        self, writes: Sequence[DocumentWrite], *, fingerprint: EmbedderFingerprint | None = None
    ) -> None:
        """Insert or replace several documents in ONE transaction (all or none).

        The same rows as :meth:`replace_document` for each, as if the writes were
        applied in order (a document listed twice ends as its last write): the
        documents the base holds already are deleted, then every table gets the new
        rows at once (:meth:`_insert_rows`); a replaced document keeps its creation time.
        """
        table = self.vector_table if self.db.has_vec else None
        fp = self.fingerprint
        with collector_paused():
            blobs = self._vector_blobs(writes, table, fp)
            last = {(w.owner, w.document_id): (w, b) for w, b in zip(writes, blobs, strict=True)}
            stamp = utc_now()
            with self._tallying(), self.db.transaction():
                self._check_vectors_current(writes, table, fp, fingerprint)
                existing = self._existing_documents(list(last))
                self._delete_doc_rows([rowid for rowid, _ in existing.values()])
                created = {key: when for key, (_, when) in existing.items()}
                self._insert_rows(list(last.values()), table, stamp, created)

    def insert_documents(
        self, writes: Sequence[DocumentWrite], *, fingerprint: EmbedderFingerprint | None = None
    ) -> None:
        """Bulk insert: NEW documents in ONE transaction, the rows of each table at once.

        The same rows :meth:`replace_documents` writes; a document id the owner
        already has, or one listed twice, is refused (InvalidInputError) before
        anything is written; replace those with :meth:`replace_documents`.
        """
        table = self.vector_table if self.db.has_vec else None
        fp = self.fingerprint
        keys = [(w.owner, w.document_id) for w in writes]
        if len(set(keys)) != len(keys):
            raise InvalidInputError("a document id is listed twice: one write per document")
        with collector_paused():
            prepared = list(zip(writes, self._vector_blobs(writes, table, fp), strict=True))
            stamp = utc_now()
            with self._tallying(), self.db.transaction():
                self._check_vectors_current(writes, table, fp, fingerprint)
                taken = sorted(self._existing_documents(keys))
                if taken:
                    owner, document_id = taken[0]
                    raise InvalidInputError(
                        f"document {document_id!r} of {owner!r} exists:"
                        " replace_documents replaces it"
                    )
                self._insert_rows(prepared, table, stamp, {})

    def _insert_rows(
        self,
        prepared: Sequence[tuple[DocumentWrite, list[bytes | None]]],
        table: str | None,
        now: str,
        created: Mapping[tuple[str, str], str],
    ) -> None:
        """The rows of documents the base does not hold (inside the caller's
        transaction): rowids assigned here, under the write lock, and each table
        filled by one ``executemany``; each chunk's text is tokenized once, for its
        flags, its keyword row and its shingles."""
        # Another connection's commit, or a rollback, since the last batch ends the tally.
        self._shingle_tally.resume(self.db)
        doc_rowid = self._next_rowid("documents")
        chunk_rowid = self._next_rowid("chunks")
        documents: list[list[Any]] = []
        chunks: list[list[Any]] = []
        pending = IndexRows()
        for write, blobs in prepared:
            when = created.get((write.owner, write.document_id), now)
            hashes = [sha256(chunk.text) for chunk in write.chunks]
            documents.append([doc_rowid, *_document_values(write, when, now, hashes)])
            for ord_, (chunk, blob) in enumerate(zip(write.chunks, blobs, strict=True)):
                words = tokenize(chunk.text)
                chunks.append(
                    [
                        chunk_rowid,
                        *_chunk_values(write, doc_rowid, ord_, chunk, words, hashes[ord_]),
                    ]
                )
                pending.texts.append((chunk_rowid, chunk.text))
                pending.words.append(words)
                pending.shingled.append(
                    ShingledChunk(write.owner, doc_rowid, chunk_rowid, chunk.text, words)
                )
                if blob is not None and table is not None:
                    pending.vectors.append((chunk_rowid, write.owner, write.collection, blob))
                chunk_rowid += 1
            doc_rowid += 1
        self.db.executemany(
            f"INSERT INTO documents (rowid, {_DOCUMENT_COLUMNS})"
            f" VALUES (?, {_marks(_DOCUMENT_COLUMNS)})",
            documents,
        )
        self.db.executemany(
            f"INSERT INTO chunks (rowid, {_CHUNK_COLUMNS}) VALUES (?, {_marks(_CHUNK_COLUMNS)})",
            chunks,
        )
        if pending.texts:
            self.backend.index_chunks(pending.texts, pending.words)
        if table is not None and pending.vectors:
            self.backend.insert_vectors(table, pending.vectors)
        add_chunk_shingles(self.db, pending.shingled, self._shingle_tally)
        self.backend.finish_bulk_insert(None, 0)  # rowids continue past ours
        self._shingle_tally.seal(self.db)

    @contextlib.contextmanager
    def _tallying(self) -> Iterator[None]:
        """Around a write transaction: a failed write (its commit included) leaves the
        shingle tally holding rows the table does not, so it is dropped."""
        try:
            yield
        except BaseException:
            self._shingle_tally.forget()
            raise

    def _check_vectors_current(
        self,
        writes: Sequence[DocumentWrite],
        table: str | None,
        fp: EmbedderFingerprint | None,
        fingerprint: EmbedderFingerprint | None,
    ) -> None:
        """Refuse vectors made for an embedder the base no longer uses (under the write lock)."""
        if table is not None and any(w.vectors is not None for w in writes):
            stored = self.fingerprint  # re-read under the write lock
            if stored != (fingerprint or fp) or self.vector_table != table:
                raise EmbedderMismatchError(
                    f"{self.db.path} was re-indexed with "
                    f"{stored.describe() if stored else 'no embedder'} since these vectors "
                    "were made; reopen it with that embedder"
                )

    def _existing_documents(
        self, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], tuple[int, str]]:
        """``{(owner, id): (rowid, created_at)}`` of the listed documents the base holds."""
        ids_of: dict[str, list[str]] = {}
        for owner, document_id in dict.fromkeys(keys):
            ids_of.setdefault(owner, []).append(document_id)
        found: dict[tuple[str, str], tuple[int, str]] = {}
        for owner, ids in ids_of.items():
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                rows = self.db.query(
                    "SELECT id, rowid, created_at FROM documents"  # the (owner, id) index
                    f" WHERE owner = ? AND id IN ({','.join('?' for _ in part)})",
                    [owner, *part],
                )
                found.update(((owner, str(r[0])), (int(r[1]), str(r[2]))) for r in rows)
        return found

    def _next_rowid(self, table: str) -> int:
        return int(self.db.query_one(f"SELECT coalesce(max(rowid), 0) + 1 FROM {table}")[0])

    def _vector_blobs(
        self,
        writes: Sequence[DocumentWrite],
        table: str | None,
        fp: EmbedderFingerprint | None,
    ) -> list[list[bytes | None]]:
        """Checks each write's arguments; the float32 blob of each chunk's vector (None:
        none), per write: every given vector of the batch scaled at once."""
        stored = table is not None and fp is not None
        given: list[Sequence[float] | bytes] = []
        for write in writes:
            require_owner(write.owner)
            if not write.collection:
                raise InvalidInputError("collection must be a non-empty string")
            vectors = write.vectors
            if table is not None and vectors is None:
                raise InvalidInputError("this base stores vectors: pass one per chunk")
            if vectors is not None and len(vectors) != len(write.chunks):
                raise InvalidInputError("one vector per chunk")
            if vectors is not None and stored:
                given.extend(vectors)
        made = iter(vector_blobs(given, fp.dimensions) if given and fp is not None else [])
        return [
            [next(made) for _ in w.chunks]
            if w.vectors is not None and stored
            else [None] * len(w.chunks)
            for w in writes
        ]

    # -- bulk insert (kb/transfer.py: rows arrive with their rowids) ----------

    def json_text(self, column: str) -> str:
        """SQL reading the JSON ``column`` of ``chunks`` as JSON text."""
        return self.backend.json_text(column)

    def create_bulk_vector_table(self, name: str, dimensions: int) -> None:
        """An empty vector table ``name``, to be filled by :meth:`index_copied_chunks`."""
        self.backend.create_vector_table(name, dimensions, bulk=True)

    def index_copied_chunks(
        self,
        rows: Sequence[tuple[int, str]],
        vector_table: str | None = None,
        vectors: Sequence[VectorRow] = (),
    ) -> None:
        """Index chunks inserted with their rowids: ``(rowid, text)`` into the keyword
        index, ``(rowid, owner, collection, float32 blob)`` into ``vector_table``."""
        self.backend.index_chunks(rows)
        if vector_table is not None and vectors:
            self.backend.insert_vectors(vector_table, vectors)

    def finish_bulk_copy(self, vector_table: str | None, dimensions: int) -> None:
        """After a copy: build ``vector_table``'s index, continue the rowids past the
        copied ones."""
        self.backend.finish_bulk_insert(vector_table, dimensions)

    # -- deletes ------------------------------------------------------------

    def _delete_doc_rows(self, doc_rowids: Sequence[int]) -> None:
        for doc_rowid in doc_rowids:
            rowids = [
                int(r[0])
                for r in self.db.query("SELECT rowid FROM chunks WHERE doc_rowid = ?", [doc_rowid])
            ]
            self._remove_shingles(rowids)
            self._delete_chunk_index_rows(rowids)
            self.db.execute("DELETE FROM chunks WHERE doc_rowid = ?", [doc_rowid])
            self.db.execute("DELETE FROM documents WHERE rowid = ?", [doc_rowid])

    def _remove_shingles(self, rowids: Sequence[int]) -> None:
        """:func:`remove_chunk_shingles`; the tally no longer matches the table."""
        if rowids:
            self._shingle_tally.forget()
        remove_chunk_shingles(self.db, rowids)

    def _delete_chunk_index_rows(self, rowids: Sequence[int]) -> None:
        self.backend.delete_index_rows(rowids, self.vector_table if self.db.has_vec else None)

    def delete_documents(self, owner: str, document_ids: Iterable[str]) -> int:
        """Delete documents with their chunk, FTS and vector rows; returns how many."""
        require_owner(owner)
        ids = list(document_ids)
        with self.db.transaction():
            rowids = [
                int(r[0])
                for i in ids
                for r in self.db.query(
                    "SELECT rowid FROM documents WHERE owner = ? AND id = ?", [owner, i]
                )
            ]
            self._delete_doc_rows(rowids)
        return len(rowids)

    def delete_chunks(self, owner: str, chunk_ids: Iterable[str]) -> int:
        """Delete single chunks (and a document left with none)."""
        require_owner(owner)
        ids = list(chunk_ids)
        with self.db.transaction():
            rows = [
                r
                for i in ids
                for r in self.db.query(
                    "SELECT rowid, doc_rowid FROM chunks WHERE owner = ? AND id = ?", [owner, i]
                )
            ]
            rowids = [int(r[0]) for r in rows]
            self._remove_shingles(rowids)
            self._delete_chunk_index_rows(rowids)
            for rowid in rowids:
                self.db.execute("DELETE FROM chunks WHERE rowid = ?", [rowid])
            for doc_rowid in {int(r[1]) for r in rows}:
                left = self.db.query_one(
                    "SELECT count(*) FROM chunks WHERE doc_rowid = ?", [doc_rowid]
                )
                if int(left[0]) == 0:
                    self.db.execute("DELETE FROM documents WHERE rowid = ?", [doc_rowid])
        return len(rowids)

    def delete_collection(self, owner: str, collection: str) -> int:
        require_owner(owner)
        with self.db.transaction():
            rowids = [
                int(r[0])
                for r in self.db.query(
                    "SELECT rowid FROM documents WHERE owner = ? AND collection = ?",
                    [owner, collection],
                )
            ]
            self._delete_doc_rows(rowids)
        return len(rowids)

    # -- reads --------------------------------------------------------------

    def get_document(self, owner: str, document_id: str) -> DocumentInfo | None:
        rows = self._documents("d.owner = ? AND d.id = ?", [require_owner(owner), document_id])
        return rows[0] if rows else None

    def document_text(self, owner: str, document_id: str) -> str | None:
        row = self.db.query_one(
            f"SELECT {DOCUMENT_TEXT_SQL} FROM documents d WHERE d.owner = ? AND d.id = ?",
            [require_owner(owner), document_id],
        )
        return None if row is None else str(row[0])

    def document_slice(self, owner: str, document_id: str, start: int, end: int) -> str | None:
        """``text[start:end]`` of the document (shorter at its end), read in SQL so a long
        document is not loaded whole; ``None`` when there is no such document."""
        row = self.db.query_one(
            f"SELECT substr({DOCUMENT_TEXT_SQL}, CAST(? AS INTEGER), CAST(? AS INTEGER))"
            " FROM documents d WHERE d.owner = ? AND d.id = ?",
            [max(0, start) + 1, max(0, end - max(0, start)), require_owner(owner), document_id],
        )
        return None if row is None else str(row[0])

    def list_documents(
        self, owner: str, collection: str | None = None, *, limit: int = 1000, offset: int = 0
    ) -> list[DocumentInfo]:
        where, params = "d.owner = ?", [require_owner(owner)]
        if collection is not None:
            where += " AND d.collection = ?"
            params.append(collection)
        return self._documents(where, params, limit=limit, offset=offset)

    def _documents(
        self, where: str, params: list[Any], *, limit: int = 1000, offset: int = 0
    ) -> list[DocumentInfo]:
        rows = self.db.query(
            "SELECT d.id, d.owner, d.collection, d.source, d.title, d.kind, d.content_hash,"
            " (SELECT count(*) FROM chunks c WHERE c.doc_rowid = d.rowid), d.created_at,"
            f" d.updated_at, d.metadata FROM documents d WHERE {where}"
            " ORDER BY d.updated_at DESC, d.rowid DESC LIMIT ? OFFSET ?",
            [*params, int(limit), int(offset)],
        )
        return [
            DocumentInfo(
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], int(r[7]), r[8], r[9], json.loads(r[10])
            )
            for r in rows
        ]

    _HIT_COLUMNS = (
        'c.rowid, c.id, d.id, c.text, d.source, d.title, c.collection, c.start, c."end",'
        " c.locator, c.metadata, c.flags"
    )

    def hits_by_rowid(self, rowids: Sequence[int]) -> dict[int, Hit]:
        """Hits (score 0) for chunk rowids; the caller fills in scores."""
        out: dict[int, Hit] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" for _ in part)
            for r in self.db.query(
                f"SELECT {self._hit_columns} FROM chunks c JOIN documents d ON d.rowid = c.doc_rowid"
                f" WHERE c.rowid IN ({marks})",
                part,
            ):
                out[int(r[0])] = Hit(
                    chunk_id=r[1],
                    document_id=r[2],
                    text=r[3],
                    score=0.0,
                    source=r[4],
                    title=r[5],
                    collection=r[6],
                    start=int(r[7]),
                    end=int(r[8]),
                    locator=json.loads(r[9]),
                    metadata=json.loads(r[10]),
                    flags=decode_flags(r[11]),
                )
        return out

    def repeated_texts(self, rowids: Sequence[int]) -> dict[int, RepeatedText]:
        """What the listed chunks holding repeated text stored about it (``kb/repeats.py``):
        share and terms; chunks with none are left out."""
        out: dict[int, RepeatedText] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" for _ in part)
            for rowid, share, own, copied in self.db.query(
                "SELECT rowid, repeated, own_terms, copied_terms FROM chunks"
                f" WHERE rowid IN ({marks}) AND repeated > 0",
                part,
            ):
                out[int(rowid)] = RepeatedText(float(share), StoredTerms(own), StoredTerms(copied))
        return out

    def visible_rowids(
        self,
        owner: str,
        rowids: Sequence[int],
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> set[int]:
        """The listed chunks that belong to ``owner`` (and one of ``collections``, and
        match the metadata ``filter``).

        Ranking aids kept outside the tables (``search/keyword_index.py``,
        ``search/ann_index.py``, ``search/ram_index.py``) scope by their own copy of
        owners and collections; their answers pass through here, so a wrong copy can
        never hand out another owner's chunk.
        """
        return visible_rowids(
            self.db, owner, rowids, collections, filter, self.backend.render_filter
        )

    def chunk_rowids(self, owner: str, chunk_ids: Sequence[str]) -> dict[str, int]:
        require_owner(owner)
        out: dict[str, int] = {}
        for cid in chunk_ids:
            row = self.db.query_one(
                "SELECT rowid FROM chunks WHERE owner = ? AND id = ?", [owner, cid]
            )
            if row is not None:
                out[cid] = int(row[0])
        return out

    def get_chunks(self, owner: str, chunk_ids: Sequence[str]) -> list[Hit]:
        """Chunks by id, in the order asked (missing ids skipped)."""
        rowids = self.chunk_rowids(owner, chunk_ids)
        hits = self.hits_by_rowid(list(rowids.values()))
        return [hits[rowids[c]] for c in chunk_ids if c in rowids and rowids[c] in hits]

    def search_state(self) -> SearchState:
        """The vector table and fingerprint for the read path, re-read only after a change.

        The key is ``PRAGMA data_version`` (moves when another connection commits)
        plus this connection's ``total_changes`` (moves on our own writes), so a
        query costs one cheap pragma instead of two ``kb_meta`` look-ups.
        """
        pinned: SearchState | None = getattr(self._pins, "state", None)
        if pinned is not None:
            return pinned
        key = self.db.data_version()
        state = self._search_state
        if state is None or state.key != key:
            fp = self.fingerprint
            table = self.vector_table if self.db.has_vec else None
            state = SearchState(key, table if fp is not None else None, fp, self.meta(BASE_ID_KEY))
            self._search_state = state
        return state

    @contextlib.contextmanager
    def reading(self) -> Iterator[SearchState]:
        """Check the search state once for a whole search (its legs share it)."""
        pinned: SearchState | None = getattr(self._pins, "state", None)
        if pinned is not None:
            yield pinned
            return
        # One read snapshot for the whole search: a scope check and the query that
        # relies on it must not see different data (another process may commit between).
        with self.db.snapshot():
            self._pins.state = state = self.search_state()
            try:
                yield state
            finally:
                self._pins.state = None

    def only_scope(self, owner: str, collections: Sequence[str] | None) -> bool:
        """True when every chunk belongs to ``owner`` (and its one collection): a
        ranking leg or aid may then skip scoping its rows (``kb/scope.py``)."""
        return only_scope(self.db, self.search_state(), owner, collections)

    # -- the search legs (the backend's; see kb/backend.py) -----------------------

    def keyword_candidates(
        self,
        owner: str,
        query: str,
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        max_postings: int | None = None,
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, bm25)]`` best first (FTS5's sign: lower is better).

        ``max_postings``: when the query would read more postings than this (the sum
        of its words' document frequencies), only its rarest words are queried
        (``search/keyword.py``); if they find fewer than ``limit`` chunks, the full
        query runs after all. None (the default) queries every word.
        """
        return self.backend.keyword_candidates(
            owner, query, limit, collections=collections, filter=filter, max_postings=max_postings
        )

    def vector_candidates(
        self,
        owner: str,
        vector: Sequence[float],
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, cosine similarity)]`` best first, the ``limit`` nearest of
        the scope (or all of it), never a short list."""
        return self.backend.vector_candidates(
            owner, vector, limit, collections=collections, filter=filter
        )

    def similarities(self, rowids: Sequence[int], vector: Sequence[float]) -> dict[int, float]:
        """Cosine similarity of ``vector`` to each stored chunk vector, computed in SQL."""
        return self.backend.similarities(rowids, vector)

    def vectors_by_rowid(self, rowids: Sequence[int]) -> dict[int, list[float]]:
        return self.backend.vectors_by_rowid(rowids)

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Chunks whose keyword index holds each term, raw or stemmed (0 when none does).

        Terms are looked up as given (stems, not folded), over every owner: the
        document frequency of an IDF. Every backend counts alike.
        """
        return self.backend.document_frequencies(terms)

    def chunk_total(self) -> int:
        """How many chunks the base holds, over every owner: the N of an IDF."""
        return int(self.db.query_one("SELECT count(*) FROM chunks")[0])

    def filtered_rowids(
        self,
        owner: str,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 1000,
    ) -> list[int]:
        params: list[Any] = []
        where = chunk_scope(owner, collections, filter, params, self.backend.render_filter)
        params.append(int(limit))
        return [
            int(r[0])
            for r in self.db.query(
                f"SELECT c.rowid FROM chunks c WHERE {where} ORDER BY c.rowid LIMIT ?", params
            )
        ]

    # -- maintenance --------------------------------------------------------

    def flagged_chunks(
        self, owner: str | None = None, document_ids: Sequence[str] = (), limit: int = 100
    ) -> list[dict[str, Any]]:
        """Chunks stored with an ingest flag (``kb/flags.py``), newest first."""
        where, params = ["c.flags <> ''"], []
        if owner:
            where.append("c.owner = ?")
            params.append(owner)
        if document_ids:
            where.append(f"d.id IN ({','.join('?' for _ in document_ids)})")
            params.extend(document_ids)
        rows = self.db.query(
            "SELECT c.id, d.id, d.source, c.flags, c.text FROM chunks c"
            " JOIN documents d ON d.rowid = c.doc_rowid"
            f" WHERE {' AND '.join(where)} ORDER BY c.rowid DESC LIMIT ?",
            [*params, int(limit)],
        )
        return [
            {
                "chunk_id": r[0],
                "document_id": r[1],
                "source": r[2],
                "flags": list(decode_flags(r[3])),
                "text": " ".join(str(r[4]).split())[:160],
            }
            for r in rows
        ]

    def repeated_count(
        self, owner: str | None = None, document_ids: Sequence[str] | None = None
    ) -> int:
        """Chunks whose text is mostly (half or more) repeated across documents
        (``kb/repeats.py``), of ``owner`` (None: every owner) and of ``document_ids``
        (None: every document)."""
        scope, params = "c.repeated >= 0.5", []
        if owner:
            scope += " AND c.owner = ?"
            params.append(owner)
        sql = (
            f"SELECT count(*) FROM chunks c JOIN documents d ON d.rowid = c.doc_rowid WHERE {scope}"
        )
        if document_ids is None:
            return int(self.db.query_one(sql, params)[0])
        ids = sorted(set(document_ids))
        total = 0
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" for _ in part)
            total += int(self.db.query_one(f"{sql} AND d.id IN ({marks})", [*params, *part])[0])
        return total

    def counts(self, owner: str | None = None) -> dict[str, int]:
        scope, params = ("WHERE owner = ?", [owner]) if owner else ("", [])
        docs = self.db.query_one(f"SELECT count(*) FROM documents {scope}", params)[0]
        chunks = self.db.query_one(f"SELECT count(*) FROM chunks {scope}", params)[0]
        out = {"documents": int(docs), "chunks": int(chunks)}
        if owner is None:
            out["fts_rows"] = int(self.db.query_one("SELECT count(*) FROM chunks_fts")[0])
            table = self.vector_table if self.db.has_vec else None
            if table is not None:
                out["vector_rows"] = int(self.db.query_one(f"SELECT count(*) FROM {table}")[0])
        return out

    def rebuild_vectors(
        self,
        fingerprint: EmbedderFingerprint,
        embed: Any,
        *,
        batch_size: int = 64,
        progress: Any = None,
    ) -> int:
        """Re-index into a new vector table, swapped in by one transaction
        (``kb/reindex.py``); returns how many chunks were embedded by this call."""
        return VectorReindexer(self).rebuild(
            fingerprint, embed, batch_size=batch_size, progress=progress
        )
