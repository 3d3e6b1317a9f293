"""Database URLs: what a SQLite URL or path names, and whether a URL is PostgreSQL's.

``sqlite:///relative.db``, ``sqlite:////abs/path.db`` and plain paths name one
SQLite file; ``postgresql://...`` (optionally ``?schema=name``) names a schema of
a PostgreSQL database. :mod:`memo_core.storage.registry` picks the backend for a
URL and opens it (:func:`~memo_core.storage.registry.open_database`).
"""

from __future__ import annotations

import os
from pathlib import Path

from memo_core.errors import ConfigError

__all__ = ["file_of_url", "is_postgres_url", "sqlite_path"]

_POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | os.PathLike[str]) -> bool:
    return isinstance(target, str) and target.startswith(_POSTGRES_SCHEMES)


def file_of_url(target: str | os.PathLike[str]) -> Path | str | None:
    """The file a SQLite URL or path names (``:memory:`` as it is); None for a server's URL.

    Callers above the storage layer ask this ("is there a local file to check, copy
    or create?") instead of asking which engine a URL names.
    """
    return None if is_postgres_url(target) else sqlite_path(target)


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
