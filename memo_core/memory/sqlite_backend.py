"""The memory backend on SQLite: FTS5 (raw + stemmed) and sqlite-vec.

* **keyword leg** — one FTS5 table per kind (``raw``, ``stemmed``), rowid = the
  base row's rowid; user text reaches FTS5 only through
  :func:`~memo_core.search.text.fts_match_expression`, ranked by FTS5's ``bm25()``
  with memo's column weights (:func:`~memo_core.search.bm25.fts5_bm25`).
* **vector leg** — plain tables of float32 vectors with an index on ``ns``
  (:func:`~memo_core.memory.schema.vec_table_ddl`), scanned exactly per namespace
  with ``vec_distance_cosine``: a namespace holds few rows, so the scan costs what
  those rows cost however many other users the file has.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Sequence
from typing import ClassVar

from memo_core.errors import StorageError
from memo_core.memory.backend import (
    KINDS,
    MAX_IN,
    MAX_K,
    MAX_LIMIT,
    Kind,
    pack,
    placeholders,
    tables,
)
from memo_core.memory.keyword_scope import scoped_match, scoped_row
from memo_core.memory.schema import memory_schema, vec_table_ddl, vectors_in_plain_tables
from memo_core.search.bm25 import fts5_bm25
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["SCOPES_PER_QUERY", "SQLiteMemoryBackend"]

log = logging.getLogger(__name__)

#: Namespaces per keyword query: each adds its own terms to the MATCH expression.
SCOPES_PER_QUERY = 16


class SQLiteMemoryBackend:
    """:class:`~memo_core.memory.backend.MemoryBackend` for one SQLite file."""

    schema: ClassVar[Migrations] = memory_schema

    def __init__(self, db: SQLDatabase) -> None:
        self.db = db

    def after_upgrade(self, applied: Sequence[str]) -> None:
        """VACUUM after the upgrade that moved the vectors out of vec0 (it freed pages)."""
        if vectors_in_plain_tables.__name__ not in applied:
            return
        try:
            self.db.execute("VACUUM")
        except StorageError as exc:  # busy readers: the free pages are reused by later writes
            log.warning("%s: VACUUM after the upgrade failed (%s)", self.db.path, exc)

    # -- keyword leg ------------------------------------------------------------------

    def index_texts(self, kind: Kind, rows: Sequence[tuple[int, str]]) -> None:
        """Index ``(rowid, text)`` rows already stored in the base table of ``kind``,
        each token with the code of the row's namespace."""
        if not rows:
            return
        names = tables(kind)
        ns_of: dict[int, str] = {}
        ids = [rowid for rowid, _ in rows]
        for start in range(0, len(ids), MAX_IN):
            part = ids[start : start + MAX_IN]
            ns_of.update(
                (int(r[0]), str(r[1]))
                for r in self.db.query(
                    f"SELECT rowid, ns FROM {names.base} WHERE rowid IN ({placeholders(len(part))})",
                    part,
                )
            )
        self.db.executemany(
            f"INSERT INTO {names.fts} (rowid, raw, stemmed) VALUES (?, ?, ?)",
            [(rowid, *scoped_row(ns_of[rowid], text)) for rowid, text in rows],
        )

    def unindex(self, kind: Kind, rowids: Sequence[int], *, vectors: bool) -> None:
        names = tables(kind)
        for start in range(0, len(rowids), MAX_IN):
            chunk = list(rowids[start : start + MAX_IN])
            marks = placeholders(len(chunk))
            self.db.execute(f"DELETE FROM {names.fts} WHERE rowid IN ({marks})", chunk)
            if vectors:
                self.db.execute(f"DELETE FROM {names.vec} WHERE row_id IN ({marks})", chunk)

    def search_keyword(
        self, kind: Kind, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        if not namespaces or limit <= 0:
            return []
        names = tables(kind)
        table, rank = names.fts, fts5_bm25(names.fts)
        limit = min(limit, MAX_LIMIT)
        out: list[tuple[int, float]] = []
        # Each namespace's terms are its own: the postings read are those of the
        # namespaces asked for; the ns filter stays (two namespaces may share a code).
        for start in range(0, len(namespaces), SCOPES_PER_QUERY):
            group = list(namespaces[start : start + SCOPES_PER_QUERY])
            expression = scoped_match(query, group)
            if expression is None:
                return []
            out.extend(
                (int(r[0]), float(r[1]))
                for r in self.db.query(
                    f"SELECT {table}.rowid, {rank} AS score FROM {table} "
                    f"JOIN {names.base} b ON b.rowid = {table}.rowid "
                    f"WHERE {table} MATCH ? AND b.ns IN ({placeholders(len(group))}) "
                    "ORDER BY score LIMIT ?",
                    [expression, *group, limit],
                )
            )
        out.sort(key=lambda pair: (pair[1], pair[0]))
        return out[:limit]

    # -- vector leg -------------------------------------------------------------------

    def create_vector_tables(self, dimensions: int) -> None:
        for kind in KINDS:
            for statement in vec_table_ddl(tables(kind).vec, dimensions):
                self.db.execute(statement)

    def write_vectors(self, kind: Kind, rows: Sequence[tuple[int, str, Sequence[float]]]) -> None:
        if rows:
            # INSERT OR REPLACE: SQLite's upsert of a rowid table.
            self.db.executemany(
                f"INSERT OR REPLACE INTO {tables(kind).vec} (row_id, ns, embedding) "
                "VALUES (?, ?, ?)",
                [(rowid, ns, pack(vector)) for rowid, ns, vector in rows],
            )

    def read_vectors(
        self, kind: Kind, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        out: dict[int, list[float]] = {}
        dims = int(dimensions)
        ids = [int(r) for r in dict.fromkeys(rowids)]
        for start in range(0, len(ids), MAX_IN):
            chunk = ids[start : start + MAX_IN]
            for rowid, blob in self.db.query(
                f"SELECT row_id, embedding FROM {tables(kind).vec} "
                f"WHERE row_id IN ({placeholders(len(chunk))})",
                chunk,
            ):
                out[int(rowid)] = list(struct.unpack(f"{dims}f", blob))
        return out

    def search_vectors(
        self,
        kind: Kind,
        vector: Sequence[float],
        namespaces: Sequence[str],
        limit: int,
        dimensions: int,
    ) -> list[tuple[int, float]]:
        if not namespaces or limit <= 0:
            return []
        limit = min(limit, MAX_K)
        query = pack(vector)
        table = tables(kind).vec
        out: list[tuple[int, float]] = []
        # An exact scan of the namespaces' rows, found through the ns index: it costs what
        # those rows cost (a namespace holds few), however many other users the file has.
        for start in range(0, len(namespaces), MAX_IN):
            chunk = list(namespaces[start : start + MAX_IN])
            out.extend(
                (int(r[0]), 1.0 - float(r[1]))
                for r in self.db.query(
                    f"SELECT row_id, vec_distance_cosine(embedding, ?) AS distance FROM {table} "
                    f"WHERE ns IN ({placeholders(len(chunk))}) ORDER BY distance, row_id LIMIT ?",
                    [query, *chunk, limit],
                )
            )
        out.sort(key=lambda pair: (-pair[1], pair[0]))
        return out[:limit]

    # -- bulk copy --------------------------------------------------------------------

    def begin_bulk_load(self) -> None:
        """Nothing to prepare: FTS5 and the vector tables index as rows arrive."""

    def end_bulk_load(self, dimensions: int | None) -> None:
        """Nothing to rebuild; SQLite's rowids follow the largest one by themselves."""
