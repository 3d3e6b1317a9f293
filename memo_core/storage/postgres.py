"""A PostgreSQL schema behind the same interface as one SQLite file.

Why it is shaped this way:

* The stores write portable SQL with ``?`` placeholders; :func:`to_pyformat`
  rewrites them for psycopg once per distinct statement (cached).
* A pool (psycopg 3) serves many threads; a thread inside ``transaction()`` or
  ``snapshot()`` keeps one connection until it ends, everything else borrows a
  connection per statement in autocommit mode.
* Writers are serialised per schema with a transaction-scoped advisory lock. That
  is SQLite's ``BEGIN IMMEDIATE`` contract, on which the "read, decide, write"
  code relies (supersede a fact, charge the spend ceiling): without it two
  processes could both see a fact as current and both close it. Readers never wait.
* Every write transaction bumps a generation counter in the same transaction, so
  :meth:`data_version` is snapshot-consistent and cheap (read-path caches).
* One base is one schema: ``postgresql://host/db?schema=team_kb``. The
  ``schema`` parameter is memo's; every other parameter goes to libpq.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from memo_core.errors import (
    ConfigError,
    DatabaseLockedError,
    InvalidInputError,
    MissingDependencyError,
    SchemaError,
    StorageError,
)
from memo_core.storage.base import Dialect, Tracer

__all__ = ["PostgresDatabase", "split_schema", "to_pyformat", "translate_postgres_error"]

log = logging.getLogger(__name__)

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_READ_STATEMENT = re.compile(r"^\s*(SELECT|WITH|SHOW|EXPLAIN|VALUES)\b", re.IGNORECASE)
# SQLSTATE classes worth retrying: serialization failure, deadlock, lock timeout.
_RETRYABLE = {"40001", "40P01", "55P03"}


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool  # noqa: F401  (checked here so the error names both)
    except ImportError as exc:
        raise MissingDependencyError("psycopg", "postgres", "a PostgreSQL base") from exc
    return psycopg


def split_schema(url: str) -> tuple[str, str, str]:
    """``(libpq_url, schema, printable_url)`` from a memo PostgreSQL URL.

    The printable URL has its password removed, for error messages and logs.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"not a PostgreSQL URL: {parts.scheme}://...")
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = "public"
    kept: list[tuple[str, str]] = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            kept.append((key, value))
    if not _SCHEMA_NAME.match(schema):
        raise ConfigError(
            f"schema {schema!r}: use lower-case letters, digits and underscores (at most 63)"
        )
    # quote (not quote_plus): libpq reads '+' literally, so 'options=-c a=b -c c=d' must keep %20.
    libpq = urlunsplit(parts._replace(query=urlencode(kept, quote_via=quote)))
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}@{host}"
    printable = urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, quote_via=quote)))
    return libpq, schema, printable


@functools.lru_cache(maxsize=4096)
def to_pyformat(sql: str) -> str:
    """Rewrite ``?`` placeholders to ``%s`` (and ``%`` to ``%%``) outside literals.

    Quoted strings and identifiers are copied as they are except for ``%``, which
    psycopg reads everywhere in a statement that has parameters.
    """
    out: list[str] = []
    quote: str | None = None
    for char in sql:
        if quote is not None:
            out.append("%%" if char == "%" else char)
            if char == quote:
                quote = None
        elif char in ("'", '"'):
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    return "".join(out)


def translate_postgres_error(exc: BaseException) -> StorageError:
    """Map a psycopg exception to memo's tree (the one place this happens)."""
    sqlstate = getattr(exc, "sqlstate", None) or ""
    message = str(exc).strip()
    if sqlstate in _RETRYABLE:
        return DatabaseLockedError(f"database is busy: {message}")
    if sqlstate in ("42P01", "42703", "3F000"):  # undefined table / column / schema
        return SchemaError(message)
    if sqlstate.startswith("23"):
        return StorageError(f"integrity constraint failed: {message}")
    if sqlstate.startswith("22") or isinstance(exc, (OverflowError, UnicodeEncodeError)):
        return InvalidInputError(f"a value cannot be stored in PostgreSQL: {message}")  # type: ignore[return-value]
    if type(exc).__name__ in ("DataError", "ProgrammingError") and "NUL" in message:
        return InvalidInputError(f"a value cannot be stored in PostgreSQL: {message}")  # type: ignore[return-value]
    return StorageError(message)


@dataclass
class Result:
    """A materialised cursor: the connection may go back to the pool at once."""

    rows: list[Any] = field(default_factory=list)
    rowcount: int = -1
    description: Any = None
    lastrowid: None = None  # PostgreSQL has none; write ``INSERT ... RETURNING``.

    def fetchall(self) -> list[Any]:
        return self.rows

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)


class PostgresDatabase:
    """A pool of connections to one schema of a PostgreSQL database."""

    dialect: Dialect = "postgres"

    def __init__(
        self,
        url: str,
        *,
        tracer: Tracer | None = None,
        load_vec: bool = True,
        min_connections: int = 1,
        max_connections: int = 8,
    ) -> None:
        psycopg = _psycopg()
        from psycopg_pool import ConnectionPool

        self._errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        self._pool_errors: tuple[type[BaseException], ...] = ()
        with contextlib.suppress(ImportError):
            from psycopg_pool import PoolTimeout

            self._pool_errors = (PoolTimeout,)
        self.url, self.schema, self.path = split_schema(url)
        self.tracer = tracer
        self._local = threading.local()
        self._lock_key = zlib.crc32(f"memo:{self.schema}".encode()) - 2**31
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                self.has_vec = self._prepare(conn, load_vec)
        except self._errors as exc:
            raise translate_postgres_error(exc) from exc
        self._pool = ConnectionPool(
            self.url,
            min_size=min_connections,
            max_size=max(min_connections, max_connections),
            kwargs={"autocommit": True},
            configure=self._configure,
            open=True,
            name=f"memo-{self.schema}",
        )

    def _prepare(self, conn: Any, load_vec: bool) -> bool:
        """Create the schema, the generation counter and (if asked and possible) pgvector."""
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
        conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{self.schema}"._memo_generation '
            "(id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL)"
        )
        conn.execute(
            f'INSERT INTO "{self.schema}"._memo_generation VALUES (1, 0) ON CONFLICT DO NOTHING'
        )
        if not load_vec:
            return False
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except self._errors as exc:
            log.warning("pgvector is not available (%s); vector search is off", exc)
            return False
        return True

    def _configure(self, conn: Any) -> None:
        # pgvector's types live in the schema the extension was created in (public).
        conn.execute(f'SET search_path TO "{self.schema}", public')

    # -- connections --------------------------------------------------------

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        bound = getattr(self._local, "conn", None)
        if bound is not None:
            yield bound
            return
        try:
            with self._pool.connection() as conn:
                yield conn
        except self._pool_errors as exc:
            raise DatabaseLockedError(f"{self.path}: no free connection: {exc}") from exc

    def _run(self, conn: Any, sql: str, params: Sequence[Any] | dict[str, Any]) -> Result:
        self._trace(sql, params if isinstance(params, Sequence) else list(params.values()))
        args: Any = params if isinstance(params, dict) else tuple(params)
        try:
            with conn.cursor() as cursor:
                cursor.execute(to_pyformat(sql), args)
                rows = cursor.fetchall() if cursor.description is not None else []
                return Result(rows, cursor.rowcount, cursor.description)
        except (OverflowError, UnicodeEncodeError, ValueError) as exc:
            raise InvalidInputError(f"a value cannot be stored in PostgreSQL: {exc}") from exc

    def _trace(self, sql: str, params: Sequence[Any] | None) -> None:
        if self.tracer is not None:
            self.tracer(sql, params)

    # -- statements ---------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Result:
        """Run one statement. A write outside a transaction gets one of its own."""
        if getattr(self._local, "conn", None) is None and not _READ_STATEMENT.match(sql):
            with self.transaction():
                return self.execute(sql, params)
        with self._connection() as conn:
            try:
                return self._run(conn, sql, params)
            except self._errors as exc:
                raise translate_postgres_error(exc) from exc

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Result:
        with self.transaction(), self._connection() as conn:
            self._trace(sql, None)
            try:
                with conn.cursor() as cursor:
                    cursor.executemany(to_pyformat(sql), [tuple(r) for r in rows])
                    return Result([], cursor.rowcount, None)
            except (OverflowError, UnicodeEncodeError, ValueError) as exc:
                raise InvalidInputError(f"a value cannot be stored in PostgreSQL: {exc}") from exc
            except self._errors as exc:
                raise translate_postgres_error(exc) from exc

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        return self.execute(sql, params).fetchall()

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        return self.execute(sql, params).fetchone()

    def executescript(self, script: str) -> None:
        """Run several statements (no parameters) inside the current transaction."""
        with self.transaction(), self._connection() as conn:
            self._trace(script, None)
            try:
                conn.execute(script)
            except self._errors as exc:
                raise translate_postgres_error(exc) from exc

    # -- transactions -------------------------------------------------------

    def _begin(self, conn: Any, statement: str, write: bool) -> None:
        conn.execute(statement)
        if write:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
            conn.execute("UPDATE _memo_generation SET n = n + 1 WHERE id = 1")

    @contextlib.contextmanager
    def _bound(self, statement: str, *, write: bool) -> Iterator[PostgresDatabase]:
        depth = getattr(self._local, "depth", 0)
        if depth > 0:
            if write and getattr(self._local, "reading", False):
                raise StorageError("a write cannot start inside a read snapshot")
            self._local.depth = depth + 1
            try:
                yield self
            finally:
                self._local.depth -= 1
            return
        with self._connection() as conn:
            try:
                self._begin(conn, statement, write)
            except self._errors as exc:
                with contextlib.suppress(Exception):
                    conn.execute("ROLLBACK")
                raise translate_postgres_error(exc) from exc
            self._local.conn, self._local.depth, self._local.reading = conn, 1, not write
            try:
                yield self
            except self._errors as exc:
                with contextlib.suppress(Exception):
                    conn.execute("ROLLBACK")
                raise translate_postgres_error(exc) from exc
            except BaseException:
                with contextlib.suppress(Exception):
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._local.conn, self._local.depth, self._local.reading = None, 0, False
            try:
                conn.execute("COMMIT")
            except self._errors as exc:
                with contextlib.suppress(Exception):
                    conn.execute("ROLLBACK")
                raise translate_postgres_error(exc) from exc

    def transaction(self) -> contextlib.AbstractContextManager[PostgresDatabase]:
        """A write transaction, serialised with every other writer of this schema."""
        return self._bound("BEGIN", write=True)

    def snapshot(self) -> contextlib.AbstractContextManager[PostgresDatabase]:
        """Several reads seeing one committed state (REPEATABLE READ, read only)."""
        return self._bound("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", write=False)

    def data_version(self) -> tuple[int, ...]:
        row = self.query_one("SELECT n FROM _memo_generation WHERE id = 1")
        return (int(row[0]) if row else 0,)

    def commits_by_others(self) -> int | None:
        """None: the generation counter moves with this connection's commits as with
        any other's, so it cannot tell whether someone else wrote."""
        return None

    def integrity_check(self) -> bool:
        """PostgreSQL keeps its own consistency; this checks the schema is reachable."""
        return bool(self.query_one("SELECT 1") == (1,))

    def table_exists(self, name: str) -> bool:
        row = self.query_one(
            "SELECT 1 FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_name = ?",
            [name],
        )
        return row is not None

    @property
    def local_file(self) -> str | None:
        return None  # a schema on a server, never a file here

    def drop_schema(self) -> None:
        """Delete this base: its whole schema (tests, ``memo migrate`` clean-ups)."""
        with self._connection() as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._pool.close()

    def __enter__(self) -> PostgresDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
