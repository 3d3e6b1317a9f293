"""memo_core.storage: the storage interface and its SQLite and PostgreSQL backends."""

from memo_core.storage.base import Dialect, SQLDatabase
from memo_core.storage.registry import open_database
from memo_core.storage.url import file_of_url, is_postgres_url, sqlite_path

__all__ = [
    "Dialect",
    "SQLDatabase",
    "file_of_url",
    "is_postgres_url",
    "open_database",
    "sqlite_path",
]
