"""A bad disk and kills against storage (issue 16, items 8 and 13).

A killed backup leaves no hidden ``.partial`` file for ever; a killed re-index
resumes instead of paying for every embedding again; a base damaged in the
middle reports ``CorruptDatabaseError`` and refuses writes, and backing it up or
restoring from it prints one line; a base on read-only media is searched, and a
backup into read-only media prints one line. ``bench/stress.py`` runs the same
attacks with more trials.
"""

from __future__ import annotations

import multiprocessing.context
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_storage import (
    TARGETS,
    make_base,
    partials,
    read_only_available,
    run_corrupt,
    run_killed_backup,
    run_killed_reindex,
    run_read_only,
)


def _held(tally) -> None:  # type: ignore[no-untyped-def]
    assert tally.errors == []
    assert (tally.survived, tally.lost, tally.leaked) == (tally.trials, 0, 0)


def test_a_killed_backup_leaves_no_partial_file(
    tmp_path: Path, forkserver: multiprocessing.context.ForkServerContext
) -> None:
    _held(run_killed_backup(forkserver, tmp_path, trials=4, seed=1))


def test_a_killed_reindex_resumes_without_paying_twice(
    tmp_path: Path, forkserver: multiprocessing.context.ForkServerContext
) -> None:
    _held(run_killed_reindex(forkserver, tmp_path, trials=3, seed=2))


def test_a_base_damaged_in_the_middle_is_reported_and_not_written(tmp_path: Path) -> None:
    _held(run_corrupt(tmp_path, trials=2 * len(TARGETS), seed=3))


def test_a_base_on_read_only_media_is_searched(tmp_path: Path) -> None:
    reason = read_only_available(tmp_path / "probe")
    if reason is not None:
        pytest.skip(reason)
    _held(run_read_only(tmp_path, trials=2, seed=4))


def test_a_terminated_backup_removes_its_partial_file(tmp_path: Path) -> None:
    """SIGTERM (a service stop) unwinds ``memo backup``: its partial file goes at once."""
    db, out = tmp_path / "kb.db", tmp_path / "backups"
    make_base(db, 1500, seed=5)
    outcomes = []
    for _ in range(20):  # until the signal lands while the partial file exists
        proc = subprocess.Popen(
            [sys.executable, "-m", "memo_core", "backup", "--db", str(db), "--out", str(out)],
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not partials(out) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        seen = bool(partials(out))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        outcomes.append((seen, proc.returncode, err[-300:]))
        if seen and proc.returncode == 128 + signal.SIGTERM:
            break
    assert outcomes[-1][:2] == (True, 128 + signal.SIGTERM), outcomes
    assert partials(out) == []
