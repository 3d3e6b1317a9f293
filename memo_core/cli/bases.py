"""Which bases a command may open: read commands never create one.

A mistyped ``--db`` must be an error, not a new empty base that answers "no
results" with exit 0. Only the commands that write (``kb ingest``, ``memory
capture`` and friends) may create a SQLite file; every other command asks for
it here first. A PostgreSQL URL is left to the server (its schema is checked
when it is opened).
"""

from __future__ import annotations

from pathlib import Path

from memo_core.errors import NotFoundError
from memo_core.storage.url import file_of_url

__all__ = ["require_existing"]


def require_existing(target: str, what: str) -> str:
    """``target`` when it names an existing base, else :class:`NotFoundError`."""
    file = file_of_url(target)
    if file is None or file == ":memory:" or Path(file).is_file():
        return target
    raise NotFoundError(f"no {what} at {file} (check --db; only writing commands create one)")
