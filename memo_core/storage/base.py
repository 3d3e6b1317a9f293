"""The storage interface every backend implements.

memo's stores speak SQL with ``?`` placeholders through this small surface, so a
knowledge base or a memory can live in one SQLite file (:class:`~memo_core.storage.
connection.Database`) or in a PostgreSQL schema shared by many machines
(:class:`~memo_core.storage.postgres.PostgresDatabase`). What differs by engine
(full-text search, vector search, DDL) lives in dialect-specific modules chosen
by :attr:`SQLDatabase.dialect`; everything else is portable SQL.

The semantics both backends guarantee:

* ``transaction()`` is re-entrant and single-writer per base: two writers never
  interleave, so "read, decide, write" code (supersede a fact, charge the spend
  ceiling) is race-free without further locking.
* ``snapshot()`` gives several reads one consistent view.
* Every driver error reaches the caller as a :class:`~memo_core.errors.MemoError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, Protocol

__all__ = ["Dialect", "SQLDatabase", "Tracer"]

Dialect = Literal["sqlite", "postgres"]
Tracer = Callable[[str, Sequence[Any] | None], None]


class SQLDatabase(Protocol):
    """What a store needs from a database connection."""

    #: ``"sqlite"`` or ``"postgres"``: which dialect-specific SQL to use.
    dialect: Dialect
    #: A printable location (a file path, or a URL with its password removed).
    path: str
    #: Whether vector search is available (sqlite-vec loaded, pgvector installed).
    has_vec: bool
    tracer: Tracer | None

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """Run one statement; the result has ``fetchall``, ``fetchone``, ``rowcount``."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any: ...

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]: ...

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any: ...

    def executescript(self, script: str) -> None: ...

    def transaction(self) -> AbstractContextManager[Any]: ...

    def snapshot(self) -> AbstractContextManager[Any]: ...

    def data_version(self) -> tuple[int, ...]:
        """A value that changes whenever any writer commits (cache invalidation)."""
        ...

    def commits_by_others(self) -> int | None:
        """A number that moves whenever another connection commits a write, and that
        this connection's own commits leave alone (SQLite's ``PRAGMA data_version``);
        None where the engine keeps no such number. Unlike :meth:`data_version`, which
        moves with this connection's writes too (and, on SQLite, at its commits: FTS5
        writes its pending postings then)."""
        ...

    def integrity_check(self) -> bool: ...

    def table_exists(self, name: str) -> bool:
        """Whether ``name`` is a table of this base (the current schema on PostgreSQL)."""
        ...

    @property
    def local_file(self) -> str | None:
        """The file on this machine a second connection can open; None for a base in
        RAM, behind a ``file:`` URI, or on a server."""
        ...

    def close(self) -> None: ...
