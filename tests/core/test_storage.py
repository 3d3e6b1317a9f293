"""The connection layer, migrations and error translation."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from memo_core.errors import (
    CorruptDatabaseError,
    DatabaseLockedError,
    InvalidInputError,
    SchemaError,
    StorageError,
)
from memo_core.storage import connection
from memo_core.storage.connection import Database, translate_sqlite_error
from memo_core.storage.migrations import Migrations


def test_pragmas_wal_foreign_keys_busy_timeout(tmp_path: Path) -> None:
    db = Database(tmp_path / "a.db")
    assert db.query_one("PRAGMA journal_mode")[0] == "wal"
    assert db.query_one("PRAGMA foreign_keys")[0] == 1
    assert db.query_one("PRAGMA busy_timeout")[0] >= 1000


def test_driver_can_load_sqlite_vec_here(tmp_path: Path) -> None:
    # This machine's stdlib sqlite3 cannot load extensions; the fallback driver must.
    db = Database(tmp_path / "a.db")
    assert db.has_vec, f"driver {db.driver.name} could not load sqlite-vec"
    assert db.query_one("SELECT vec_version()")[0].startswith("v")


def test_pick_driver_falls_back_when_stdlib_cannot_load(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoExtConn:
        def close(self) -> None: ...

    class NoExtModule:
        Error = sqlite3.Error

        @staticmethod
        def connect(*_a: object, **_k: object) -> NoExtConn:
            return NoExtConn()

    monkeypatch.setattr(connection, "_DRIVER", None)
    monkeypatch.setitem(__import__("sys").modules, "sqlite3", NoExtModule)
    try:
        driver = connection.pick_driver()
    finally:
        monkeypatch.setattr(connection, "_DRIVER", None)
    assert driver.name in ("sqlean", "pysqlite3.dbapi2")
    assert driver.can_load_extensions


def test_migrations_run_once_in_order_and_are_recorded(tmp_path: Path) -> None:
    schema = Migrations("test")
    calls: list[str] = []

    @schema
    def first(db: Database) -> None:
        calls.append("first")
        db.executescript("CREATE TABLE t (x); CREATE TABLE u (y);")

    @schema
    def second(db: Database) -> None:
        calls.append("second")
        db.execute("ALTER TABLE t ADD COLUMN z")

    db = Database(tmp_path / "m.db")
    assert schema.apply(db) == ["first", "second"]
    assert schema.apply(db) == []
    assert calls == ["first", "second"]
    rows = db.query("SELECT version, name FROM _memo_migrations WHERE schema = 'test'")
    assert rows == [(1, "first"), (2, "second")]


def test_a_read_only_file_opens_without_steps_readers_can_skip(tmp_path: Path) -> None:
    """A file on read-only media cannot be migrated: a pending step the code copes
    without is skipped, any other is a SchemaError naming the cure."""
    schema = Migrations("test")
    schema(lambda db: db.execute("CREATE TABLE t (x)"))
    writable = Database(tmp_path / "m.db")
    schema.apply(writable)
    writable.close()

    @schema.skippable_by_readers
    def add_an_id(db: Database) -> None:
        db.execute("INSERT INTO t VALUES (1)")

    reader = Database(tmp_path / "m.db")
    reader.read_only = True  # as when its file or folder is not writable
    assert schema.apply(reader) == []
    assert reader.query("SELECT * FROM t") == []
    with pytest.raises(StorageError, match="read-only"), reader.transaction():
        pass

    @schema
    def add_a_table(db: Database) -> None:
        db.execute("CREATE TABLE u (y)")

    with pytest.raises(SchemaError, match="open it once where it can be written"):
        schema.apply(reader)
    reader.close()


@pytest.mark.parametrize(
    ("message", "corrupt"),
    [
        ("database disk image is malformed", True),
        ("vectors blob read error for 1", True),
        ("could not open vectors blob for chunk 1", True),
        ("chunks iter error", True),
        ("Internal sqlite-vec error: Could not find latest chunk", True),
        ("Error inserting rowid into rowids shadow table: out of memory", True),
        ("Could not create '_chunks' shadow table: database or disk is full", False),
        ("Internal sqlite-vec error: could not write vector blob: database or disk is full", False),
        ("Dimension mismatch for inserted vector", False),
    ],
)
def test_sqlite_vec_damage_is_corruption(message: str, corrupt: bool) -> None:
    error = translate_sqlite_error(sqlite3.OperationalError(message))
    assert isinstance(error, CorruptDatabaseError) is corrupt


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    schema = Migrations("broken")

    @schema
    def create(db: Database) -> None:
        db.execute("CREATE TABLE t (x)")
        raise RuntimeError("boom")

    db = Database(tmp_path / "m.db")
    with pytest.raises(RuntimeError):
        schema.apply(db)
    assert db.query("SELECT name FROM sqlite_master WHERE name = 't'") == []
    assert schema.applied(db) == 0


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    old, new = Migrations("s"), Migrations("s")
    old(lambda db: None)
    new(lambda db: None)
    new(lambda db: None)
    db = Database(tmp_path / "m.db")
    new.apply(db)
    with pytest.raises(SchemaError, match="newer"):
        old.apply(db)


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    db = Database(tmp_path / "t.db")
    db.execute("CREATE TABLE t (x)")
    with pytest.raises(ValueError, match="stop"), db.transaction():  # noqa: PT012 - fails inside
        db.execute("INSERT INTO t VALUES (1)")
        raise ValueError("stop")
    assert db.query("SELECT * FROM t") == []


def test_not_a_database_is_a_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CorruptDatabaseError):
        Database(path)


@pytest.mark.parametrize(
    ("message", "kind", "expected"),
    [
        ("database is locked", "OperationalError", DatabaseLockedError),
        ("file is not a database", "DatabaseError", CorruptDatabaseError),
        ("database disk image is malformed", "DatabaseError", CorruptDatabaseError),
        ("no such table: x", "OperationalError", SchemaError),
        ("UNIQUE constraint failed", "IntegrityError", StorageError),
        ("Error binding parameter 1: unsupported type", "InterfaceError", InvalidInputError),
        ("disk I/O error", "OperationalError", StorageError),
    ],
)
def test_error_translation_is_complete(message: str, kind: str, expected: type) -> None:
    exc_type = getattr(sqlite3, kind)
    translated = translate_sqlite_error(exc_type(message))
    assert isinstance(translated, expected)
    assert isinstance(translated, StorageError | InvalidInputError)


def test_lock_is_retried_then_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    holder = Database(path)
    holder.execute("CREATE TABLE t (x)")
    other = Database(path, busy_timeout_ms=50)
    holder.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.4, lambda: holder.execute("COMMIT"))
    releaser.start()
    with other.transaction():  # locked at first; the bounded retry waits it out
        other.execute("INSERT INTO t VALUES (1)")
    releaser.join()
    assert other.query("SELECT x FROM t") == [(1,)]


def test_lock_that_never_clears_becomes_typed_error(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    holder = Database(path)
    holder.execute("CREATE TABLE t (x)")
    other = Database(path, busy_timeout_ms=20)
    other.lock_retry_seconds = 0.3
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseLockedError), other.transaction():
            pass
    finally:
        holder.execute("COMMIT")


def test_tracer_sees_every_statement(tmp_path: Path) -> None:
    seen: list[str] = []
    db = Database(tmp_path / "t.db", tracer=lambda sql, params: seen.append(sql))
    db.execute("CREATE TABLE t (x)")
    db.execute("INSERT INTO t VALUES (?)", [1])
    assert any("INSERT INTO t" in s for s in seen)
