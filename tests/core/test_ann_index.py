"""The opt-in HNSW vector index (``SearchSettings(vector_index="hnsw")``).

What must hold: it finds what the exact search finds (recall near 1 on a small
base), it is saved beside the file and loaded rather than rebuilt, writes from
any connection reach it by replaying the change log (not by a rebuild), a stale
or damaged file is detected and rebuilt, and owner / collection / metadata
scoping is exact (post-filtered, or the exact search when the scope is small).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.search import ann_index
from memo_core.search.ann_graphs import ENGINES, pick_engine
from memo_core.search.ann_index import AnnParameters, AnnVectorIndex
from memo_core.search.hybrid import SearchSettings

INSTALLED = [e for e in ENGINES if pick_engine(e)]
if not INSTALLED:
    pytest.skip("the HNSW index needs faiss-cpu or usearch (memo[ann])", allow_module_level=True)


@pytest.fixture(autouse=True, params=INSTALLED)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs on each installed graph library (``ann_graphs.py``)."""
    name = str(request.param)
    _prefer(monkeypatch, name)
    return name


def _prefer(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """``engine="auto"`` picks ``name``; an engine asked by name stays itself."""
    monkeypatch.setattr(
        ann_index, "pick_engine", lambda wanted: name if wanted == "auto" else pick_engine(wanted)
    )


WORDS = ("river", "mountain", "invoice", "contract", "penicillin", "allergy", "budget")
WORDS += ("report", "harbour", "engine", "violin", "orchard", "glacier", "ledger", "comet")
WORDS += ("pottery", "lantern", "falcon", "meadow", "quartz", "tariff")


def _texts(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [f"note {i}: " + " ".join(rng.choices(WORDS, k=6)) for i in range(n)]


def _base(path: Path, vector_index: str = "hnsw") -> MemoBase:
    return MemoBase(
        path, embedder=HashEmbedder(64), settings=SearchSettings(vector_index=vector_index)
    )


def _ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.chunk_id for h in hits]


def _ann(kb: MemoBase) -> AnnVectorIndex:
    index = kb.searcher._ann
    assert index is not None
    return index


def test_finds_what_the_exact_search_finds(tmp_path: Path) -> None:
    texts = _texts(400)
    exact = _base(tmp_path / "kb.db", vector_index="sqlite")
    exact.add_texts(texts, ids=[f"d{i}" for i in range(len(texts))])
    ann = _base(tmp_path / "kb.db")
    # exact_up_to=0: walk the graph even on a small base (by default it is scanned exactly)
    ann.searcher._ann = AnnVectorIndex(ann.store, parameters=AnnParameters(exact_up_to=0))
    overlap = []
    for query in _texts(20, seed=9):
        want = exact.search(query, k=10, mode="vector")
        got = ann.search(query, k=10, mode="vector")
        overlap.append(len(set(_ids(want)) & set(_ids(got))) / 10)
        sims = {h.chunk_id: h.vector_similarity for h in want}
        for hit in got:  # float16 storage: similarities within 1e-2 of exact
            if hit.chunk_id in sims:
                assert hit.vector_similarity == pytest.approx(sims[hit.chunk_id], abs=1e-2)
    assert sum(overlap) / len(overlap) >= 0.9
    hybrid = ann.search("invoice contract", k=5, mode="hybrid")
    assert hybrid and all(h.vector_similarity is not None for h in hybrid)
    exact.close()
    ann.close()


def test_saved_beside_the_file_and_loaded_not_rebuilt(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(50), ids=[f"d{i}" for i in range(50)])
    kb.search("river", k=3, mode="vector")
    assert _ann(kb).builds == 1
    assert (tmp_path / "kb.db.hnsw").exists() and (tmp_path / "kb.db.hnsw.json").exists()
    kb.close()
    again = _base(tmp_path / "kb.db")
    status = again.searcher.prepare_vector_index()
    assert status is not None and status["loads"] == 1 and status["builds"] == 0
    assert status["vectors"] == 50
    again.close()


def test_writes_from_any_connection_are_replayed_not_rebuilt(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(60), ids=[f"d{i}" for i in range(60)])
    kb.search("river", k=3, mode="vector")
    kb.add_texts(["Quantum entanglement links two particles."], ids=["q"])  # this connection
    assert _ids(kb.search("Quantum entanglement links two particles.", k=1, mode="vector")) == ["q"]
    other = _base(tmp_path / "kb.db", vector_index="sqlite")
    other.add_texts(["Volcanoes erupt molten rock called lava."], ids=["v"])
    other.delete(["q"])
    other.add_texts(["The replaced note now speaks of comets."], ids=["d59"])  # replace
    assert _ids(kb.search("Volcanoes erupt molten rock called lava.", k=1, mode="vector")) == ["v"]
    assert "q" not in _ids(kb.search("Quantum entanglement", k=20, mode="vector"))
    assert _ids(kb.search("The replaced note now speaks of comets.", k=1, mode="vector")) == ["d59"]
    index = _ann(kb)
    assert index.builds == 1 and index.replayed >= 3
    other.close()
    kb.close()
    # A process that opens the file later loads the saved index and replays what it lacks.
    later = _base(tmp_path / "kb.db")
    assert _ids(later.search("Volcanoes erupt molten rock called lava.", k=1, mode="vector")) == [
        "v"
    ]
    assert _ann(later).builds == 0
    later.close()


def test_a_stale_or_damaged_index_is_rebuilt(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(40), ids=[f"d{i}" for i in range(40)])
    kb.searcher.prepare_vector_index()
    kb.close()
    # The change log pruned past the saved index: replaying is impossible, rebuild.
    writer = _base(tmp_path / "kb.db", vector_index="sqlite")
    writer.add_texts(["A brand new note about falcons."], ids=["n"])
    writer.add_texts(["Another new note about glaciers."], ids=["m"])
    writer.db.execute(
        "DELETE FROM kb_chunk_changes WHERE seq < (SELECT max(seq) FROM kb_chunk_changes)"
    )
    writer.close()
    pruned = _base(tmp_path / "kb.db")
    assert _ids(pruned.search("A brand new note about falcons.", k=1, mode="vector")) == ["n"]
    assert _ann(pruned).builds == 1
    pruned.close()
    # A damaged header or index file: rebuilt, never trusted.
    (tmp_path / "kb.db.hnsw").write_bytes(b"not an index")
    damaged = _base(tmp_path / "kb.db")
    assert _ids(damaged.search("Another new note about glaciers.", k=1, mode="vector")) == ["m"]
    assert _ann(damaged).builds == 1
    damaged.close()
    header = json.loads((tmp_path / "kb.db.hnsw.json").read_text())
    header["seq"] = 10**9  # an index "from the future" (the file was restored from a backup)
    (tmp_path / "kb.db.hnsw.json").write_text(json.dumps(header))
    restored = _base(tmp_path / "kb.db")
    restored.searcher.prepare_vector_index()
    assert _ann(restored).builds == 1
    restored.close()


def test_reindex_with_another_embedder_rebuilds(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(30), ids=[f"d{i}" for i in range(30)])
    kb.searcher.prepare_vector_index()
    kb.reindex(HashEmbedder(32))
    kb.close()
    after = MemoBase(
        tmp_path / "kb.db", embedder=HashEmbedder(32), settings=SearchSettings(vector_index="hnsw")
    )
    status = after.searcher.prepare_vector_index()
    assert status is not None and status["builds"] == 1 and status["vectors"] == 30
    assert _ids(after.search(_texts(30)[4], k=1, mode="vector")) == ["d4"]
    after.close()


def test_owners_collections_and_filters_are_exact(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    texts = _texts(300)
    kb.add_texts(texts[:200], ids=[f"a{i}" for i in range(200)], owner="alice")
    kb.add_texts(
        texts[200:],
        ids=[f"b{i}" for i in range(100)],
        owner="bob",
        collection="x",
        metadatas=[{"n": i % 2} for i in range(100)],
    )
    kb.add_texts(["Carol's only note about quartz."], ids=["c0"], owner="carol")
    index_params = AnnParameters(exact_below_rows=10, exact_below_share=0.05, exact_up_to=0)
    kb.searcher._ann = AnnVectorIndex(kb.store, parameters=index_params)
    for query in _texts(10, seed=4):
        alice = kb.search(query, k=10, mode="vector", owner="alice")
        bob = kb.search(query, k=10, mode="vector", owner="bob", collection="x")
        odd = kb.search(query, k=10, mode="vector", owner="bob", filter={"n": 1})
        assert len(alice) == 10 and all(i.startswith("a") for i in _ids(alice))
        assert len(bob) == 10 and all(i.startswith("b") for i in _ids(bob))
        assert len(odd) == 10 and all(h.metadata["n"] == 1 for h in odd)
        # Carol's scope is too small to post-filter: the exact search answers.
        assert _ids(kb.search(query, k=10, mode="vector", owner="carol")) == ["c0"]
    assert kb.search("quartz", k=5, mode="vector", owner="dave") == []
    assert kb.search("quartz", k=5, mode="vector", owner="bob", collection="nope") == []
    kb.close()


def test_in_memory_base_works_without_a_file(tmp_path: Path) -> None:
    kb = _base(Path(":memory:"))
    kb.add_texts(_texts(20), ids=[f"d{i}" for i in range(20)])
    assert _ids(kb.search(_texts(20)[7], k=1, mode="vector")) == ["d7"]
    assert _ann(kb).path is None
    kb.close()


def test_an_index_saved_by_the_other_library_is_rebuilt(tmp_path: Path, engine: str) -> None:
    """The header names the graph library: a file saved by usearch (every base's aid
    before faiss) is rebuilt by faiss, never read, and the reverse."""
    other = next((e for e in INSTALLED if e != engine), None)
    if other is None:
        pytest.skip("needs both faiss-cpu and usearch")
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(40), ids=[f"d{i}" for i in range(40)])
    kb.searcher._ann = AnnVectorIndex(kb.store, parameters=AnnParameters(engine=other))
    kb.searcher.prepare_vector_index()
    assert _ann(kb).engine == other and _ann(kb).builds == 1
    kb.close()
    again = _base(tmp_path / "kb.db")
    status = again.searcher.prepare_vector_index()
    assert status is not None and status["engine"] == engine
    assert status["builds"] == 1 and status["loads"] == 0
    assert _ids(again.search(_texts(40)[3], k=1, mode="vector")) == ["d3"]
    again.close()
