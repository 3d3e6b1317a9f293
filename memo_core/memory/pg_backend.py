"""The memory backend on PostgreSQL: tsvector with FTS5's BM25, and pgvector.

* **keyword leg** — per kind, a table of ``raw`` and ``stemmed`` ``tsvector``
  columns built in Python from memo's own tokenizer (:mod:`memo_core.search.
  pg_text`, the knowledge base's too), so the match *set* is FTS5's exactly, and
  the row's token count; a one-row statistics table keeps the index's rows and
  tokens in step in the same transaction. Rows are ranked by FTS5's ``bm25()``
  computed in SQL (:func:`~memo_core.search.pg_bm25.bm25_statement`): the same
  IDF, k1, b and column weights as SQLite, counted as SQLite's namespace-scoped
  index counts them (a word's rows within the row's namespace; rows and average
  length over the whole index), so both engines give the same numbers and put the
  same facts first. The asking namespaces' rows are read once, before counting and
  matching, so a search costs what those rows cost, not every user's matches.
  (``ts_rank`` was used before: with no IDF a common word outweighed a rare one,
  and recall's keyword order differed by engine.)
* **vector leg** — ``ORDER BY embedding <=> ?::vector LIMIT k`` over an HNSW
  index. HNSW filters *after* its graph walk (pgvector 0.6 has no iterative
  scan), so a selective namespace can come back short. The backend therefore
  counts the namespaces' rows first (up to a cap): with at most
  :data:`EXACT_SEARCH_ROWS` rows, or when ``k`` covers them all, it searches
  exactly, as SQLite always does; above, it raises ``hnsw.ef_search`` for the
  transaction and falls back to an exact scan whenever the filtered walk returns
  fewer than ``k`` rows.
* **vectors in and out** — ``vector(d)`` written from float lists (upsert), read
  back with ``embedding::real[]`` and snapped to float32, so a vector reads the same
  as from SQLite and a copied vector is bit-identical.
* **bulk copy** — the GIN and HNSW indexes are dropped before a copy and built
  once after it; the identities then move past the largest copied rowid.

Namespaces are a bound array (``ns = ANY(?)``) in every search: fail closed.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Sequence
from typing import ClassVar

from memo_core.memory.backend import KINDS, MAX_K, MAX_LIMIT, Kind, tables
from memo_core.memory.pg_schema import (
    FTS_INDEX_DDL,
    FTS_STATS,
    HNSW_MAX_DIMENSIONS,
    hnsw_index_ddl,
    pg_memory_schema,
    pg_vec_table_ddl,
)
from memo_core.search.pg_bm25 import bm25_statement
from memo_core.search.pg_text import index_text, query_phrases
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["EXACT_SEARCH_ROWS", "MAX_EF_SEARCH", "PostgresMemoryBackend"]

log = logging.getLogger(__name__)

#: Namespaces holding at most this many vectors are searched exactly (no HNSW): a scan
#: of a few thousand vectors costs about what the graph walk does, and is exact.
EXACT_SEARCH_ROWS = 2000
#: pgvector's ceiling for ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000
_ROWID_TABLES = ("mem_facts", "mem_turns", "mem_messages")


def _floats(vector: Sequence[float]) -> list[float]:
    # psycopg refuses a list mixing int and float; pgvector casts float8[] to vector.
    return [float(x) for x in vector]


def _as_float32(values: Sequence[float]) -> list[float]:
    # real[] arrives as shortest decimal text; snap back to the stored float32 values, so a
    # vector read here equals the one SQLite returns (and copies are bit-identical).
    return list(struct.unpack(f"{len(values)}f", struct.pack(f"{len(values)}f", *values)))


class PostgresMemoryBackend:
    """:class:`~memo_core.memory.backend.MemoryBackend` for one PostgreSQL schema."""

    schema: ClassVar[Migrations] = pg_memory_schema

    def __init__(self, db: SQLDatabase) -> None:
        self.db = db

    def after_upgrade(self, applied: Sequence[str]) -> None:
        """Nothing to hand back: PostgreSQL's migrations free no pages, autovacuum runs."""

    # -- keyword leg ------------------------------------------------------------------

    def index_texts(self, kind: Kind, rows: Sequence[tuple[int, str]]) -> None:
        if not rows:
            return
        table = tables(kind).fts
        indexed = [(rowid, index_text(text)) for rowid, text in rows]
        self.db.executemany(
            f"INSERT INTO {table} (rowid, raw, stemmed, ntok) "
            "VALUES (?, ?::tsvector, ?::tsvector, ?)",
            [(rowid, row.raw, row.stemmed, row.ntok) for rowid, row in indexed],
        )
        self._count(table, len(indexed), sum(row.ntok for _, row in indexed))

    def _count(self, table: str, rows: int, tokens: int) -> None:
        """Move the index's totals by ``rows`` and ``tokens`` (BM25's N and length)."""
        if rows:
            self.db.execute(
                f"UPDATE {FTS_STATS[table]} SET nrows = nrows + ?, ntokens = ntokens + ?",
                [rows, tokens],
            )

    def unindex(self, kind: Kind, rowids: Sequence[int], *, vectors: bool) -> None:
        if not rowids:
            return
        names = tables(kind)
        ids = [int(r) for r in rowids]
        gone = self.db.query(f"DELETE FROM {names.fts} WHERE rowid = ANY(?) RETURNING ntok", [ids])
        self._count(names.fts, -len(gone), -sum(int(r[0]) for r in gone))
        if vectors:
            self.db.execute(f"DELETE FROM {names.vec} WHERE row_id = ANY(?)", [ids])

    def search_keyword(
        self, kind: Kind, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        phrases = query_phrases(query)
        if not phrases or not namespaces or limit <= 0:
            return []
        names = tables(kind)
        scope = f"f.rowid IN (SELECT b.rowid FROM {names.base} b WHERE b.ns = ANY(?))"
        # A word's rows are counted within the row's namespace, as SQLite's scoped
        # index counts them (memory/keyword_scope.py).
        sql, params = bm25_statement(
            phrases,
            scope,
            [list(namespaces)],
            index=names.fts,
            stats=FTS_STATS[names.fts],
            partition=f"(SELECT b.ns FROM {names.base} b WHERE b.rowid = f.rowid)",
            # One user's rows, read once: the index holds every user's.
            scope_first=True,
        )
        rows = self.db.query(sql, [*params, min(limit, MAX_LIMIT)])
        return [(int(r[0]), float(r[1])) for r in rows]

    # -- vector leg -------------------------------------------------------------------

    def create_vector_tables(self, dimensions: int) -> None:
        if int(dimensions) > HNSW_MAX_DIMENSIONS:
            log.warning(
                "%d dimensions exceed pgvector's HNSW limit (%d): vector search is exact",
                dimensions,
                HNSW_MAX_DIMENSIONS,
            )
        for kind in KINDS:
            names = tables(kind)
            for statement in pg_vec_table_ddl(names.vec, names.base, dimensions):
                self.db.execute(statement)

    def write_vectors(self, kind: Kind, rows: Sequence[tuple[int, str, Sequence[float]]]) -> None:
        if rows:
            self.db.executemany(
                f"INSERT INTO {tables(kind).vec} (row_id, ns, embedding) VALUES (?, ?, ?::vector)"
                " ON CONFLICT (row_id) DO UPDATE SET ns = excluded.ns,"
                " embedding = excluded.embedding",
                [(rowid, ns, _floats(vector)) for rowid, ns, vector in rows],
            )

    def read_vectors(
        self, kind: Kind, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        ids = [int(r) for r in dict.fromkeys(rowids)]
        if not ids:
            return {}
        rows = self.db.query(
            f"SELECT row_id, embedding::real[] FROM {tables(kind).vec} WHERE row_id = ANY(?)",
            [ids],
        )
        return {int(r[0]): _as_float32(r[1]) for r in rows}

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
        table = tables(kind).vec
        query = _floats(vector)
        names = list(namespaces)
        with self.db.snapshot():
            # Counted up to the threshold only: the answer is "small or not".
            row = self.db.query_one(
                f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE ns = ANY(?) LIMIT ?) AS n",
                [names, EXACT_SEARCH_ROWS + 1],
            )
            available = int(row[0])
            if available == 0:
                return []
            rows: list[tuple[int, float]] = []
            approximate = (
                available > EXACT_SEARCH_ROWS
                and limit < available
                and dimensions <= HNSW_MAX_DIMENSIONS
            )
            if approximate:
                ef = min(MAX_EF_SEARCH, max(40, limit * 4))
                self.db.query("SELECT set_config('hnsw.ef_search', ?, true)", [str(ef)])
                rows = self._nearest(table, query, names, limit, exact=False)
            if len(rows) < min(limit, available):
                rows = self._nearest(table, query, names, limit, exact=True)
        return rows

    def _nearest(
        self, table: str, query: list[float], names: list[str], limit: int, *, exact: bool
    ) -> list[tuple[int, float]]:
        # "+ 0" hides the distance from the planner's index matching: an exact scan
        # over the namespace's rows (found through the ns B-tree), as SQLite does.
        order = "(embedding <=> ?::vector) + 0, row_id" if exact else "embedding <=> ?::vector"
        rows = self.db.query(
            f"SELECT row_id, embedding <=> ?::vector AS distance FROM {table} "
            f"WHERE ns = ANY(?) ORDER BY {order} LIMIT ?",
            [query, names, query, limit],
        )
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows if r[1] is not None]

    # -- bulk copy --------------------------------------------------------------------

    def begin_bulk_load(self) -> None:
        """Drop the GIN and HNSW indexes: one build at the end beats a row-by-row update."""
        names = [*FTS_INDEX_DDL, *(f"{tables(kind).vec}_hnsw" for kind in KINDS)]
        for name in names:
            self.db.execute(f"DROP INDEX IF EXISTS {name}")

    def end_bulk_load(self, dimensions: int | None) -> None:
        """Rebuild the search indexes and move each identity past the largest rowid."""
        self.db.query("SELECT set_config('maintenance_work_mem', '256MB', true)")
        statements = list(FTS_INDEX_DDL.values())
        if dimensions is not None:
            statements += [hnsw_index_ddl(tables(kind).vec, dimensions) or "" for kind in KINDS]
        for statement in filter(None, statements):
            self.db.execute(statement)
        for table in _ROWID_TABLES:
            self.db.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'rowid'), "
                f"COALESCE((SELECT max(rowid) FROM {table}), 0) + 1, false)"
            )
