"""Knowledge-base storage: documents, chunks, their FTS rows and their vectors.

Every write of a document is ONE transaction covering its document row, chunk
rows, FTS rows and vector rows, so a reader (or a crash) sees the old version or
the new one, never half. Every read is scoped by ``owner``; an empty owner fails
closed. Ranking legs (:meth:`keyword_candidates`, :meth:`vector_candidates`)
return ``(chunk rowid, raw score)`` lists; fusion lives in ``search/hybrid.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from memo_core.embedders.base import EmbedderFingerprint, checked_unit_vector
from memo_core.errors import (
    EmbedderMismatchError,
    InvalidInputError,
    NamespaceRequiredError,
    StorageError,
)
from memo_core.kb.flags import chunk_flags, decode_flags, encode_flags
from memo_core.kb.fts_rank import ranked_chunks
from memo_core.kb.repeats import (
    ShingledChunk,
    add_chunk_shingles,
    remove_chunk_shingles,
    repeated_masks,
)
from memo_core.kb.schema import kb_schema, vec_table_ddl
from memo_core.search.filter_tree import parse_filter
from memo_core.search.filters import Renderer
from memo_core.search.keyword import (
    DocumentFrequencies,
    select_words,
    word_cost,
)
from memo_core.search.pg_text import Phrase, query_phrases
from memo_core.search.sqlite_filters import render_sqlite
from memo_core.search.text import (
    DEFAULT_LANGUAGES,
    detect_language,
    stem_text,
)
from memo_core.storage.base import SQLDatabase
from memo_core.storage.identity import BASE_ID_KEY
from memo_core.storage.migrations import Migrations
from memo_core.types import Hit

__all__ = ["ChunkInput", "DocumentInfo", "DocumentWrite", "KnowledgeStore", "require_owner"]


def require_owner(owner: str | None) -> str:
    """Fail closed: every knowledge-base read and write names its owner."""
    if not isinstance(owner, str) or not owner.strip():
        raise NamespaceRequiredError("an owner (namespace) is required for every call")
    return owner


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def sha256(text: str) -> str:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: not text SQLite could store
        raise InvalidInputError(f"text is not valid Unicode: {exc}") from exc
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ChunkInput:
    """A chunk to store: ``text`` is ``document_text[start:end]``."""

    text: str
    start: int
    end: int
    locator: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class DocumentWrite:
    """One document for :meth:`KnowledgeStore.replace_documents` (the arguments of
    :meth:`KnowledgeStore.replace_document`)."""

    owner: str
    collection: str
    document_id: str
    text: str
    chunks: Sequence[ChunkInput]
    vectors: Sequence[Sequence[float] | bytes] | None
    source: str = ""
    title: str = ""
    kind: str = "text"
    metadata: Mapping[str, Any] | None = None
    content_hash: str | None = None


@dataclass
class _IndexRows:
    """Keyword, vector and shingle rows of a batch, written together once its chunks are in."""

    texts: list[tuple[int, str]] = field(default_factory=list)
    vectors: list[tuple[int, str, str, bytes]] = field(default_factory=list)
    shingled: list[ShingledChunk] = field(default_factory=list)


@dataclass
class SearchState:
    """What the read path needs from ``kb_meta``, valid while ``key`` holds."""

    key: tuple[int, ...]
    vector_table: str | None
    fingerprint: EmbedderFingerprint | None
    #: The base's random id (``storage/identity.py``); None in a file opened before
    #: its migration could run (read-only media).
    base_id: str | None = None
    only_scope: dict[tuple[str, str | None], bool] = field(default_factory=dict)


@dataclass(frozen=True)
class DocumentInfo:
    id: str
    owner: str
    collection: str
    source: str
    title: str
    kind: str
    content_hash: str
    chunk_count: int
    created_at: str
    updated_at: str
    metadata: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class KnowledgeStore:
    """Typed access to one knowledge-base file.

    The SQL here is portable where it can be; what differs by engine (DDL, the
    keyword index, vector tables) sits behind the ``_migrations`` list and the
    ``_create_vector_table`` / ``_index_chunks`` / ``_insert_vectors`` /
    ``_delete_chunk_index_rows`` hooks, which ``kb/pg_store.py`` overrides.
    """

    #: The schema's numbered migrations (a dialect's subclass brings its own).
    _migrations: ClassVar[Migrations] = kb_schema
    #: How a metadata filter becomes SQL on this engine (``search/sqlite_filters.py``).
    _render_filter: ClassVar[Renderer] = staticmethod(render_sqlite)

    def __init__(self, db: SQLDatabase, *, languages: Sequence[str] = DEFAULT_LANGUAGES) -> None:
        self.db = db
        self.languages = tuple(languages)
        self._search_state: SearchState | None = None
        self._pins = threading.local()  # a search pins its state per thread
        self._migrations.apply(db)

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
            self._create_vector_table(name, fingerprint.dimensions)
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

    def _vector_blob(self, vector: Sequence[float], dims: int) -> bytes:
        return array("f", checked_unit_vector(vector, dims)).tobytes()

    def document_hash(self, owner: str, document_id: str) -> str | None:
        row = self.db.query_one(
            "SELECT content_hash FROM documents WHERE owner = ? AND id = ?",
            [require_owner(owner), document_id],
        )
        return None if row is None else str(row[0])

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        """Stored vectors of a document's chunks by content hash (to skip re-embedding)."""
        table = self.vector_table
        if table is None or not self.db.has_vec:
            return {}
        rows = self.db.query(
            f"SELECT c.content_hash, v.embedding FROM chunks c JOIN documents d "
            f"ON d.rowid = c.doc_rowid JOIN {table} v ON v.chunk_rowid = c.rowid "
            "WHERE d.owner = ? AND d.id = ?",
            [require_owner(owner), document_id],
        )
        return {str(h): bytes(e) for h, e in rows}

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

        The same rows as :meth:`replace_document` for each, with the keyword and
        vector rows written in bulk at the end; a bulk load (``add_texts`` with
        precomputed vectors) commits a batch at a time instead of a document at a time.
        """
        table = self.vector_table if self.db.has_vec else None
        fp = self.fingerprint
        prepared = [(w, self._vector_blobs(w, table, fp)) for w in writes]
        now = _now()
        pending = _IndexRows()
        with self.db.transaction():
            if table is not None and any(w.vectors is not None for w in writes):
                stored = self.fingerprint  # re-read under the write lock
                if stored != (fingerprint or fp) or self.vector_table != table:
                    raise EmbedderMismatchError(
                        f"{self.db.path} was re-indexed with "
                        f"{stored.describe() if stored else 'no embedder'} since these vectors "
                        "were made; reopen it with that embedder"
                    )
            written: set[tuple[str, str]] = set()
            for write, blobs in prepared:
                key = (write.owner, write.document_id)
                if key in written:  # replaced again in this batch: its index rows go first
                    self._flush_index_rows(pending, table)
                written.add(key)
                self._write_document_rows(write, blobs, table, now, pending)
            self._flush_index_rows(pending, table)

    def _vector_blobs(
        self, write: DocumentWrite, table: str | None, fp: EmbedderFingerprint | None
    ) -> list[bytes | None]:
        """Checks a write's arguments; the float32 blob of each chunk's vector (None: none)."""
        require_owner(write.owner)
        if not write.collection:
            raise InvalidInputError("collection must be a non-empty string")
        vectors = write.vectors
        if table is not None and vectors is None:
            raise InvalidInputError("this base stores vectors: pass one per chunk")
        if vectors is not None and len(vectors) != len(write.chunks):
            raise InvalidInputError("one vector per chunk")
        if vectors is None or table is None or fp is None:
            return [None] * len(write.chunks)
        return [
            vec if isinstance(vec, bytes) else self._vector_blob(vec, fp.dimensions)
            for vec in vectors
        ]

    def _write_document_rows(
        self,
        write: DocumentWrite,
        blobs: Sequence[bytes | None],
        table: str | None,
        now: str,
        pending: _IndexRows,
    ) -> None:
        """The document and chunk rows of one write (inside the caller's transaction);
        its keyword and vector rows are added to ``pending``."""
        owner, document_id = write.owner, write.document_id
        doc_meta = dict(write.metadata or {})
        row = self.db.query_one(
            "SELECT rowid, created_at FROM documents WHERE owner = ? AND id = ?",
            [owner, document_id],
        )
        created = now
        if row is not None:
            created = str(row[1])
            self._delete_doc_rows([int(row[0])])
        # RETURNING (not lastrowid): PostgreSQL has no lastrowid, SQLite >= 3.35 has both.
        inserted = self.db.query(
            "INSERT INTO documents (id, owner, collection, source, title, kind, content_hash,"
            " text, metadata, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
            " RETURNING rowid",
            [
                document_id,
                owner,
                write.collection,
                write.source,
                write.title,
                write.kind,
                write.content_hash or sha256(write.text),
                write.text,
                json.dumps(doc_meta, ensure_ascii=False, default=str),
                created,
                now,
            ],
        )
        doc_rowid = int(inserted[0][0])
        indexed: list[tuple[int, str]] = []
        for ord_, (chunk, blob) in enumerate(zip(write.chunks, blobs, strict=True)):
            chunk_hash = sha256(chunk.text)
            chunk_id = chunk.id or _chunk_id(document_id, ord_, chunk.start, chunk_hash)
            merged = {**doc_meta, **dict(chunk.locator), **dict(chunk.metadata)}
            merged.setdefault("source", write.source)
            merged.setdefault("title", write.title)
            inserted = self.db.query(
                'INSERT INTO chunks (id, doc_rowid, owner, collection, ord, start, "end", text,'
                " locator, metadata, content_hash, flags) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
                " RETURNING rowid",
                [
                    chunk_id,
                    doc_rowid,
                    owner,
                    write.collection,
                    ord_,
                    chunk.start,
                    chunk.end,
                    chunk.text,
                    json.dumps(dict(chunk.locator), ensure_ascii=False, default=str),
                    json.dumps(merged, ensure_ascii=False, default=str),
                    chunk_hash,
                    encode_flags(chunk_flags(chunk.text)),
                ],
            )
            chunk_rowid = int(inserted[0][0])
            indexed.append((chunk_rowid, chunk.text))
            if blob is not None and table is not None:
                pending.vectors.append((chunk_rowid, owner, write.collection, blob))
        pending.shingled.extend(ShingledChunk(owner, doc_rowid, r, t) for r, t in indexed)
        pending.texts.extend(indexed)

    def _flush_index_rows(self, pending: _IndexRows, table: str | None) -> None:
        if pending.texts:
            self._index_chunks(pending.texts)
        if table is not None and pending.vectors:
            self._insert_vectors(table, pending.vectors)
        add_chunk_shingles(self.db, pending.shingled)
        pending.texts.clear()
        pending.vectors.clear()
        pending.shingled.clear()

    # -- bulk copy (kb/transfer.py: rows arrive with their rowids) ------------

    def json_text(self, column: str) -> str:
        """SQL reading the JSON ``column`` of ``chunks`` as JSON text."""
        return column

    def create_bulk_vector_table(self, name: str, dimensions: int) -> None:
        """An empty vector table ``name``, to be filled by :meth:`index_copied_chunks`."""
        self._create_vector_table(name, dimensions, bulk=True)

    def index_copied_chunks(
        self,
        rows: Sequence[tuple[int, str]],
        vector_table: str | None = None,
        vectors: Sequence[tuple[int, str, str, bytes]] = (),
    ) -> None:
        """Index chunks inserted with their rowids: ``(rowid, text)`` into the keyword
        index, ``(rowid, owner, collection, float32 blob)`` into ``vector_table``."""
        self._index_chunks(rows)
        if vector_table is not None and vectors:
            self._insert_vectors(vector_table, vectors)

    def finish_bulk_copy(self, vector_table: str | None, dimensions: int) -> None:
        """After a copy: build ``vector_table``'s index, continue the rowids past the
        copied ones (SQLite's next rowid already follows the largest)."""
        if vector_table is not None:
            self._finish_vector_table(vector_table, dimensions)

    # -- dialect hooks (kb/pg_store.py overrides these) ----------------------

    def _create_vector_table(self, name: str, dimensions: int, *, bulk: bool = False) -> None:
        """Create an empty vector table ``name`` (inside the caller's transaction).

        ``bulk``: it is about to be filled in one go (re-index, copy), and
        :meth:`_finish_vector_table` runs afterwards, so an engine whose index is
        cheaper to build than to grow row by row can build it then.
        """
        self.db.execute(vec_table_ddl(name, dimensions))

    def _finish_vector_table(self, name: str, dimensions: int) -> None:
        """After a bulk load into ``name``: nothing to do for sqlite-vec (no index)."""

    def _index_chunks(self, rows: Sequence[tuple[int, str]]) -> None:
        """Add ``(chunk rowid, text)`` rows to the keyword index (raw and stemmed)."""
        self.db.executemany(
            "INSERT INTO chunks_fts (rowid, raw, stemmed) VALUES (?, ?, ?)",
            [
                (rowid, text, stem_text(text, detect_language(text, self.languages)))
                for rowid, text in rows
            ],
        )

    def _insert_vectors(self, table: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        """Store ``(chunk rowid, owner, collection, float32 blob)`` rows in ``table``."""
        self.db.executemany(
            f"INSERT INTO {table} (chunk_rowid, owner, collection, embedding) VALUES (?, ?, ?, ?)",
            rows,
        )

    def _delete_doc_rows(self, doc_rowids: Sequence[int]) -> None:
        for doc_rowid in doc_rowids:
            rowids = [
                int(r[0])
                for r in self.db.query("SELECT rowid FROM chunks WHERE doc_rowid = ?", [doc_rowid])
            ]
            remove_chunk_shingles(self.db, rowids)
            self._delete_chunk_index_rows(rowids)
            self.db.execute("DELETE FROM chunks WHERE doc_rowid = ?", [doc_rowid])
            self.db.execute("DELETE FROM documents WHERE rowid = ?", [doc_rowid])

    def _delete_chunk_index_rows(self, rowids: Sequence[int]) -> None:
        if not rowids:
            return
        table = self.vector_table if self.db.has_vec else None
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" for _ in part)
            self.db.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({marks})", part)
        if table is not None:
            # One point delete per row: vec0 answers "IN (...)" with a full-table scan.
            self.db.executemany(
                f"DELETE FROM {table} WHERE chunk_rowid = ?", [[int(r)] for r in rowids]
            )

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
            remove_chunk_shingles(self.db, rowids)
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
            "SELECT text FROM documents WHERE owner = ? AND id = ?",
            [require_owner(owner), document_id],
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
                f"SELECT {self._HIT_COLUMNS} FROM chunks c JOIN documents d ON d.rowid = c.doc_rowid"
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

    def repeated_shares(self, rowids: Sequence[int]) -> dict[int, float]:
        """``chunks.repeated`` of the given chunks, where above 0 (``kb/repeats.py``)."""
        out: dict[int, float] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" for _ in part)
            for rowid, share in self.db.query(
                f"SELECT rowid, repeated FROM chunks WHERE rowid IN ({marks}) AND repeated > 0",
                part,
            ):
                out[int(rowid)] = float(share)
        return out

    def repeated_masks(self, rowids: Sequence[int]) -> dict[int, tuple[list[str], list[bool]]]:
        """Each chunk's words and which of them are repeated text (``kb/repeats.py``)."""
        return repeated_masks(self.db, rowids)

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
        params: list[Any] = []
        where = self._scope(owner, collections, filter, params)
        out: set[int] = set()
        for start in range(0, len(rowids), 500):
            part = [int(r) for r in rowids[start : start + 500]]
            marks = ",".join("?" for _ in part)
            sql = f"SELECT c.rowid FROM chunks c WHERE c.rowid IN ({marks}) AND {where}"
            out.update(int(r[0]) for r in self.db.query(sql, [*part, *params]))
        return out

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

    def _only_scope(
        self, state: SearchState, owner: str, collections: Sequence[str] | None
    ) -> bool:
        """True when every chunk belongs to ``owner`` (and its one collection).

        Then a ranking leg may skip the per-row join that scopes it: the answer is
        the same. Two index range probes, cached with the search state.
        """
        if collections is not None and len(collections) != 1:
            return False
        cache_key = (owner, collections[0] if collections else None)
        if cache_key not in state.only_scope:
            params: list[Any] = [owner, owner]
            sql = "SELECT EXISTS (SELECT 1 FROM chunks WHERE owner < ? OR owner > ?)"
            if collections:
                sql += (
                    " OR EXISTS (SELECT 1 FROM chunks WHERE owner = ?"
                    " AND (collection < ? OR collection > ?))"
                )
                params += [owner, collections[0], collections[0]]
            state.only_scope[cache_key] = not int(self.db.query_one(sql, params)[0])
        return state.only_scope[cache_key]

    def similarities(self, rowids: Sequence[int], vector: Sequence[float]) -> dict[int, float]:
        """Cosine similarity of ``vector`` to each stored chunk vector, computed in SQL."""
        state = self.search_state()
        if state.vector_table is None or state.fingerprint is None or not rowids:
            return {}
        blob = self._vector_blob(vector, state.fingerprint.dimensions)
        # One point query per rowid: vec0 answers "chunk_rowid IN (...)" with a full
        # scan (150 ms at 100k chunks), "chunk_rowid = ?" with one look-up.
        sql = (
            f"SELECT vec_distance_cosine(embedding, ?) FROM {state.vector_table}"
            " WHERE chunk_rowid = ?"
        )
        out: dict[int, float] = {}
        for rowid in dict.fromkeys(rowids):
            row = self.db.query_one(sql, [blob, int(rowid)])
            if row is not None:
                out[int(rowid)] = 1.0 - float(row[0])
        return out

    def vectors_by_rowid(self, rowids: Sequence[int]) -> dict[int, list[float]]:
        table = self.vector_table if self.db.has_vec else None
        if table is None or not rowids:
            return {}
        out: dict[int, list[float]] = {}
        sql = f"SELECT embedding FROM {table} WHERE chunk_rowid = ?"  # point look-ups, no scan
        for rowid in dict.fromkeys(rowids):
            row = self.db.query_one(sql, [int(rowid)])
            if row is not None:
                out[int(rowid)] = array("f", bytes(row[0])).tolist()
        return out

    def _scope(
        self,
        owner: str,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
        params: list[Any],
    ) -> str:
        where = "c.owner = ?"
        params.append(require_owner(owner))
        if collections:
            where += f" AND c.collection IN ({','.join('?' for _ in collections)})"
            params.extend(collections)
        if filter:
            where += " AND " + self._render_filter(
                parse_filter(filter), params, column="c.metadata"
            )
        return where

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
        """``[(chunk rowid, bm25)]`` best first (BM25: lower is better, as FTS5 reports it).

        ``max_postings``: when the query would read more postings than this (the sum
        of its words' document frequencies), only its rarest words are queried
        (``search/keyword.py``); if they find fewer than ``limit`` chunks, the full
        query runs after all. None (the default) queries every word.
        """
        if max_postings is None:
            return self._keyword_rows(
                self._keyword_phrases(query), owner, limit, collections, filter
            )
        trimmed = self._keyword_phrases(query, budget=max_postings)
        rows = self._keyword_rows(trimmed, owner, limit, collections, filter)
        if len(rows) < limit:
            full = self._keyword_phrases(query)
            if full != trimmed:
                rows = self._keyword_rows(full, owner, limit, collections, filter)
        return rows

    def _keyword_phrases(self, query: str, *, budget: int | None = None) -> list[Phrase]:
        """The query's phrases; with a postings ``budget``, only its rarest words'."""
        if budget is None:
            return query_phrases(query, languages=self.languages)
        frequencies: DocumentFrequencies | None = getattr(self, "_frequencies", None)
        if frequencies is None:
            frequencies = self._frequencies = DocumentFrequencies(
                self._token_document_counts, self._size_hint
            )
        known = frequencies

        def rarest(words: list[list[str]], stems: list[list[str]]) -> list[int]:
            counts = known.get([t for w, st in zip(words, stems, strict=True) for t in (*w, *st)])
            return select_words(
                [word_cost(w, st, counts) for w, st in zip(words, stems, strict=True)],
                budget=budget,
            )

        return query_phrases(query, languages=self.languages, keep=rarest)

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Chunks whose keyword index holds each term, raw or stemmed (0 when none does).

        Terms are looked up as given (stems, not folded), over every owner: the
        document frequency of an IDF. Every backend counts alike (FTS5's
        ``fts5vocab`` here, the ``tsvector`` columns on PostgreSQL).
        """
        counts = self._token_document_counts(terms)
        return {t: counts.get(t, 0) for t in terms}

    def chunk_total(self) -> int:
        """How many chunks the base holds, over every owner: the N of an IDF."""
        return int(self.db.query_one("SELECT count(*) FROM chunks")[0])

    def _token_document_counts(self, tokens: Sequence[str]) -> dict[str, int]:
        # Point look-ups: fts5vocab answers "term IN (...)" by scanning the vocabulary.
        out: dict[str, int] = {}
        for token in tokens:
            row = self.db.query_one("SELECT doc FROM chunks_fts_vocab WHERE term = ?", [token])
            if row is not None:
                out[token] = int(row[0])
        return out

    def _size_hint(self) -> int:
        return int(self.db.query_one("SELECT coalesce(max(rowid), 0) FROM chunks")[0])

    def _keyword_rows(
        self,
        phrases: Sequence[Phrase],
        owner: str,
        limit: int,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
    ) -> list[tuple[int, float]]:
        """FTS5 finds the chunks, memo's BM25 ranks them (``kb/fts_rank.py``)."""
        if not filter and self._only_scope(self.search_state(), require_owner(owner), collections):
            return ranked_chunks(self.db, phrases, limit)  # nothing to scope out

        def visible(rowids: list[int]) -> set[int]:
            return self.visible_rowids(owner, rowids, collections, filter)

        return ranked_chunks(self.db, phrases, limit, visible)

    def vector_candidates(
        self,
        owner: str,
        vector: Sequence[float],
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, cosine similarity)]`` best first.

        Owner and a single collection filter inside the KNN index (partition key and
        metadata column); a metadata filter or several collections switch to an
        exact scan restricted in SQL, never to post-filtering a short list.
        """
        state = self.search_state()
        table, fp = state.vector_table, state.fingerprint
        if table is None or fp is None:
            return []
        blob = self._vector_blob(vector, fp.dimensions)
        require_owner(owner)
        if not filter and (not collections or len(collections) == 1):
            params: list[Any] = [blob, int(limit), owner]
            extra = ""
            if collections:
                extra = " AND collection = ?"
                params.append(collections[0])
            rows = self.db.query(
                f"SELECT chunk_rowid, distance FROM {table}"
                f" WHERE embedding MATCH ? AND k = ? AND owner = ?{extra} ORDER BY distance",
                params,
            )
        else:
            params = [blob]
            where = self._scope(owner, collections, filter, params)
            params.append(int(limit))
            rows = self.db.query(
                f"SELECT v.chunk_rowid, vec_distance_cosine(v.embedding, ?) AS distance"
                f" FROM {table} v JOIN chunks c ON c.rowid = v.chunk_rowid"
                f" WHERE {where} ORDER BY distance LIMIT ?",
                params,
            )
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    def filtered_rowids(
        self,
        owner: str,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 1000,
    ) -> list[int]:
        params: list[Any] = []
        where = self._scope(owner, collections, filter, params)
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
        """Re-index: embed every chunk into a NEW vector table, then swap in one transaction.

        Until the swap, searches keep using the old vectors. A re-index that was
        interrupted (killed, or stopped by an embedder error) resumes: the vectors it
        already built for the same embedder are kept and only the rest are embedded
        (a paid re-index does not pay twice). Chunks written meanwhile are found in
        the change log (``kb_chunk_changes``) and embedded again. Returns how many
        chunks were embedded by this call.
        """
        if not self.db.has_vec:
            raise StorageError("vector search is unavailable on this SQLite driver")
        name, seen = self._start_rebuild(fingerprint)
        total = int(self.db.query_one("SELECT count(*) FROM chunks")[0])
        done = 0
        for _ in range(_REBUILD_ROUNDS):
            seen = self._forget_changed(name, seen)
            done += self._embed_missing(name, fingerprint, embed, batch_size, progress, total)
            if self._swap_rebuilt(name, fingerprint, seen):
                return done
        raise StorageError("chunks kept changing during the re-index; run it again")

    def _start_rebuild(self, fingerprint: EmbedderFingerprint) -> tuple[str, int | None]:
        """The table to build into and the change-log position it is known good at:
        the half-built table of an interrupted re-index with the same embedder, or a
        new one (None: no change log here, so nothing can be resumed)."""
        building = self.meta(_REBUILD_TABLE)
        seen = self._log_position()
        if (
            building is not None
            and seen is not None
            and self.meta(_REBUILD_EMBEDDER) == fingerprint.to_json()
            and building != self.vector_table
        ):
            at = int(self.meta(_REBUILD_SEQ) or "-1")
            low = self._log_low()
            if 0 <= at <= seen and (low is None or low <= at + 1 or at == seen):
                return building, at  # resume: vectors made for this embedder are kept
        generation = int(self.meta("vector_generation") or "0") + 1
        name = f"vec_chunks_{generation}"
        with self.db.transaction():
            if building is not None and building != self.vector_table:
                self.db.execute(f"DROP TABLE IF EXISTS {building}")
            self.db.execute(f"DROP TABLE IF EXISTS {name}")
            self._create_vector_table(name, fingerprint.dimensions, bulk=True)
            seen = self._log_position()
            if seen is not None:  # recorded with the table: a kill leaves both or neither
                self.set_meta(_REBUILD_TABLE, name)
                self.set_meta(_REBUILD_EMBEDDER, fingerprint.to_json())
                self.set_meta(_REBUILD_SEQ, str(seen))
        return name, seen

    def _forget_changed(self, name: str, seen: int | None) -> int | None:
        """Drop the vectors of chunks written since ``seen`` (they are embedded again);
        returns the new position."""
        if seen is None:
            return None
        with self.db.transaction():
            now = int(self._log_position() or 0)
            rows = self.db.query(
                "SELECT DISTINCT chunk_rowid FROM kb_chunk_changes WHERE seq > ? AND seq <= ?",
                [seen, now],
            )
            self.db.executemany(
                f"DELETE FROM {name} WHERE chunk_rowid = ?", [[int(r[0])] for r in rows]
            )
            self.set_meta(_REBUILD_SEQ, str(now))
        return now

    def _embed_missing(
        self,
        name: str,
        fingerprint: EmbedderFingerprint,
        embed: Any,
        batch_size: int,
        progress: Any,
        total: int,
    ) -> int:
        """Embed the chunks with no vector in ``name`` yet, a batch per transaction."""
        have = int(self.db.query_one(f"SELECT count(*) FROM {name}")[0])
        done, last = 0, 0
        while True:
            rows = self.db.query(
                "SELECT c.rowid, c.owner, c.collection, c.text FROM chunks c WHERE c.rowid > ?"
                f" AND NOT EXISTS (SELECT 1 FROM {name} v WHERE v.chunk_rowid = c.rowid)"
                " ORDER BY c.rowid LIMIT ?",
                [last, batch_size],
            )
            if not rows:
                return done
            vectors = embed([str(r[3]) for r in rows])
            with self.db.transaction():
                dims = fingerprint.dimensions
                self._insert_vectors(
                    name,
                    [
                        (int(r[0]), str(r[1]), str(r[2]), self._vector_blob(v, dims))
                        for r, v in zip(rows, vectors, strict=True)
                    ],
                )
            last = int(rows[-1][0])
            done += len(rows)
            if progress is not None:
                progress(min(have + done, total), total)

    def _swap_rebuilt(self, name: str, fingerprint: EmbedderFingerprint, seen: int | None) -> bool:
        """Make ``name`` the active table, unless chunks were written since ``seen``
        (False: another round embeds them)."""
        with self.db.transaction():
            self._finish_vector_table(name, fingerprint.dimensions)
        with self.db.transaction():
            if seen is not None and self._log_position() != seen:
                return False
            # Chunks written while we were embedding have no vector yet: refuse to swap
            # a table that would silently miss them.
            missing = self.db.query_one(
                f"SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                f"(SELECT 1 FROM {name} v WHERE v.chunk_rowid = c.rowid)"
            )[0]
            if int(missing):
                if seen is not None:
                    return False
                raise StorageError(f"{missing} chunks changed during re-index; run it again")
            self.db.execute(
                f"DELETE FROM {name} WHERE chunk_rowid NOT IN (SELECT rowid FROM chunks)"
            )
            old = self.vector_table
            self.set_meta("embedder", fingerprint.to_json())
            self.set_meta("vector_table", name)
            self.set_meta("vector_generation", name.rsplit("_", 1)[1])
            self.db.execute(
                "DELETE FROM kb_meta WHERE key IN (?, ?, ?)",
                [_REBUILD_TABLE, _REBUILD_EMBEDDER, _REBUILD_SEQ],
            )
            if old and old != name:
                self.db.execute(f"DROP TABLE IF EXISTS {old}")
        return True

    def _log_position(self) -> int | None:
        """The last entry of the change log (None where there is none: PostgreSQL)."""
        return int(self.db.query_one("SELECT coalesce(max(seq), 0) FROM kb_chunk_changes")[0])

    def _log_low(self) -> int | None:
        """The first entry still held in the change log (older ones were pruned)."""
        row = self.db.query_one("SELECT min(seq) FROM kb_chunk_changes")
        return None if row[0] is None else int(row[0])


#: ``kb_meta`` keys of a re-index under way: the table it builds, for which
#: embedder, and the change-log position up to which that table is in step.
_REBUILD_TABLE, _REBUILD_EMBEDDER, _REBUILD_SEQ = "reindex_table", "reindex_embedder", "reindex_seq"
#: A re-index embeds what was written meanwhile this many times before giving up.
_REBUILD_ROUNDS = 5


def _chunk_id(document_id: str, ord_: int, start: int, chunk_hash: str) -> str:
    """Stable id: the same document content always yields the same chunk ids."""
    digest = hashlib.sha256(
        f"{document_id}\x00{ord_}\x00{start}\x00{chunk_hash}".encode()
    ).hexdigest()
    return digest[:24]
