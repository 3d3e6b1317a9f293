"""FactStore: every SQL statement MemoHood runs, on any engine.

Rows in, rows out. Facts, turns and messages live in plain tables written here in
portable SQL (``?`` placeholders, ``RETURNING``, ``ON CONFLICT``) that every engine
runs unchanged. A fact's or a turn's text is also keyword-indexed and, when an
embedder is attached and vector search is available, embedded: those index rows
are the engine's own (FTS5 and sqlite-vec, or tsvector and pgvector), written and
searched by the store's :class:`~memo_core.memory.backend.MemoryBackend`, which
:data:`MEMORY_BACKENDS` picks for the database's engine. A row and its index rows
are written, and deleted, in one transaction. Values are always bound parameters.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from memo_core.embedders.base import Embedder, EmbedderFingerprint
from memo_core.errors import (
    DimensionMismatchError,
    EmbedderMismatchError,
    InvalidInputError,
)
from memo_core.memory.backend import (
    KINDS,
    MAX_IN,
    Kind,
    MemoryBackend,
    MemoryBackendFactory,
    placeholders,
    tables,
)
from memo_core.memory.pg_backend import PostgresMemoryBackend
from memo_core.memory.sqlite_backend import SQLiteMemoryBackend
from memo_core.memory.timeutil import from_iso, to_iso
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations
from memo_core.storage.registry import Implementations

__all__ = [
    "FACT_COLUMNS",
    "MEMORY_BACKENDS",
    "MESSAGE_COLUMNS",
    "TURN_COLUMNS",
    "FactStore",
    "VectorIndex",
    "open_fact_store",
]

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
#: The memory backend of each engine: the one place that maps an engine to it.
MEMORY_BACKENDS: Implementations[MemoryBackendFactory] = Implementations(
    "memory", {"sqlite": SQLiteMemoryBackend, "postgres": PostgresMemoryBackend}
)


def _plus_minutes(iso: str, minutes: float) -> str:
    return to_iso(from_iso(iso) + timedelta(minutes=minutes))


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


def open_fact_store(
    db: SQLDatabase, embedder: Embedder | None = None, *, apply_schema: bool = True
) -> FactStore:
    """The memory store over ``db``, with the backend of ``db``'s engine.

    ``apply_schema=False`` opens a base to read only (``copy_memory``'s source): no
    migration runs and no embedder is attached.
    """
    return FactStore(db, MEMORY_BACKENDS.for_database(db)(db), embedder, apply_schema=apply_schema)


class FactStore:
    """SQL access for one memory base; its engine's index work goes to ``backend``.

    Made by :func:`open_fact_store`, which picks the backend for the database.
    """

    def __init__(
        self,
        db: SQLDatabase,
        backend: MemoryBackend,
        embedder: Embedder | None = None,
        *,
        apply_schema: bool = True,
    ) -> None:
        self.db = db
        self.backend = backend
        self.vectors: VectorIndex | None = None
        #: Whether the vector tables exist and can be written (deletes must reach them
        #: even when this handle was opened without an embedder).
        self.vector_tables = False
        if apply_schema:
            backend.after_upgrade(self.schema.apply(db))
            self._attach_embedder(embedder)

    @property
    def schema(self) -> Migrations:
        """The numbered migrations of this base's engine."""
        return self.backend.schema

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
        """The vector tables for ``dimensions`` (the engine's DDL)."""
        self.backend.create_vector_tables(dimensions)
        self.vector_tables = True

    def _embed_missing(self) -> None:
        """Vectors for rows written while the file was opened without an embedder."""
        if self.vectors is None:  # opened without an embedder: nothing to embed with
            return
        for kind in KINDS:
            names = tables(kind)
            extra = " AND indexed = 1" if kind == "facts" else ""
            rows = self.db.query(
                f"SELECT rowid, ns, {names.text} FROM {names.base} WHERE rowid NOT IN "
                f"(SELECT row_id FROM {names.vec}){extra} ORDER BY rowid"
            )
            if not rows:
                continue
            log.info("embedding %d %s written without an embedder", len(rows), kind)
            vectors = self.vectors.embedder.embed_documents([r[2] for r in rows])
            with self.db.transaction():
                self.insert_vectors(
                    kind,
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
        kind: Kind,
        rows: Sequence[tuple[int, str, Sequence[float]]],
        dimensions: int | None = None,
    ) -> None:
        """Write ``(rowid, ns, vector)`` rows of ``kind`` (replacing any there)."""
        for _, _, vector in rows:
            self._check_dimensions(vector, dimensions)
        if rows:
            self.backend.write_vectors(kind, rows)

    # -- facts ------------------------------------------------------------------------

    def insert_fact(self, values: dict[str, Any], vector: Sequence[float] | None) -> int:
        """Insert one fact version with its FTS (and vector) rows; returns its rowid."""
        check_storable(values)
        cols = columns_of(FACT_COLUMNS)[1:]
        with self.db.transaction():
            rowid = self._insert_returning_rowid("mem_facts", cols, values)
            if values.get("indexed", 1):
                self.backend.index_texts("facts", [(rowid, values["statement"])])
                if vector is not None and self.vectors is not None:
                    self.insert_vectors("facts", [(rowid, values["ns"], vector)])
        return rowid

    def _insert_returning_rowid(
        self, table: str, cols: Sequence[str], values: Mapping[str, Any]
    ) -> int:
        rows = self.db.query(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({placeholders(len(cols))}) "
            "RETURNING rowid",
            [values.get(c) for c in cols],
        )
        return int(rows[0][0])

    def index_texts(self, kind: Kind, rows: Sequence[tuple[int, str]]) -> None:
        """Keyword-index ``(rowid, text)`` rows of ``kind`` (a bulk copy's rows)."""
        self.backend.index_texts(kind, rows)

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
        for start in range(0, len(fact_ids), MAX_IN):
            chunk = list(fact_ids[start : start + MAX_IN])
            self.db.execute(
                f"UPDATE mem_facts SET archived = 1, archived_at = ? WHERE id IN "
                f"({placeholders(len(chunk))})",
                [when, *chunk],
            )

    def fact_by_id(self, fact_id: str) -> Any:
        return self.db.query_one(f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE id = ?", [fact_id])

    def _rows_by_rowid(self, columns: str, table: str, rowids: Iterable[int]) -> list[Any]:
        """Rows of ``table`` by rowid, in batches that stay under SQLite's variable limit."""
        ids = list(dict.fromkeys(rowids))
        out: list[Any] = []
        for start in range(0, len(ids), MAX_IN):
            chunk = ids[start : start + MAX_IN]
            out.extend(
                self.db.query(
                    f"SELECT {columns} FROM {table} WHERE rowid IN ({placeholders(len(chunk))})",
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
        for start in range(0, len(ids), MAX_IN):
            chunk = ids[start : start + MAX_IN]
            out.extend(
                self.db.query(
                    f"SELECT {FACT_COLUMNS} FROM mem_facts WHERE chain_id IN "
                    f"({placeholders(len(chunk))}) ORDER BY chain_id, version",
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
            clauses.append(f"ns IN ({placeholders(len(namespaces))})")
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
        where = f"ns IN ({placeholders(len(namespaces))})"
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

    def search_keyword(
        self, kind: Kind, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, bm25)`` of the facts or turns in ``namespaces`` matching ``query``,
        best first: memo's BM25 as FTS5 reports it on every engine (``search/bm25.py``),
        negative, lower is better."""
        return self.backend.search_keyword(kind, query, namespaces, limit)

    def search_vectors(
        self, kind: Kind, vector: Sequence[float], namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine similarity)`` of the facts or turns nearest to ``vector``."""
        if self.vectors is None or not namespaces or limit <= 0:
            return []
        self._check_dimensions(vector)
        return self.backend.search_vectors(kind, vector, namespaces, limit, self.vectors.dimensions)

    def vectors_for(self, kind: Kind, rowids: Sequence[int]) -> dict[int, list[float]]:
        """Stored vectors of ``rowids`` (those that have one)."""
        if self.vectors is None or not rowids:
            return {}
        return self.backend.read_vectors(kind, rowids, self.vectors.dimensions)

    def read_vectors(
        self, kind: Kind, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        """Stored vectors of ``rowids`` of ``kind`` (no embedder needed: copies use it)."""
        return self.backend.read_vectors(kind, rowids, dimensions)

    def delete_facts(self, rowids: Sequence[int]) -> int:
        """Delete fact versions with their FTS and vector rows."""
        deleted = 0
        with self.db.transaction():
            for start in range(0, len(rowids), MAX_IN):
                chunk = list(rowids[start : start + MAX_IN])
                marks = placeholders(len(chunk))
                self.backend.unindex("facts", chunk, vectors=self.vector_tables)
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
            self.backend.index_texts("turns", [(rowid, values["text"])])
            if vector is not None and self.vectors is not None:
                self.insert_vectors("turns", [(rowid, values["ns"], vector)])
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
            f"SELECT {TURN_COLUMNS} FROM mem_turns WHERE ns IN ({placeholders(len(namespaces))})"
            " ORDER BY at, rowid",
            list(namespaces),
        )

    def turn_ids_with_facts(self, turn_ids: Sequence[str]) -> set[str]:
        out: set[str] = set()
        ids = list(turn_ids)
        for start in range(0, len(ids), MAX_IN):
            chunk = ids[start : start + MAX_IN]
            out.update(
                r[0]
                for r in self.db.query(
                    "SELECT DISTINCT source_turn FROM mem_facts WHERE source_turn IN "
                    f"({placeholders(len(chunk))})",
                    chunk,
                )
            )
        return out

    def delete_turns(self, turn_ids: Sequence[str]) -> int:
        if not turn_ids:
            return 0
        deleted = 0
        with self.db.transaction():
            for start in range(0, len(turn_ids), MAX_IN):
                chunk = list(turn_ids[start : start + MAX_IN])
                rows = self.db.query(
                    f"SELECT rowid FROM mem_turns WHERE id IN ({placeholders(len(chunk))})", chunk
                )
                rowids = [int(r[0]) for r in rows]
                if not rowids:
                    continue
                marks = placeholders(len(rowids))
                self.backend.unindex("turns", rowids, vectors=self.vector_tables)
                self.db.execute(
                    "UPDATE mem_messages SET turn_id = NULL WHERE turn_id IN "
                    f"({placeholders(len(chunk))})",
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
                f"INSERT INTO mem_messages ({', '.join(cols)}) VALUES ({placeholders(len(cols))})",
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
            f"({placeholders(len(namespaces))}) ORDER BY ns, session_key, seq",
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
            f"({placeholders(len(rowids))})",
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
        """Before a bulk copy with explicit rowids into this (empty) base."""
        self.backend.begin_bulk_load()

    def end_bulk_load(self) -> None:
        """After the copy: the engine rebuilds its indexes and moves its rowid counters."""
        fingerprint = self.stored_fingerprint()
        dims = fingerprint.dimensions if fingerprint is not None and self.vector_tables else None
        self.backend.end_bulk_load(dims)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
