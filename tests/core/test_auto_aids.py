"""The search aids a base switches on by itself (``SearchSettings`` ``"auto"``, the default).

What must hold: below ``aids_from_chunks`` nothing is built or saved and both legs
run in SQL; past it the aids are built off the query path (at the end of an ingest,
or by the first query) and then serve the legs; they answer exactly what the SQL
engines answer on a small base (HNSW scans exactly there, the keyword index is
FTS5's BM25); ``"sqlite"`` opts out; a metadata filter keeps the in-RAM keyword
index; ``kb status`` says which engine serves each leg and why.
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memo_core.cli import main
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.search import auto_aids
from memo_core.search.ann_graphs import pick_engine
from memo_core.search.hybrid import SearchSettings

if pick_engine("auto") is None:
    pytest.skip("the HNSW aid needs faiss-cpu or usearch (memo[local])", allow_module_level=True)

WORDS = ("kettle", "granite", "sparrow", "ledger", "harbour", "tulip", "basalt", "violin")
WORDS += ("cobalt", "meadow", "lantern", "quarry", "saffron", "walnut", "thimble", "glacier")
SIDECARS = (".hnsw", ".hnsw.json", ".kwidx", ".kwidx.json")


def _texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [f"entry {i} " + " ".join(rng.choices(WORDS, k=7)) for i in range(n)]


def _base(path: Path | str, **settings: Any) -> MemoBase:
    return MemoBase(path, embedder=HashEmbedder(48), settings=SearchSettings(**settings))


def _sidecars(db: Path) -> list[str]:
    return [s for s in SIDECARS if Path(str(db) + s).exists()]


def _ranked(kb: MemoBase, query: str, **options: Any) -> list[tuple[str, int | None, int | None]]:
    return [(h.chunk_id, h.keyword_rank, h.vector_rank) for h in kb.search(query, k=8, **options)]


def test_a_small_base_builds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    kb = _base(db, aids_from_chunks=50)
    kb.add_texts(_texts(20))
    assert kb.search("granite sparrow", k=3)
    assert kb.searcher.aids.started == 0
    assert (kb.searcher.vector_engine(), kb.searcher.keyword_engine()) == ("sqlite", "sqlite")
    assert _sidecars(db) == []
    state = kb.status()["search_aids"]
    assert state["vector_index"]["state"] == "off"
    assert state["vector_index"]["reason"] == "20 chunks, below 50"
    assert kb.prepare_search() == {}
    kb.close()


def test_past_the_threshold_an_ingest_builds_them_in_the_background(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    kb = _base(db, aids_from_chunks=30)
    kb.add_texts(_texts(40), ids=[f"e{i}" for i in range(40)])
    assert kb.searcher.aids.started == 1  # the ingest started it; no query yet
    assert kb.searcher.aids.wait(60)
    assert (kb.searcher.vector_engine(), kb.searcher.keyword_engine()) == ("hnsw", "memory")
    assert sorted(_sidecars(db)) == sorted(SIDECARS)
    state = kb.status()["search_aids"]
    assert {k: v["state"] for k, v in state.items()} == {
        "vector_index": "ready",
        "keyword_index": "ready",
    }
    assert (
        state["vector_index"]["engine"] == "hnsw" and state["keyword_index"]["engine"] == "memory"
    )
    # They serve the legs from now on: an SQL leg would not need them at all.
    kb.search("basalt violin", k=3)
    assert kb.searcher._ann is not None and kb.searcher._ann.builds == 1
    assert kb.searcher._keywords is not None and kb.searcher._keywords.builds == 1
    kb.close()


def test_the_aids_answer_what_the_sql_engines_answer(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    exact = _base(db, vector_index="sqlite", keyword_index="sqlite")
    exact.add_texts(_texts(120), ids=[f"e{i}" for i in range(120)])
    aided = _base(db, aids_from_chunks=100)
    aided.prepare_search()
    assert (aided.searcher.vector_engine(), aided.searcher.keyword_engine()) == ("hnsw", "memory")
    for query in [" ".join(random.Random(i).choices(WORDS, k=3)) for i in range(15)]:
        for mode in ("hybrid", "keyword", "vector"):
            assert _ranked(aided, query, mode=mode) == _ranked(exact, query, mode=mode)
    exact.close()
    aided.close()


def test_the_first_query_past_the_threshold_starts_the_build(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    writer = _base(db, vector_index="sqlite", keyword_index="sqlite")
    writer.add_texts(_texts(40))
    reader = _base(db, aids_from_chunks=30)  # another handle: it saw no ingest
    assert reader.searcher.aids.started == 0
    assert reader.search("tulip cobalt", k=3)  # answered (in SQL while the aids build)
    assert reader.searcher.aids.started == 1
    assert reader.searcher.aids.wait(60)
    assert reader.searcher.vector_engine() == "hnsw"
    # Writes after the build reach them incrementally, not by a rebuild.
    writer.add_texts(["a zeppelin over the walnut quarry"], ids=["late"])  # a word of its own
    hits = reader.search("zeppelin over the quarry", k=1)
    assert hits[0].chunk_id == "late"
    assert reader.searcher._keywords is not None and reader.searcher._keywords.builds == 1
    assert reader.searcher._keywords.replayed == 1
    writer.close()
    reader.close()


def test_opting_out_builds_nothing_whatever_the_size(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    kb = _base(db, vector_index="sqlite", keyword_index="sqlite", aids_from_chunks=5)
    kb.add_texts(_texts(40))
    kb.search("granite sparrow", k=3)
    assert kb.searcher.aids.started == 0 and _sidecars(db) == []
    state = kb.status()["search_aids"]
    assert {k: (v["setting"], v["state"]) for k, v in state.items()} == {
        "vector_index": ("sqlite", "off"),
        "keyword_index": ("sqlite", "off"),
    }
    kb.close()
    # One aid on, the other opted out.
    half = _base(db, keyword_index="sqlite", aids_from_chunks=5)
    half.prepare_search()
    assert (half.searcher.vector_engine(), half.searcher.keyword_engine()) == ("hnsw", "sqlite")
    assert sorted(_sidecars(db)) == [".hnsw", ".hnsw.json"]
    half.close()


def test_a_base_in_ram_builds_them_on_the_query(tmp_path: Path) -> None:
    kb = _base(":memory:", aids_from_chunks=30)
    kb.add_texts(_texts(40))
    assert kb.searcher.aids.started == 0  # no second connection sees a base in RAM
    assert kb.searcher.vector_engine() == "hnsw"
    assert kb.search("granite sparrow", k=3)
    kb.close()


def test_a_missing_dependency_keeps_sql_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        auto_aids, "_missing_dependency", lambda kind: "usearch" if kind == "vector_index" else None
    )
    kb = _base(tmp_path / "kb.db", aids_from_chunks=5)
    kb.add_texts(_texts(20))
    assert kb.searcher.aids.wait(60)
    assert (kb.searcher.vector_engine(), kb.searcher.keyword_engine()) == ("sqlite", "memory")
    reason = kb.status()["search_aids"]["vector_index"]["reason"]
    assert "usearch is not installed" in reason
    kb.close()


def test_the_vector_aid_needs_one_graph_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """faiss-cpu or usearch serves the HNSW aid; with neither the reason names faiss-cpu
    (what the local extra installs), and the keyword aid still needs numpy only."""
    monkeypatch.setattr(auto_aids, "pick_engine", lambda wanted: None)
    assert auto_aids._missing_dependency("vector_index") == "faiss-cpu"
    assert auto_aids._missing_dependency("keyword_index") is None
    monkeypatch.setattr(auto_aids, "pick_engine", lambda wanted: "usearch")
    assert auto_aids._missing_dependency("vector_index") is None


def test_a_filtered_query_keeps_the_in_ram_keyword_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "kb.db"
    texts = _texts(150)
    metadatas = [{"shelf": i % 7, "kind": "odd" if i % 2 else "even"} for i in range(150)]
    exact = _base(db, vector_index="sqlite", keyword_index="sqlite")
    exact.add_texts(texts, metadatas=metadatas, ids=[f"e{i}" for i in range(150)])
    aided = _base(db, keyword_index="memory", vector_index="sqlite")
    aided.prepare_search()
    filters: list[dict[str, Any]] = [{"kind": "odd"}, {"shelf": 3}, {"shelf": {"$in": [1, 2]}}]
    queries = [" ".join(random.Random(i).choices(WORDS, k=3)) for i in range(10)]
    want = {
        (q, json.dumps(f)): _ranked(exact, q, mode="keyword", filter=f)
        for q in queries
        for f in filters
    }

    def no_sql(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the filtered keyword leg ran in SQL")

    monkeypatch.setattr(aided.store, "keyword_candidates", no_sql)
    for q in queries:
        for f in filters:
            assert _ranked(aided, q, mode="keyword", filter=f) == want[(q, json.dumps(f))]
    exact.close()
    aided.close()


def test_kb_status_and_ingest_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for i, text in enumerate(_texts(6)):
        (notes / f"n{i}.txt").write_text(text + "\n", encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text("memobase:\n  search: {aids_from_chunks: 4}\n", encoding="utf-8")
    db = tmp_path / "kb.db"
    common = ["--db", str(db), "--config", str(config), "--json"]
    assert main(["kb", "ingest", str(notes), "--embedder", "hash", *common]) == 0
    ingested = json.loads(capsys.readouterr().out)
    # The command waits for the build the ingest started (the process would end it).
    assert sorted(ingested["search_aids"]["built"]) == ["keyword_index", "vector_index"]
    assert main(["kb", "status", *common]) == 0
    status = json.loads(capsys.readouterr().out)["search_aids"]
    assert status["vector_index"]["state"] == "saved"
    assert status["vector_index"]["path"] == str(db) + ".hnsw"
    assert main(["kb", "status", "--db", str(db), "--json"]) == 0  # the default threshold
    status = json.loads(capsys.readouterr().out)["search_aids"]
    assert status["keyword_index"]["reason"] == f"6 chunks, below {auto_aids.AIDS_FROM_CHUNKS}"


def test_the_local_embedder_loads_after_the_hnsw_aid(tmp_path: Path) -> None:
    """A bare ``import usearch.index; import onnxruntime`` crashes the interpreter with
    this project's versions (usearch 2.26, onnxruntime 1.32); memo loads the C++ runtime
    before usearch (``ann_index.load_cpp_runtime_first``) so it does not. The aids load
    by themselves, often before a lazily built local embedder: this is that order, in a
    fresh process that imported nothing else first. Run apart, so that a crash fails
    this test instead of ending the run."""
    pytest.importorskip("onnxruntime", reason="the local embedder's runtime is not installed")
    import subprocess
    import sys

    script = (
        "import sys; from memo_core.embedders import HashEmbedder; from memo_core.kb import MemoBase;"
        "from memo_core.search.hybrid import SearchSettings;"
        f"kb = MemoBase({str(tmp_path / 'kb.db')!r}, embedder=HashEmbedder(16),"
        " settings=SearchSettings(aids_from_chunks=3));"
        "kb.add_texts(['one apple', 'two pears', 'three plums', 'four figs']);"
        "kb.searcher.aids.wait(); assert kb.searcher.vector_engine() == 'hnsw';"
        "import onnxruntime; print('loaded')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "loaded"


def test_closing_the_base_stops_a_background_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """close() must not return while the build thread still reads the file: it stops
    the build between two batches and waits for it, and nothing is handed over."""
    from memo_core.kb.sqlite_backend import SqliteKnowledgeBackend

    real_rows = SqliteKnowledgeBackend.vector_rows
    batches_read = []
    first_batch = threading.Event()
    texts = 40

    def slow_rows(self: SqliteKnowledgeBackend, table: str, *, batch: int = 5_000) -> Any:
        rows = [r for chunk in real_rows(self, table, batch=batch) for r in chunk]
        # One row a batch, each row once (a graph library may refuse a key twice),
        # slow enough that the build is caught midway.
        for row in rows:
            batches_read.append(1)
            first_batch.set()
            yield [row]
            time.sleep(0.2)

    monkeypatch.setattr(SqliteKnowledgeBackend, "vector_rows", slow_rows)
    db = tmp_path / "kb.db"
    kb = _base(db, aids_from_chunks=30, keyword_index="sqlite")
    kb.add_texts(_texts(texts))
    assert first_batch.wait(60)
    aids = kb.searcher.aids
    assert aids.building
    kb.close()
    assert not aids.building  # the thread is gone once close() returns
    assert len(batches_read) < texts  # stopped midway, not waited out
    assert _sidecars(db) == []  # nothing half-built saved or handed over
    assert "vector_index" not in aids._ready
    assert "vector_index" not in aids._failed  # a stop is no failure
    assert not aids.start()  # a closed base starts no new build
