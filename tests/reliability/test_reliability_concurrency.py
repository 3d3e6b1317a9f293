"""Several processes, and several threads sharing one object, on the same files at once.

Eight spawned processes create the knowledge base and the memory file together
(the first-open race included), then ingest, update, delete, search, capture,
remember and recall on them. Afterwards: no acknowledged write is lost, no
``DatabaseLockedError`` reached a caller, integrity holds, and index rows match
chunk and fact rows. The thread test does the same through ONE ``MemoBase`` and
ONE ``MemoHood`` shared by eight threads, as LangChain's executor does.
"""

from __future__ import annotations

import multiprocessing.context
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from reliability_harness import CONCURRENT_OPS, embedder, kb_problems, memory_problems, open_memory
from reliability_workload import (
    Workload,
    lost_writes,
    make_specs,
    process_worker,
    read_result,
)

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import EmbedderMismatchError, StorageError
from memo_core.kb import MemoBase

PROCESSES = 8


def _assert_clean(folder: Path, results: list, ack_paths: list[str]) -> None:
    errors = [e for r in results for e in r.errors]
    assert not errors, "\n".join(errors[:5])
    assert sum(r.locked for r in results) == 0
    assert sum(r.leaks for r in results) == 0
    assert kb_problems(folder / "kb.db") == []
    assert memory_problems(folder / "memory.db") == []
    assert lost_writes(str(folder / "kb.db"), str(folder / "memory.db"), ack_paths) == []
    done = sum(sum(r.done.values()) for r in results)
    assert done == len(results) * CONCURRENT_OPS


def test_eight_processes_share_the_files(
    tmp_path: Path, spawn: multiprocessing.context.SpawnContext
) -> None:
    specs = make_specs(tmp_path, PROCESSES, CONCURRENT_OPS, seed=1)
    procs = [spawn.Process(target=process_worker, args=(s,)) for s in specs]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=240)
    assert [p.exitcode for p in procs] == [0] * PROCESSES
    _assert_clean(tmp_path, [read_result(s) for s in specs], [s.ack_path for s in specs])


def test_threads_share_one_base_and_one_memory(tmp_path: Path) -> None:
    specs = make_specs(tmp_path, PROCESSES, CONCURRENT_OPS, seed=2, prefix="t")
    kb = MemoBase(tmp_path / "kb.db", embedder=embedder())
    memory = open_memory(tmp_path / "memory.db")
    try:
        with ThreadPoolExecutor(PROCESSES) as pool:
            results = list(pool.map(lambda s: Workload(s, kb, memory).run(), specs))
    finally:
        kb.close()
        memory.close()
    _assert_clean(tmp_path, results, [s.ack_path for s in specs])


def test_a_writer_opened_before_a_reindex_elsewhere_cannot_mix_embedders(tmp_path: Path) -> None:
    """A long-running app keeps its MemoBase open while `memo kb reindex` runs elsewhere."""
    path = tmp_path / "kb.db"
    app = MemoBase(path, embedder=embedder())
    app.add_texts(["harbour lantern before the re-index"], ids=["old"])
    other = HashEmbedder(32, trigrams=False)  # same dimensions, another model
    with MemoBase(path, embedder=None, check_embedder=False) as admin:
        admin.reindex(other)
    try:
        with pytest.raises(EmbedderMismatchError):
            app.add_texts(["harbour lantern after the re-index"], ids=["new"])
        with pytest.raises(EmbedderMismatchError):
            app.search("harbour lantern", mode="vector")
        assert app.search("harbour lantern", mode="keyword")  # keyword search needs no vectors
    finally:
        app.close()
    with MemoBase(path, embedder=other) as fresh:
        assert [d.id for d in fresh.list_documents()] == ["old"]
        assert kb_problems(path) == []


def test_a_read_snapshot_sees_one_state_while_another_process_commits(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    reader = MemoBase(path, embedder=embedder(), owner="alice")
    writer = MemoBase(path, embedder=embedder(), owner="bob")
    reader.add_texts(["harbour lantern"], [{"owner_tag": "alice"}])
    try:
        with reader.db.snapshot():
            before = reader.store.counts()
            writer.add_texts(["harbour lantern secret"], [{"owner_tag": "bob"}])  # commits now
            assert reader.store.counts() == before  # still the snapshot's data
            with pytest.raises(StorageError):  # and no write can hide inside a read snapshot
                reader.add_texts(["x"])
        assert reader.store.counts()["documents"] == before["documents"] + 1
    finally:
        reader.close()
        writer.close()
