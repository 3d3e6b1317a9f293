"""Copying a knowledge base between SQLite and PostgreSQL (``memo migrate``'s kb part)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import ConfigError, EmbedderMismatchError
from memo_core.kb import ChunkInput, MemoBase
from memo_core.kb.transfer import copy_knowledge_base
from memo_core.storage import open_database

TEXTS = {
    "a": "The contract term is 24 months from the signing date.",
    "b": "Order A-4471 shipped on Monday to the Berlin warehouse.",
    "c": "Срок договора составляет два года с даты подписания.",
}


@pytest.fixture(params=["sqlite-to-postgres", "postgres-to-sqlite"])
def ends(request: pytest.FixtureRequest, tmp_path: Path, postgres_url: str) -> tuple[str, str]:
    lite = f"sqlite:///{tmp_path / 'kb.db'}"
    return (lite, postgres_url) if request.param == "sqlite-to-postgres" else (postgres_url, lite)


def _fill(url: str, embedder: HashEmbedder | None) -> None:
    with MemoBase(url, embedder=embedder, owner="alice") as base:
        base.add_texts(list(TEXTS.values()), [{"page": i} for i in range(3)], ids=list(TEXTS))
        chunks = [ChunkInput("Part one.", 0, 9, {"page": 1}), ChunkInput("Part two.", 10, 19)]
        base.add_document("Part one.\nPart two.", document_id="parts", chunks=chunks)
        base.for_owner("bob").add_texts(["bob's own note on contracts"], ids=["n"])


def _copy(source: str, destination: str, batch: int = 2) -> dict[str, int]:
    src, dst = open_database(source), open_database(destination)
    try:
        return copy_knowledge_base(src, dst, batch=batch)
    finally:
        src.close()
        dst.close()


def _snapshot(base: MemoBase) -> dict[str, list[tuple[float, str]]]:
    """Ranked ``(score, chunk id)`` per query and mode, ties put in id order (their order
    is the engine's, and sqlite-vec and pgvector break ties differently)."""
    out = {}
    for query in ("contract term", "A-4471", "договор", "part"):
        for mode in ("keyword", "vector", "hybrid"):
            if mode != "keyword" and base.searcher.embedder is None:
                continue
            # Fused scores inherit the vector leg's tie order: compare hybrid's best hit only.
            hits = base.search(query, mode=mode, k=1 if mode == "hybrid" else 10)
            out[f"{query}/{mode}"] = sorted(
                (0.0 if mode == "hybrid" else round(-h.score, 6), h.chunk_id) for h in hits
            )
    return out


def _same_rankings(a: MemoBase, b: MemoBase) -> None:
    """Identical rankings; scores equal up to float32 arithmetic (sqlite-vec and
    pgvector compute cosine distances with different accumulators)."""
    left, right = _snapshot(a), _snapshot(b)
    assert left.keys() == right.keys()
    for key, ranked in left.items():
        assert [c for _, c in ranked] == [c for _, c in right[key]], key
        assert [s for s, _ in ranked] == pytest.approx([s for s, _ in right[key]], abs=2e-6)


def test_copy_keeps_rows_vectors_fingerprint_and_rankings(ends: tuple[str, str]) -> None:
    source, destination = ends
    emb = HashEmbedder(64)
    _fill(source, emb)
    calls = emb.calls
    counts = _copy(source, destination)
    assert counts == {
        "kb_meta": 3,
        "documents": 5,
        "chunks": 6,
        "chunks_fts": 6,
        "vec_chunks_1": 6,
    }
    assert emb.calls == calls  # nothing was embedded again
    with (
        MemoBase(source, embedder=emb, owner="alice") as old,
        MemoBase(destination, embedder=emb, owner="alice") as new,
    ):
        assert new.store.counts() == old.store.counts()
        assert new.store.fingerprint == old.store.fingerprint
        _same_rankings(new, old)
        for owner in ("alice", "bob"):
            assert [d.to_dict() for d in new.list_documents(owner=owner)] == [
                d.to_dict() for d in old.list_documents(owner=owner)
            ]
        rowids = list(old.store.chunk_rowids("alice", ["a", "b", "c"]).values())
        assert new.store.vectors_by_rowid(rowids) == old.store.vectors_by_rowid(rowids)
        assert new.get_chunks(["parts"]) == old.get_chunks(["parts"])
        assert new.search("part", filter={"page": 1}, k=5)[0].text == "Part one."
        if new.db.dialect == "postgres":  # the HNSW index, built once after the load
            indexes = new.db.query(
                "SELECT indexdef FROM pg_indexes WHERE tablename = ?", ["vec_chunks_1"]
            )
            assert any("USING hnsw" in r[0] for r in indexes)
        new.add_texts(
            ["added after the copy about contract terms"], ids=["later"]
        )  # rowids move on
        assert new.search("added after the copy", mode="keyword", k=1)[0].document_id == "later"
    with pytest.raises(EmbedderMismatchError):
        MemoBase(destination, embedder=HashEmbedder(32))


def test_keyword_only_base_copies_without_vector_table(ends: tuple[str, str]) -> None:
    source, destination = ends
    _fill(source, None)
    counts = _copy(source, destination, batch=500)
    assert counts == {"kb_meta": 0, "documents": 5, "chunks": 6, "chunks_fts": 6}
    with (
        MemoBase(source, embedder=None, owner="alice") as old,
        MemoBase(destination, embedder=None, owner="alice") as new,
    ):
        _same_rankings(new, old)


@pytest.fixture
def opened_destination(ends: tuple[str, str]) -> tuple[str, str]:
    """A destination opened once with another embedder: kb_meta and an empty vector table."""
    source, destination = ends
    with MemoBase(destination, embedder=HashEmbedder(32)):
        pass
    return source, destination


def test_an_opened_but_empty_destination_takes_the_source_embedder(
    opened_destination: tuple[str, str],
) -> None:
    source, destination = opened_destination
    _fill(source, HashEmbedder(64))
    assert _copy(source, destination)["kb_meta"] == 3
    with MemoBase(destination, embedder=HashEmbedder(64), owner="alice") as new:
        assert new.search(TEXTS["a"], mode="vector", k=1)[0].document_id == "a"


def test_copy_refuses_a_destination_with_documents(ends: tuple[str, str]) -> None:
    source, destination = ends
    _fill(source, HashEmbedder(64))
    _fill(destination, HashEmbedder(64))
    with pytest.raises(ConfigError, match="empty"):
        _copy(source, destination)
    with pytest.raises(ConfigError):
        _copy(source, destination, batch=0)
