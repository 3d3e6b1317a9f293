"""FactStore: every SQL statement MemoHood runs, and nothing else.

Rows in, rows out. Facts, turns and messages live in plain tables; their text is
mirrored into FTS5 (raw + stemmed) and, when an embedder is attached and
sqlite-vec loaded, into plain vector tables searched exactly per namespace
(see :func:`~memo_core.memory.schema.vec_table_ddl`). Deleting a fact
or a turn deletes its FTS and vector rows in the same transaction. Values are
always bound parameters; user text reaches FTS5 only through
:func:`~memo_core.search.text.fts_match_expression`, and every token of the FTS5
tables carries its namespace's code (``memory/keyword_scope.py``).

The SQL here is portable (SQLite and PostgreSQL) except the few methods that
touch the FTS5 tables and search vectors; :class:`~memo_core.memory.pg_store.
PostgresFactStore` overrides exactly those. :func:`open_fact_store` picks the
class by ``db.dialect``.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar

from memo_core.embedders.base import Embedder, EmbedderFingerprint
from memo_core.errors import (
    DimensionMismatchError,
    EmbedderMismatchError,
    InvalidInputError,
    StorageError,
)
from memo_core.memory.keyword_scope import INDEXED_TEXT, scoped_match, scoped_row
from memo_core.memory.schema import (
    VECTOR_TABLES,
    memory_schema,
    vec_table_ddl,
    vectors_in_plain_tables,
)
from memo_core.memory.timeutil import from_iso, to_iso
from memo_core.search.bm25 import fts5_bm25
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["FACT_COLUMNS", "FactStore", "VectorIndex", "open_fact_store"]

log = logging.getLogger(__name__)

FACT_COLUMNS = (
    "rowid, id, ns, root, chain_id, version, key, statement, stemmed, value, category, pinned, "
    "subject, subject_kind, about, party_terms, event_start, event_end, valid_from, valid_to, "
    "superseded_by, source_turn, session_id, origin, strength, last_used, reinforcements, "
    "archived, archived_at, indexed, created_at"
)
TURN_COLUMNS = "rowid, id, ns, root, session_id, role, text, at, decision, score, focus, created_at"
MESSAGE_COLUMNS = "rowid, id, ns, session_key, seq, role, content, metadata, at, turn_id"
_META_EMBEDDER = "embedder"
_MAX_IN = 400  # bound parameters per IN (...) list
#: Namespaces per keyword query: each adds its own terms to the MATCH expression.
_SCOPES_PER_QUERY = 16
#: The largest LIMIT a search passes to SQL (a bigger one means "all" and is clamped).
MAX_LIMIT = 1_000_000
#: The most nearest neighbours one vector search returns (sqlite-vec's own ceiling for k;
#: PostgreSQL applies the same one so both backends answer alike).
MAX_K = 4096


def _pack(vector: Sequence[float]) -> bytes:
    return struct.pack(f"{len(vector)}f", *vector)


def _plus_minutes(iso: str, minutes: float) -> str:
    return to_iso(from_iso(iso) + timedelta(minutes=minutes))


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)


def columns_of(spec: str) -> list[str]:
    """The column names of a ``*_COLUMNS`` list."""
    return [c.strip() for c in spec.split(",")]


def check_storable(values: Mapping[str, Any]) -> None:
    """Refuse a NUL character in any text value, on every backend alike.

    PostgreSQL cannot store NUL in text and SQLite can; refusing it here, before
    any write, keeps the two engines identical and the failed call a no-op.
    """
    for name, value in values.items():
        if isinstance(value, str) and "\x00" in value:
            raise InvalidInputError(f"{name} contains a NUL character")


@dataclass(frozen=True)
class VectorIndex:
    """The vector side of the store: the embedder and its width."""

    embedder: Embedder
    dimensions: int


def open_fact_store(db: SQLDatabase, embedder: Embedder | None = None) -> FactStore:
    """The store for ``db``'s dialect (SQLite FTS5 + sqlite-vec, or PostgreSQL + pgvector)."""
    if db.dialect == "postgres":
        from memo_core.memory.pg_store import PostgresFactStore

        return PostgresFactStore(db, embedder)
    return FactStore(db, embedder)


class FactStore:
    """SQL access for one memory file (see :mod:`memo_core.memory.schema`).

    ``apply_schema=False`` opens a base read-only (``copy_memory``'s source): no
    migration runs and no embedder is attached.
    """

    schema: ClassVar[Migrations] = memory_schema

    def __init__(
        self, db: SQLDatabase, embedder: Embedder | None = None, *, apply_schema: bool = True
    ) -> None:
        self.db = db
        self.vectors: VectorIndex | None = None
        #: Whether the vector tables exist and can be written (deletes must reach them
        #: even when this handle was opened without an embedder).
        self.vector_tables = False
        if apply_schema:
            if vectors_in_plain_tables.__name__ in self.schema.apply(db):
                self._reclaim_space()
            self._attach_embedder(embedder)

    def _reclaim_space(self) -> None:
        """Hand the pages an upgrade freed back to the file system (VACUUM, outside it)."""
        try:
            self.db.execute("VACUUM")
        except StorageError as exc:  # busy readers: the free pages are reused by later writes
            log.warning("%s: VACUUM after the upgrade failed (%s)", self.db.path, exc)

    # -- embedder ---------------------------------------------------------------------

    def _attach_embedder(self, embedder: Embedder | None) -> None:
        stored = self.stored_fingerprint()
        self.vector_tables = stored is not None and self.db.has_vec
        if embedder is None:
            if stored is not None:
                log.info(
                    "memory file has %s vectors; no embedder given, keyword recall only",
                    stored.describe(),
                )
            return
        fingerprint = embedder.fingerprint
        if stored is not None and stored != fingerprint:
            raise EmbedderMismatchError(
                f"{self.db.path} was indexed with {stored.describe()}, not "
                f"{fingerprint.describe()}; open it with the same embedder, or export it "
                "(memo memory export) and import into a new file with the new embedder"
            )
        if not self.db.has_vec:
            log.warning(
                "vector search is not available (sqlite-vec / pgvector); "
                "memory recall is keyword-only"
            )
            return
        with self.db.transaction():
            # Read again under the writer lock: another process may have just set it.
            stored = self.stored_fingerprint()
            if stored is None:
                self.set_meta(_META_EMBEDDER, fingerprint.to_json())
            elif stored != fingerprint:
                raise EmbedderMismatchError(
                    f"{self.db.path} was just indexed with {stored.describe()} by another "
                    f"process, not {fingerprint.describe()}"
                )
            self.create_vector_tables(fingerprint.dimensions)
        self.vector_tables = True
        self.vectors = VectorIndex(embedder, fingerprint.dimensions)
        self._embed_missing()

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO mem_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def create_vector_tables(self, dimensions: int) -> None:
        """The two vector tables for ``dimensions`` (dialect-specific DDL)."""
        for table in VECTOR_TABLES:
            for statement in vec_table_ddl(table, dimensions):
                self.db.execute(statement)

    def _embed_missing(self) -> None:
        """Vectors for rows written while the file was opened without an embedder."""
        if self.vectors is None:  # opened without an embedder: nothing to embed with
            return
        for table, vec, column in (
            ("mem_facts", "mem_facts_vec", "statement"),
            ("mem_turns", "mem_turns_vec", "text"),
        ):
            extra = " AND indexed = 1" if table == "mem_facts" else ""
            rows = self.db.query(
                f"SELECT rowid, ns, {column} FROM {table} WHERE rowid NOT IN "
                f"(SELECT row_id FROM {vec}){extra} ORDER BY rowid"
            )
            if not rows:
                continue
            log.info("embedding %d %s rows written without an embedder", len(rows), table)
            vectors = self.vectors.embedder.embed_documents([r[2] for r in rows])
            with self.db.transaction():
                self.insert_vectors(
                    vec,
                    [(int(rowid), ns, v) for (rowid, ns, _), v in zip(rows, vectors, strict=True)],
                )

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]] | None:
        if self.vectors is None or not texts:
            return None
        return self.vectors.embedder.embed_documents(list(texts))

    def embed_query(self, text: str) -> list[float] | None:
        if self.vectors is None:
            return None
        return self.vectors.embedder.embed_query(text)

    def _check_dimensions(self, vector: Sequence[float], dimensions: int | None = None) -> None:
        dims = dimensions
        if dims is None and self.vectors is not None:
            dims = self.vectors.dimensions
        if len(vector) != dims:
            raise DimensionMismatchError(
                f"vector has {len(vector)} dimensions, the memory uses {dims}"
            )

    def insert_vectors(
        self,
        table: str,
        rows: Sequence[tuple[int, str, Sequence[float]]],
        dimensions: int | None = None,
    ) -> None:
        """Write ``(rowid, ns, vector)`` rows into a vector table (replacing any there)."""
        for _, _, vector in rows:
            self._check_dimensions(vector, dimensions)
        if rows:
            self._write_vectors(table, rows)

    def _write_vectors(self, table: str, rows: Sequence[tuple[int, str, Sequence[float]]]) -> None:
        # INSERT OR REPLACE: SQLite's upsert of a rowid table (PostgreSQL overrides this).
        self.db.executemany(
            f"INSERT OR REPLACE INTO {table} (row_id, ns, embedding) VALUES (?, ?, ?)",
            [(rowid, ns, _pack(vector)) for rowid, ns, vector in rows],
        )

    def _insert_vector(self, table: str, rowid: int, ns: str, vector: Sequence[float]) -> None:
        self.insert_vectors(table, [(rowid, ns, vector)])

    # -- facts ------------------------------------------------------------------------

    def insert_fact(self, values: dict[str, Any], vector: Sequence[float] | None) -> int:
        """Insert one fact version with its FTS (and vector) rows; returns its rowid."""
        check_storable(values)
        cols = columns_of(FACT_COLUMNS)[1:]
        with self.db.transaction():
            rowid = self._insert_returning_rowid("mem_facts", cols, values)
            if values.get("indexed", 1):
                self.index_texts("mem_facts_fts", [(rowid, values["statement"])])
                if vector is not None and self.vectors is not None:
                    self._insert_vector("mem_facts_vec", rowid, values["ns"], vector)
        return rowid

    def _insert_returning_rowid(
        self, table: str, cols: Sequence[str], values: Mapping[str, Any]
    ) -> int:
        rows = self.db.query(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({_placeholders(len(cols))}) "
            "RETURNING rowid",
            [values.get(c) for c in cols],
        )
        return int(rows[0][0])

    def index_texts(self, table: str, rows: Sequence[tuple[int, str]]) -> None:
        """Keyword-index ``(rowid, text)`` rows (already stored in the table ``table``
        indexes): the raw text and its stems, scoped by the row's namespace
        (``memory/keyword_scope.py``)."""
        if not rows:
            return
        base = INDEXED_TEXT[table][0]
        ns_of: dict[int, str] = {}
        ids = [rowid for rowid, _ in rows]
        for start in range(0, len(ids), _MAX_IN):
            part = ids[start : start + _MAX_IN]
            ns_of.update(
                (int(r[0]), str(r[1]))
                for r in self.db.query(
                    f"SELECT rowid, ns FROM {base} WHERE rowid IN ({_placeholders(len(part))})",
                    part,
                )
            )
        self.db.executemany(
            f"INSERT INTO {table} (rowid, raw, stemmed) VALUES (?, ?, ?)",
            [(rowid, *scoped_row(ns_of[rowid], text)) for rowid, text in rows],
        )

    def close_version(self, fact_id: str, valid_to: str, superseded_by: str | None) -> None:
        self.db.execute(
            "UPDATE mem_facts SET valid_to = ?, superseded_by = ? WHERE id = ?",
            [valid_to, superseded_by, fact_id],
        )

    def set_superseded_by(self, fact_id: str, new_id: str) -> None:
        self.db.execute("UPDATE mem_facts SET superseded_by = ? WHERE id = ?", [new_id, fact_id])

    def update_strength(
        self, fact_id: str, strength: float, last_used: str, *, reinforced: bool = False
    ) -> None:
        self.db.execute(
            "UPDATE mem_facts SET strength = ?, last_used = ?, archived = 0, archived_at = NULL,"
            " reinforcements = reinforcements + ? WHERE id = ?",
            [strength, last_used, 1 if reinforced else 0, fact_id],
        )

    def set_pinned(self, fact_id: str, pinned: bool, strength: float, last_used: str) -> None:
        self.db.execute(
            "UPDATE mem_facts SET pinned = ?, strength = ?, last_used = ?, archived = 0,"
            " archived_at = NULL WHERE id = ?",
            [1 if pinned else 0, strength, last_used, fact_id],
        )

    def archive(self, fact_ids: Sequence[str], when: str) -> None:
        for start in range(0, len(fact_ids), _MAX_IN):
            chunk = list(fact_ids[start : start + _MAX_IN])
            self.db.execute(
                f"UPDATE mem_facts SET archived = 1, archived_at = ? WHERE id IN "
                f"({_placeholders(len(chunk))})",
                [when, *chunk],
            )

    def fact_by_id(self, fact_id: str) -> Any:
        return self.db.query_one(f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE id = ?", [fact_id])

    def _rows_by_rowid(self, columns: str, table: str, rowids: Iterable[int]) -> list[Any]:
        """Rows of ``table`` by rowid, in batches that stay under SQLite's variable limit."""
        ids = list(dict.fromkeys(rowids))
        out: list[Any] = []
        for start in range(0, len(ids), _MAX_IN):
            chunk = ids[start : start + _MAX_IN]
            out.extend(
                self.db.query(
                    f"SELECT {columns} FROM {table} WHERE rowid IN ({_placeholders(len(chunk))})",
                    chunk,
                )
            )
        return out

    def facts_by_rowids(self, rowids: Iterable[int]) -> list[Any]:
        return self._rows_by_rowid(FACT_COLUMNS, "mem_facts", rowids)

    def chain(self, chain_id: str) -> list[Any]:
        return self.db.query(
            f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE chain_id = ? ORDER BY version",
            [chain_id],
        )

    def chains(self, chain_ids: Sequence[str]) -> list[Any]:
        out: list[Any] = []
        ids = list(dict.fromkeys(chain_ids))
        for start in range(0, len(ids), _MAX_IN):
            chunk = ids[start : start + _MAX_IN]
            out.extend(
                self.db.query(
                    f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE chain_id IN "
                    f"({_placeholders(len(chunk))}) ORDER BY chain_id, version",
                    chunk,
                )
            )
        return out

    def current_by_key(self, ns: str, key: str) -> Any:
        return self.db.query_one(
            f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE ns = ? AND key = ? AND valid_to IS NULL",
            [ns, key],
        )

    def facts_in(
        self,
        namespaces: Sequence[str],
        *,
        prefix: str | None = None,
        current_only: bool = True,
        include_archived: bool = True,
        as_of: str | None = None,
        where: str = "",
        params: Sequence[Any] = (),
        order: str = "valid_from, rowid",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Any]:
        """Fact rows in exact ``namespaces`` (or under an encoded ``prefix``)."""
        clauses: list[str] = []
        args: list[Any] = []
        if prefix is not None:
            clauses.append("substr(ns, 1, ?) = ?")
            args.extend([len(prefix), prefix])
        elif not namespaces:
            return []
        else:
            clauses.append(f"ns IN ({_placeholders(len(namespaces))})")
            args.extend(namespaces)
        if as_of is not None:
            clauses.append("valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)")
            args.extend([as_of, as_of])
        elif current_only:
            clauses.append("valid_to IS NULL")
        if not include_archived:
            clauses.append("archived = 0")
        if where:
            clauses.append(where)
            args.extend(params)
        sql = f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE {' AND '.join(clauses)} ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args.extend([limit, offset])
        return self.db.query(sql, args)

    def count_visible(self, namespaces: Sequence[str], as_of: str | None, cap: int) -> int:
        """How many facts recall could show in ``namespaces`` (current and not archived,
        or valid at ``as_of``), counting no further than ``cap``."""
        if not namespaces:
            return 0
        where = f"ns IN ({_placeholders(len(namespaces))})"
        args: list[Any] = list(namespaces)
        if as_of is not None:
            where += " AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
            args += [as_of, as_of]
        else:
            where += " AND valid_to IS NULL AND archived = 0"
        row = self.db.query_one(
            f"SELECT count(*) FROM (SELECT 1 FROM mem_facts WHERE {where} LIMIT ?) AS seen",
            [*args, cap],
        )
        return int(row[0]) if row else 0

    def namespaces_with_prefix(self, prefix: str | None) -> list[str]:
        if prefix is None:
            rows = self.db.query("SELECT DISTINCT ns FROM mem_facts WHERE valid_to IS NULL")
        else:
            rows = self.db.query(
                "SELECT DISTINCT ns FROM mem_facts WHERE valid_to IS NULL AND substr(ns, 1, ?) = ?",
                [len(prefix), prefix],
            )
        return sorted(r[0] for r in rows)

    def search_fts(
        self, table: str, base: str, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, bm25)`` of rows in ``namespaces`` matching ``query`` (best first).

        FTS5's BM25 with the knowledge base's column weights (``search/bm25.py``).
        """
        if not namespaces or limit <= 0:
            return []
        limit = min(limit, MAX_LIMIT)
        out: list[tuple[int, float]] = []
        # Each namespace's terms are its own (keyword_scope.py): the postings read are
        # those of the namespaces asked for, however many other users the file has.
        for start in range(0, len(namespaces), _SCOPES_PER_QUERY):
            group = list(namespaces[start : start + _SCOPES_PER_QUERY])
            expression = scoped_match(query, group)
            if expression is None:
                return []
            out.extend(
                (int(r[0]), float(r[1]))
                for r in self.db.query(
                    f"SELECT {table}.rowid, {fts5_bm25(table)} AS score FROM {table} "
                    f"JOIN {base} b ON b.rowid = {table}.rowid "
                    f"WHERE {table} MATCH ? AND b.ns IN ({_placeholders(len(group))}) "
                    "ORDER BY score LIMIT ?",
                    [expression, *group, limit],
                )
            )
        out.sort(key=lambda pair: pair[1])
        return out[:limit]

    def search_vec(
        self, table: str, vector: Sequence[float], namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine similarity)`` nearest to ``vector`` in ``namespaces``."""
        if self.vectors is None or not namespaces or limit <= 0:
            return []
        self._check_dimensions(vector)
        limit = min(limit, MAX_K)
        query = _pack(vector)
        out: list[tuple[int, float]] = []
        # An exact scan of the namespaces' rows, found through the ns index: it costs what
        # those rows cost (a namespace holds few), however many other users the file has.
        for start in range(0, len(namespaces), _MAX_IN):
            chunk = list(namespaces[start : start + _MAX_IN])
            out.extend(
                (int(r[0]), 1.0 - float(r[1]))
                for r in self.db.query(
                    f"SELECT row_id, vec_distance_cosine(embedding, ?) AS distance FROM {table} "
                    f"WHERE ns IN ({_placeholders(len(chunk))}) ORDER BY distance, row_id LIMIT ?",
                    [query, *chunk, limit],
                )
            )
        out.sort(key=lambda pair: (-pair[1], pair[0]))
        return out[:limit]

    def vectors_for(self, table: str, rowids: Sequence[int]) -> dict[int, list[float]]:
        """Stored vectors of ``rowids`` (those that have one)."""
        if self.vectors is None or not rowids:
            return {}
        return self.read_vectors(table, rowids, self.vectors.dimensions)

    def read_vectors(
        self, table: str, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        """Stored vectors of ``rowids`` from ``table`` (no embedder needed: copies use it)."""
        out: dict[int, list[float]] = {}
        dims = int(dimensions)
        ids = [int(r) for r in dict.fromkeys(rowids)]
        for start in range(0, len(ids), _MAX_IN):
            chunk = ids[start : start + _MAX_IN]
            for rowid, blob in self.db.query(
                f"SELECT row_id, embedding FROM {table} "
                f"WHERE row_id IN ({_placeholders(len(chunk))})",
                chunk,
            ):
                out[int(rowid)] = list(struct.unpack(f"{dims}f", blob))
        return out

    def delete_facts(self, rowids: Sequence[int]) -> int:
        """Delete fact versions with their FTS and vector rows."""
        deleted = 0
        with self.db.transaction():
            for start in range(0, len(rowids), _MAX_IN):
                chunk = list(rowids[start : start + _MAX_IN])
                marks = _placeholders(len(chunk))
                self.db.execute(f"DELETE FROM mem_facts_fts WHERE rowid IN ({marks})", chunk)
                if self.vector_tables:
                    self.db.execute(f"DELETE FROM mem_facts_vec WHERE row_id IN ({marks})", chunk)
                cursor = self.db.execute(f"DELETE FROM mem_facts WHERE rowid IN ({marks})", chunk)
                deleted += int(cursor.rowcount)
        return deleted

    # -- item TTLs --------------------------------------------------------------------

    def set_item_ttl(self, ns: str, key: str, expires_at: str, ttl_minutes: float) -> None:
        self.db.execute(
            "INSERT INTO mem_item_ttl (ns, key, expires_at, ttl_minutes) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (ns, key) DO UPDATE SET expires_at = excluded.expires_at, "
            "ttl_minutes = excluded.ttl_minutes",
            [ns, key, expires_at, float(ttl_minutes)],
        )

    def clear_item_ttl(self, ns: str, key: str) -> None:
        self.db.execute("DELETE FROM mem_item_ttl WHERE ns = ? AND key = ?", [ns, key])

    def item_ttls(self, prefix: str) -> dict[tuple[str, str], tuple[str, float]]:
        """``(ns, key) -> (expires_at, ttl_minutes)`` of the items under an encoded prefix."""
        rows = self.db.query(
            "SELECT ns, key, expires_at, ttl_minutes FROM mem_item_ttl WHERE substr(ns, 1, ?) = ?",
            [len(prefix), prefix],
        )
        return {(r[0], r[1]): (r[2], float(r[3])) for r in rows}

    def refresh_item_ttls(self, items: Sequence[tuple[str, str]], now: str) -> None:
        """Restart the TTL clock of ``(ns, key)`` items (their own TTL, from ``now``)."""
        for ns, key in items:
            row = self.db.query_one(
                "SELECT ttl_minutes FROM mem_item_ttl WHERE ns = ? AND key = ?", [ns, key]
            )
            if row is not None:
                self.db.execute(
                    "UPDATE mem_item_ttl SET expires_at = ? WHERE ns = ? AND key = ?",
                    [_plus_minutes(now, float(row[0])), ns, key],
                )

    def expired_items(self, now: str) -> list[tuple[str, str]]:
        rows = self.db.query("SELECT ns, key FROM mem_item_ttl WHERE expires_at <= ?", [now])
        return [(r[0], r[1]) for r in rows]

    # -- turns ------------------------------------------------------------------------

    def insert_turn(self, values: dict[str, Any], vector: Sequence[float] | None) -> int:
        check_storable(values)
        cols = columns_of(TURN_COLUMNS)[1:]
        with self.db.transaction():
            rowid = self._insert_returning_rowid("mem_turns", cols, values)
            self.index_texts("mem_turns_fts", [(rowid, values["text"])])
            if vector is not None and self.vectors is not None:
                self._insert_vector("mem_turns_vec", rowid, values["ns"], vector)
        return rowid

    def update_turn(self, turn_id: str, decision: str, score: float, focus: str | None) -> None:
        self.db.execute(
            "UPDATE mem_turns SET decision = ?, score = ?, focus = ? WHERE id = ?",
            [decision, score, focus, turn_id],
        )

    def last_turn(self, ns: str, session_id: str | None, before: str) -> Any:
        if session_id is None:
            return self.db.query_one(
                f"SELECT {TURN_COLUMNS} FROM mem_turns WHERE ns = ? AND role = 'user' "
                "AND at <= ? ORDER BY at DESC, rowid DESC LIMIT 1",
                [ns, before],
            )
        return self.db.query_one(
            f"SELECT {TURN_COLUMNS} FROM mem_turns WHERE ns = ? AND session_id = ? "
            "AND role = 'user' AND at <= ? ORDER BY at DESC, rowid DESC LIMIT 1",
            [ns, session_id, before],
        )

    def turns_by_rowids(self, rowids: Iterable[int]) -> list[Any]:
        return self._rows_by_rowid(TURN_COLUMNS, "mem_turns", rowids)

    def turns_in(self, namespaces: Sequence[str]) -> list[Any]:
        if not namespaces:
            return []
        return self.db.query(
            f"SELECT {TURN_COLUMNS} FROM mem_turns WHERE ns IN ({_placeholders(len(namespaces))})"
            " ORDER BY at, rowid",
            list(namespaces),
        )

    def turn_ids_with_facts(self, turn_ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        ids = list(turn_ids)
        for start in range(0, len(ids), _MAX_IN):
            chunk = ids[start : start + _MAX_IN]
            out.update(
                r[0]
                for r in self.db.query(
                    "SELECT DISTINCT source_turn FROM mem_facts WHERE source_turn IN "
                    f"({_placeholders(len(chunk))})",
                    chunk,
                )
            )
        return out

    def delete_turns(self, turn_ids: Sequence[str]) -> int:
        if not turn_ids:
            return 0
        deleted = 0
        with self.db.transaction():
            for start in range(0, len(turn_ids), _MAX_IN):
                chunk = list(turn_ids[start : start + _MAX_IN])
                rows = self.db.query(
                    f"SELECT rowid FROM mem_turns WHERE id IN ({_placeholders(len(chunk))})", chunk
                )
                rowids = [int(r[0]) for r in rows]
                if not rowids:
                    continue
                marks = _placeholders(len(rowids))
                self.db.execute(f"DELETE FROM mem_turns_fts WHERE rowid IN ({marks})", rowids)
                if self.vector_tables:
                    self.db.execute(f"DELETE FROM mem_turns_vec WHERE row_id IN ({marks})", rowids)
                self.db.execute(
                    "UPDATE mem_messages SET turn_id = NULL WHERE turn_id IN "
                    f"({_placeholders(len(chunk))})",
                    chunk,
                )
                cursor = self.db.execute(f"DELETE FROM mem_turns WHERE rowid IN ({marks})", rowids)
                deleted += int(cursor.rowcount)
        return deleted

    # -- messages ---------------------------------------------------------------------

    def insert_message(self, values: dict[str, Any]) -> None:
        check_storable(values)
        cols = columns_of(MESSAGE_COLUMNS)[1:]
        with self.db.transaction():
            if values.get("seq") is None:
                row = self.db.query_one(
                    "SELECT coalesce(max(seq), -1) + 1 FROM mem_messages "
                    "WHERE ns = ? AND session_key = ?",
                    [values["ns"], values["session_key"]],
                )
                values = {**values, "seq": int(row[0])}
            self.db.execute(
                f"INSERT INTO mem_messages ({', '.join(cols)}) VALUES ({_placeholders(len(cols))})",
                [values.get(c) for c in cols],
            )

    def messages(self, ns: str, session_key: str) -> list[Any]:
        return self.db.query(
            f"SELECT {MESSAGE_COLUMNS} FROM mem_messages WHERE ns = ? AND session_key = ? "
            "ORDER BY seq, rowid",
            [ns, session_key],
        )

    def messages_in(self, namespaces: Sequence[str]) -> list[Any]:
        if not namespaces:
            return []
        return self.db.query(
            f"SELECT {MESSAGE_COLUMNS} FROM mem_messages WHERE ns IN "
            f"({_placeholders(len(namespaces))}) ORDER BY ns, session_key, seq",
            list(namespaces),
        )

    def delete_messages(
        self, ns: str, session_key: str, rowids: Sequence[int] | None = None
    ) -> int:
        if rowids is None:
            cursor = self.db.execute(
                "DELETE FROM mem_messages WHERE ns = ? AND session_key = ?", [ns, session_key]
            )
            return int(cursor.rowcount)
        if not rowids:
            return 0
        cursor = self.db.execute(
            f"DELETE FROM mem_messages WHERE ns = ? AND session_key = ? AND rowid IN "
            f"({_placeholders(len(rowids))})",
            [ns, session_key, *rowids],
        )
        return int(cursor.rowcount)

    def session_keys(self, ns: str) -> list[str]:
        rows = self.db.query(
            "SELECT session_key FROM mem_messages WHERE ns = ? GROUP BY session_key "
            "ORDER BY min(rowid)",
            [ns],
        )
        return [r[0] for r in rows]

    # -- meta -------------------------------------------------------------------------

    def stored_fingerprint(self) -> EmbedderFingerprint | None:
        row = self.db.query_one("SELECT value FROM mem_meta WHERE key = ?", [_META_EMBEDDER])
        return EmbedderFingerprint.from_json(row[0]) if row else None

    def begin_bulk_load(self) -> None:
        """Before a bulk copy: nothing to prepare on SQLite (FTS5 and vectors index as they go)."""

    def end_bulk_load(self) -> None:
        """After a bulk copy with explicit rowids: nothing to do on SQLite."""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
