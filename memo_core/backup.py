"""Online backups and one-command restores of a memo file (knowledge base or memory).

Why it is done this way:

* A backup is taken with SQLite's online backup API in a *single* step. In WAL
  mode that step reads one snapshot inside one read transaction, so writers keep
  going and the copy is consistent (a prefix of the committed history); a
  step-by-step copy would restart every time a writer commits and could starve.
* The copy is switched to ``journal_mode=DELETE`` so a backup is one
  self-contained file, checked with ``PRAGMA integrity_check`` before it gets its
  final name (``<stem>-<UTC timestamp><suffix>``, written to a temp name, then
  renamed), and older backups of the same file are rotated away.
* A restore verifies the backup (integrity, and that it is a memo file: it has
  ``_memo_migrations``) on a private temp copy *before* touching the target.
  The target is then taken out of WAL mode, which SQLite only allows when no
  other connection has it open: that both checkpoints its ``-wal`` into the file
  (nothing committed is lost from the kept copy) and proves nobody is using it.
  Holding an exclusive lock, the old file is kept as ``FILE.replaced-<timestamp>``
  and the verified copy is moved in with :func:`os.replace` (atomic: the path
  always names the old or the new file, never half of one). Stale ``-wal``/``-shm``
  files are removed only then, while the lock is held, so SQLite can never
  replay the old file's log onto the new one.
* A backup or restore killed midway leaves its hidden temp file; the next one
  removes such files, telling them from those still being written by a lock
  that dies with its process.
* Search aids saved beside a knowledge base (``<db>.kwidx``, ``<db>.hnsw``) are
  bound to its random base id. Every copy (a backup, and the file a restore puts
  in place) gets a fresh one, and a restore deletes the aids beside the file it
  replaced, so an aid never serves a file it was not made from.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

try:  # POSIX: flock tells a killed backup's partial file from one being written
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from memo_core.errors import ConfigError, CorruptDatabaseError, NotFoundError, StorageError
from memo_core.storage import file_of_url
from memo_core.storage.connection import pick_driver, translate_sqlite_error
from memo_core.storage.identity import remove_sidecars, renew_base_id

__all__ = [
    "DEFAULT_KEEP",
    "backup_database",
    "list_backups",
    "restore_database",
    "verify_memo_file",
]

log = logging.getLogger(__name__)

#: How many backups of one file :func:`backup_database` keeps by default.
DEFAULT_KEEP = 7

_STAMP_FORMAT = "%Y%m%dT%H%M%S"
_STAMP = re.compile(r"\d{8}T\d{6}\d{3}Z")
_SIDE_FILES = ("-wal", "-shm", "-journal")


def _timestamp(now: datetime | None = None) -> str:
    """``20260131T235959123Z``: sortable as text, UTC, millisecond resolution."""
    now = now or datetime.now(UTC)
    return now.strftime(_STAMP_FORMAT) + f"{now.microsecond // 1000:03d}Z"


def _connect(path: Path, *, read_only: bool = False, timeout: float = 5.0) -> Any:
    module = pick_driver().module
    try:
        if read_only:
            return module.connect(
                f"file:{path.resolve()}?mode=ro", uri=True, timeout=timeout, isolation_level=None
            )
        return module.connect(str(path), timeout=timeout, isolation_level=None)
    except module.Error as exc:
        raise translate_sqlite_error(exc) from exc


@contextlib.contextmanager
def _connection(path: Path, **kwargs: Any) -> Iterator[Any]:
    conn = _connect(path, **kwargs)
    module = pick_driver().module
    try:
        yield conn
    except module.Error as exc:
        raise translate_sqlite_error(exc) from exc
    except UnicodeDecodeError as exc:
        # A damaged file can hand the driver bytes that are no text where SQLite keeps
        # names and messages: that is a damaged file, not a failure of the program.
        raise CorruptDatabaseError(f"{path}: cannot be read as a database: {exc}") from exc
    finally:
        conn.close()


def _fsync(path: Path) -> None:
    """Flush a file (or a directory entry) to disk; best effort where unsupported."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) if path.is_dir() else os.O_RDONLY
    try:
        fd = os.open(path, flags)
    except OSError:  # pragma: no cover - platform specific
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse directory fsync
        pass
    finally:
        os.close(fd)


def _copy_snapshot(source: Path, target: Path, *, read_only: bool) -> None:
    """One-step online backup of ``source`` into a new self-contained file ``target``.

    A knowledge base's copy gets a fresh base id: it starts a history of its own,
    and search aids made from the original since must never be taken for its own
    (``storage/identity.py``).
    """
    with (
        _connection(source, read_only=read_only) as src,
        _connection(target) as dst,
    ):
        src.backup(dst, pages=-1)  # one step = one consistent snapshot
        dst.execute("PRAGMA journal_mode = DELETE")
        with contextlib.suppress(pick_driver().module.DatabaseError):
            # A file too damaged to write to fails its integrity check next, clearly.
            renew_base_id(dst)


def verify_memo_file(path: str | Path, *, label: str | Path | None = None) -> None:
    """Raise :class:`CorruptDatabaseError` unless ``path`` is a sound memo file.

    Sound means: SQLite opens it, ``PRAGMA integrity_check`` says ``ok`` and it
    carries memo's migration table (so a random database is not restored over a
    knowledge base). ``label`` names the file in messages (default: ``path``).
    """
    file = Path(path)
    name = label if label is not None else file
    try:
        with _connection(file) as conn:
            # Bounded: a badly damaged file reports thousands of problems (and one row
            # may hold many lines); the first and a count make one readable line.
            rows = conn.execute(f"PRAGMA integrity_check({_PROBLEMS_SHOWN})").fetchall()
            problems = [
                line.strip()
                for r in rows
                if r and r[0] != "ok"
                for line in str(r[0]).splitlines()
                if line.strip() and not line.startswith("*** in database")
            ]
            if problems or not rows:
                raise CorruptDatabaseError(f"{name}: integrity check failed: {_summary(problems)}")
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_memo_migrations'"
            ).fetchone()
    except StorageError as exc:
        if isinstance(exc, CorruptDatabaseError):
            raise
        raise CorruptDatabaseError(f"{name}: cannot be read as a database: {exc}") from exc
    if found is None:
        raise CorruptDatabaseError(f"{name}: not a memo file (no _memo_migrations table)")


#: How many problems the integrity check looks for before it stops.
_PROBLEMS_SHOWN = 100


def _summary(problems: list[str]) -> str:
    if not problems:
        return "no answer"
    if len(problems) == 1:
        return problems[0]
    more = f"{len(problems)}+" if len(problems) >= _PROBLEMS_SHOWN else str(len(problems))
    return f"{more} problems, the first: {problems[0]}"


@contextlib.contextmanager
def _claimed(temp: Path) -> Iterator[None]:
    """Create ``temp`` and hold a lock on it while it is written, so that a later
    run can tell a partial file of a killed backup (no lock) from one in progress.

    ``flock`` locks (not SQLite's ``fcntl`` ones, which closing any descriptor of
    the file would drop) die with their process, SIGKILL included. The file is
    removed on any failure that Python sees.
    """
    fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    except BaseException:
        _remove_quietly(temp)
        raise
    finally:
        os.close(fd)


def _is_abandoned(path: Path) -> bool:
    """True when no live process holds ``path``'s lock (its writer was killed)."""
    if fcntl is None:  # no flock here: only files a day old count as abandoned
        try:
            return path.stat().st_mtime < datetime.now(UTC).timestamp() - 86_400
        except OSError:
            return False
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def remove_abandoned(directory: Path, pattern: re.Pattern[str]) -> list[Path]:
    """Delete the files in ``directory`` named like ``pattern`` that a killed
    backup or restore left behind (those still being written are kept)."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in directory.iterdir():
            if pattern.match(entry.name) and _is_abandoned(entry):
                log.info("removing %s, left by a backup or restore that was killed", entry)
                _remove_quietly(entry)
                removed.append(entry)
    return removed


def _remove_quietly(path: Path) -> None:
    for candidate in [path, *(Path(f"{path}{s}") for s in _SIDE_FILES)]:
        with contextlib.suppress(FileNotFoundError):
            candidate.unlink()


def list_backups(path: str | Path, out_dir: str | Path) -> list[Path]:
    """The backups of ``path`` found in ``out_dir``, oldest first."""
    source = Path(path)
    pattern = re.compile(
        rf"^{re.escape(source.stem)}-(?P<stamp>{_STAMP.pattern}){re.escape(source.suffix)}$"
    )
    directory = Path(out_dir)
    if not directory.is_dir():
        return []
    found = []
    for entry in directory.iterdir():
        match = pattern.match(entry.name)
        if match and entry.is_file():
            found.append((match.group("stamp"), entry))
    return [entry for _, entry in sorted(found)]


def _partial_pattern(source: Path) -> re.Pattern[str]:
    """Names of the files a backup of ``source`` writes before the final rename."""
    return re.compile(
        rf"^\.{re.escape(source.stem)}-{_STAMP.pattern}{re.escape(source.suffix)}\.partial$"
    )


def _restore_temp_pattern(target: Path) -> re.Pattern[str]:
    """Names of the files a restore of ``target`` writes before the swap."""
    return re.compile(rf"^\.{re.escape(target.name)}\.restore-{_STAMP.pattern}\.tmp$")


def _sqlite_file(target: str | Path) -> Path:
    """The file behind a path or ``sqlite:///`` URL; a PostgreSQL base is refused."""
    file = file_of_url(str(target))
    if file is None:
        raise ConfigError(
            "memo backup and restore copy SQLite files; back a PostgreSQL base up with "
            "pg_dump --schema=<its schema> (and restore it with pg_restore)"
        )
    return Path(file).expanduser()


def backup_database(path: str | Path, out_dir: str | Path, keep: int = DEFAULT_KEEP) -> Path:
    """Copy the memo file at ``path`` into ``out_dir`` while writers may be active.

    Returns the new backup's path, ``<stem>-<UTC timestamp><suffix>``. The copy is
    verified with :func:`verify_memo_file` before it is given that name; then only
    the newest ``keep`` backups of this file are kept (``keep >= 1``).
    """
    if keep < 1:
        raise StorageError("keep must be at least 1 (the backup just made)")
    source = _sqlite_file(path)
    if not source.is_file():
        raise NotFoundError(f"no database file at {source}")
    directory = Path(out_dir).expanduser()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot make the backup folder {directory}: {exc.strerror}") from exc
    if not os.access(directory, os.W_OK):
        raise StorageError(f"cannot write backups into {directory}: it is not writable")
    remove_abandoned(directory, _partial_pattern(source))
    stamp = _timestamp()
    final = directory / f"{source.stem}-{stamp}{source.suffix}"
    while final.exists():  # two backups in the same millisecond
        stamp = _timestamp()
        final = directory / f"{source.stem}-{stamp}{source.suffix}"
    temp = directory / f".{final.name}.partial"
    try:
        with _claimed(temp):
            _copy_snapshot(source, temp, read_only=False)
            verify_memo_file(temp, label=f"backup of {source}")
            _fsync(temp)
            os.replace(temp, final)
            _fsync(directory)
    except OSError as exc:  # the folder went read-only, the disk filled up...
        raise StorageError(
            f"cannot write a backup into {directory}: {exc.strerror or exc}"
        ) from exc
    for old in list_backups(source, directory)[:-keep]:
        log.info("rotating out %s", old)
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return final


def restore_database(path: str | Path, backup: str | Path) -> Path | None:
    """Replace the memo file at ``path`` with ``backup``, verified first.

    Nothing is touched unless the backup passes :func:`verify_memo_file`
    (:class:`CorruptDatabaseError` otherwise). The file being replaced must not be
    open elsewhere (:class:`StorageError` otherwise); it is kept as
    ``<path>.replaced-<UTC timestamp>``, whose path is returned (None when there
    was no file to replace).
    """
    target = _sqlite_file(path)
    source = Path(backup).expanduser()
    if not source.is_file():
        raise NotFoundError(f"no backup file at {source}")
    if target.exists() and source.resolve() == target.resolve():
        raise StorageError("the backup and the file to restore are the same file")
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned(target.parent, _restore_temp_pattern(target))
    stamp = _timestamp()
    temp = target.parent / f".{target.name}.restore-{stamp}.tmp"
    try:
        with _claimed(temp):
            try:
                _copy_snapshot(source, temp, read_only=True)
            except StorageError as exc:
                raise CorruptDatabaseError(
                    f"{source}: cannot be read as a database: {exc}"
                ) from exc
            verify_memo_file(temp, label=source)
            _fsync(temp)
            kept = _swap_in(target, temp, stamp) if target.exists() else None
            if kept is None:
                os.replace(temp, target)
            _fsync(target.parent)
    finally:
        _remove_quietly(temp)
    for stale in remove_sidecars(target):  # made from the file just replaced
        log.info("removed %s", stale)
    return kept


def _swap_in(target: Path, temp: Path, stamp: str) -> Path:
    """Keep the old ``target`` aside and move ``temp`` in, under an exclusive lock."""
    kept = target.with_name(f"{target.name}.replaced-{stamp}")
    module = pick_driver().module
    conn = _connect(target, timeout=0.5)
    try:
        try:
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()
            if not mode or str(mode[0]).lower() != "delete":
                raise StorageError(f"unexpected journal mode {mode!r}")
            conn.execute("BEGIN EXCLUSIVE")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except (module.Error, StorageError) as exc:
            raise StorageError(
                f"{target} is in use by another connection or process ({exc}); "
                "stop whatever has it open, then restore again"
            ) from exc
        # The old file is now self-contained (its WAL checkpointed and gone) and locked.
        try:
            os.link(target, kept)
        except OSError:  # no hard links here: copy the (locked, stable) bytes
            shutil.copy2(target, kept)
        os.replace(temp, target)
        for suffix in _SIDE_FILES:  # stale: belonged to the old file, nobody has it open
            with contextlib.suppress(FileNotFoundError):
                Path(f"{target}{suffix}").unlink()
    finally:
        with contextlib.suppress(Exception):
            conn.execute("ROLLBACK")
        conn.close()
    return kept
