"""MemoBase: storage, hybrid search, filters, isolation, atomic replace, re-index.

Every test runs on both backends (``backend_url``: a SQLite file and a PostgreSQL
schema); behaviour that only PostgreSQL has is tested in test_kb_postgres.py.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import (
    DimensionMismatchError,
    EmbedderMismatchError,
    InvalidInputError,
    NamespaceRequiredError,
    ProviderError,
)
from memo_core.kb import ChunkInput, MemoBase
from memo_core.storage.postgres import PostgresDatabase

DOCS = [
    (
        "The contract term is 24 months from the signing date.",
        {"page": 2, "tags": ["legal", "term"], "lang": "en"},
    ),
    (
        "Order A-4471 shipped on Monday to the Berlin warehouse.",
        {"page": 1, "tags": ["ops"], "lang": "en"},
    ),
    ("Срок договора составляет два года с даты подписания.", {"page": 3, "lang": "ru"}),
    (
        "The agreement may be terminated with ninety days notice.",
        {"page": 4, "tags": ["legal"], "draft": True},
    ),
]


def _fill(base: MemoBase) -> MemoBase:
    base.add_texts([t for t, _ in DOCS], [m for _, m in DOCS], ids=["d1", "d2", "d3", "d4"])
    return base


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def kb(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MemoBase]:
    """One filled base per backend, for the tests that only read it (built once per
    module: a PostgreSQL schema costs about half a second to set up)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('kb') / 'kb.db'}"
    else:
        url = request.getfixturevalue("postgres_server").url(f"t_{uuid.uuid4().hex[:16]}")
    with MemoBase(url, embedder=HashEmbedder(64)) as base:
        yield _fill(base)
        if isinstance(base.db, PostgresDatabase):
            base.db.drop_schema()


@pytest.fixture
def fresh_kb(backend_url: str) -> Iterator[MemoBase]:
    """A filled base of its own, for the tests that write to it."""
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        yield _fill(base)


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_each_mode_finds_the_right_document(kb: MemoBase, mode: str) -> None:
    hits = kb.search("contract term months", mode=mode, k=2)
    assert hits[0].document_id == "d1"
    assert hits[0].metadata["page"] == 2


def test_keyword_leg_finds_exact_codes_and_stems(kb: MemoBase) -> None:
    assert kb.search("A-4471", mode="keyword", k=1)[0].document_id == "d2"
    assert kb.search("договоры", mode="keyword", k=1)[0].document_id == "d3"


def test_hybrid_carries_both_ranks_and_similarity(kb: MemoBase) -> None:
    hit = kb.search("contract term", k=1)[0]
    assert hit.keyword_rank == 1 and hit.vector_rank == 1
    assert hit.vector_similarity is not None and 0 < hit.vector_similarity <= 1.0


def test_k_is_honoured(kb: MemoBase) -> None:
    assert len(kb.search("the", mode="vector", k=3)) == 3
    assert kb.search("contract", k=0) == []


FILTERS: list[tuple[dict[str, Any], set[str]]] = [
    ({"page": 2}, {"d1"}),
    ({"page": {"$ne": 2}}, {"d2", "d3", "d4"}),
    ({"page": {"$gt": 2}}, {"d3", "d4"}),
    ({"page": {"$gte": 2, "$lt": 4}}, {"d1", "d3"}),
    ({"page": {"$lte": 1}}, {"d2"}),
    ({"page": {"$in": [1, 4]}}, {"d2", "d4"}),
    ({"page": {"$nin": [1, 4]}}, {"d1", "d3"}),
    ({"tags": {"$contains": "legal"}}, {"d1", "d4"}),
    ({"tags": {"$any": ["ops", "term"]}}, {"d1", "d2"}),
    ({"tags": {"$all": ["legal", "term"]}}, {"d1"}),
    ({"lang": {"$text_match": "r"}}, {"d3"}),
    ({"lang": {"$text_match_insensitive": "EN"}}, {"d1", "d2"}),
    ({"draft": {"$exists": True}}, {"d4"}),
    ({"tags": {"$is_empty": True}}, {"d3"}),
    ({"draft": True}, {"d4"}),
    ({"$or": [{"page": 1}, {"lang": "ru"}]}, {"d2", "d3"}),
    ({"$and": [{"tags": {"$contains": "legal"}}, {"$not": {"page": 4}}]}, {"d1"}),
]


@pytest.mark.parametrize(("spec", "expected"), FILTERS)
@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_metadata_filters_apply_inside_each_leg(
    kb: MemoBase, spec: dict[str, Any], expected: set[str], mode: str
) -> None:
    query = "contract order agreement договор term shipped"
    got = {h.document_id for h in kb.search(query, k=10, mode=mode, filter=spec)}
    if mode == "keyword":
        assert got <= expected and got
    else:
        assert got == expected


@pytest.mark.parametrize(
    "spec",
    [
        {'a"b': 1},
        {"$bogus": 1},
        {"page": {"$regex": "x"}},
        {"page": {"$in": 3}},
        {"page": [1, 2]},
        {"$or": []},
        {"x\x00": 1},
    ],
)
def test_bad_filters_are_typed_errors(kb: MemoBase, spec: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        kb.search("contract", filter=spec)


def test_sql_metacharacters_in_filter_values_are_just_values(kb: MemoBase) -> None:
    assert kb.search("contract", filter={"lang": "en' OR 1=1 --"}) == []
    assert kb.status()["documents"] == 4


def test_owners_are_isolated_and_required(backend_url: str, tmp_path: Path) -> None:
    base = MemoBase(backend_url, embedder=HashEmbedder(64), owner="alice")
    base.add_texts(["alice's secret plan"], ids=["a"])
    bob = base.for_owner("bob")
    bob.add_texts(["bob's public notes"], ids=["b"])
    for mode in ("keyword", "vector", "hybrid"):
        assert {h.document_id for h in bob.search("secret plan notes", mode=mode, k=10)} == {"b"}
        assert {h.document_id for h in base.search("secret plan notes", mode=mode, k=10)} == {"a"}
    assert bob.get_chunks(["a"]) == []
    assert bob.delete(["a"]) == 0
    with pytest.raises(NamespaceRequiredError):
        base.search("plan", owner="")
    base.close()
    with pytest.raises(NamespaceRequiredError):
        MemoBase(tmp_path / "kb2.db", embedder=None, owner="")


def test_collections_scope_search(fresh_kb: MemoBase) -> None:
    fresh_kb.add_texts(["contract appendix about the term"], ids=["x1"], collection="appendix")
    assert {h.document_id for h in fresh_kb.search("term", collection="appendix", k=10)} == {"x1"}
    assert "x1" not in {h.document_id for h in fresh_kb.search("term", collection="default", k=10)}
    both = {
        h.document_id
        for h in fresh_kb.search("term", collection=["appendix", "default"], k=10, mode="vector")
    }
    assert "x1" in both and "d1" in both


def test_delete_removes_fts_and_vector_rows(fresh_kb: MemoBase) -> None:
    assert fresh_kb.delete(["d1", "d2"]) == 2
    counts = fresh_kb.store.counts()
    assert counts == {"documents": 2, "chunks": 2, "fts_rows": 2, "vector_rows": 2}
    assert all(h.document_id not in ("d1", "d2") for h in fresh_kb.search("contract order", k=10))


def test_delete_chunks_removes_empty_documents(fresh_kb: MemoBase) -> None:
    assert fresh_kb.delete_chunks(["d4"]) == 1
    assert fresh_kb.store.counts()["documents"] == 3
    assert fresh_kb.store.counts()["vector_rows"] == 3


def test_unchanged_document_makes_no_embedding_call(backend_url: str) -> None:
    emb = HashEmbedder(64)
    with MemoBase(backend_url, embedder=emb) as base:
        base.add_document("Paragraph one.\n\nParagraph two.", source="notes.md", title="Notes")
        calls = emb.calls
        base.add_document("Paragraph one.\n\nParagraph two.", source="notes.md", title="Notes")
        assert emb.calls == calls
        assert base.store.counts()["documents"] == 1


def test_changed_document_reembeds_only_changed_chunks(backend_url: str) -> None:
    emb = HashEmbedder(64)
    with MemoBase(backend_url, embedder=emb) as base:
        chunks = [ChunkInput("alpha text", 0, 10), ChunkInput("beta text", 11, 20)]
        base.add_document("alpha text\nbeta text", source="s", chunks=chunks)
        before = emb.texts_embedded
        new = [ChunkInput("alpha text", 0, 10), ChunkInput("gamma text", 11, 21)]
        base.add_document("alpha text\ngamma text", source="s", chunks=new)
        assert emb.texts_embedded - before == 1
        assert [h.text for h in base.search("gamma", mode="keyword")] == ["gamma text"]
        assert base.search("beta", mode="keyword") == []


def test_replace_is_atomic_when_a_write_fails(
    fresh_kb: MemoBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = fresh_kb.store.db
    original, original_many = db.execute, db.executemany
    calls = {"n": 0}

    def count_fts_rows(sql: str, rows: int) -> None:
        if sql.startswith("INSERT INTO chunks_fts"):
            calls["n"] += rows
            if calls["n"] >= 2:
                raise RuntimeError("crash mid-write")

    def flaky(sql: str, params: Any = ()) -> Any:
        count_fts_rows(sql, 1)
        return original(sql, params)

    def flaky_many(sql: str, rows: Any) -> Any:  # the keyword rows of a write, in one call
        count_fts_rows(sql, len(rows))
        return original_many(sql, rows)

    monkeypatch.setattr(db, "execute", flaky)
    monkeypatch.setattr(db, "executemany", flaky_many)
    chunks = [ChunkInput("new one", 0, 7), ChunkInput("new two", 8, 15)]
    with pytest.raises(RuntimeError):
        fresh_kb.add_document("new one new two", document_id="d1", chunks=chunks)
    monkeypatch.undo()
    hit = fresh_kb.get_chunks(["d1"])
    assert hit and hit[0].text.startswith("The contract term")
    assert fresh_kb.store.counts() == {"documents": 4, "chunks": 4, "fts_rows": 4, "vector_rows": 4}


def test_wrong_dimension_vector_is_a_typed_error(fresh_kb: MemoBase) -> None:
    with pytest.raises(DimensionMismatchError):
        fresh_kb.search_by_vector([0.1] * 10)
    with pytest.raises(DimensionMismatchError):
        fresh_kb.add_texts(["x"], vectors=[[0.1] * 3])
    with pytest.raises(InvalidInputError):
        fresh_kb.add_texts(["x"], vectors=[[float("nan")] * 64])
    assert fresh_kb.status()["documents"] == 4


def test_bad_texts_are_typed_errors(fresh_kb: MemoBase) -> None:
    with pytest.raises(InvalidInputError):
        fresh_kb.add_document("   ")
    with pytest.raises(InvalidInputError):
        fresh_kb.add_document("a\x00b")
    with pytest.raises(InvalidInputError):
        fresh_kb.search(None)  # type: ignore[arg-type]


def test_other_embedder_is_refused_then_reindex_swaps(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as first:
        first.add_texts(["contract term"], ids=["a"])
    with pytest.raises(EmbedderMismatchError, match="reindex"):
        MemoBase(backend_url, embedder=HashEmbedder(32))
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        old_table = base.store.vector_table
        assert old_table is not None and base.db.table_exists(old_table)
        assert base.reindex(HashEmbedder(32)) == 1
        assert base.store.vector_table != old_table
        assert not base.db.table_exists(old_table)
    with MemoBase(backend_url, embedder=HashEmbedder(32)) as reopened:
        assert reopened.search("contract", mode="vector")[0].document_id == "a"


class _FailingEmbedder(HashEmbedder):
    """Counts the texts it embeds; raises on batch ``fail_at`` (a provider outage)."""

    def __init__(self, fail_at: int | None = None) -> None:
        super().__init__(32)
        self.fail_at, self.batches, self.texts = fail_at, 0, 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches += 1
        if self.batches == self.fail_at:
            raise ProviderError("the embedding service went away")
        self.texts += len(texts)
        return super().embed_documents(texts)


def test_an_interrupted_reindex_resumes_and_re_embeds_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(64)) as base:
        ids = [f"n{i}" for i in range(24)]
        base.add_texts([f"note {i} about the harbour" for i in range(24)], ids=ids)
        with pytest.raises(ProviderError):  # batches of 5: 20 chunks embedded, then it stops
            base.store.rebuild_vectors(
                _FailingEmbedder().fingerprint,
                _FailingEmbedder(fail_at=5).embed_documents,
                batch_size=5,
            )
        assert base.db.query_one("SELECT count(*) FROM vec_chunks_2")[0] == 20
        # Written while it was stopped: the last five go, so the next chunk takes the
        # rowid of n19, whose vector for the new embedder was already made.
        base.delete(ids[19:])
        base.add_texts(["a lighthouse keeps the harbour safe"], ids=["lighthouse"])
        base.add_texts(["comets return every few years"], ids=["late"])
    resumed = _FailingEmbedder()
    with MemoBase(path, embedder=None, check_embedder=False) as base:
        assert base.reindex(resumed) == resumed.texts
    assert resumed.texts == 2  # 19 kept vectors are not paid again; the rowid reused is
    with MemoBase(path, embedder=HashEmbedder(32)) as reopened:
        for text, doc in (
            ("a lighthouse keeps the harbour safe", "lighthouse"),
            ("comets return every few years", "late"),
            ("note 7 about the harbour", "n7"),
        ):
            assert reopened.search(text, mode="vector")[0].document_id == doc
        assert reopened.store.meta("reindex_table") is None
        assert reopened.db.query_one("SELECT count(*) FROM vec_chunks_2")[0] == 21


def test_no_embedder_degrades_to_keyword_once(
    backend_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with MemoBase(backend_url, embedder=None) as base:
        base.add_texts(["contract term is 24 months"], ids=["a"])
        with caplog.at_level(logging.WARNING):
            for _ in range(3):
                assert base.search("contract", mode="hybrid")[0].document_id == "a"
    assert sum("keyword-only" in r.message for r in caplog.records) == 1


def test_status_reports_counts_and_driver(kb: MemoBase) -> None:
    status = kb.status()
    assert status["documents"] == 4 and status["vector_search"] is True
    assert status["embedder"].startswith("hash:")
