"""Numbered schema migrations, recorded in a table.

A schema is a :class:`Migrations` list of functions, each run once, in order, in
its own transaction, and recorded in ``_memo_migrations`` under the list's name
(one file may hold several schemas, e.g. a knowledge base and its spend ledger).
A file whose recorded version is newer than the code raises :class:`SchemaError`.
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


@dataclass
class Migrations:
    """An ordered set of migrations for one schema, identified by ``schema``."""

    schema: str
    steps: list[Migration] = field(default_factory=list)

    def __call__(self, fn: MigrationFn) -> MigrationFn:
        """Register ``fn`` as the next migration (use as a decorator)."""
        self.steps.append(Migration(len(self.steps) + 1, fn.__name__, fn))
        return fn

    @property
    def latest(self) -> int:
        return len(self.steps)

    def applied(self, db: SQLDatabase) -> int:
        _ensure_table(db)
        row = db.query_one(
            "SELECT max(version) FROM _memo_migrations WHERE schema = ?", [self.schema]
        )
        return int(row[0] or 0)

    def apply(self, db: SQLDatabase) -> list[str]:
        """Run the pending migrations; returns their names."""
        _ensure_table(db)
        done: list[str] = []
        with db.transaction():
            current = self.applied(db)
            if current > self.latest:
                raise SchemaError(
                    f"{db.path}: schema {self.schema!r} is at version {current}, "
                    f"newer than this memo ({self.latest}); upgrade memo"
                )
            for step in self.steps[current:]:
                step.fn(db)
                db.execute(
                    "INSERT INTO _memo_migrations (schema, version, name, applied_at) "
                    "VALUES (?, ?, ?, ?)",
                    [self.schema, step.version, step.name, _now()],
                )
                done.append(step.name)
        return done


def _ensure_table(db: SQLDatabase) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS _memo_migrations ("
        " schema TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL, PRIMARY KEY (schema, version))"
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
