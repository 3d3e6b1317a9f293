"""The storage backends, chosen in one place: by the database URL.

A :class:`Backend` is an engine a base can live in: its name (the value of
:attr:`~memo_core.storage.base.SQLDatabase.dialect` on its connections), the URL
schemes that select it, and how it connects. A plain path is a SQLite file.

Each subsystem that keeps tables of its own (the knowledge base, the memory)
defines a storage protocol and keeps one :class:`Implementations` table mapping a
backend's name to its implementation of that protocol. A caller asks the table
for "the implementation for this database" and never asks which engine it got;
the engine's name is read here and nowhere above the storage layer.

Adding an engine: :func:`register_backend` a :class:`Backend`, then register an
implementation in each subsystem's table.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from memo_core.errors import ConfigError
from memo_core.storage.base import SQLDatabase, Tracer
from memo_core.storage.connection import Database
from memo_core.storage.postgres import PostgresDatabase
from memo_core.storage.url import sqlite_path

__all__ = [
    "Backend",
    "Connector",
    "Implementations",
    "backend_for_url",
    "backend_of",
    "backends",
    "open_database",
    "register_backend",
]

T = TypeVar("T")


class Connector(Protocol):
    """Opens the base at ``target`` (a URL of the backend's scheme, or a path)."""

    def __call__(
        self, target: str | os.PathLike[str], *, tracer: Tracer | None, load_vec: bool
    ) -> SQLDatabase: ...


@dataclass(frozen=True)
class Backend:
    """One storage engine: its name, the URL schemes that pick it, how it connects."""

    #: What :attr:`SQLDatabase.dialect` reports on its connections.
    name: str
    #: URL schemes (before ``:``) that select this backend.
    schemes: tuple[str, ...]
    connect: Connector
    #: Whether a plain path (no scheme) opens this backend; one backend is the default.
    default: bool = False


_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    """Add ``backend`` (a scheme or name already taken by another one is an error)."""
    for other in _BACKENDS.values():
        if other.name == backend.name:
            continue
        taken = set(other.schemes) & set(backend.schemes)
        if taken or (backend.default and other.default):
            raise ConfigError(
                f"backend {backend.name!r} clashes with {other.name!r}: "
                f"{sorted(taken) or 'both are the default'}"
            )
    _BACKENDS[backend.name] = backend
    return backend


def backends() -> tuple[Backend, ...]:
    """Every registered backend, in registration order."""
    return tuple(_BACKENDS.values())


def backend_for_url(target: str | os.PathLike[str]) -> Backend:
    """The backend that serves ``target``: its URL scheme's, or the default for a path."""
    if isinstance(target, str):
        scheme, colon, _ = target.partition(":")
        for backend in _BACKENDS.values():
            if colon and scheme.lower() in backend.schemes:
                return backend
        if "://" in target:
            known = sorted(s for b in _BACKENDS.values() for s in b.schemes)
            raise ConfigError(
                f"unsupported database URL scheme {scheme!r}: use one of {', '.join(known)}"
            )
    for backend in _BACKENDS.values():
        if backend.default:
            return backend
    raise ConfigError("no storage backend opens a plain path")


def backend_of(db: SQLDatabase) -> Backend:
    """The backend ``db`` is a connection of."""
    found = _BACKENDS.get(db.dialect)
    if found is None:
        raise ConfigError(f"{db.path}: no storage backend named {db.dialect!r} is registered")
    return found


def open_database(
    target: str | os.PathLike[str], *, tracer: Tracer | None = None, load_vec: bool = True
) -> SQLDatabase:
    """A connected database for ``target``, from the backend its URL names."""
    return backend_for_url(target).connect(target, tracer=tracer, load_vec=load_vec)


class Implementations(Generic[T]):
    """One subsystem's implementation of its storage protocol, per backend.

    ``subsystem`` names it in errors ("memory", "knowledge base"). Values are what
    the subsystem needs per engine: usually a class or a factory.
    """

    def __init__(self, subsystem: str, implementations: Mapping[str, T] | None = None) -> None:
        self.subsystem = subsystem
        self._by_backend: dict[str, T] = {}
        for name, implementation in (implementations or {}).items():
            self.register(name, implementation)

    def register(self, backend: str, implementation: T) -> T:
        """``implementation`` serves this subsystem on ``backend``; returns it."""
        if backend not in _BACKENDS:
            raise ConfigError(f"no storage backend named {backend!r} is registered")
        self._by_backend[backend] = implementation
        return implementation

    def for_database(self, db: SQLDatabase) -> T:
        """The implementation for ``db``'s backend."""
        backend = backend_of(db)
        found = self._by_backend.get(backend.name)
        if found is None:
            raise ConfigError(
                f"{db.path}: the {backend.name} backend has no {self.subsystem} "
                f"implementation (known: {', '.join(sorted(self._by_backend))})"
            )
        return found

    def names(self) -> tuple[str, ...]:
        """The backends this subsystem can run on."""
        return tuple(self._by_backend)


def _connect_sqlite(
    target: str | os.PathLike[str], *, tracer: Tracer | None, load_vec: bool
) -> SQLDatabase:
    return Database(sqlite_path(target), tracer=tracer, load_vec=load_vec)


def _connect_postgres(
    target: str | os.PathLike[str], *, tracer: Tracer | None, load_vec: bool
) -> SQLDatabase:
    return PostgresDatabase(str(target), tracer=tracer, load_vec=load_vec)


SQLITE = register_backend(Backend("sqlite", ("sqlite",), _connect_sqlite, default=True))
POSTGRES = register_backend(Backend("postgres", ("postgresql", "postgres"), _connect_postgres))
