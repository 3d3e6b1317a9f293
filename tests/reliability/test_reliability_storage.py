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
from pathlib import Path

import pytest
from reliability_storage import (
    TARGETS,
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
