"""What the read-path indexes kept beside a SQLite file share: the change log and saving.

An index kept beside ``<db>`` (HNSW vectors in ``ann_index.py``, keyword postings
in ``keyword_index.py``) is a snapshot of one base (named by its random id,
``storage/identity.py``) as of one entry of its backend's chunk change log (``KnowledgeBackend.changes``:
``kb_chunk_changes`` on SQLite). It catches up by replaying the chunks changed
after that entry, and it is saved as a data file plus a JSON header written after
it, each replaced atomically, so a reader only ever trusts a header beside the
very data file it describes: size, mtime and a CRC-32 of its bytes match (bit rot
keeps the first two). An index whose header names another base, other
parameters or another file is rebuilt, never read; so is one that fails to load
for any reason: an aid never makes a search fail.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "BuildStopped",
    "check_stop",
    "file_checksum",
    "read_header",
    "save_with_header",
    "snapshot_usable",
]

log = logging.getLogger(__name__)


class BuildStopped(Exception):
    """A build was asked to stop (its base is closing): the half-built index is dropped."""


def check_stop(stop: threading.Event | None) -> None:
    """Raise :class:`BuildStopped` once ``stop`` is set: called between a build's batches,
    so a base that closes waits for one batch at most, not for the whole build."""
    if stop is not None and stop.is_set():
        raise BuildStopped


def snapshot_usable(seq: int, low: int, high: int) -> bool:
    """Can a snapshot taken at log entry ``seq`` catch up by replaying the log?

    Not when it is ahead of the file (a restored backup) or when the entries just
    after it were pruned.
    """
    return 0 <= seq <= high and not (seq < high and low > seq + 1)


def read_header(data_path: Path, want: dict[str, Any]) -> dict[str, Any] | None:
    """The saved header of ``data_path`` if it describes an index like ``want``.

    None when there is no header, it is malformed, it was written for other
    parameters (``want`` names the base too), or the data file beside it is not the
    one it was written after (size, mtime, CRC-32). A returned header's ``seq`` is
    an integer.
    """
    try:
        header = json.loads(Path(str(data_path) + ".json").read_text(encoding="utf-8"))
        stat = data_path.stat()
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("index") != want:
        return None
    if header.get("file") != [stat.st_size, stat.st_mtime_ns]:
        return None
    if not all(type(header.get(k)) is int for k in ("seq", "crc32")):
        return None
    try:
        if file_checksum(data_path) != header["crc32"]:
            log.warning("%s: damaged (checksum differs); it will be rebuilt", data_path)
            return None
    except OSError:
        return None
    return header


def file_checksum(path: Path) -> int:
    """CRC-32 of a file's bytes, read in 1 MiB blocks."""
    crc = 0
    with path.open("rb") as data:
        while block := data.read(1 << 20):
            crc = zlib.crc32(block, crc)
    return crc


def save_with_header(
    data_path: Path, write: Callable[[Path], None], header: dict[str, Any]
) -> bool:
    """Write the data (``write(tmp)``), then ``header`` plus the data file's identity
    (size, mtime, CRC-32).

    False when it cannot be written (read-only folder, full disk): the index then
    serves from RAM only.
    """
    tmp = Path(f"{data_path}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(tmp)
        # The identity of *this* data file, taken before it is moved into place (a
        # rename keeps it): if another process replaces the data before our header
        # lands, the header no longer matches and readers rebuild instead of pairing
        # our header with its data.
        stat, crc = tmp.stat(), file_checksum(tmp)
        os.replace(tmp, data_path)
        identity = {"file": [stat.st_size, stat.st_mtime_ns], "crc32": crc}
        tmp.write_text(json.dumps({**header, **identity}), encoding="utf-8")
        os.replace(tmp, Path(str(data_path) + ".json"))
        return True
    except Exception as exc:  # an OSError, or a library's own error for one (usearch)
        log.info("%s: not saved (%s); the index serves from RAM", data_path, exc)
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
