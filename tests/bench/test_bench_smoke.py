"""A tiny run of each side-by-side benchmark: the code paths work and the numbers are sane.

Not a performance test: no latency is asserted. Skipped (with the reason) when
``../shared/eval`` is absent or a peer framework is not installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SHARED = BENCH.parent.parent / "shared" / "eval"

pytestmark = pytest.mark.skipif(
    not (SHARED / "qa" / "corpus.jsonl").exists(), reason="../shared/eval is absent"
)
pytest.importorskip("numpy", reason="the benchmarks need numpy (pip install 'memo[bench]')")


@pytest.fixture(autouse=True)
def _bench_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("MEMO_BENCH_CACHE", str(tmp_path / "cache"))


def _prepared(tmp_path: Path, chunks: int = 0) -> Path:
    import peers_retrieval

    folder = tmp_path / "data"
    folder.mkdir()
    args = argparse.Namespace(questions=6, embedder="hash", chunks=chunks)
    setup = peers_retrieval.prepare(args, folder)
    assert setup["questions"] == 6
    assert setup["chunks"] == max(500, chunks)
    return folder


def _sane(row: dict[str, float]) -> None:
    assert 0.0 <= row["recall@1"] <= row["recall@5"] <= row["recall@10"] <= 1.0
    assert row["recall@1"] <= row["mrr@10"] <= row["recall@10"]
    assert row["p50_ms"] > 0 and row["p95_ms"] >= row["p50_ms"]


def test_memo_rows_and_ratios(tmp_path: Path) -> None:
    import peers_retrieval

    folder = _prepared(tmp_path)
    rows = peers_retrieval.worker("memo", folder)
    assert set(rows) == {"memo-keyword", "memo-vector", "memo-hybrid"}
    for row in rows.values():
        _sane(row)
    assert rows["memo-keyword"]["mrr@10"] > 0.5  # six real questions about their paragraphs
    table = peers_retrieval.with_ratios(rows)
    assert [r[0] for r in table] == list(rows)
    assert table[2][8:10] == ["1.0x", "+0.000"]  # memo hybrid against itself


def test_distractors_keep_the_real_paragraphs(tmp_path: Path) -> None:
    import numpy as np

    folder = _prepared(tmp_path, chunks=800)
    data = json.loads((folder / "data.json").read_text())
    docs = np.load(folder / "docs.npy")
    assert len(data["ids"]) == len(data["texts"]) == docs.shape[0] == 800
    assert set(data["gold"]) <= set(data["ids"][:500])
    assert np.allclose(np.linalg.norm(docs[500:], axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(
    ("system", "module"),
    [
        ("langchain-ensemble-lower", "langchain_community"),
        ("llamaindex-fusion-sync", "llama_index.retrievers.bm25"),
    ],
)
def test_peer_rows(tmp_path: Path, system: str, module: str) -> None:
    pytest.importorskip(
        "rank_bm25" if "langchain" in system else "bm25s", reason=f"{system} needs its BM25"
    )
    pytest.importorskip(module, reason=f"{system} is not installed (pip install 'memo[bench]')")
    import peers_retrieval

    folder = _prepared(tmp_path)
    rows = peers_retrieval.worker(system, folder)
    assert list(rows) == [system]
    _sane(rows[system])


@pytest.mark.parametrize(
    ("system", "module", "row_name"),
    [
        ("lancedb", "lancedb", "lancedb"),
        ("qdrant", "qdrant_client", "qdrant"),
        ("chroma", "chromadb", "chroma-dense"),
    ],
)
def test_embedded_peer_rows_with_build_disk_and_memory(
    tmp_path: Path, system: str, module: str, row_name: str
) -> None:
    pytest.importorskip(module, reason=f"{system} is not installed (pip install 'memo[bench]')")
    import peers_retrieval

    folder = _prepared(tmp_path)
    rows = peers_retrieval.worker(system, folder)
    assert list(rows) == [row_name]
    row = rows[row_name]
    _sane(row)
    # Six real questions about their paragraphs among 500 (chance: MRR@10 about 0.006).
    # Chroma's row is dense only, over the hash embedder's vectors and an HNSW graph
    # built differently each run: it lands around 0.5, so it gets a lower bar.
    assert row["mrr@10"] > (0.25 if row_name == "chroma-dense" else 0.5)
    assert row["build_s"] > 0 and row["disk_mib"] > 0 and row["cpu_p50_ms"] >= 0


def test_interleaved_driver_runs_each_system_in_its_own_process(tmp_path: Path) -> None:
    import peers_retrieval

    folder = _prepared(tmp_path)
    gold = json.loads((folder / "data.json").read_text())["gold"]
    rows = peers_retrieval.run_interleaved(["memo", "memo-exact"], folder, gold)
    assert set(rows) == {"memo-keyword", "memo-vector", "memo-hybrid", "memo-exact-hybrid"}
    for row in rows.values():
        _sane(row)
        assert row["disk_mib"] > 0 and row["peak_mib"] >= 0
    # Below the aids' threshold the defaults and the opt-out rank alike.
    assert rows["memo-hybrid"]["mrr@10"] == rows["memo-exact-hybrid"]["mrr@10"]


def test_scale_bulk_loader_matches_add_texts_and_measures(tmp_path: Path) -> None:
    import scale

    assert scale.check_bulk_load(tmp_path, size=120, queries=4) == 12
    result = scale.measure(300, tmp_path, scale.questions_text(4), depth=10)
    for leg in ("memo hybrid", "memo keyword", "memo vector", "bare FTS5", "bare sqlite-vec KNN"):
        assert result[leg]["p50_ms"] > 0
    assert result["file_mib"] > 0
    assert "memo hybrid (vector_index=memory)" in result
    assert result[scale.KW_MEMORY]["p50_ms"] > 0
    assert result["keyword_memory_answered"] > 0
    assert result["keyword_memory_differs"] == 0


@pytest.mark.skipif(
    not Path("/proc/thread-self/schedstat").exists(), reason="needs Linux's schedstat"
)
def test_query_time_splits_wall_and_keeps_its_base(tmp_path: Path) -> None:
    import query_time

    folder = tmp_path / "kept"
    kb, data, lookup = query_time.open_base(folder, 600, 6, "hash")
    split, answers = query_time.split_wall(kb, data["questions"])
    assert len(answers) == 6 and all(len(a) == 10 for a in answers)
    # A quiet machine may run a whole query in the slice it started in: no new slice is counted.
    assert all(c > 0 for c in split["cpu"]) and all(n >= 0 for n in split["slices"])
    for wall, cpu, waiting in zip(split["wall"], split["cpu"], split["waiting"], strict=True):
        assert waiting >= 0 and cpu <= wall + 1.0  # schedstat and the clock agree
    parts = query_time.stages(kb, data["questions"], lookup)
    assert set(parts) >= {"keyword leg", "vector leg", "whole search"}
    kb.close()
    again, _, _ = query_time.open_base(folder, 600, 6, "hash")  # re-opened, not rebuilt
    assert query_time.split_wall(again, data["questions"])[1] == answers
    again.close()


def test_bench_scripts_import_without_side_effects() -> None:
    for name in ("peers_retrieval", "scale", "query_time", "reader_batches"):
        sys.modules.pop(name, None)
        __import__(name)


def test_peers_memory_on_a_few_scenarios(tmp_path: Path) -> None:
    pytest.importorskip("langgraph.store.memory", reason="LangGraph is not installed")
    scenarios_file = SHARED / "memory" / "scenarios.jsonl"
    if not scenarios_file.exists():
        pytest.skip("../shared/eval/memory is absent")
    import peers_memory

    from memo_core.embedders import HashEmbedder

    embedder = peers_memory.CachedEmbedder(HashEmbedder(64))
    scenarios = peers_memory.load_scenarios(scenarios_file)[:3]
    quality = peers_memory.run_scenarios(scenarios, embedder, tmp_path)
    assert set(quality) == {
        "memo",
        "langgraph-overwrite",
        "langgraph-append",
        "langgraph-turns",
        "capture",
        "categories",
    }
    for name in ("memo", "langgraph-overwrite", "langgraph-append", "langgraph-turns"):
        assert 0.0 <= quality[name]["must_include_string_share"] <= 1.0
        assert quality[name]["leak_probes"] >= 0
    assert quality["capture"]["turns"] == sum(len(s["turns"]) for s in scenarios)
    speed = peers_memory.latency(200, embedder, tmp_path, queries=3)
    assert speed["facts"] == 200
    assert speed["memo_gate_recall_p50_ms"] > 0 and speed["langgraph_search_p50_ms"] > 0
    text = peers_memory.report({"scenarios.jsonl": quality}, [speed], "hash")
    assert "LangGraph / memo" in text and "langgraph-append leaks" in text
    assert set(quality["memo"]["by_category"]) == set(quality["categories"])


def test_kept_peer_is_reopened_not_rebuilt(tmp_path: Path) -> None:
    pytest.importorskip("lancedb", reason="lancedb is not installed (pip install 'memo[bench]')")
    import peers_retrieval

    folder = _prepared(tmp_path)
    keep = tmp_path / "keep"
    first = peers_retrieval.worker("lancedb", folder, keep)["lancedb"]
    again = peers_retrieval.worker("lancedb", folder, keep)["lancedb"]
    assert "reused" not in first and again["reused"] is True
    # The second run reports the first run's build and asks the same store.
    assert again["build_s"] == first["build_s"] and again["disk_mib"] == first["disk_mib"]
    assert again["mrr@10"] == first["mrr@10"]
    # memo is never kept: each run builds it with the code under test.
    assert "reused" not in peers_retrieval.worker("memo", folder, keep)["memo-hybrid"]


def test_scale_defaults_run_reports_every_leg(tmp_path: Path) -> None:
    import scale

    result = scale.defaults_run(tmp_path, 700, asked=6, exact_questions=0)
    assert result["chunks"] == 700 and result["questions"] == 6
    assert set(result["legs"]) == {f"memo {m} (defaults)" for m in ("hybrid", "keyword", "vector")}
    for leg in result["legs"].values():
        assert 0.0 <= leg["mrr@10"] <= leg["recall@10"] <= 1.0 and leg["p50_ms"] > 0
    assert result["store_s"] > 0 and result["files_mib"]["db"] > 0
    assert "target < 50 ms" in scale.defaults_report(result)


def test_a_run_waits_for_a_peer_another_process_is_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import threading

    import peers_retrieval

    monkeypatch.setattr(peers_retrieval, "BUILDER_POLL_S", 0.05)
    kept = tmp_path / "qdrant"
    kept.mkdir()
    builder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (kept / "builder.pid").write_text(str(builder.pid))
        threading.Timer(0.5, (kept / "build.json").write_text, args=["{}"]).start()
        peers_retrieval._wait_for_builder(kept)
        assert (kept / "build.json").exists()  # it returned only once the build was done
    finally:
        builder.kill()
        builder.wait()
    (kept / "build.json").unlink()
    peers_retrieval._wait_for_builder(kept)  # a dead builder: no wait, the run rebuilds
