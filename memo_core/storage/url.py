"""Open a base from a URL or a path: the one place a backend is chosen.

``sqlite:///relative.db``, ``sqlite:////abs/path.db`` and plain paths open one
SQLite file; ``postgresql://...`` (optionally ``?schema=name``) opens a schema of
a PostgreSQL database. Core classes, the CLI and both integrations call this.
"""

from __future__ import annotations

import os
from pathlib import Path

from memo_core.errors import ConfigError
from memo_core.storage.base import SQLDatabase, Tracer

__all__ = ["is_postgres_url", "open_database", "sqlite_path"]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | os.PathLike[str]) -> bool:
    return isinstance(target, str) and target.startswith(_POSTGRES_SCHEMES)


def sqlite_path(target: str | os.PathLike[str]) -> Path | str:
    """The file behind a SQLite URL or path (``:memory:`` stays as it is)."""
    if isinstance(target, os.PathLike):
        return Path(target)
    if target.startswith("sqlite:"):
        rest = target[len("sqlite:") :]
        if not rest.startswith("///"):
            raise ConfigError(f"{target!r}: write sqlite:///relative.db or sqlite:////abs.db")
        path = rest[3:]
        if not path:
            raise ConfigError(f"{target!r}: the URL names no file")
        return path if path == ":memory:" else Path(path)
    if "://" in target:
        scheme = target.split("://", 1)[0]
        raise ConfigError(f"unsupported database URL scheme {scheme!r}: use sqlite or postgresql")
    return target if target == ":memory:" else Path(target)


def open_database(
    target: str | os.PathLike[str], *, tracer: Tracer | None = None, load_vec: bool = True
) -> SQLDatabase:
    """A connected database for ``target`` (a path, ``sqlite:///...`` or ``postgresql://...``)."""
    if is_postgres_url(target):
        from memo_core.storage.postgres import PostgresDatabase

        return PostgresDatabase(str(target), tracer=tracer, load_vec=load_vec)
    from memo_core.storage.connection import Database

    return Database(sqlite_path(target), tracer=tracer, load_vec=load_vec)
