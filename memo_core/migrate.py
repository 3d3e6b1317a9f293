"""Copy a base between backends (``memo migrate``) without re-embedding.

A source may hold a knowledge base, a memory and a spend ledger (whatever its
``_memo_migrations`` table records). Each part is copied by its own module's
copy function, which carries the stored vectors over and rebuilds the
destination's keyword index. Afterwards every copied table is counted again on
both sides, independently of what the copy functions reported: a migration that
does not verify is an error, never a silent partial copy.

The destination must be empty: migrating into a base that already holds data
would mix two histories, so it is refused before anything is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from memo_core.errors import ConfigError, StorageError
from memo_core.storage import open_database
from memo_core.storage.base import SQLDatabase

__all__ = ["MigrationReport", "migrate", "parts_in"]

Copier = Callable[[SQLDatabase, SQLDatabase], dict[str, int]]


@dataclass
class MigrationReport:
    """What was copied: per part, per table, the rows counted on both sides."""

    source: str
    destination: str
    parts: list[str] = field(default_factory=list)
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return all(src == dst for src, dst in self.tables.values())

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "destination": self.destination,
            "parts": self.parts,
            "tables": {
                name: {"source": s, "destination": d} for name, (s, d) in self.tables.items()
            },
            "verified": self.verified,
        }


def parts_in(db: SQLDatabase) -> list[str]:
    """The memo schemas a base holds, by the names its migrations were recorded under."""
    if not db.table_exists("_memo_migrations"):
        return []
    rows = db.query("SELECT DISTINCT schema FROM _memo_migrations ORDER BY schema")
    return [str(r[0]) for r in rows]


def _count(db: SQLDatabase, table: str) -> int:
    return int(db.query_one(f'SELECT count(*) FROM "{table}"')[0])


def _copy_ledger(src: SQLDatabase, dst: SQLDatabase) -> dict[str, int]:
    from memo_core.ledger import ledger_schema

    ledger_schema.apply(dst)
    rows = src.query(
        "SELECT at, month, provider, kind, units, cost_usd, note FROM spend ORDER BY id"
    )
    with dst.transaction():
        dst.executemany(
            "INSERT INTO spend (at, month, provider, kind, units, cost_usd, note) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [tuple(r) for r in rows],
        )
    return {"spend": len(rows)}


def _copiers() -> dict[str, Copier]:
    from memo_core.kb.transfer import copy_knowledge_base
    from memo_core.memory.migrate import copy_memory

    return {"kb": copy_knowledge_base, "memohood": copy_memory, "ledger": _copy_ledger}


def _has_data(db: SQLDatabase) -> bool:
    for table in ("documents", "chunks", "mem_facts", "mem_turns", "mem_messages", "spend"):
        if db.table_exists(table) and _count(db, table) > 0:
            return True
    return False


def migrate(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> MigrationReport:
    """Copy every memo part of ``source`` into the empty base ``destination``, then verify."""
    if str(source) == str(destination):
        raise ConfigError("source and destination are the same base")
    src = open_database(source)
    try:
        parts = parts_in(src)
        if not parts:
            raise ConfigError(f"{src.path} holds no memo base (no _memo_migrations table)")
        copiers = _copiers()
        unknown = [p for p in parts if p not in copiers]
        if unknown:
            raise ConfigError(f"{src.path} holds parts this memo cannot copy: {unknown}")
        dst = open_database(destination)
        try:
            if _has_data(dst):
                raise ConfigError(f"{dst.path} already holds data; migrate into an empty base")
            report = MigrationReport(src.path, dst.path, parts)
            for part in parts:
                copied = copiers[part](src, dst)
                for table in copied:
                    report.tables[table] = (_count(src, table), _count(dst, table))
            if not report.verified:
                wrong = {t: c for t, c in report.tables.items() if c[0] != c[1]}
                raise StorageError(f"migration did not verify, row counts differ: {wrong}")
            return report
        finally:
            dst.close()
    finally:
        src.close()
