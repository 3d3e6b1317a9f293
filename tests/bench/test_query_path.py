"""The query-path shortcuts the benchmarks led to must not change any answer.

* The keyword leg skips its per-row owner join when every chunk is the owner's:
  with other owners present it must still never return their chunks.
* ``SearchSettings(vector_index="memory")`` ranks from an in-RAM NumPy copy: the
  same neighbours and similarities as sqlite-vec, and a write (from this
  connection or another) is seen by the next query.
* Search state is cached on ``PRAGMA data_version``: a re-index by another
  connection is seen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.search.hybrid import SearchSettings

pytest.importorskip("numpy", reason="the in-RAM vector index needs numpy")

TEXTS = [
    "The invoice A-4471 is due on the first of March.",
    "Penicillin allergy noted in the patient's file.",
    "The contract term is twenty four months.",
    "Paris is the capital of France and its largest city.",
    "Photosynthesis turns light into chemical energy in plants.",
    "The quarterly report shows revenue up by twelve percent.",
    "Our office moved to Berlin in the spring.",
    "The agreement may be cancelled with thirty days notice.",
]
QUESTIONS = [
    "when is invoice A-4471 due",
    "allergy to penicillin",
    "capital of France",
    "how long is the contract",
    "what do plants do with light",
    "cancel the agreement",
]


def _base(path: Path, **settings: object) -> MemoBase:
    return MemoBase(path, embedder=HashEmbedder(64), settings=SearchSettings(**settings))  # type: ignore[arg-type]


def _ids(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.chunk_id for h in hits]


def test_invalid_vector_index_is_refused() -> None:
    with pytest.raises(InvalidInputError):
        SearchSettings(vector_index="faiss")


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_memory_index_gives_the_same_answers_as_sqlite_vec(tmp_path: Path, mode: str) -> None:
    plain = _base(tmp_path / "kb.db")
    plain.add_texts(TEXTS, ids=[f"d{i}" for i in range(len(TEXTS))])
    ram = _base(tmp_path / "kb.db", vector_index="memory")
    for question in QUESTIONS:
        a = plain.search(question, k=5, mode=mode)
        b = ram.search(question, k=5, mode=mode)
        assert _ids(a) == _ids(b)
        for x, y in zip(a, b, strict=True):
            assert x.vector_similarity == pytest.approx(y.vector_similarity, abs=1e-5)
    plain.close()
    ram.close()


def test_memory_index_sees_writes_from_this_and_other_connections(tmp_path: Path) -> None:
    ram = _base(tmp_path / "kb.db", vector_index="memory")
    ram.add_texts(TEXTS[:4], ids=["a", "b", "c", "d"])
    assert "c" in _ids(ram.search("contract term months", k=2, mode="vector"))
    ram.add_texts(["Quantum entanglement links two particles."], ids=["q"])  # same connection
    assert _ids(ram.search("Quantum entanglement links two particles.", k=1, mode="vector")) == [
        "q"
    ]
    other = _base(tmp_path / "kb.db")
    other.add_texts(["Volcanoes erupt molten rock called lava."], ids=["v"])
    other.delete(["q"])
    assert _ids(ram.search("Volcanoes erupt molten rock called lava.", k=1, mode="vector")) == ["v"]
    assert "q" not in _ids(ram.search("Quantum entanglement", k=10, mode="vector"))
    other.close()
    ram.close()


@pytest.mark.parametrize("vector_index", ["sqlite", "memory"])
def test_owners_and_collections_stay_apart(tmp_path: Path, vector_index: str) -> None:
    kb = _base(tmp_path / "kb.db", vector_index=vector_index)
    kb.add_texts(TEXTS, ids=[f"a{i}" for i in range(len(TEXTS))], owner="alice")
    for mode in ("keyword", "vector", "hybrid"):  # one owner: the join-free keyword path
        assert all(
            i.startswith("a") for i in _ids(kb.search("invoice", k=8, mode=mode, owner="alice"))
        )
    kb.add_texts(TEXTS, ids=[f"b{i}" for i in range(len(TEXTS))], owner="bob", collection="x")
    for mode in ("keyword", "vector", "hybrid"):
        alice = _ids(kb.search("invoice contract Paris", k=8, mode=mode, owner="alice"))
        bob = _ids(kb.search("invoice contract Paris", k=8, mode=mode, owner="bob"))
        assert alice and all(i.startswith("a") for i in alice)
        assert bob and all(i.startswith("b") for i in bob)
        only_x = kb.search("invoice", k=8, mode=mode, owner="bob", collection="x")
        assert only_x and {h.collection for h in only_x} == {"x"}
        assert kb.search("invoice", k=8, mode=mode, owner="bob", collection="default") == []
    assert kb.search("invoice", k=5, mode="hybrid", owner="carol") == []
    kb.close()


def test_search_state_follows_another_connections_reindex(tmp_path: Path) -> None:
    reader = _base(tmp_path / "kb.db")
    reader.add_texts(TEXTS, ids=[f"d{i}" for i in range(len(TEXTS))])
    before = reader.store.search_state().vector_table
    writer = _base(tmp_path / "kb.db")
    writer.reindex(HashEmbedder(64))
    after = reader.store.search_state().vector_table
    assert before != after
    assert _ids(reader.search("capital of France", k=1, mode="vector")) == ["d3"]
    writer.close()
    reader.close()
