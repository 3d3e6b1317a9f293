"""memo_core.storage: the storage interface, its SQLite and PostgreSQL backends, and the
registry that picks one by the database URL."""

from memo_core.storage.base import Dialect, SQLDatabase
from memo_core.storage.registry import BackendRegistry, engine_of, open_database
from memo_core.storage.url import is_postgres_url, sqlite_path

__all__ = [
    "BackendRegistry",
    "Dialect",
    "SQLDatabase",
    "engine_of",
    "is_postgres_url",
    "open_database",
    "sqlite_path",
]
