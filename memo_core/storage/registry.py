"""Which implementation serves a database: the one place an engine is chosen.

A database URL names its engine (``postgresql://...`` a PostgreSQL schema, anything
else a SQLite file, see ``storage/url.py``). Every kind of store that differs by
engine (the connection itself, the knowledge base's backend, memory's backend)
keeps one :class:`BackendRegistry` that maps that engine to its implementation, so
code above the storage layer asks the registry for "the knowledge-base backend of
this database" and never which engine it runs on. A third engine is one entry per
registry (and its modules), nothing else.

Entries may be ``"module:attribute"`` paths imported on first use: registering the
PostgreSQL backend costs nothing (no psycopg import) on a machine that never opens
a PostgreSQL base, and a registry in ``storage/`` can name implementations that
live above it (``kb/``, ``memory/``) without importing them.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from typing import Generic, Protocol, TypeVar, cast, get_args

from memo_core.errors import ConfigError
from memo_core.storage.base import Dialect, SQLDatabase, Tracer
from memo_core.storage.url import is_postgres_url, sqlite_path

__all__ = [
    "DATABASES",
    "ENGINES",
    "BackendRegistry",
    "DatabaseOpener",
    "engine_of",
    "open_database",
]

T = TypeVar("T")

#: The engines memo knows, as :attr:`SQLDatabase.dialect` names them.
ENGINES: tuple[Dialect, ...] = get_args(Dialect)


def engine_of(where: str | os.PathLike[str] | SQLDatabase) -> Dialect:
    """The engine of a database URL or path, or of an open database."""
    if isinstance(where, (str, os.PathLike)):
        if is_postgres_url(where):
            return "postgres"
        sqlite_path(where)  # refuses a URL of an engine memo does not know
        return "sqlite"
    return where.dialect  # the engine its URL chose when it was opened


class BackendRegistry(Generic[T]):
    """Implementations of one kind of store (``kind`` names it in errors), by engine.

    ``lazy`` maps engines to ``"module:attribute"`` paths imported on first use;
    ``entries`` to the implementations themselves (any value: a class, a factory,
    a DDL statement).
    """

    def __init__(
        self,
        kind: str,
        *,
        lazy: Mapping[Dialect, str] | None = None,
        entries: Mapping[Dialect, T] | None = None,
    ) -> None:
        self.kind = kind
        self._paths: dict[Dialect, str] = {}
        self._loaded: dict[Dialect, T] = {}
        for engine, path in (lazy or {}).items():
            self.register_lazy(engine, path)
        for engine, target in (entries or {}).items():
            self.register(engine, target)

    def register(self, engine: Dialect, target: T) -> None:
        """Serve ``engine`` with ``target``."""
        _check_engine(engine)
        self._paths.pop(engine, None)
        self._loaded[engine] = target

    def register_lazy(self, engine: Dialect, path: str) -> None:
        """Serve ``engine`` with the object at ``"module:attribute"``, imported on first use."""
        _check_engine(engine)
        if ":" not in path:
            raise ConfigError(f"{path!r}: write 'package.module:attribute'")
        self._loaded.pop(engine, None)
        self._paths[engine] = path

    @property
    def engines(self) -> tuple[Dialect, ...]:
        """The engines this registry serves."""
        return tuple(e for e in ENGINES if e in self._paths or e in self._loaded)

    def get(self, where: str | os.PathLike[str] | SQLDatabase) -> T:
        """The implementation for a database URL or path, or for an open database."""
        return self.for_engine(engine_of(where))

    def for_engine(self, engine: Dialect) -> T:
        """The implementation registered for ``engine`` (``"sqlite"``, ``"postgres"``)."""
        if engine in self._loaded:
            return self._loaded[engine]
        path = self._paths.get(engine)
        if path is None:
            raise ConfigError(f"no {self.kind} backend is registered for {engine}")
        module, _, attribute = path.partition(":")
        found = functools.reduce(getattr, attribute.split("."), importlib.import_module(module))
        self._loaded[engine] = target = cast(T, found)
        del self._paths[engine]
        return target


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise ConfigError(f"unknown storage engine {engine!r} (known: {', '.join(ENGINES)})")


class DatabaseOpener(Protocol):
    """How an engine opens the database a URL (or path) names."""

    def __call__(
        self, target: str | os.PathLike[str], *, tracer: Tracer | None, load_vec: bool
    ) -> SQLDatabase: ...


#: The connection of each engine.
DATABASES: BackendRegistry[DatabaseOpener] = BackendRegistry(
    "database",
    lazy={
        "sqlite": "memo_core.storage.connection:Database.from_url",
        "postgres": "memo_core.storage.postgres:PostgresDatabase.from_url",
    },
)


def open_database(
    target: str | os.PathLike[str], *, tracer: Tracer | None = None, load_vec: bool = True
) -> SQLDatabase:
    """A connected database for ``target`` (a path, ``sqlite:///...`` or ``postgresql://...``).

    Core classes, the CLI and both integrations open every base through here.
    """
    return DATABASES.get(target)(target, tracer=tracer, load_vec=load_vec)
