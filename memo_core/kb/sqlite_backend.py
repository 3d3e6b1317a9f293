"""The knowledge base's SQLite backend: FTS5 keywords, sqlite-vec vectors, a change log.

* Keyword index: ``chunks_fts`` (FTS5, ``unicode61 remove_diacritics 2``) indexes each
  chunk's raw text and its PyStemmer stems, keeping no copy of either
  (``kb/sqlite_keywords.py``); FTS5 finds the chunks and memo's BM25
  (``search/bm25.py``: the knowledge base's length normalisation, column weights)
  ranks them (``kb/fts_rank.py``); document frequencies come from its ``fts5vocab``
  table.
* Vectors: a ``vec0`` table per embedder generation (cosine), partitioned by owner
  with the collection as a metadata column, so the common search (one owner, at
  most one collection, no metadata filter) filters inside the KNN index.
* Change log: triggers on ``chunks`` append every inserted or deleted rowid to
  ``kb_chunk_changes``, which the search aids replay (``search/sidecar.py``) and a
  re-index resumes from.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.kb.backend import ChangeLog, KeywordRow
from memo_core.kb.fts_rank import phrase_bm25, ranked_chunks
from memo_core.kb.records import SearchState, VectorRow, require_owner, vector_blob
from memo_core.kb.schema import kb_schema, vec_table_ddl
from memo_core.kb.scope import chunk_scope, only_scope, visible_rowids
from memo_core.kb.sqlite_keywords import add_keyword_rows, delete_keyword_rows, keyword_text
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
)
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["SqliteChangeLog", "SqliteKnowledgeBackend"]

# The keyword index keeps no text (kb/sqlite_keywords.py): its rows are made again
# from the chunks it indexes.
_KEYWORD_ROWS = (
    "SELECT c.rowid, c.text, c.owner, c.collection"
    " FROM chunks_fts_docsize f JOIN chunks c ON c.rowid = f.id"
)


#: The least page cache (KiB) vector rows are inserted with (``insert_vectors``).
_BULK_CACHE_KIB = 8192


class SqliteChangeLog:
    """``kb_chunk_changes``: one entry per chunk insert or delete (``kb/schema.py``)."""

    def __init__(self, db: SQLDatabase) -> None:
        self.db = db

    def range(self) -> tuple[int, int]:
        # Two statements: SQLite answers a lone min() or max() from the index edge,
        # but "min(seq), max(seq)" together with a full scan.
        low = self.db.query_one("SELECT min(seq) FROM kb_chunk_changes")[0]
        high = self.db.query_one("SELECT max(seq) FROM kb_chunk_changes")[0]
        return (int(low or 0), int(high or 0))

    def changed(self, after: int, upto: int) -> list[int]:
        rows = self.db.query(
            "SELECT DISTINCT chunk_rowid FROM kb_chunk_changes WHERE seq > ? AND seq <= ?",
            [after, upto],
        )
        return [int(r[0]) for r in rows]


class SqliteKnowledgeBackend:
    """A knowledge base's engine part in one SQLite file (``kb/backend.py``)."""

    migrations: Migrations = kb_schema

    def __init__(
        self,
        db: SQLDatabase,
        *,
        languages: Sequence[str] = DEFAULT_LANGUAGES,
        state: Callable[[], SearchState],
    ) -> None:
        self.db = db
        self.languages = tuple(languages)
        self.render_filter: Renderer = render_sqlite
        self.changes: ChangeLog | None = SqliteChangeLog(db)
        self._state = state
        self._frequencies = DocumentFrequencies(self._token_document_counts, self._size_hint)

    # -- index rows -------------------------------------------------------------

    def create_vector_table(self, name: str, dimensions: int, *, bulk: bool = False) -> None:
        self.db.execute(vec_table_ddl(name, dimensions))

    def finish_vector_table(self, name: str, dimensions: int) -> None:
        """Nothing to do for sqlite-vec (no index to build)."""

    def index_chunks(
        self, rows: Sequence[tuple[int, str]], words: Sequence[Sequence[str]] | None = None
    ) -> None:
        add_keyword_rows(self.db, self.languages, rows, words)

    def insert_vectors(self, table: str, rows: Sequence[VectorRow]) -> None:
        if not rows:
            return
        # vec0 keeps 1,024 vectors in one blob and writes each new one through a blob
        # handle that walks the blob's overflow pages from its start: with SQLite's
        # default 2 MB page cache those pages are read again for every row (half the
        # insert's time at 384 dimensions), so the page cache holds a few blocks
        # while the rows go in, and is given back after.
        block_kib = len(rows[0][3])  # 1,024 vectors of this many bytes, in KiB
        held = int(self.db.query_one("PRAGMA cache_size")[0])
        wanted = max(_BULK_CACHE_KIB, 5 * block_kib)
        if -held >= wanted or held >= wanted // 4:  # already as large (pages of 4 KiB)
            self._insert_vector_rows(table, rows)
            return
        self.db.execute(f"PRAGMA cache_size = {-wanted}")
        try:
            self._insert_vector_rows(table, rows)
        finally:
            self.db.execute(f"PRAGMA cache_size = {held}")

    def _insert_vector_rows(self, table: str, rows: Sequence[VectorRow]) -> None:
        self.db.executemany(
            f"INSERT INTO {table} (chunk_rowid, owner, collection, embedding) VALUES (?, ?, ?, ?)",
            rows,
        )

    def delete_index_rows(self, rowids: Sequence[int], vector_table: str | None) -> None:
        if not rowids:
            return
        delete_keyword_rows(self.db, self.languages, rowids)
        if vector_table is not None:
            # One point delete per row: vec0 answers "IN (...)" with a full-table scan.
            self.db.executemany(
                f"DELETE FROM {vector_table} WHERE chunk_rowid = ?", [[int(r)] for r in rowids]
            )

    def finish_bulk_insert(self, vector_table: str | None, dimensions: int) -> None:
        """SQLite's next rowid already follows the largest; sqlite-vec has no index."""

    def json_text(self, column: str) -> str:
        return column  # SQLite stores JSON as text

    # -- vectors ----------------------------------------------------------------

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        table = self._state().vector_table
        if table is None:
            return {}
        rows = self.db.query(
            f"SELECT c.content_hash, v.embedding FROM chunks c JOIN documents d "
            f"ON d.rowid = c.doc_rowid JOIN {table} v ON v.chunk_rowid = c.rowid "
            "WHERE d.owner = ? AND d.id = ?",
            [require_owner(owner), document_id],
        )
        return {str(h): bytes(e) for h, e in rows}

    def similarities(self, rowids: Sequence[int], vector: Sequence[float]) -> dict[int, float]:
        state = self._state()
        if state.vector_table is None or state.fingerprint is None or not rowids:
            return {}
        blob = vector_blob(vector, state.fingerprint.dimensions)
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
        table = self._state().vector_table
        if table is None or not rowids:
            return {}
        out: dict[int, list[float]] = {}
        sql = f"SELECT embedding FROM {table} WHERE chunk_rowid = ?"  # point look-ups, no scan
        for rowid in dict.fromkeys(rowids):
            row = self.db.query_one(sql, [int(rowid)])
            if row is not None:
                out[int(rowid)] = array("f", bytes(row[0])).tolist()
        return out

    def vector_rows(self, table: str, *, batch: int = 5_000) -> Iterator[list[VectorRow]]:
        # One pass over the table (vec0 answers "chunk_rowid > ?" by scanning from the
        # start, so batches by rowid range would read it quadratically).
        cursor = self.db.execute(f"SELECT chunk_rowid, owner, collection, embedding FROM {table}")
        while rows := cursor.fetchmany(batch):
            yield [(int(r[0]), str(r[1]), str(r[2]), bytes(r[3])) for r in rows]

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
        state = self._state()
        table, fp = state.vector_table, state.fingerprint
        if table is None or fp is None:
            return []
        blob = vector_blob(vector, fp.dimensions)
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
            where = chunk_scope(owner, collections, filter, params, self.render_filter)
            params.append(int(limit))
            rows = self.db.query(
                f"SELECT v.chunk_rowid, vec_distance_cosine(v.embedding, ?) AS distance"
                f" FROM {table} v JOIN chunks c ON c.rowid = v.chunk_rowid"
                f" WHERE {where} ORDER BY distance LIMIT ?",
                params,
            )
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    # -- keywords ---------------------------------------------------------------

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
        known = self._frequencies

        def rarest(words: list[list[str]], stems: list[list[str]]) -> list[int]:
            counts = known.get([t for w, st in zip(words, stems, strict=True) for t in (*w, *st)])
            return select_words(
                [word_cost(w, st, counts) for w, st in zip(words, stems, strict=True)],
                budget=budget,
            )

        return query_phrases(query, languages=self.languages, keep=rarest)

    def _keyword_rows(
        self,
        phrases: Sequence[Phrase],
        owner: str,
        limit: int,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
    ) -> list[tuple[int, float]]:
        """FTS5 finds the chunks, memo's BM25 ranks them (``kb/fts_rank.py``)."""
        if not filter and only_scope(self.db, self._state(), require_owner(owner), collections):
            return ranked_chunks(self.db, phrases, limit)  # nothing to scope out

        def visible(rowids: list[int]) -> set[int]:
            return visible_rowids(self.db, owner, rowids, collections, filter, self.render_filter)

        return ranked_chunks(self.db, phrases, limit, visible)

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Chunks whose keyword index holds each term, raw or stemmed (0 when none does).

        Terms are looked up as given (stems, not folded), over every owner: the
        document frequency of an IDF, as FTS5's ``fts5vocab`` counts it.
        """
        counts = self._token_document_counts(terms)
        return {t: counts.get(t, 0) for t in terms}

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

    def phrase_bm25(self, column: str, tokens: Sequence[str]) -> list[tuple[int, float]]:
        if column not in ("raw", "stemmed"):
            raise InvalidInputError(f"no keyword column {column!r}")
        return phrase_bm25(self.db, column, tokens)

    def keyword_rows(
        self, rowids: Sequence[int] | None = None, *, batch: int = 5_000
    ) -> Iterator[list[KeywordRow]]:
        if rowids is None:
            cursor = self.db.execute(_KEYWORD_ROWS + " ORDER BY f.id")
            while rows := cursor.fetchmany(batch):
                yield [self._keyword_row(r) for r in rows]
            return
        for start in range(0, len(rowids), batch):
            found = []
            for rowid in rowids[start : start + batch]:  # point look-ups on the FTS5 rowid
                row = self.db.query_one(_KEYWORD_ROWS + " WHERE f.id = ?", [int(rowid)])
                if row is not None:
                    found.append(self._keyword_row(row))
            yield found

    def _keyword_row(self, r: Any) -> KeywordRow:
        raw, stemmed = keyword_text(str(r[1]), self.languages)
        return (int(r[0]), raw, stemmed, str(r[2]), str(r[3]))

    def keyword_row_count(self) -> int:
        return int(self.db.query_one("SELECT count(*) FROM chunks_fts")[0])
