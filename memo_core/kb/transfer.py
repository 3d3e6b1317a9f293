"""Copy a knowledge base between backends (SQLite <-> PostgreSQL) without re-embedding.

``memo migrate`` calls :func:`copy_knowledge_base` for the ``kb`` part of a base.
What is copied, and why this way:

* ``kb_meta`` row for row, so the destination records the same embedder
  fingerprint and the same active vector table: the base opens with the embedder
  it was indexed with, and refuses any other, exactly as before.
* ``documents`` and ``chunks`` with their rowids, so chunk -> document links and
  vector -> chunk links stay valid without a mapping table (PostgreSQL's rowid
  sequences are moved past the copied rows afterwards).
* The stored vectors, read back as floats and written into a vector table of the
  same name: no embedding call, so no cost and no drift. An HNSW index
  (PostgreSQL) is built once after the load, not grown row by row.
* The keyword index is **rebuilt** on the destination from the chunk texts (FTS5
  rows and ``tsvector`` rows are not interchangeable), through the same code that
  indexes a new document; so are the shingles of repeated text (``kb/repeats.py``).

Rows move in batches of ``batch`` chunks, each batch one destination transaction.
The destination must hold no knowledge-base rows; the returned counts are per
table, named as both backends name them, so a caller can count both sides again.
"""

from __future__ import annotations

from array import array
from typing import Any

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.errors import ConfigError, StorageError
from memo_core.kb.base import open_store
from memo_core.kb.repeats import backfill_repeats
from memo_core.kb.store import KnowledgeStore
from memo_core.storage.base import SQLDatabase
from memo_core.storage.identity import BASE_ID_KEY

__all__ = ["copy_knowledge_base"]

_DOCUMENT_COLUMNS = (
    "rowid, id, owner, collection, source, title, kind, content_hash, text, metadata,"
    " created_at, updated_at"
)
_CHUNK_COLUMNS = (
    'rowid, id, doc_rowid, owner, collection, ord, start, "end", text, locator, metadata,'
    " content_hash, flags"
)


def copy_knowledge_base(src: SQLDatabase, dst: SQLDatabase, *, batch: int = 500) -> dict[str, int]:
    """Copy the knowledge base in ``src`` into the empty one in ``dst``; rows per table.

    The result names ``documents``, ``chunks``, ``kb_meta``, ``chunks_fts`` and,
    when the base has vectors, its vector table (``vec_chunks_<n>``).
    """
    if batch < 1:
        raise ConfigError("batch must be at least 1")
    source, target = open_store(src), open_store(dst)
    for table in ("documents", "chunks"):
        if int(dst.query_one(f"SELECT count(*) FROM {table}")[0]):
            raise ConfigError(f"{dst.path} already holds {table}; copy into an empty base")
    meta = [  # the destination keeps its own identity (storage/identity.py)
        (str(k), str(v))
        for k, v in src.query(
            "SELECT key, value FROM kb_meta WHERE key <> ? ORDER BY key", [BASE_ID_KEY]
        )
    ]
    vector_table = _prepare_destination(source, target, meta)
    counts = {"kb_meta": len(meta)}
    counts["documents"] = _copy_documents(src, dst, batch)
    counts["chunks"], counts["chunks_fts"], vectors = _copy_chunks(
        source, target, vector_table, batch
    )
    with dst.transaction():  # derived from the chunk texts, like the keyword index
        backfill_repeats(dst)
    if vector_table is not None:
        counts[vector_table] = vectors
    with dst.transaction():
        target.finish_bulk_copy(vector_table, _dimensions(meta) if vector_table else 0)
    return counts


def _prepare_destination(
    source: KnowledgeStore, target: KnowledgeStore, meta: list[tuple[str, str]]
) -> str | None:
    """Give the destination the source's ``kb_meta`` and an empty vector table of the
    same name; returns that name (None for a keyword-only base).

    An empty destination may still have been opened with an embedder (a ``kb_meta``
    row and an empty vector table): those are replaced, so both sides end up alike.
    """
    facts = dict(meta)
    name = facts.get("vector_table") if "embedder" in facts else None
    if name is not None and not source.db.has_vec:
        raise StorageError(
            f"{source.db.path} stores vectors but vector search is unavailable here "
            "(sqlite-vec cannot load on this driver), so they cannot be read"
        )
    if name is not None and not target.db.has_vec:
        raise StorageError(
            f"{target.db.path} cannot store vectors (no sqlite-vec / pgvector available)"
        )
    with target.db.transaction():
        previous = target.meta("vector_table")
        for old in {previous, name} - {None}:
            target.db.execute(f"DROP TABLE IF EXISTS {old}")
        target.db.execute("DELETE FROM kb_meta WHERE key <> ?", [BASE_ID_KEY])
        for key, value in meta:
            target.set_meta(key, value)
        if name is not None:
            target.create_bulk_vector_table(name, _dimensions(meta))
    return name


def _dimensions(meta: list[tuple[str, str]]) -> int:
    return EmbedderFingerprint.from_json(dict(meta)["embedder"]).dimensions


def _copy_documents(src: SQLDatabase, dst: SQLDatabase, batch: int) -> int:
    copied, last = 0, -1
    marks = ", ".join("?" for _ in range(12))
    while True:
        rows = src.query(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE rowid > ? ORDER BY rowid LIMIT ?",
            [last, batch],
        )
        if not rows:
            return copied
        with dst.transaction():
            dst.executemany(
                f"INSERT INTO documents ({_DOCUMENT_COLUMNS}) VALUES ({marks})",
                [tuple(r) for r in rows],
            )
        copied += len(rows)
        last = int(rows[-1][0])


def _copy_chunks(
    source: KnowledgeStore, target: KnowledgeStore, vector_table: str | None, batch: int
) -> tuple[int, int, int]:
    src, dst = source.db, target.db
    columns = _CHUNK_COLUMNS.replace(" metadata,", f" {source.json_text('metadata')},")
    marks = ", ".join("?" for _ in range(13))
    chunks = indexed = vectors = 0
    last = -1
    while True:
        rows: list[Any] = src.query(
            f"SELECT {columns} FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT ?", [last, batch]
        )
        if not rows:
            return chunks, indexed, vectors
        rowids = [int(r[0]) for r in rows]
        stored = source.vectors_by_rowid(rowids) if vector_table is not None else {}
        with dst.transaction():
            dst.executemany(
                f"INSERT INTO chunks ({_CHUNK_COLUMNS}) VALUES ({marks})",
                [tuple(r) for r in rows],
            )
            target.index_copied_chunks(
                [(int(r[0]), str(r[8])) for r in rows],
                vector_table,
                [
                    (int(r[0]), str(r[3]), str(r[4]), array("f", stored[int(r[0])]).tobytes())
                    for r in rows
                    if int(r[0]) in stored
                ],
            )
        chunks += len(rows)
        indexed += len(rows)
        vectors += len(stored)
        last = rowids[-1]
