"""Backups taken while several processes write both files, then an exact restore.

Four spawned processes run the mixed workload (ingest, update, delete, capture,
remember...) on a knowledge base and a memory file until told to stop. Backups
taken meanwhile each open with integrity and consistent index rows, and hold
every write acknowledged before the backup began. After the writers stop, a
restore returns exactly the backed-up content. (tests/ops covers one writer on a
knowledge base; this is several writers on both kinds of file.)
"""

from __future__ import annotations

import multiprocessing.context
import time
from pathlib import Path
from typing import Any

from reliability_harness import content_digest, kb_problems, memory_problems, read_acks
from reliability_workload import lost_writes, make_specs, process_worker, read_result

from memo_core.backup import backup_database, restore_database

WRITERS = 4
BACKUPS = 3


def _wait_for_acks(paths: list[str], count: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while len(read_acks(paths)) < count:
        assert time.monotonic() < deadline, "the writers acknowledged too little"
        time.sleep(0.1)


def test_backups_while_writers_run_then_an_exact_restore(
    tmp_path: Path, spawn: multiprocessing.context.SpawnContext
) -> None:
    stop = tmp_path / "stop"
    specs = make_specs(tmp_path, WRITERS, operations=100_000, seed=9)
    for spec in specs:
        spec.stop_path = str(stop)
    acks = [s.ack_path for s in specs]
    procs = [spawn.Process(target=process_worker, args=(s,)) for s in specs]
    for p in procs:
        p.start()
    taken: list[tuple[Path, Path, list[dict[str, Any]]]] = []
    try:
        for i in range(BACKUPS):
            _wait_for_acks(acks, 20 * (i + 1))
            prefix = read_acks(acks)
            kb_copy = backup_database(tmp_path / "kb.db", tmp_path / "backups")
            mem_copy = backup_database(tmp_path / "memory.db", tmp_path / "backups")
            assert kb_problems(kb_copy) == []
            assert memory_problems(mem_copy) == []
            taken.append((kb_copy, mem_copy, prefix))
    finally:
        stop.touch()
        for p in procs:
            p.join(timeout=240)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    assert [e for s in specs for e in read_result(s).errors] == []
    assert len(read_acks(acks)) > len(taken[-1][2])  # the writers kept going during the backups
    # Each copy holds every write acknowledged before it began, judged once the writers
    # have stopped: a writer acknowledges after its commit, so a change committed before
    # the copy but not yet acknowledged when it is checked (a delete, a new version)
    # would look like a loss while the writers still run.
    for kb_copy, mem_copy, prefix in taken:
        assert lost_writes(str(kb_copy), str(mem_copy), acks, prefix=prefix) == []

    kb_copy, mem_copy, _ = taken[1]
    for live, copy in ((tmp_path / "kb.db", kb_copy), (tmp_path / "memory.db", mem_copy)):
        expected = content_digest(copy)
        assert content_digest(live) != expected  # later writes exist, so restore matters
        kept = restore_database(live, copy)
        assert kept is not None and kept.exists()
        assert content_digest(live) == expected
    assert kb_problems(tmp_path / "kb.db") == [] and memory_problems(tmp_path / "memory.db") == []
