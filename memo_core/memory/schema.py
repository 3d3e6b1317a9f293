"""The memory file's schema, as numbered migrations (schema name ``"memohood"``).

This is the SQLite form; :mod:`memo_core.memory.pg_schema` is the PostgreSQL one,
with the same tables, columns and migration numbers.

Tables:

* ``mem_meta`` — key/value facts about the file (the embedder fingerprint).
* ``mem_facts`` — every version of every fact. ``chain_id`` groups the versions
  of one fact, ``valid_to IS NULL`` marks the current one (at most one per
  ``(ns, key)``), ``superseded_by`` points to the replacing version. ``ns`` is the
  encoded namespace (see :mod:`memo_core.memory.namespace`), ``root`` its first
  component (the user). ``stemmed`` caches the content stems used for matching.
* ``mem_turns`` — raw conversation turns (episodic memory); ``focus`` remembers
  who a pronoun in the next turn refers to.
* ``mem_messages`` — chat transcripts per session key, for chat-history adapters.
* ``mem_item_ttl`` — the time-to-live of a keyed item (``(ns, key)``, key-value
  stores only): when it expires and the TTL in minutes a read may refresh it by.
* ``mem_facts_fts`` / ``mem_turns_fts`` — FTS5 (raw, stemmed), rowid = the table's rowid,
  each token prefixed with its namespace's code (``memory/keyword_scope.py``).
* ``mem_facts_vec`` / ``mem_turns_vec`` — plain tables of float32 vectors
  (``row_id`` = the base row's rowid, ``ns``, ``embedding``) with an index on
  ``ns``, searched exactly per namespace with sqlite-vec's ``vec_distance_cosine``;
  created when an embedder is first attached (:func:`vec_table_ddl`). They were
  vec0 tables partitioned by ``ns`` before the migration
  :func:`vectors_in_plain_tables`: each vec0 partition reserves a chunk of 1,024
  vector slots, so the file grew by about 1.5 MB per user and table however few
  facts the user had. A namespace holds few rows, so an exact scan over them
  costs less than the index vec0 kept, and stays flat as users are added.
"""

from __future__ import annotations

import re

from memo_core.errors import SchemaError
from memo_core.memory.backend import KINDS
from memo_core.memory.keyword_scope import scope_index
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["VECTOR_TABLES", "memory_schema", "vec_table_ddl"]

memory_schema = Migrations("memohood")


@memory_schema
def create_memory_tables(db: SQLDatabase) -> None:
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS mem_facts (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            ns TEXT NOT NULL,
            root TEXT NOT NULL,
            chain_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            key TEXT NOT NULL,
            statement TEXT NOT NULL,
            stemmed TEXT NOT NULL DEFAULT '',
            value TEXT,
            category TEXT NOT NULL,
            pinned INTEGER NOT NULL DEFAULT 0,
            subject TEXT NOT NULL DEFAULT 'self',
            subject_kind TEXT NOT NULL DEFAULT 'self',
            about TEXT NOT NULL DEFAULT '',
            party_terms TEXT NOT NULL DEFAULT '',
            event_start TEXT,
            event_end TEXT,
            valid_from TEXT NOT NULL,
            valid_to TEXT,
            superseded_by TEXT,
            source_turn TEXT,
            session_id TEXT,
            origin TEXT NOT NULL DEFAULT 'rule',
            strength REAL NOT NULL DEFAULT 1.0,
            last_used TEXT NOT NULL,
            reinforcements INTEGER NOT NULL DEFAULT 0,
            archived INTEGER NOT NULL DEFAULT 0,
            archived_at TEXT,
            indexed INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX IF NOT EXISTS mem_facts_current_key
            ON mem_facts (ns, key) WHERE valid_to IS NULL;
        CREATE INDEX IF NOT EXISTS mem_facts_ns ON mem_facts (ns, valid_to);
        CREATE INDEX IF NOT EXISTS mem_facts_chain ON mem_facts (chain_id, version);
        CREATE INDEX IF NOT EXISTS mem_facts_source ON mem_facts (source_turn);
        CREATE TABLE IF NOT EXISTS mem_turns (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            ns TEXT NOT NULL,
            root TEXT NOT NULL,
            session_id TEXT,
            role TEXT NOT NULL,
            text TEXT NOT NULL,
            at TEXT NOT NULL,
            decision TEXT NOT NULL,
            score REAL NOT NULL DEFAULT 0,
            focus TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS mem_turns_ns ON mem_turns (ns, session_id, at);
        CREATE TABLE IF NOT EXISTS mem_messages (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            ns TEXT NOT NULL,
            session_key TEXT NOT NULL,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            at TEXT NOT NULL,
            turn_id TEXT
        );
        CREATE INDEX IF NOT EXISTS mem_messages_session ON mem_messages (ns, session_key, seq);
        CREATE VIRTUAL TABLE IF NOT EXISTS mem_facts_fts USING fts5(
            raw, stemmed, tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE IF NOT EXISTS mem_turns_fts USING fts5(
            raw, stemmed, tokenize = 'unicode61 remove_diacritics 2'
        );
        """
    )


def vec_table_ddl(name: str, dimensions: int) -> list[str]:
    """Statements creating vector table ``name``: rowid-keyed float32 blobs, indexed by ``ns``.

    The CHECK keeps every blob at ``dimensions`` floats, as vec0's typed column did.
    """
    dims = int(dimensions)
    return [
        f"CREATE TABLE IF NOT EXISTS {name} ("
        " row_id INTEGER PRIMARY KEY,"
        " ns TEXT NOT NULL,"
        f" embedding BLOB NOT NULL CHECK (length(embedding) = {4 * dims}))",
        f"CREATE INDEX IF NOT EXISTS {name}_ns ON {name} (ns)",
    ]


@memory_schema
def add_recall_indexes(db: SQLDatabase) -> None:
    """Indexed lookups recall makes on current facts: pinned, category, people, dates."""
    db.executescript(
        """
        CREATE INDEX IF NOT EXISTS mem_facts_ns_pinned
            ON mem_facts (ns, pinned, valid_from) WHERE valid_to IS NULL;
        CREATE INDEX IF NOT EXISTS mem_facts_ns_category
            ON mem_facts (ns, category, valid_from) WHERE valid_to IS NULL;
        CREATE INDEX IF NOT EXISTS mem_facts_ns_party
            ON mem_facts (ns, valid_from) WHERE valid_to IS NULL AND party_terms != '';
        CREATE INDEX IF NOT EXISTS mem_facts_ns_event
            ON mem_facts (ns, event_end) WHERE valid_to IS NULL AND event_end IS NOT NULL;
        """
    )


@memory_schema
def add_item_ttl(db: SQLDatabase) -> None:
    """Item time-to-live (LangGraph's TTL): one row per ``(ns, key)``, portable SQL."""
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS mem_item_ttl (
            ns TEXT NOT NULL,
            key TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            ttl_minutes DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (ns, key)
        );
        CREATE INDEX IF NOT EXISTS mem_item_ttl_expiry ON mem_item_ttl (expires_at);
        """
    )


#: The vector tables, by the base table whose rows they embed.
VECTOR_TABLES = {"mem_facts_vec": "mem_facts", "mem_turns_vec": "mem_turns"}


@memory_schema
def vectors_in_plain_tables(db: SQLDatabase) -> None:
    """Move vectors out of vec0 partitions (about 1.5 MB per user) into plain tables.

    Every stored vector is copied bit for bit with its rowid and namespace; nothing is
    re-embedded. The freed pages are returned to the file system by the VACUUM the
    store runs after this step (VACUUM cannot run inside a migration's transaction).
    """
    for name in VECTOR_TABLES:
        row = db.query_one(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [name]
        )
        if row is None or "vec0" not in str(row[0]).lower():
            continue  # no vectors yet (the table comes with the embedder) or already plain
        if not db.has_vec:
            raise SchemaError(
                f"{db.path}: {name} is a sqlite-vec table of an older memo and sqlite-vec "
                "cannot load here; install sqlite-vec (pip install sqlite-vec) to upgrade it"
            )
        first = db.query_one(f"SELECT length(embedding) FROM {name} LIMIT 1")
        dims = int(first[0]) // 4 if first is not None else _declared_dimensions(str(row[0]))
        moved = f"{name}_plain"
        db.execute(vec_table_ddl(moved, dims)[0])
        db.execute(
            f"INSERT INTO {moved} (row_id, ns, embedding) SELECT row_id, ns, embedding FROM {name}"
        )
        db.execute(f"DROP TABLE {name}")  # vec0 drops its shadow tables with it
        db.execute(f"ALTER TABLE {moved} RENAME TO {name}")
        db.execute(vec_table_ddl(name, dims)[1])


@memory_schema
def scope_keyword_index_by_namespace(db: SQLDatabase) -> None:
    """Every token of the FTS5 tables carries its namespace's code, so a recall reads
    only the asking namespace's postings (``memory/keyword_scope.py``). The same rows
    are indexed again from the stored texts; nothing else changes."""
    for kind in KINDS:
        scope_index(db, kind)


def _declared_dimensions(ddl: str) -> int:
    """The ``FLOAT[d]`` width of a vec0 table's DDL (for an empty table)."""
    found = re.search(r"float\[(\d+)\]", ddl, re.IGNORECASE)
    if found is None:
        raise SchemaError(f"cannot read the vector width from {ddl!r}")
    return int(found.group(1))
