"""Copy a memory between backends (``memo migrate``), without re-embedding.

:func:`copy_memory` reads every memory table of a source base (SQLite or
PostgreSQL) in rowid order, in batches, under one read snapshot, and writes the
rows into an empty destination base in one transaction:

* rows keep their rowid, id, namespace, version chain (``chain_id``, ``version``,
  ``valid_from``/``valid_to``, ``superseded_by``), strength, pinning and every
  timestamp, so history, ``as_of`` and decay read the same on both sides;
* stored vectors are copied as they are (read as float32 from vec0 or pgvector,
  written to the other), never recomputed, and the embedder fingerprint comes
  along in ``mem_meta``, so the destination refuses a different embedder too;
* the keyword index is rebuilt in the destination's own form (FTS5 rows, or
  tsvectors with their BM25 counts) from the copied texts, by the destination's
  memory backend, whose bulk-copy hooks may drop search indexes for the copy and
  build them once at the end (PostgreSQL's GIN and HNSW: far faster than row by row).

Copying into a base that already holds memory rows is refused: two histories
would mix. The result counts each table written, and each count is checked
against the source before the transaction commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memo_core.errors import ConfigError, SchemaError, StorageError
from memo_core.memory.backend import Kind, tables
from memo_core.memory.store import (
    FACT_COLUMNS,
    MESSAGE_COLUMNS,
    TURN_COLUMNS,
    FactStore,
    columns_of,
    open_fact_store,
)
from memo_core.storage.base import SQLDatabase

__all__ = ["MEMORY_TABLES", "copy_memory"]

#: Plain tables copied row by row (the index tables are derived from them).
MEMORY_TABLES = ("mem_facts", "mem_turns", "mem_messages")
_COLUMNS = {"mem_facts": FACT_COLUMNS, "mem_turns": TURN_COLUMNS, "mem_messages": MESSAGE_COLUMNS}
#: The tables whose rows are keyword-indexed and embedded, by kind.
_KINDS: dict[str, Kind] = {"mem_facts": "facts", "mem_turns": "turns"}


def _reader(src: SQLDatabase) -> FactStore:
    """A store over the source that writes nothing (no migration, no embedder)."""
    store = open_fact_store(src, apply_schema=False)
    try:
        applied = store.schema.applied(src)
    except SchemaError:
        applied = 0
    if applied != store.schema.latest:
        raise ConfigError(
            f"{src.path}: memory schema version {applied}, this memo writes "
            f"{store.schema.latest}; open it once with this memo (MemoHood) first"
        )
    return store


def _count(db: SQLDatabase, table: str) -> int:
    return int(db.query_one(f"SELECT count(*) FROM {table}")[0])


def copy_memory(src: SQLDatabase, dst: SQLDatabase, *, batch: int = 500) -> dict[str, int]:
    """Copy every memory row of ``src`` into the empty memory of ``dst``; per-table counts.

    The keys are table names of both bases: ``mem_meta``, ``mem_facts``, ``mem_turns``,
    ``mem_messages``, ``mem_facts_fts``, ``mem_turns_fts`` and, when the source has
    vectors, ``mem_facts_vec`` and ``mem_turns_vec``.
    """
    if batch < 1:
        raise ConfigError("batch must be at least 1")
    reader = _reader(src)
    fingerprint = reader.stored_fingerprint()
    writer = open_fact_store(dst)
    if any(_count(dst, table) for table in MEMORY_TABLES):
        raise ConfigError(f"{dst.path} already holds memory rows; copy into an empty base")
    existing = writer.stored_fingerprint()
    if existing is not None and existing != fingerprint:
        raise ConfigError(
            f"{dst.path} was set up for {existing.describe()} vectors; copy into a new base"
        )
    dims: int | None = None
    if fingerprint is not None:
        if not src.has_vec:
            raise ConfigError(f"{src.path} holds vectors but vector search cannot load there")
        if not dst.has_vec:
            raise ConfigError(
                f"{dst.path} cannot store vectors (install sqlite-vec / pgvector), "
                "and copying must not re-embed"
            )
        dims = fingerprint.dimensions
    counts: dict[str, int] = {}
    with src.snapshot(), dst.transaction():
        meta = src.query("SELECT key, value FROM mem_meta ORDER BY key")
        for key, value in meta:
            writer.set_meta(str(key), str(value))
        counts["mem_meta"] = len(meta)
        if dims is not None:
            writer.create_vector_tables(dims)
        writer.begin_bulk_load()  # the engine may defer its search indexes to the end
        for table in MEMORY_TABLES:
            counts.update(_copy_table(reader, writer, table, dims, batch))
        writer.end_bulk_load()
        _verify(src, dst, counts)
    return counts


def _copy_table(
    reader: FactStore, writer: FactStore, table: str, dims: int | None, batch: int
) -> dict[str, int]:
    columns = columns_of(_COLUMNS[table])
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    counts = {table: 0}
    kind = _KINDS.get(table)
    names = tables(kind) if kind is not None else None
    if names is not None:
        counts[names.fts] = 0
        if dims is not None:
            counts[names.vec] = 0
    last = None
    while True:
        rows: Sequence[Any] = reader.db.query(
            f"SELECT {', '.join(columns)} FROM {table}"
            + (" WHERE rowid > ?" if last is not None else "")
            + " ORDER BY rowid LIMIT ?",
            [last, batch] if last is not None else [batch],
        )
        if not rows:
            return counts
        last = int(rows[-1][0])
        writer.db.executemany(insert, [tuple(r) for r in rows])
        counts[table] += len(rows)
        if kind is None or names is None:
            continue
        text_at = columns.index(names.text)
        indexed = [
            (int(r[0]), str(r[text_at]))
            for r in rows
            if kind != "facts" or r[columns.index("indexed")]
        ]
        writer.index_texts(kind, indexed)
        counts[names.fts] += len(indexed)
        if dims is not None:
            ns_at = columns.index("ns")
            namespaces = {int(r[0]): str(r[ns_at]) for r in rows}
            found = reader.read_vectors(kind, list(namespaces), dims)
            writer.insert_vectors(
                kind, [(rowid, namespaces[rowid], v) for rowid, v in found.items()], dims
            )
            counts[names.vec] += len(found)


def _verify(src: SQLDatabase, dst: SQLDatabase, counts: dict[str, int]) -> None:
    """Every written table holds as many rows as the source's (inside the transaction)."""
    wrong = {
        table: (_count(src, table), _count(dst, table))
        for table in counts
        if _count(src, table) != _count(dst, table) or _count(dst, table) != counts[table]
    }
    if wrong:
        raise StorageError(f"memory copy did not verify, rows (source, destination): {wrong}")
