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
* ``mem_facts_fts`` / ``mem_turns_fts`` — FTS5 (raw, stemmed), rowid = the table's rowid.
* ``mem_facts_vec`` / ``mem_turns_vec`` — sqlite-vec ``vec0`` tables (cosine),
  partitioned by ``ns``; created when an embedder is first attached.
"""

from __future__ import annotations

from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["memory_schema", "vec_table_ddl"]

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


def vec_table_ddl(name: str, dimensions: int) -> str:
    """A vec0 table keyed by the source rowid and partitioned by namespace."""
    return (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING vec0("
        " row_id INTEGER PRIMARY KEY,"
        " ns TEXT PARTITION KEY,"
        f" embedding FLOAT[{int(dimensions)}] distance_metric=cosine)"
    )


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
