"""One SQLite connection, opened the same way everywhere.

Why this module exists:

* Many Python builds (pyenv, python.org macOS) ship an ``sqlite3`` without
  ``enable_load_extension``, so sqlite-vec cannot load. :func:`pick_driver` detects
  that and falls back to a driver that can (``sqlean-py``, then ``pysqlite3-binary``).
* Every file is opened in WAL mode with a busy timeout and foreign keys on.
* "database is locked" never reaches a caller while a bounded retry with backoff
  can still succeed; what does reach it is a :class:`~memo_core.errors.MemoError`.
* One object may be shared by threads (LangChain runs sync methods in an
  executor): a re-entrant lock serialises use of the underlying connection.
* A file on read-only media (or whose file or folder is not writable) is opened
  read-only, immutable when not even SQLite's ``-shm`` file can be made, so it can
  still be searched; writes are refused with a clear error.
* Corruption is one error class wherever it shows: SQLite's own "malformed", and
  sqlite-vec's failures to read its shadow tables. Once a connection has seen
  it, it refuses writes, so a damaged file is not written on top of.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from memo_core.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    InvalidInputError,
    SchemaError,
    StorageError,
)
from memo_core.storage.base import Dialect, Tracer

__all__ = ["Database", "Driver", "pick_driver", "translate_sqlite_error"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Driver:
    """A DB-API module plus whether it can load sqlite-vec."""

    name: str
    module: ModuleType
    can_load_extensions: bool


_DRIVER: Driver | None = None


def _probe(module: ModuleType) -> bool:
    try:
        conn = module.connect(":memory:")
    except Exception:  # pragma: no cover - a broken driver
        return False
    try:
        return hasattr(conn, "enable_load_extension")
    finally:
        conn.close()


def pick_driver() -> Driver:
    """The first driver that can load extensions, else the stdlib one.

    Order: stdlib ``sqlite3``, ``sqlean`` (sqlean-py), ``pysqlite3``.
    """
    global _DRIVER
    if _DRIVER is not None:
        return _DRIVER
    import sqlite3

    candidates: list[tuple[str, ModuleType]] = [("sqlite3", sqlite3)]
    for name in ("sqlean", "pysqlite3.dbapi2"):
        try:
            candidates.append((name, __import__(name, fromlist=["connect"])))
        except ImportError:
            continue
    for name, module in candidates:
        if _probe(module):
            _DRIVER = Driver(name, module, True)
            return _DRIVER
    log.warning(
        "no SQLite driver here can load extensions; vector search is off "
        "(pip install 'memo[local]' adds sqlean-py)"
    )
    _DRIVER = Driver("sqlite3", sqlite3, False)
    return _DRIVER


def _error_classes(module: ModuleType) -> tuple[type[BaseException], ...]:
    return (module.Error,)


#: Words of SQLite's corruption errors, and of sqlite-vec's when its shadow tables
#: (vector chunks, rowids, validity bitmaps) cannot be read or do not add up.
_CORRUPT_HINTS = (
    "not a database",
    "malformed",
    "corrupt",
    "internal sqlite-vec error",
    "vectors blob",
    "vector blob",
    "chunks iter error",
    "shadow table:",
    "could not fetch vector data",
    "could not find a row with rowid",
    "could not extract metadata value",
    # FTS5 (or vec0) could not read its own shadow tables when opening the table: a
    # damaged config or structure record (a missing module says "no such module").
    "vtable constructor failed",
)


def translate_sqlite_error(exc: BaseException) -> StorageError:
    """Map a driver exception to memo's tree (the one place this happens)."""
    message = str(exc)
    lowered = message.lower()
    kind = type(exc).__name__
    if "locked" in lowered or "busy" in lowered:
        return DatabaseLockedError(f"database is locked: {message}")
    # (sqlite-vec words a failure to create or grow a table alike: a full disk is not damage.)
    unrelated = "could not create" in lowered or "full" in lowered
    if any(hint in lowered for hint in _CORRUPT_HINTS) and not unrelated:
        return CorruptDatabaseError(f"the database file is damaged: {message}")
    if kind == "IntegrityError":
        return StorageError(f"integrity constraint failed: {message}")
    if "no such table" in lowered or "no such column" in lowered:
        return SchemaError(message)
    if kind == "InterfaceError" or "unsupported type" in lowered:
        return InvalidInputError(message)  # type: ignore[return-value]
    return StorageError(message)


def split_statements(script: str, module: ModuleType) -> list[str]:
    """Split a SQL script into complete statements (triggers' BEGIN...END kept whole)."""
    statements: list[str] = []
    buffer = ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if module.complete_statement(buffer):
            if buffer.strip(" \n\t;"):
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip(" \n\t;"):
        statements.append(buffer.strip())
    return statements


def _quote_uri_path(path: Path) -> str:
    """``path`` for a ``file:`` URI (``?`` and ``#`` would end the path)."""
    from urllib.parse import quote

    return quote(str(path), safe="/")


def _is_locked(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class _Cursor:
    """A driver cursor whose fetches raise memo's errors, as its execute does.

    (SQLite reports most corruption while stepping through rows, after the
    statement started: a raw driver error must not escape from a fetch.)
    """

    def __init__(self, cursor: Any, db: Database) -> None:
        self._cursor = cursor
        self._db = db

    def __getattr__(self, name: str) -> Any:  # rowcount, lastrowid, description...
        return getattr(self._cursor, name)

    def fetchone(self) -> Any:
        return self._db._translated(self._cursor.fetchone)

    def fetchmany(self, size: int = 1) -> list[Any]:
        return self._db._translated(lambda: self._cursor.fetchmany(size))  # type: ignore[no-any-return]

    def fetchall(self) -> list[Any]:
        return self._db._translated(self._cursor.fetchall)  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[Any]:
        while rows := self.fetchmany(1000):
            yield from rows


def _writable(path: Path) -> bool:
    """Can SQLite write ``path`` (and create its ``-wal``/``-shm`` files beside it)?
    (access() answers EROFS on read-only media even for root.)"""
    folder = path.parent
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


class Database:
    """A connection to one SQLite file with memo's pragmas, retries and tracing.

    ``tracer(sql, params)`` sees every statement, for debugging and tests.
    """

    #: Total time a locked write keeps retrying before DatabaseLockedError.
    lock_retry_seconds = 30.0
    dialect: Dialect = "sqlite"

    def __init__(
        self,
        path: str | Path,
        *,
        tracer: Tracer | None = None,
        load_vec: bool = True,
        busy_timeout_ms: int = 5000,
    ) -> None:
        self.path = str(path)
        self.driver = pick_driver()
        self.tracer = tracer
        self._lock = threading.RLock()
        self._depth = 0
        self._reading = False
        #: Why writes are refused: "read-only" media, or the corruption seen here.
        self.read_only = False
        self.corrupt: str | None = None
        file = Path(self.path).expanduser()
        memory = self.path == ":memory:" or self.path.startswith("file::memory:")
        if not memory:
            if file.is_file() and not _writable(file):
                self.read_only = True
            else:
                file.parent.mkdir(parents=True, exist_ok=True)
        errors = _error_classes(self.driver.module)
        try:
            self.conn = self._connect(file, busy_timeout_ms)
            self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            if not self.read_only:
                self._retry(lambda: self.conn.execute("PRAGMA journal_mode = WAL"))
            self.conn.execute("PRAGMA foreign_keys = ON")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except errors as exc:
            raise self._note(translate_sqlite_error(exc)) from exc
        self.has_vec = False
        if load_vec and self.driver.can_load_extensions:
            self.has_vec = self._load_sqlite_vec()

    def _connect(self, file: Path, busy_timeout_ms: int) -> Any:
        module = self.driver.module
        options = {
            "timeout": busy_timeout_ms / 1000,
            "check_same_thread": False,
            "isolation_level": None,  # we issue BEGIN/COMMIT ourselves
        }
        if not self.read_only:
            return module.connect(self.path, **options)
        uri = f"file:{_quote_uri_path(file.resolve())}?mode=ro"
        if os.access(file.parent, os.W_OK):
            return module.connect(uri, uri=True, **options)
        # Not even "-shm" can be made beside it: nothing can change the file
        # (read-only media), which is what "immutable" tells SQLite.
        log.info("%s is on read-only media: opened immutable", self.path)
        return module.connect(uri + "&immutable=1", uri=True, **options)

    def _load_sqlite_vec(self) -> bool:
        try:
            import sqlite_vec
        except ImportError:
            log.warning("sqlite-vec is not installed; vector search is off")
            return False
        try:
            self.conn.enable_load_extension(True)
            sqlite_vec.load(self.conn)
            self.conn.enable_load_extension(False)
        except Exception as exc:  # pragma: no cover - platform specific
            log.warning("sqlite-vec failed to load (%s); vector search is off", exc)
            return False
        return True

    # -- statements ---------------------------------------------------------

    def _retry(self, op: Callable[[], Any]) -> Any:
        """Run ``op``, retrying while the file is locked, with jittered backoff."""
        deadline = time.monotonic() + self.lock_retry_seconds
        delay = 0.01
        errors = _error_classes(self.driver.module)
        while True:
            try:
                return op()
            except (OverflowError, UnicodeEncodeError) as exc:
                # Raised by the driver while binding: an int beyond 64 bits, a lone surrogate.
                raise InvalidInputError(f"a value cannot be stored in SQLite: {exc}") from exc
            except errors as exc:
                if not _is_locked(exc) or time.monotonic() > deadline or self._depth > 0:
                    raise self._note(translate_sqlite_error(exc)) from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)

    def _note(self, error: StorageError) -> StorageError:
        """Remember corruption (writes are refused from then on); returns ``error``."""
        if isinstance(error, CorruptDatabaseError) and self.corrupt is None:
            self.corrupt = str(error)
            log.error("%s: %s; writes to it are refused from now on", self.path, error)
        return error

    def _translated(self, op: Callable[[], Any]) -> Any:
        """Run a fetch, raising memo's errors (no retry: rows may have been read)."""
        try:
            return op()
        except _error_classes(self.driver.module) as exc:
            raise self._note(translate_sqlite_error(exc)) from exc

    def _trace(self, sql: str, params: Sequence[Any] | None) -> None:
        if self.tracer is not None:
            self.tracer(sql, params)

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        """Execute one statement with bound parameters; returns the cursor."""
        with self._lock:
            self._trace(sql, params if isinstance(params, Sequence) else list(params.values()))
            return _Cursor(self._retry(lambda: self.conn.execute(sql, params)), self)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        with self._lock:
            self._trace(sql, None)
            return _Cursor(self._retry(lambda: self.conn.executemany(sql, rows)), self)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[Any]:
        """Execute and fetch all rows."""
        with self._lock:
            return list(self.execute(sql, params).fetchall())

    def query_one(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        with self._lock:
            return self.execute(sql, params).fetchone()

    def executescript(self, script: str) -> None:
        """Run several statements inside the current transaction.

        (The driver's own ``executescript`` COMMITs first, which would break the
        one-transaction-per-migration rule, so statements are split here.)
        """
        with self._lock:
            for statement in split_statements(script, self.driver.module):
                self.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Database]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception.

        Re-entrant: a nested call joins the outer transaction. Taking the write
        lock up front (IMMEDIATE) is what lets the busy retry work: a deferred
        transaction that upgrades to a write can deadlock and is never retried.
        """
        with self._lock:
            if self._reading:
                raise StorageError("a write cannot start inside a read snapshot")
            if self.corrupt is not None:
                raise CorruptDatabaseError(
                    f"{self.path} is damaged ({self.corrupt}); writes are refused. "
                    "Restore it from a backup: memo restore --db FILE --from BACKUP"
                )
            if self.read_only:
                raise StorageError(
                    f"{self.path} is opened read-only (its file or folder is not writable);"
                    " it can be searched, not written"
                )
            if self._depth > 0:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self._retry(lambda: self.conn.execute("BEGIN IMMEDIATE"))
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._depth = 0
                with contextlib.suppress(Exception):
                    self.conn.execute("ROLLBACK")
                raise
            self._depth = 0
            errors = _error_classes(self.driver.module)
            try:
                self.conn.execute("COMMIT")
            except errors as exc:
                with contextlib.suppress(Exception):
                    self.conn.execute("ROLLBACK")
                raise self._note(translate_sqlite_error(exc)) from exc

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Database]:
        """Several reads that must see the same data: a deferred ``BEGIN`` ... ``COMMIT``.

        Between two autocommit statements another process may commit, so a check
        ("only this owner's rows exist") and the query relying on it can disagree.
        Inside a snapshot they cannot. In WAL mode a reader blocks no writer, so
        this is cheap. Inside a write transaction (or another snapshot) it joins it.
        """
        with self._lock:
            if self._depth > 0 or self._reading:
                yield self
                return
            self._retry(lambda: self.conn.execute("BEGIN"))
            self._reading = True
            try:
                # A write here fails (StorageError), as in PostgreSQL's READ ONLY snapshot.
                self.conn.execute("PRAGMA query_only = 1")
                # The first read pins the snapshot (a deferred BEGIN reads nothing yet).
                self._retry(
                    lambda: self.conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
                )
                yield self
            finally:
                self._reading = False
                self.conn.execute("PRAGMA query_only = 0")
                with contextlib.suppress(Exception):
                    self.conn.execute("COMMIT")

    def data_version(self) -> tuple[int, ...]:
        """Changes whenever this or another connection commits a write."""
        with self._lock:
            row = self.query_one("PRAGMA data_version")
            return (int(row[0]), int(self.conn.total_changes))

    def commits_by_others(self) -> int | None:
        """``PRAGMA data_version``: moves when another connection commits, not by this one's."""
        with self._lock:
            return int(self.query_one("PRAGMA data_version")[0])

    def integrity_check(self) -> bool:
        row = self.query_one("PRAGMA integrity_check")
        return bool(row and row[0] == "ok")

    def table_exists(self, name: str) -> bool:
        row = self.query_one(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]
        )
        return row is not None

    @property
    def local_file(self) -> str | None:
        if self.path in ("", ":memory:") or self.path.startswith("file:"):
            return None
        return self.path

    def close(self) -> None:
        with self._lock, contextlib.suppress(Exception):
            self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
