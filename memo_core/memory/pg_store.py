"""PostgresFactStore: the memory store on PostgreSQL (tsvector + pgvector).

It inherits every portable statement from :class:`~memo_core.memory.store.
FactStore` and overrides only what touches the index tables:

* **keyword search** — ``raw`` and ``stemmed`` ``tsvector`` columns built in Python
  (:mod:`memo_core.memory.pg_text`), matched with ``@@`` against tsquery literals
  made of tokenizer output only: the match *set* is FTS5's exactly. The *order*
  is not BM25's. Rows are ranked by ``ts_rank`` per column, normalisation 1
  (divide by 1 + log(document length)), summed with BM25's column weights
  (:data:`memo_core.search.bm25.COLUMN_WEIGHTS`: a stemmed match counts 0.6 of a
  raw one, as on SQLite). Like FTS5's ``bm25()`` this grows with term frequency
  and favours short rows; unlike it, it has **no IDF** (a rare word weighs no
  more than a common one), its frequency term does not saturate with k1, and its
  length penalty is logarithmic instead of BM25's ``b`` against the mean length.
  A true BM25 here needs what the knowledge base's PostgreSQL index keeps
  (``kb/pg_fts.py``: a token count per row and index-wide totals), which the
  memory schema does not have yet. ``ts_rank_cd`` was not chosen: it ranks by
  cover density (how close together the matched terms lie), a signal ``bm25()``
  does not use at all. The order feeds RRF only, a tie-break in memory recall.
* **vector search** — ``ORDER BY embedding <=> ?::vector LIMIT k`` over an HNSW
  index. HNSW filters *after* its graph walk (pgvector 0.6 has no iterative
  scan), so a selective namespace can come back short. The store therefore
  counts the namespaces' rows first (up to a cap): with at most
  :data:`EXACT_SEARCH_ROWS` rows, or when ``k`` covers them all, it searches
  exactly, as SQLite's vec0 always does; above, it raises ``hnsw.ef_search`` for
  the transaction and falls back to an exact scan whenever the filtered walk
  returns fewer than ``k`` rows.
* **vectors in and out** — ``vector(d)`` written from float lists (upsert), read
  back with ``embedding::real[]`` and snapped to float32, so a vector reads the same
  as from sqlite-vec and a copied vector is bit-identical.

Namespaces are a bound array (``ns = ANY(?)``) in every search: fail closed.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Sequence
from typing import ClassVar

from memo_core.memory.pg_schema import (
    FTS_INDEX_DDL,
    HNSW_MAX_DIMENSIONS,
    hnsw_index_ddl,
    pg_memory_schema,
    pg_vec_table_ddl,
)
from memo_core.memory.pg_text import tsquery_pair, tsvector_pair
from memo_core.memory.store import MAX_K, MAX_LIMIT, FactStore
from memo_core.search.bm25 import COLUMN_WEIGHTS
from memo_core.storage.migrations import Migrations

__all__ = ["EXACT_SEARCH_ROWS", "MAX_EF_SEARCH", "PostgresFactStore"]

log = logging.getLogger(__name__)

#: Namespaces holding at most this many vectors are searched exactly (no HNSW): a scan
#: of a few thousand vectors costs about what the graph walk does, and is exact.
EXACT_SEARCH_ROWS = 2000
#: pgvector's ceiling for ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000
_BASES = {"mem_facts_vec": "mem_facts", "mem_turns_vec": "mem_turns"}
_ROWID_TABLES = ("mem_facts", "mem_turns", "mem_messages")
_RAW_WEIGHT = f"{COLUMN_WEIGHTS['raw']!r}::float8"
_STEMMED_WEIGHT = f"{COLUMN_WEIGHTS['stemmed']!r}::float8"


def _floats(vector: Sequence[float]) -> list[float]:
    # psycopg refuses a list mixing int and float; pgvector casts float8[] to vector.
    return [float(x) for x in vector]


def _as_float32(values: Sequence[float]) -> list[float]:
    # real[] arrives as shortest decimal text; snap back to the stored float32 values, so a
    # vector read here equals the one sqlite-vec returns (and copies are bit-identical).
    return list(struct.unpack(f"{len(values)}f", struct.pack(f"{len(values)}f", *values)))


class PostgresFactStore(FactStore):
    """:class:`FactStore` with PostgreSQL full-text and pgvector search."""

    schema: ClassVar[Migrations] = pg_memory_schema

    def _reclaim_space(self) -> None:
        """Nothing to hand back: PostgreSQL's migrations free no pages, autovacuum runs."""

    # -- writes -----------------------------------------------------------------------

    def create_vector_tables(self, dimensions: int) -> None:
        if int(dimensions) > HNSW_MAX_DIMENSIONS:
            log.warning(
                "%d dimensions exceed pgvector's HNSW limit (%d): vector search is exact",
                dimensions,
                HNSW_MAX_DIMENSIONS,
            )
        for table, base in _BASES.items():
            for statement in pg_vec_table_ddl(table, base, dimensions):
                self.db.execute(statement)

    def _write_vectors(self, table: str, rows: Sequence[tuple[int, str, Sequence[float]]]) -> None:
        self.db.executemany(
            f"INSERT INTO {table} (row_id, ns, embedding) VALUES (?, ?, ?::vector) "
            "ON CONFLICT (row_id) DO UPDATE SET ns = excluded.ns, embedding = excluded.embedding",
            [(rowid, ns, _floats(vector)) for rowid, ns, vector in rows],
        )

    def index_texts(self, table: str, rows: Sequence[tuple[int, str]]) -> None:
        if rows:
            self.db.executemany(
                f"INSERT INTO {table} (rowid, raw, stemmed) VALUES (?, ?::tsvector, ?::tsvector)",
                [(rowid, *tsvector_pair(text)) for rowid, text in rows],
            )

    def begin_bulk_load(self) -> None:
        """Drop the GIN and HNSW indexes: one build at the end beats a row-by-row update."""
        names = [*FTS_INDEX_DDL, *(f"{table}_hnsw" for table in _BASES)]
        for name in names:
            self.db.execute(f"DROP INDEX IF EXISTS {name}")

    def end_bulk_load(self) -> None:
        """Rebuild the search indexes and move each identity past the largest rowid."""
        self.db.query("SELECT set_config('maintenance_work_mem', '256MB', true)")
        statements = list(FTS_INDEX_DDL.values())
        fingerprint = self.stored_fingerprint()
        if fingerprint is not None and self.vector_tables:
            statements += [hnsw_index_ddl(table, fingerprint.dimensions) or "" for table in _BASES]
        for statement in filter(None, statements):
            self.db.execute(statement)
        for table in _ROWID_TABLES:
            self.db.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'rowid'), "
                f"COALESCE((SELECT max(rowid) FROM {table}), 0) + 1, false)"
            )

    # -- keyword search ---------------------------------------------------------------

    def search_fts(
        self, table: str, base: str, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, score)`` of rows in ``namespaces`` matching ``query``; lower is better.

        The score is the negated rank, so callers sort it like FTS5's ``bm25()``.
        """
        terms = tsquery_pair(query)
        if terms is None or not namespaces or limit <= 0:
            return []
        raw, stemmed = terms
        rows = self.db.query(
            f"SELECT f.rowid, -({_RAW_WEIGHT} * ts_rank(f.raw, ?::tsquery, 1) "
            f"+ {_STEMMED_WEIGHT} * ts_rank(f.stemmed, ?::tsquery, 1)) AS score "
            f"FROM {table} f JOIN {base} b ON b.rowid = f.rowid "
            "WHERE (f.raw @@ ?::tsquery OR f.stemmed @@ ?::tsquery) AND b.ns = ANY(?) "
            "ORDER BY score, f.rowid LIMIT ?",
            [raw, stemmed, raw, stemmed, list(namespaces), min(limit, MAX_LIMIT)],
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    # -- vector search ----------------------------------------------------------------

    def search_vec(
        self, table: str, vector: Sequence[float], namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine similarity)`` nearest to ``vector`` in ``namespaces``."""
        if self.vectors is None or not namespaces or limit <= 0:
            return []
        self._check_dimensions(vector)
        limit = min(limit, MAX_K)
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
                and self.vectors.dimensions <= HNSW_MAX_DIMENSIONS
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
        # over the namespace's rows (found through the ns B-tree), as vec0 does.
        order = "(embedding <=> ?::vector) + 0, row_id" if exact else "embedding <=> ?::vector"
        rows = self.db.query(
            f"SELECT row_id, embedding <=> ?::vector AS distance FROM {table} "
            f"WHERE ns = ANY(?) ORDER BY {order} LIMIT ?",
            [query, names, query, limit],
        )
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows if r[1] is not None]

    def read_vectors(
        self, table: str, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        ids = [int(r) for r in dict.fromkeys(rowids)]
        if not ids:
            return {}
        rows = self.db.query(
            f"SELECT row_id, embedding::real[] FROM {table} WHERE row_id = ANY(?)", [ids]
        )
        return {int(r[0]): _as_float32(r[1]) for r in rows}
