"""Attacks of a bad disk and of kills on storage, shared by the tests and bench/stress.py.

* ``killed_backup``: ``memo backup`` is SIGKILLed while it writes its hidden
  ``.partial`` file (at a random point of the copy, or right at verification);
  the next backup must leave no partial file behind, nor delete one that another
  backup is still writing.
* ``killed_reindex``: a re-index is SIGKILLed after a random number of embedding
  batches; the re-run must embed only the chunks the killed run had not stored
  (a paid re-index does not pay twice) and finish with every chunk indexed.
* ``corrupt_base``: pages in the middle of a base (its vector storage, its tables)
  are overwritten; every search error is a ``CorruptDatabaseError``, a write
  after one is refused and changes nothing, and ``memo backup``/``memo restore``
  of the file print one line and exit 2.
* ``read_only_media``: a base on a read-only file system (a read-only bind mount
  when run as root, where permissions do not bind; ``chmod`` otherwise) is
  searched in every mode, with and without the search aids; a write is refused
  with one clear error; ``memo backup --out`` into it prints one line, exit 2.

Counts are ``trials, survived, lost, leaked`` (``reliability_sidecars.AttackTally``).
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing.context
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from reliability_harness import WORDS, embedder, kb_problems, raw, remove_db
from reliability_sidecars import AttackTally

from memo_core.backup import backup_database, list_backups
from memo_core.cli import main as memo_main
from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import CorruptDatabaseError, StorageError
from memo_core.kb import MemoBase
from memo_core.search.hybrid import SearchSettings

MODES = ("keyword", "vector", "hybrid")


def _notes(n: int, rng: random.Random) -> list[str]:
    return [f"note {i}: " + " ".join(rng.choice(WORDS) for _ in range(40)) for i in range(n)]


def make_base(path: Path, notes: int, seed: int) -> None:
    with MemoBase(path, embedder=embedder()) as kb:
        kb.add_texts(_notes(notes, random.Random(seed)))


def cli(argv: Sequence[str]) -> tuple[int, list[str]]:
    """Run ``memo`` in this process: exit code and the lines it printed on stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = memo_main(list(argv))
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, err.getvalue().splitlines()


def _score(tally: AttackTally, label: str, problems: list[str], *, lost: bool = False) -> None:
    tally.trials += 1
    tally.lost += lost
    if problems:
        tally.errors.append(f"{label}: {'; '.join(problems)[:300]}")
    else:
        tally.survived += 1


def _run(tally: AttackTally, label: str, trial: Callable[[], tuple[list[str], bool]]) -> None:
    try:
        problems, lost = trial()
    except Exception as exc:
        problems, lost = [f"{type(exc).__name__}: {exc}"], False
    _score(tally, label, problems, lost=lost)


# -- a killed backup ------------------------------------------------------------------


def partials(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob(".*") if p.name.endswith(".partial"))


def backup_child(db: str, out: str, at_verify: bool) -> None:
    """Forkserver target: a backup that dies by SIGKILL (at verification, or when
    the parent's timer fires)."""
    if at_verify:
        import memo_core.backup as backup

        def die(*args: Any, **kwargs: Any) -> None:
            os.kill(os.getpid(), signal.SIGKILL)

        backup.verify_memo_file = die  # type: ignore[assignment]
    backup_database(db, out)


def killed_backup_trial(
    ctx: multiprocessing.context.BaseContext, folder: Path, rng: random.Random, at_verify: bool
) -> tuple[list[str], bool]:
    folder.mkdir(parents=True, exist_ok=True)
    db, out = folder / "kb.db", folder / "backups"
    if not db.exists():
        make_base(db, 600, seed=1)  # a few MB: a copy takes a while
    for _ in range(20):  # until a kill lands while a partial file exists
        child = ctx.Process(target=backup_child, args=(str(db), str(out), at_verify))
        child.start()
        if not at_verify:
            deadline = time.monotonic() + 10
            while not partials(out) and child.is_alive() and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(rng.random() * 0.02)
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid or 0, signal.SIGKILL)
        child.join()
        if partials(out):
            break
    left = partials(out)
    if not left:
        return ["no kill landed while a partial file existed"], False
    # A backup still being written (its lock held) must survive the clean-up.
    writing = out / ".kb-20990101T000000000Z.db.partial"
    holder = _hold_lock(writing)
    try:
        made = backup_database(db, out)
    finally:
        holder()
    problems = [f"left behind: {p.name}" for p in partials(out) if p != writing]
    if not writing.exists():
        problems.append("the clean-up deleted a partial file still being written")
    writing.unlink(missing_ok=True)
    problems += kb_problems(made)
    lost = made not in list_backups(db, out)
    return problems, lost


def _hold_lock(path: Path) -> Callable[[], None]:
    """Lock ``path`` as a backup in progress does; returns the release."""
    import fcntl

    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return lambda: os.close(fd)


def run_killed_backup(
    ctx: multiprocessing.context.BaseContext, folder: Path, trials: int, seed: int
) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        at_verify = t % 2 == 0
        label = f"killed backup {t} ({'at verification' if at_verify else 'by timer'})"
        _run(tally, label, lambda v=at_verify: killed_backup_trial(ctx, folder, rng, v))
    return tally


# -- a killed re-index ------------------------------------------------------------------


class CountingEmbedder(HashEmbedder):
    """The re-index's new embedder, counting the texts it is paid for in a file; it
    SIGKILLs its process on batch ``die_at`` (before embedding it)."""

    def __init__(self, log: str, die_at: int | None = None) -> None:
        super().__init__(48, trigrams=False)
        self.log, self.die_at, self.batches = log, die_at, 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches += 1
        if self.die_at is not None and self.batches >= self.die_at:
            os.kill(os.getpid(), signal.SIGKILL)
        with open(self.log, "a", encoding="utf-8") as out:
            out.write(f"{len(texts)}\n")
        return super().embed_documents(texts)


def _paid(log: Path) -> int:
    return sum(int(n) for n in log.read_text().split()) if log.exists() else 0


def reindex_child(db: str, log: str, die_at: int) -> None:
    with MemoBase(db, embedder=None, check_embedder=False) as kb:
        kb.reindex(CountingEmbedder(log, die_at))


def killed_reindex_trial(
    ctx: multiprocessing.context.BaseContext, folder: Path, rng: random.Random
) -> tuple[list[str], bool]:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "kb.db"
    chunks = rng.randint(200, 500)
    make_base(db, chunks, seed=rng.randrange(1000))
    killed_log, rerun_log = folder / "killed.log", folder / "rerun.log"
    die_at = rng.randint(2, max(2, chunks // 64))  # a batch is 64 chunks: dies midway
    child = ctx.Process(target=reindex_child, args=(str(db), str(killed_log), die_at))
    child.start()
    child.join()
    problems = [] if child.exitcode == -signal.SIGKILL else [f"child exit {child.exitcode}"]
    with raw(db) as check:
        building = check.query_one("SELECT value FROM kb_meta WHERE key = 'reindex_table'")
        kept = int(check.query_one(f"SELECT count(*) FROM {building[0]}")[0]) if building else 0
    with MemoBase(db, embedder=None, check_embedder=False) as kb:
        kb.reindex(CountingEmbedder(str(rerun_log)))
    paid_again = _paid(rerun_log)
    if kept == 0 or kept != _paid(killed_log):
        problems.append(f"the killed run paid {_paid(killed_log)} and kept {kept}")
    if paid_again != chunks - kept:
        problems.append(f"the re-run paid for {paid_again} chunks, {chunks - kept} were left")
    problems += kb_problems(db)
    with MemoBase(db, embedder=HashEmbedder(48, trigrams=False)) as kb:
        lost = not kb.search("note 7", k=3, mode="vector")
    return problems, lost


def run_killed_reindex(
    ctx: multiprocessing.context.BaseContext, folder: Path, trials: int, seed: int
) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        _run(
            tally,
            f"killed re-index {t}",
            lambda t=t: killed_reindex_trial(ctx, folder / f"r{t}", rng),
        )
    return tally


# -- a base damaged in the middle ------------------------------------------------------


def _pages(db: Path, like: str) -> list[int]:
    with raw(db) as conn:
        return [
            int(r[0]) for r in conn.query("SELECT pageno FROM dbstat WHERE name LIKE ?", [like])
        ]


TARGETS = ("vec_chunks_%_vector_chunks%", "vec_chunks_%_chunks", "vec_chunks_%_rowids", "chunks", "documents", "chunks_fts_%")  # fmt: skip


def corrupt_trial(folder: Path, rng: random.Random, t: int) -> tuple[list[str], bool]:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "kb.db"
    make_base(db, 300, seed=t)
    pages = _pages(db, TARGETS[t % len(TARGETS)])
    with db.open("r+b") as f:
        for page in rng.sample(pages, min(len(pages), rng.randint(1, 4))):
            f.seek((page - 1) * 4096)
            f.write(rng.randbytes(4096))
    before = db.read_bytes()
    problems: list[str] = []
    detected = False
    try:
        kb = MemoBase(db, embedder=embedder())
    except CorruptDatabaseError:
        kb, detected = None, True
    if kb is not None:
        with kb:
            for mode in MODES:
                try:
                    kb.search("note harbour lantern", k=5, mode=mode)
                except CorruptDatabaseError:
                    detected = True
                except Exception as exc:
                    problems.append(f"{mode} search raised {type(exc).__name__}: {exc}")
            if detected:
                try:
                    kb.add_texts(["written on top of a damaged file"])
                    problems.append("a write was accepted after the damage was seen")
                except CorruptDatabaseError:
                    pass
    if detected and db.read_bytes() != before:
        problems.append("the damaged file was changed")
    code, lines = cli(["backup", "--db", str(db), "--out", str(folder / "backups")])
    if code != 2 or len(lines) != 1:
        problems.append(f"memo backup of it: exit {code}, {len(lines)} lines")
    code, lines = cli(["restore", "--db", str(folder / "other.db"), "--from", str(db)])
    if code != 2 or len(lines) != 1:
        problems.append(f"memo restore from it: exit {code}, {len(lines)} lines")
    return problems, False


def run_corrupt(folder: Path, trials: int, seed: int) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        _run(
            tally,
            f"corrupt base {t} ({TARGETS[t % len(TARGETS)]})",
            lambda t=t: corrupt_trial(folder / f"c{t}", rng, t),
        )
    return tally


# -- read-only media -------------------------------------------------------------------


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` seen through a read-only view: a read-only bind mount as root
    (root writes through any permission bits), the permissions otherwise."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            yield folder
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    view = folder.with_name(folder.name + "-ro")
    view.mkdir(exist_ok=True)
    subprocess.run(["mount", "--bind", str(folder), str(view)], check=True, capture_output=True)
    try:
        subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(view)], check=True, capture_output=True
        )
        yield view
    finally:
        _unmount(view)


def _unmount(view: Path) -> None:
    """Unmount ``view``; a moment's "busy" (a scanner, a closing descriptor) is waited
    out, and a mount still busy is detached lazily rather than left behind."""
    for _ in range(10):
        if subprocess.run(["umount", str(view)], capture_output=True).returncode == 0:
            return
        time.sleep(0.2)
    subprocess.run(["umount", "-l", str(view)], capture_output=True)


def read_only_available(folder: Path) -> str | None:
    """Why a read-only view cannot be made here (None: it can)."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with read_only(folder) as view:
            probe = view / "probe"
            try:
                probe.write_text("x")
            except OSError:
                return None
            probe.unlink()
            return "the read-only view is writable"
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"no read-only view: {exc}"


def read_only_trial(folder: Path, rng: random.Random, t: int) -> tuple[list[str], bool]:
    source = folder / f"media-{t}"
    source.mkdir(parents=True, exist_ok=True)
    remove_db(source / "kb.db")
    make_base(source / "kb.db", rng.randint(20, 80), seed=t)
    problems: list[str] = []
    lost = False
    with read_only(source) as view:
        for settings in (
            SearchSettings(),
            SearchSettings(keyword_index="memory", vector_index="hnsw"),
        ):
            with MemoBase(view / "kb.db", embedder=embedder(), settings=settings) as kb:
                for mode in MODES:
                    lost |= not kb.search("note 3", k=3, mode=mode)
                try:
                    kb.add_texts(["x"])
                    problems.append("a write to read-only media was accepted")
                except StorageError as exc:
                    if "\n" in str(exc):
                        problems.append("the refusal is not one line")
        code, lines = cli(["backup", "--db", str(view / "kb.db"), "--out", str(view / "backups")])
        if code != 2 or len(lines) != 1 or "Traceback" in " ".join(lines):
            problems.append(f"memo backup --out <read-only>: exit {code}, {len(lines)} lines")
    shutil.rmtree(source)
    return problems, lost


def run_read_only(folder: Path, trials: int, seed: int) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        _run(tally, f"read-only media {t}", lambda t=t: read_only_trial(folder, rng, t))
    return tally
