"""Knowledge-base storage on PostgreSQL: the SQLite store with its engine parts replaced.

:class:`PostgresKnowledgeStore` keeps every portable part of
:class:`~memo_core.kb.store.KnowledgeStore` (documents, chunks, deletes, the
one-transaction replace, re-index and its swap) and overrides what differs:

* the schema (``kb/pg_schema.py``) and the vector tables (pgvector + HNSW);
* the keyword index and its BM25 ranking (``kb/pg_fts.py``), with the index
  statistics (rows, tokens) kept in step by every write, in its transaction;
* the vector legs: HNSW nearest neighbours, with the owner (and collections, and
  a metadata filter) in the same statement. HNSW visits ``hnsw.ef_search``
  candidates and filters afterwards, so a selective filter can leave fewer than
  ``k`` rows; ``ef_search`` is raised for the query and, when the result is still
  short, the query runs again as an exact scan of the scope. A search returns the
  ``k`` nearest rows of its scope, or all of them, never a short list;
* metadata filters over the JSONB column (``search/pg_filters.py``).

Every statement names the owner; an empty one fails closed before any SQL runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from memo_core.errors import ConfigError
from memo_core.kb.pg_fts import Phrase, bm25_sql, index_text, lexeme_query, query_phrases
from memo_core.kb.pg_schema import pg_kb_schema, pg_vector_index_ddl, pg_vector_table_ddl
from memo_core.kb.store import KnowledgeStore, require_owner
from memo_core.search.filter_tree import parse_filter
from memo_core.search.filters import Renderer
from memo_core.search.keyword import DocumentFrequencies, select_words, word_cost
from memo_core.search.pg_filters import render_postgres
from memo_core.search.text import DEFAULT_LANGUAGES
from memo_core.storage.base import SQLDatabase

__all__ = ["EF_SEARCH_MAX", "EF_SEARCH_MIN", "PostgresKnowledgeStore"]

#: pgvector's default ``hnsw.ef_search``; a query never explores fewer candidates.
EF_SEARCH_MIN = 40
#: pgvector's ceiling for ``hnsw.ef_search``; deeper asks fall back to the exact scan.
EF_SEARCH_MAX = 1000
_BATCH = 1000


class PostgresKnowledgeStore(KnowledgeStore):
    """A knowledge base in one schema of a PostgreSQL database."""

    _render_filter: ClassVar[Renderer] = staticmethod(render_postgres)

    _migrations = pg_kb_schema
    # JSONB comes back parsed; the shared reader expects JSON text, as SQLite gives it.
    _HIT_COLUMNS = (
        'c.rowid, c.id, d.id, c.text, d.source, d.title, c.collection, c.start, c."end",'
        " c.locator, c.metadata::text, c.flags"
    )

    def __init__(self, db: SQLDatabase, *, languages: Sequence[str] = DEFAULT_LANGUAGES) -> None:
        if db.dialect != "postgres":
            raise ConfigError(f"{db.path} is not a PostgreSQL base; use KnowledgeStore")
        super().__init__(db, languages=languages)
        self._df_cache: tuple[tuple[int, ...], dict[str, int]] = ((), {})
        self._word_counts = DocumentFrequencies(self.document_frequencies, self._size_hint)

    # -- writes (hooks of the shared store) -----------------------------------

    def _log_position(self) -> int | None:
        return None  # no change log here: a re-index cannot resume, it starts over

    def _log_low(self) -> int | None:
        return None

    def _create_vector_table(self, name: str, dimensions: int, *, bulk: bool = False) -> None:
        for statement in pg_vector_table_ddl(name, dimensions, index=not bulk):
            self.db.execute(statement)

    def _finish_vector_table(self, name: str, dimensions: int) -> None:
        for statement in pg_vector_index_ddl(name, dimensions):
            self.db.execute(statement)

    def _index_chunks(self, rows: Sequence[tuple[int, str]]) -> None:
        if not rows:
            return
        tokens = 0
        for rowid, text in rows:
            entry = index_text(text, self.languages)
            tokens += entry.ntok
            self.db.execute(
                "INSERT INTO chunks_fts (rowid, owner, collection, raw, stemmed, ntok)"
                " SELECT rowid, owner, collection, CAST(? AS tsvector), CAST(? AS tsvector), ?"
                " FROM chunks WHERE rowid = ?",
                [entry.raw, entry.stemmed, entry.ntok, rowid],
            )
        self.db.execute(
            "UPDATE chunks_fts_stats SET nrows = nrows + ?, ntokens = ntokens + ? WHERE id = 1",
            [len(rows), tokens],
        )

    def _insert_vectors(self, table: str, rows: Sequence[tuple[int, str, str, bytes]]) -> None:
        self.db.executemany(
            f"INSERT INTO {table} (chunk_rowid, owner, collection, embedding)"
            " VALUES (?, ?, ?, CAST(? AS vector))",
            [(rowid, owner, coll, array("f", blob).tolist()) for rowid, owner, coll, blob in rows],
        )

    def _delete_chunk_index_rows(self, rowids: Sequence[int]) -> None:
        if not rowids:
            return
        table = self.vector_table if self.db.has_vec else None
        for start in range(0, len(rowids), _BATCH):
            part = [int(r) for r in rowids[start : start + _BATCH]]
            gone = self.db.query(
                "DELETE FROM chunks_fts WHERE rowid = ANY(CAST(? AS bigint[])) RETURNING ntok",
                [part],
            )
            if gone:
                self.db.execute(
                    "UPDATE chunks_fts_stats SET nrows = nrows - ?, ntokens = ntokens - ?"
                    " WHERE id = 1",
                    [len(gone), sum(int(r[0]) for r in gone)],
                )
            if table is not None:
                self.db.execute(
                    f"DELETE FROM {table} WHERE chunk_rowid = ANY(CAST(? AS bigint[]))", [part]
                )

    def json_text(self, column: str) -> str:
        return f"{column}::text"  # JSONB reads back parsed otherwise

    def finish_bulk_copy(self, vector_table: str | None, dimensions: int) -> None:
        super().finish_bulk_copy(vector_table, dimensions)
        self._sync_rowid_sequences()

    def _sync_rowid_sequences(self) -> None:
        """Move the rowid sequences past rows copied in with explicit rowids."""
        for table in ("documents", "chunks"):
            self.db.query(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'rowid'),"
                f" (SELECT COALESCE(max(rowid), 0) + 1 FROM {table}), false)"
            )

    # -- vectors ------------------------------------------------------------

    def _vector_param(self, vector: Sequence[float], dims: int) -> list[float]:
        """The checked vector as float32 values, exactly what SQLite's blob would hold."""
        return array("f", self._vector_blob(vector, dims)).tolist()

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        table = self.vector_table
        if table is None or not self.db.has_vec:
            return {}
        rows = self.db.query(
            "SELECT c.content_hash, v.embedding::real[] FROM chunks c JOIN documents d"
            f" ON d.rowid = c.doc_rowid JOIN {table} v ON v.chunk_rowid = c.rowid"
            " WHERE d.owner = ? AND d.id = ?",
            [require_owner(owner), document_id],
        )
        return {str(h): array("f", e).tobytes() for h, e in rows}

    def vectors_by_rowid(self, rowids: Sequence[int]) -> dict[int, list[float]]:
        table = self.vector_table if self.db.has_vec else None
        if table is None or not rowids:
            return {}
        out: dict[int, list[float]] = {}
        wanted = list(dict.fromkeys(int(r) for r in rowids))
        for start in range(0, len(wanted), _BATCH):
            for rowid, embedding in self.db.query(
                f"SELECT chunk_rowid, embedding::real[] FROM {table}"
                " WHERE chunk_rowid = ANY(CAST(? AS bigint[]))",
                [wanted[start : start + _BATCH]],
            ):
                # float4 comes back as its shortest decimal: rounding it to float32
                # again gives the stored value exactly, as SQLite's blob does.
                out[int(rowid)] = array("f", embedding).tolist()
        return out

    def similarities(
        self, rowids: Sequence[int], vector: Sequence[float], **_: Any
    ) -> dict[int, float]:
        state = self.search_state()
        if state.vector_table is None or state.fingerprint is None or not rowids:
            return {}
        query = self._vector_param(vector, state.fingerprint.dimensions)
        wanted = list(dict.fromkeys(int(r) for r in rowids))
        out: dict[int, float] = {}
        for start in range(0, len(wanted), _BATCH):
            for rowid, distance in self.db.query(
                f"SELECT chunk_rowid, embedding <=> CAST(? AS vector) FROM {state.vector_table}"
                " WHERE chunk_rowid = ANY(CAST(? AS bigint[]))",
                [query, wanted[start : start + _BATCH]],
            ):
                out[int(rowid)] = 1.0 - float(distance)
        return out

    def vector_candidates(
        self,
        owner: str,
        vector: Sequence[float],
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        **_: Any,
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, cosine similarity)]`` best first: HNSW, exact when it falls short."""
        require_owner(owner)
        state = self.search_state()
        table, fp = state.vector_table, state.fingerprint
        if table is None or fp is None:
            return []
        query = self._vector_param(vector, fp.dimensions)
        limit = int(limit)
        if limit <= 0:
            return []
        params: list[Any] = [query]
        if filter:
            where = self._scope(owner, collections, filter, params)
            source = f"{table} v JOIN chunks c ON c.rowid = v.chunk_rowid"
        else:
            where = "v.owner = ?"
            params.append(owner)
            if collections:
                where += " AND v.collection = ANY(CAST(? AS text[]))"
                params.append(list(collections))
            source = f"{table} v"
        params.append(limit)
        nearest = (
            f"SELECT v.chunk_rowid, v.embedding <=> CAST(? AS vector) AS distance"
            f" FROM {source} WHERE {where} ORDER BY distance LIMIT ?"
        )
        # The same scan without the index: a materialised CTE cannot feed an index order.
        exact = (
            f"WITH scope AS MATERIALIZED (SELECT v.chunk_rowid, v.embedding <=> CAST(? AS vector)"
            f" AS distance FROM {source} WHERE {where})"
            " SELECT chunk_rowid, distance FROM scope ORDER BY distance, chunk_rowid LIMIT ?"
        )
        with self.db.snapshot():
            rows: list[Any] = []
            if limit <= EF_SEARCH_MAX:
                ef = min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, 2 * limit))
                self.db.query("SELECT set_config('hnsw.ef_search', ?, true)", [str(ef)])
                rows = self.db.query(nearest, params)
            if len(rows) < limit:
                rows = self.db.query(exact, params)
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    # -- keywords -------------------------------------------------------------

    def keyword_candidates(
        self,
        owner: str,
        query: str,
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        max_postings: int | None = None,
        **_: Any,
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, bm25)]`` best first, FTS5's BM25 (lower is better).

        Every query word is searched, as on SQLite. With ``max_postings`` (the
        opt-in ``SearchSettings.keyword_postings_budget``), an expensive query keeps
        its rarest words within that budget (``search/keyword.py``) and runs in full
        if those find fewer than ``limit``.
        """
        require_owner(owner)
        full = query_phrases(query, languages=self.languages)
        if not full:
            return []
        if max_postings is None:
            return self._bm25_rows(full, owner, limit, collections, filter)

        def rarest(words: list[list[str]], stems: list[list[str]]) -> list[int]:
            return self._rarest(words, stems, max_postings)

        trimmed = query_phrases(query, languages=self.languages, keep=rarest)
        rows = self._bm25_rows(trimmed, owner, limit, collections, filter)
        if len(rows) < limit and full != trimmed:
            rows = self._bm25_rows(full, owner, limit, collections, filter)
        return rows

    def _rarest(self, words: list[list[str]], stems: list[list[str]], budget: int) -> list[int]:
        """The words worth querying (SQLite's rule, on PostgreSQL's document counts)."""
        # A word costs at most (its distinct tokens) x (chunks): when even that fits the
        # budget, every word is kept without asking PostgreSQL for a single count.
        upper = sum(len({*w, *st}) for w, st in zip(words, stems, strict=True))
        if upper * self._size_hint() <= budget:
            return list(range(len(words)))
        tokens = [t for w, st in zip(words, stems, strict=True) for t in (*w, *st)]
        counts = self._word_counts.get(tokens)
        costs = [word_cost(w, st, counts) for w, st in zip(words, stems, strict=True)]
        return select_words(costs, budget=budget)

    def _bm25_rows(
        self,
        phrases: Sequence[Phrase],
        owner: str,
        limit: int,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
    ) -> list[tuple[int, float]]:
        params: list[Any] = [require_owner(owner)]
        scope = "f.owner = ?"
        if collections:
            scope += " AND f.collection = ANY(CAST(? AS text[]))"
            params.append(list(collections))
        if filter:
            condition = self._render_filter(parse_filter(filter), params, column="c.metadata")
            scope += f" AND EXISTS (SELECT 1 FROM chunks c WHERE c.rowid = f.rowid AND {condition})"
        sql, statement_params = bm25_sql(phrases, scope, params)
        rows = self._index_query(sql, [*statement_params, max(0, int(limit))])
        return [(int(r[0]), float(r[1])) for r in rows]

    def _index_query(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """Run a statement that reads the keyword index through its GIN indexes.

        The planner prices a ``tsvector @@ tsquery`` test like any cheap operator, so
        on a few thousand matches it picks a sequential scan that runs the test on
        every row of the table (ten times slower at 20k chunks than the index).
        Sequential scans are turned off for this one statement.
        """
        with self.db.snapshot():
            before = self.db.query(
                "SELECT current_setting('enable_seqscan'), set_config('enable_seqscan', 'off', true)"
            )[0][0]
            rows = self.db.query(sql, params)
            self.db.query("SELECT set_config('enable_seqscan', ?, true)", [before])
            return rows

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Chunks holding each term in either column (what FTS5's ``fts5vocab`` counts).

        Terms are looked up as given (stems, not folded), as the SQLite store looks
        them up in its vocabulary. Cached until the next write to the base.
        """
        version = self.db.data_version()
        cached_at, cache = self._df_cache
        if cached_at != version:
            cache = {}
            self._df_cache = (version, cache)
        missing = [t for t in dict.fromkeys(terms) if t not in cache]
        for start in range(0, len(missing), 64):
            part = missing[start : start + 64]
            # One GIN-only count per term: count(*) reads no row the visibility map
            # vouches for, where one pass testing every term on every match reads them all.
            counts = ", ".join(
                "(SELECT count(*) FROM chunks_fts"
                " WHERE raw @@ CAST(? AS tsquery) OR stemmed @@ CAST(? AS tsquery))"
                for _ in part
            )
            row = self._index_query(
                f"SELECT {counts}", [lexeme_query(t) for t in part for _ in range(2)]
            )[0]
            cache.update({t: int(n) for t, n in zip(part, row, strict=True)})
        return {t: cache[t] for t in terms}
