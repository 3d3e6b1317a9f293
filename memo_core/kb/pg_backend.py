"""The knowledge base's PostgreSQL backend: ``tsvector`` BM25 and pgvector HNSW.

:class:`PostgresKnowledgeBackend` is the engine part of a knowledge base in one
schema of a PostgreSQL database (``kb/backend.py``); the document and chunk rows
are the portable SQL of ``kb/store.py``. What it brings:

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

It keeps no chunk change log (``changes`` is None): the search aids, which replay
one to stay in step, leave a PostgreSQL base to its own indexes, and a re-index
starts over instead of resuming. Every statement names the owner; an empty one
fails closed before any SQL runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.kb.backend import ChangeLog, KeywordRow
from memo_core.kb.pg_fts import Phrase, bm25_sql, index_text, lexeme_query, query_phrases
from memo_core.kb.pg_schema import pg_kb_schema, pg_vector_index_ddl, pg_vector_table_ddl
from memo_core.kb.records import SearchState, VectorRow, require_owner, vector_blob
from memo_core.kb.scope import chunk_scope
from memo_core.search.filter_tree import parse_filter
from memo_core.search.filters import Renderer
from memo_core.search.keyword import DocumentFrequencies, select_words, word_cost
from memo_core.search.pg_filters import render_postgres
from memo_core.search.pg_text import fold
from memo_core.search.text import DEFAULT_LANGUAGES, detect_language, stem_text
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["EF_SEARCH_MAX", "EF_SEARCH_MIN", "PostgresKnowledgeBackend"]

#: pgvector's default ``hnsw.ef_search``; a query never explores fewer candidates.
EF_SEARCH_MIN = 40
#: pgvector's ceiling for ``hnsw.ef_search``; deeper asks fall back to the exact scan.
EF_SEARCH_MAX = 1000
_BATCH = 1000


class PostgresKnowledgeBackend:
    """A knowledge base's engine part in one schema of a PostgreSQL database."""

    migrations: Migrations = pg_kb_schema

    def __init__(
        self,
        db: SQLDatabase,
        *,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        state: Callable[[], SearchState],
    ) -> None:
        self.db = db
        self.languages = tuple(languages)
        self.render_filter: Renderer = render_postgres
        self.changes: ChangeLog | None = None
        self._state = state
        self._df_cache: tuple[tuple[int, ...], dict[str, int]] = ((), {})
        self._word_counts = DocumentFrequencies(self.document_frequencies, self._size_hint)

    # -- index rows -------------------------------------------------------------

    def create_vector_table(self, name: str, dimensions: int, *, bulk: bool = False) -> None:
        for statement in pg_vector_table_ddl(name, dimensions, index=not bulk):
            self.db.execute(statement)

    def finish_vector_table(self, name: str, dimensions: int) -> None:
        for statement in pg_vector_index_ddl(name, dimensions):
            self.db.execute(statement)

    def index_chunks(
        self, rows: Sequence[tuple[int, str]], words: Sequence[Sequence[str]] | None = None
    ) -> None:
        if not rows:
            return
        tokens = 0
        given = words if words is not None else [None] * len(rows)
        for (rowid, text), mine in zip(rows, given, strict=True):
            entry = index_text(text, self.languages, mine)
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

    def insert_vectors(self, table: str, rows: Sequence[VectorRow]) -> None:
        self.db.executemany(
            f"INSERT INTO {table} (chunk_rowid, owner, collection, embedding)"
            " VALUES (?, ?, ?, CAST(? AS vector))",
            [(rowid, owner, coll, array("f", blob).tolist()) for rowid, owner, coll, blob in rows],
        )

    def delete_index_rows(self, rowids: Sequence[int], vector_table: str | None) -> None:
        if not rowids:
            return
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
            if vector_table is not None:
                self.db.execute(
                    f"DELETE FROM {vector_table} WHERE chunk_rowid = ANY(CAST(? AS bigint[]))",
                    [part],
                )

    def json_text(self, column: str) -> str:
        return f"{column}::text"  # JSONB reads back parsed otherwise

    def finish_bulk_insert(self, vector_table: str | None, dimensions: int) -> None:
        if vector_table is not None:
            self.finish_vector_table(vector_table, dimensions)
        # Move the rowid sequences past rows inserted with explicit rowids.
        for table in ("documents", "chunks"):
            self.db.query(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'rowid'),"
                f" (SELECT COALESCE(max(rowid), 0) + 1 FROM {table}), false)"
            )

    # -- vectors ------------------------------------------------------------

    def _vector_param(self, vector: Sequence[float], dims: int) -> list[float]:
        """The checked vector as float32 values, exactly what SQLite's blob would hold."""
        return array("f", vector_blob(vector, dims)).tolist()

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        table = self._state().vector_table
        if table is None:
            return {}
        rows = self.db.query(
            "SELECT c.content_hash, v.embedding::real[] FROM chunks c JOIN documents d"
            f" ON d.rowid = c.doc_rowid JOIN {table} v ON v.chunk_rowid = c.rowid"
            " WHERE d.owner = ? AND d.id = ?",
            [require_owner(owner), document_id],
        )
        return {str(h): array("f", e).tobytes() for h, e in rows}

    def vectors_by_rowid(self, rowids: Sequence[int]) -> dict[int, list[float]]:
        table = self._state().vector_table
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

    def similarities(self, rowids: Sequence[int], vector: Sequence[float]) -> dict[int, float]:
        state = self._state()
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
    ) -> list[tuple[int, float]]:
        """``[(chunk rowid, cosine similarity)]`` best first: HNSW, exact when it falls short."""
        require_owner(owner)
        state = self._state()
        table, fp = state.vector_table, state.fingerprint
        if table is None or fp is None:
            return []
        query = self._vector_param(vector, fp.dimensions)
        limit = int(limit)
        if limit <= 0:
            return []
        params: list[Any] = [query]
        if filter:
            where = chunk_scope(owner, collections, filter, params, self.render_filter)
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

    def vector_rows(self, table: str, *, batch: int = 5_000) -> Iterator[list[VectorRow]]:
        last = -1
        while True:  # keyset pages on the primary key: one consistent order, no cursor held
            rows = self.db.query(
                f"SELECT chunk_rowid, owner, collection, embedding::real[] FROM {table}"
                " WHERE chunk_rowid > ? ORDER BY chunk_rowid LIMIT ?",
                [last, int(batch)],
            )
            if not rows:
                return
            yield [(int(r[0]), str(r[1]), str(r[2]), array("f", r[3]).tobytes()) for r in rows]
            last = int(rows[-1][0])

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
            condition = self.render_filter(parse_filter(filter), params, column="c.metadata")
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

    def _size_hint(self) -> int:
        return int(self.db.query_one("SELECT coalesce(max(rowid), 0) FROM chunks")[0])

    def phrase_bm25(self, column: str, tokens: Sequence[str]) -> list[tuple[int, float]]:
        if column not in ("raw", "stemmed"):
            raise InvalidInputError(f"no keyword column {column!r}")
        lexemes = tuple(fold(t) for t in tokens)
        if not lexemes:
            return []
        sql, params = bm25_sql([Phrase(column, lexemes, 0)], "TRUE", [], weighted=False)
        count = self.keyword_row_count()
        return [(int(r[0]), float(r[1])) for r in self._index_query(sql, [*params, count])]

    def keyword_rows(
        self, rowids: Sequence[int] | None = None, *, batch: int = 5_000
    ) -> Iterator[list[KeywordRow]]:
        # The index holds tsvectors, not text: the raw and stemmed texts FTS5 would
        # hold are rebuilt from the chunk, as index_chunks() built them.
        select = (
            "SELECT f.rowid, c.text, c.owner, c.collection"
            " FROM chunks_fts f LEFT JOIN chunks c ON c.rowid = f.rowid"
        )
        if rowids is None:
            last = -1
            while rows := self.db.query(
                f"{select} WHERE f.rowid > ? ORDER BY f.rowid LIMIT ?", [last, int(batch)]
            ):
                yield [self._keyword_row(r) for r in rows]
                last = int(rows[-1][0])
            return
        wanted = [int(r) for r in rowids]
        for start in range(0, len(wanted), batch):
            part = wanted[start : start + batch]
            rows = self.db.query(
                f"{select} WHERE f.rowid = ANY(CAST(? AS bigint[])) ORDER BY f.rowid", [part]
            )
            yield [self._keyword_row(r) for r in rows]

    def _keyword_row(self, r: Any) -> KeywordRow:
        text = str(r[1] or "")
        stemmed = stem_text(text, detect_language(text, self.languages))
        owner = None if r[2] is None else str(r[2])
        return (int(r[0]), text, stemmed, owner, None if r[3] is None else str(r[3]))

    def keyword_row_count(self) -> int:
        return int(self.db.query_one("SELECT nrows FROM chunks_fts_stats WHERE id = 1")[0])
