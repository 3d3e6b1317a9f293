"""The memory backend protocol: what an engine does for MemoHood's facts and turns.

:class:`~memo_core.memory.store.FactStore` owns the plain tables (facts, turns,
messages, item TTLs, meta) and writes them in portable SQL that every engine runs
unchanged. What an engine does its own way is behind :class:`MemoryBackend`:

* its **schema** (numbered migrations) and what to do after an upgrade;
* the **keyword leg** for facts and turns: index a row's text, drop it, and rank
  the rows of some namespaces by memo's BM25 (:mod:`memo_core.search.bm25`: the
  same IDF, k1, b and column weights on every engine, so the order agrees);
* the **vector leg**: create the vector tables for a width, write, read back and
  search vectors (cosine), exactly within the namespaces asked for;
* the **bulk copy** hooks ``memo migrate`` calls around a copy with explicit rowids.

One implementation per engine, in a module of its own (``sqlite_backend.py``,
``pg_backend.py``), registered in :data:`~memo_core.memory.store.MEMORY_BACKENDS`
(a :class:`~memo_core.storage.registry.Implementations` table: the engine is
chosen by the database URL, in the storage registry, and nowhere else).
``tests/memory/test_memory_backend_conformance.py`` runs one suite against each.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = [
    "KINDS",
    "MAX_IN",
    "MAX_K",
    "MAX_LIMIT",
    "Kind",
    "MemoryBackend",
    "MemoryBackendFactory",
    "Tables",
    "pack",
    "placeholders",
    "tables",
]

#: What the memory indexes: fact versions and conversation turns.
Kind = Literal["facts", "turns"]
KINDS: tuple[Kind, ...] = ("facts", "turns")
#: Bound parameters per ``IN (...)`` list (under SQLite's variable limit).
MAX_IN = 400
#: The largest LIMIT a search passes to SQL (a bigger one means "all" and is clamped).
MAX_LIMIT = 1_000_000
#: The most nearest neighbours one vector search returns (sqlite-vec's own ceiling for k;
#: every engine applies it so all answer alike).
MAX_K = 4096


@dataclass(frozen=True)
class Tables:
    """The tables of one kind: its rows, their keyword index and their vectors."""

    base: str
    fts: str
    vec: str
    #: The base row's column holding the indexed text.
    text: str


_TABLES = {
    "facts": Tables("mem_facts", "mem_facts_fts", "mem_facts_vec", "statement"),
    "turns": Tables("mem_turns", "mem_turns_fts", "mem_turns_vec", "text"),
}


def tables(kind: Kind) -> Tables:
    """The table names of ``kind`` (the same on every engine)."""
    return _TABLES[kind]


def placeholders(n: int) -> str:
    return ", ".join("?" * n)


def pack(vector: Sequence[float]) -> bytes:
    """A vector as float32 bytes (sqlite-vec's form; also how copies compare)."""
    return struct.pack(f"{len(vector)}f", *vector)


class MemoryBackend(Protocol):
    """One engine's keyword leg, vector leg, schema and bulk-copy hooks for memory.

    Every method runs inside the caller's transaction when there is one: the store
    writes a row and its index rows atomically. Namespaces are always a bound list
    (an empty list finds nothing: fail closed). Scores are BM25 as FTS5 reports it
    (negative, lower is better) and cosine similarity (higher is better).
    """

    db: SQLDatabase

    @property
    def schema(self) -> Migrations:
        """The engine's numbered migrations (schema name ``"memohood"``)."""
        ...

    def after_upgrade(self, applied: Sequence[str]) -> None:
        """Tidy up after the migrations named ``applied`` ran (e.g. reclaim space)."""
        ...

    # -- keyword leg ------------------------------------------------------------------

    def index_texts(self, kind: Kind, rows: Sequence[tuple[int, str]]) -> None:
        """Keyword-index ``(rowid, text)`` rows: the raw text and its stems."""
        ...

    def unindex(self, kind: Kind, rowids: Sequence[int], *, vectors: bool) -> None:
        """Drop the keyword rows (and, with ``vectors``, the vector rows) of ``rowids``."""
        ...

    def search_keyword(
        self, kind: Kind, query: str, namespaces: Sequence[str], limit: int
    ) -> list[tuple[int, float]]:
        """``(rowid, bm25)`` of the rows in ``namespaces`` matching ``query``, best first."""
        ...

    # -- vector leg -------------------------------------------------------------------

    def create_vector_tables(self, dimensions: int) -> None:
        """The vector tables of both kinds for ``dimensions`` (idempotent)."""
        ...

    def write_vectors(self, kind: Kind, rows: Sequence[tuple[int, str, Sequence[float]]]) -> None:
        """Write ``(rowid, ns, vector)`` rows, replacing any there (widths checked by the
        caller)."""
        ...

    def read_vectors(
        self, kind: Kind, rowids: Sequence[int], dimensions: int
    ) -> dict[int, list[float]]:
        """Stored float32 vectors of ``rowids`` (those that have one)."""
        ...

    def search_vectors(
        self,
        kind: Kind,
        vector: Sequence[float],
        namespaces: Sequence[str],
        limit: int,
        dimensions: int,
    ) -> list[tuple[int, float]]:
        """``(rowid, cosine similarity)`` nearest to ``vector`` in ``namespaces``, best
        first, ties by rowid; exact within the namespaces (never short, never another's)."""
        ...

    # -- bulk copy --------------------------------------------------------------------

    def begin_bulk_load(self) -> None:
        """Before a copy with explicit rowids into an empty base (e.g. drop indexes)."""
        ...

    def end_bulk_load(self, dimensions: int | None) -> None:
        """After the copy: rebuild what ``begin_bulk_load`` dropped, move rowid counters."""
        ...


class MemoryBackendFactory(Protocol):
    """Builds an engine's backend over a connection of that engine."""

    def __call__(self, db: SQLDatabase) -> MemoryBackend: ...
