"""Numbered schema migrations, recorded in a table.

A schema is a :class:`Migrations` list of functions, each run once, in order, in
its own transaction, and recorded in ``_memo_migrations`` under the list's name
(one file may hold several schemas, e.g. a knowledge base and its spend ledger).
A file whose recorded version is newer than the code raises :class:`SchemaError`.
A file opened read-only (read-only media) cannot be migrated: it opens if every
pending step is marked ``readers_can_skip`` (the code copes without it), and
raises :class:`SchemaError` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from memo_core.errors import SchemaError
from memo_core.storage.base import SQLDatabase

__all__ = ["Migration", "Migrations"]

MigrationFn = Callable[[SQLDatabase], None]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    fn: MigrationFn
    #: A read-only file may stay without this step (the code copes without it).
    readers_can_skip: bool = False


@dataclass
class Migrations:
    """An ordered set of migrations for one schema, identified by ``schema``."""

    schema: str
    steps: list[Migration] = field(default_factory=list)

    def __call__(self, fn: MigrationFn) -> MigrationFn:
        """Register ``fn`` as the next migration (use as a decorator)."""
        self.steps.append(Migration(len(self.steps) + 1, fn.__name__, fn))
        return fn

    def skippable_by_readers(self, fn: MigrationFn) -> MigrationFn:
        """Register ``fn`` as the next migration, one a read-only file may lack."""
        self.steps.append(Migration(len(self.steps) + 1, fn.__name__, fn, readers_can_skip=True))
        return fn

    @property
    def latest(self) -> int:
        return len(self.steps)

    def applied(self, db: SQLDatabase) -> int:
        if not getattr(db, "read_only", False):
            _ensure_table(db)
        row = db.query_one(
            "SELECT max(version) FROM _memo_migrations WHERE schema = ?", [self.schema]
        )
        return int(row[0] or 0)

    def apply(self, db: SQLDatabase) -> list[str]:
        """Run the pending migrations; returns their names."""
        if getattr(db, "read_only", False):
            self._check_readable(db)
            return []
        _ensure_table(db)
        done: list[str] = []
        with db.transaction():
            current = self._not_newer(db)
            for step in self.steps[current:]:
                step.fn(db)
                db.execute(
                    "INSERT INTO _memo_migrations (schema, version, name, applied_at) "
                    "VALUES (?, ?, ?, ?)",
                    [self.schema, step.version, step.name, _now()],
                )
                done.append(step.name)
        return done

    def _not_newer(self, db: SQLDatabase) -> int:
        """The recorded version; SchemaError when it is newer than this code."""
        current = self.applied(db)
        if current > self.latest:
            raise SchemaError(
                f"{db.path}: schema {self.schema!r} is at version {current}, "
                f"newer than this memo ({self.latest}); upgrade memo"
            )
        return current

    def _check_readable(self, db: SQLDatabase) -> None:
        """A read-only file cannot be migrated: fine if the code copes without the
        pending steps, a SchemaError naming the cure otherwise."""
        current = self._not_newer(db)
        needed = [s.name for s in self.steps[current:] if not s.readers_can_skip]
        if needed:
            raise SchemaError(
                f"{db.path} is read-only and needs an upgrade ({', '.join(needed)}); "
                "open it once where it can be written"
            )


def _ensure_table(db: SQLDatabase) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS _memo_migrations ("
        " schema TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL, PRIMARY KEY (schema, version))"
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
