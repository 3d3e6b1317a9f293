"""A base's identity, and the files that read-path aids keep beside it.

A search aid saved beside a SQLite file (``<db>.kwidx``, ``<db>.hnsw``, each with a
``.json`` header) is a snapshot of one base at one change-log position. Position
alone does not name a base: a restored backup, or a file copied from elsewhere,
reaches the same positions with other rows. So every knowledge base carries a
random id in ``kb_meta`` (written when it is created, or by a migration when an
older file is first opened), an aid's header names it, and an aid made for another
id is refused and rebuilt.

The id is renewed whenever a copy starts a history of its own: a backup gets a
fresh one (so a backup copied back by hand does not match aids made since), a
restore gives the restored file another (so aids made from the backup's own
lineage do not match either), and a copy into another base keeps the
destination's. Restore also deletes the aids beside the file it replaces.
"""

from __future__ import annotations

import contextlib
import glob
import uuid
from pathlib import Path
from typing import Any

__all__ = ["BASE_ID_KEY", "SIDECAR_SUFFIXES", "new_base_id", "remove_sidecars", "renew_base_id"]

#: The ``kb_meta`` key holding the base's id.
BASE_ID_KEY = "base_id"
#: Files a search aid keeps beside ``<db>``: data and header of each.
SIDECAR_SUFFIXES = (".kwidx", ".kwidx.json", ".hnsw", ".hnsw.json")


def new_base_id() -> str:
    """A fresh random id (128 bits, hex)."""
    return uuid.uuid4().hex


def renew_base_id(conn: Any) -> bool:
    """Give the knowledge base open on DB-API connection ``conn`` a fresh id.

    False when the file is no knowledge base (a memory file has no ``kb_meta``).
    """
    found = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kb_meta'"
    ).fetchone()
    if found is None:
        return False
    conn.execute(
        "INSERT INTO kb_meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [BASE_ID_KEY, new_base_id()],
    )
    return True


def remove_sidecars(db_path: str | Path) -> list[Path]:
    """Delete the search aids saved beside ``db_path`` (and their temp files); returns
    what was removed."""
    path = Path(db_path)
    removed: list[Path] = []
    candidates = [Path(f"{path}{suffix}") for suffix in SIDECAR_SUFFIXES]
    for suffix in SIDECAR_SUFFIXES:  # temp files of a save that was killed midway
        candidates += path.parent.glob(f"{glob.escape(path.name)}{suffix}.*.tmp")
    for candidate in candidates:
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()
            removed.append(candidate)
    return removed
