"""The knowledge-base backend protocol (``kb/backend.py``), alike on both engines.

Each test runs on SQLite and on PostgreSQL (``backend_url``) and checks fixed
answers, so a backend whose method is inert, scopes wrongly or counts differently
fails here: the atomic document write, the keyword and vector legs, filtered row
ids, document frequencies, the postings and vectors the search aids copy, the
bulk insert of ``memo migrate`` and the change log the aids follow.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError, StorageError
from memo_core.kb import MemoBase
from memo_core.kb.pg_backend import PostgresKnowledgeBackend
from memo_core.kb.records import ChunkInput, DocumentWrite
from memo_core.kb.sqlite_backend import SqliteKnowledgeBackend
from memo_core.kb.store import KB_BACKENDS
from memo_core.storage.registry import backend_for_url, backend_of

# Sentences written for this test: "lighthouse" in two chunks, "keeper" in one,
# "harbour" (the stem of "harbours") in one, "the" in all three.
TEXTS = {
    "coast1": "The lighthouse keeper climbs the stairs before dusk.",
    "coast2": "Ships steer by the lighthouse when fog covers the harbours.",
    "farm": "Apple trees in the orchard blossom late in the cold spring.",
}
META = [{"region": "north"}, {"region": "south"}, {"region": "north"}]
DIMS = 32


@pytest.fixture
def base(backend_url: str) -> Iterator[MemoBase]:
    kb = MemoBase(backend_url, embedder=HashEmbedder(DIMS))
    kb.add_texts(list(TEXTS.values()), metadatas=META, ids=list(TEXTS))
    with kb:
        yield kb


def _rowid(kb: MemoBase, chunk_id: str) -> int:
    return kb.store.chunk_rowids(kb.owner, [chunk_id])[chunk_id]


def _doc(rows: list[tuple[int, float]], kb: MemoBase) -> list[str]:
    hits = kb.store.hits_by_rowid([r for r, _ in rows])
    return [hits[r].document_id for r, _ in rows]


def test_the_registry_picks_the_backend_by_url(base: MemoBase, backend_url: str) -> None:
    engine = backend_for_url(backend_url).name
    assert engine == backend_of(base.db).name
    assert type(base.store.backend) is KB_BACKENDS.for_database(base.db)
    expected = {"sqlite": SqliteKnowledgeBackend, "postgres": PostgresKnowledgeBackend}
    assert type(base.store.backend) is expected[engine]  # one implementation per engine
    assert set(KB_BACKENDS.names()) == set(expected)


def test_document_frequencies_count_chunks_per_term(base: MemoBase) -> None:
    terms = ["lighthouse", "keeper", "harbour", "orchard", "the", "submarine"]
    assert base.store.document_frequencies(terms) == {
        "lighthouse": 2,
        "keeper": 1,
        "harbour": 1,  # the stemmed column
        "orchard": 1,
        "the": 3,
        "submarine": 0,
    }
    assert base.store.document_frequencies([]) == {}


def test_counts_follow_writes(base: MemoBase) -> None:
    assert base.store.chunk_total() == 3
    assert base.store.document_frequencies(["lighthouse", "the"]) == {"lighthouse": 2, "the": 3}
    base.delete(["coast1", "coast2"])
    assert base.store.chunk_total() == 1
    assert base.store.document_frequencies(["lighthouse", "the"]) == {"lighthouse": 0, "the": 1}
    assert base.store.counts()["fts_rows"] == 1
    assert base.store.counts()["vector_rows"] == 1


def test_keyword_leg_ranks_by_bm25_and_scopes(base: MemoBase) -> None:
    store = base.store
    rows = store.keyword_candidates(base.owner, "lighthouse keeper", 10)
    assert _doc(rows, base) == ["coast1", "coast2"]  # both words beat one
    assert rows[0][1] < rows[1][1] < 0  # FTS5's sign: lower is better
    north = store.keyword_candidates(base.owner, "lighthouse", 10, filter={"region": "south"})
    assert _doc(north, base) == ["coast2"]
    assert store.keyword_candidates(base.owner, "lighthouse", 10, collections=["other"]) == []
    assert store.keyword_candidates("someone-else", "lighthouse", 10) == []
    assert store.keyword_candidates(base.owner, '" NEAR * -:', 10) == []  # hostile, no error
    with pytest.raises(NamespaceRequiredError):
        store.keyword_candidates("", "lighthouse", 10)


def test_vector_leg_finds_the_nearest_in_scope(base: MemoBase) -> None:
    store, embedder = base.store, HashEmbedder(DIMS)
    query = embedder.embed_query(TEXTS["farm"])
    rows = store.vector_candidates(base.owner, query, 3)
    assert _doc(rows, base)[0] == "farm"
    assert rows[0][1] == pytest.approx(1.0, abs=1e-5)  # cosine of a vector with itself
    assert [s for _, s in rows] == sorted((s for _, s in rows), reverse=True)
    scoped = store.vector_candidates(base.owner, query, 3, filter={"region": "south"})
    assert _doc(scoped, base) == ["coast2"]  # the k nearest of the scope, not a short list
    assert store.vector_candidates("someone-else", query, 3) == []
    sims = store.similarities([r for r, _ in rows], query)
    assert sims == pytest.approx(dict(rows), abs=1e-5)


def test_filtered_and_visible_rowids(base: MemoBase) -> None:
    store = base.store
    north = {_rowid(base, "coast1"), _rowid(base, "farm")}
    assert set(store.filtered_rowids(base.owner, filter={"region": "north"})) == north
    assert store.filtered_rowids(base.owner, filter={"region": "east"}) == []
    everything = [_rowid(base, i) for i in TEXTS]
    assert store.visible_rowids(base.owner, everything, None, {"region": "north"}) == north
    assert store.visible_rowids("someone-else", everything) == set()


def test_replacing_a_document_is_atomic(base: MemoBase, monkeypatch: pytest.MonkeyPatch) -> None:
    store = base.store
    fresh = "The lighthouse was automated and the keeper retired."
    fp = base.embedder.fingerprint if base.embedder else None

    def boom(rows: object, words: object = None) -> None:
        raise StorageError("the keyword index refused the rows")

    monkeypatch.setattr(store.backend, "index_chunks", boom)
    write = DocumentWrite(
        owner=base.owner,
        collection="default",
        document_id="coast1",
        text=fresh,
        chunks=[ChunkInput(fresh, 0, len(fresh), id="coast1")],
        vectors=[HashEmbedder(DIMS).embed_documents([fresh])[0]],
    )
    with pytest.raises(StorageError):
        store.replace_documents([write], fingerprint=fp)
    monkeypatch.undo()
    # Nothing of the failed write is visible: the old version, whole.
    assert store.document_text(base.owner, "coast1") == TEXTS["coast1"]
    assert _doc(store.keyword_candidates(base.owner, "stairs", 5), base) == ["coast1"]
    assert store.keyword_candidates(base.owner, "automated", 5) == []
    assert store.counts()["fts_rows"] == store.counts()["vector_rows"] == 3
    store.replace_documents([write], fingerprint=fp)
    assert _doc(store.keyword_candidates(base.owner, "automated", 5), base) == ["coast1"]
    assert store.keyword_candidates(base.owner, "stairs", 5) == []
    assert store.counts()["fts_rows"] == store.counts()["vector_rows"] == 3


def test_postings_and_vectors_for_the_search_aids(base: MemoBase) -> None:
    backend = base.store.backend
    rows = [r for batch in backend.keyword_rows(batch=2) for r in batch]
    assert [r[0] for r in rows] == sorted(_rowid(base, i) for i in TEXTS)
    by_id = {r[0]: r for r in rows}
    coast2 = by_id[_rowid(base, "coast2")]
    assert coast2[1] == TEXTS["coast2"]
    assert "harbour" in coast2[2].split()  # the stemmed text
    assert coast2[3:] == (base.owner, "default")
    assert [r[0] for b in backend.keyword_rows([_rowid(base, "farm")]) for r in b] == [
        _rowid(base, "farm")
    ]
    assert backend.keyword_row_count() == 3

    table = base.store.search_state().vector_table
    assert table is not None
    vectors = [r for batch in backend.vector_rows(table, batch=2) for r in batch]
    assert sorted(r[0] for r in vectors) == sorted(by_id)
    stored = backend.vectors_by_rowid(list(by_id))
    for rowid, owner, collection, blob in vectors:
        assert (owner, collection) == (base.owner, "default")
        assert array("f", blob).tolist() == stored[rowid]
    expected = HashEmbedder(DIMS).embed_documents([TEXTS["farm"]])[0]
    assert stored[_rowid(base, "farm")] == pytest.approx(expected, abs=1e-6)


def test_phrase_bm25_finds_the_phrase_with_unit_weights(base: MemoBase) -> None:
    backend = base.store.backend
    found = backend.phrase_bm25("raw", ["lighthouse", "keeper"])
    assert [r for r, _ in found] == [_rowid(base, "coast1")]
    assert found[0][1] < 0
    assert backend.phrase_bm25("raw", ["keeper", "lighthouse"]) == []  # order matters
    stemmed = backend.phrase_bm25("stemmed", ["harbour"])
    assert [r for r, _ in stemmed] == [_rowid(base, "coast2")]


def test_bulk_insert_with_rowids_then_normal_writes_continue(backend_url: str) -> None:
    """What ``memo migrate`` does: rows arrive with their rowids, then are indexed."""
    with MemoBase(backend_url, embedder=HashEmbedder(DIMS)) as kb:
        store, db = kb.store, kb.db
        text = "Bulk rows keep their own rowids and their vectors."
        blob = array("f", HashEmbedder(DIMS).embed_documents([text])[0]).tobytes()
        table = store.vector_table
        assert table is not None
        with db.transaction():
            db.execute(
                "INSERT INTO documents (rowid, id, owner, collection, source, title, kind,"
                " content_hash, text, metadata, created_at, updated_at)"
                " VALUES (40, 'bulk', ?, 'default', '', '', 'text', 'h', ?, '{}', 't', 't')",
                [kb.owner, text],
            )
            db.execute(
                'INSERT INTO chunks (rowid, id, doc_rowid, owner, collection, ord, start, "end",'
                " text, locator, metadata, content_hash, flags)"
                " VALUES (70, 'bulk', 40, ?, 'default', 0, 0, ?, ?, '{}', '{}', 'h', '')",
                [kb.owner, len(text), text],
            )
            store.index_copied_chunks([(70, text)], table, [(70, kb.owner, "default", blob)])
        with db.transaction():
            store.finish_bulk_copy(table, DIMS)
        assert _doc(store.keyword_candidates(kb.owner, "rowids", 5), kb) == ["bulk"]
        nearest = store.vector_candidates(kb.owner, array("f", blob).tolist(), 1)
        assert nearest[0][0] == 70
        kb.add_texts(["A later document written the ordinary way."], ids=["later"])
        assert _rowid(kb, "later") > 70  # rowids continue past the inserted ones
        assert kb.search("ordinary way", k=1)[0].document_id == "later"


def test_change_log_records_written_chunks_when_kept(base: MemoBase) -> None:
    changes = base.store.backend.changes
    if changes is None:  # a backend that keeps none: the aids stay off, as documented
        assert base.searcher.aids.kinds == ()
        return
    low, high = changes.range()
    base.add_texts(["A new chunk about tide tables."], ids=["tide"])
    after = changes.range()[1]
    assert after > high >= low
    assert _rowid(base, "tide") in changes.changed(high, after)
    base.delete(["tide"])
    assert changes.range()[1] > after


def test_insert_documents_is_the_bulk_path_of_add_texts(backend_url: str) -> None:
    """The public bulk insert stores what add_texts stores, and refuses what it cannot."""
    texts = {
        "tide": "Tide tables list the high water times for each harbour.",
        "mill": "The old mill ground flour for the whole valley.",
    }
    embedder = HashEmbedder(DIMS)
    with MemoBase(backend_url, embedder=embedder) as kb:
        kb.add_texts([TEXTS["coast1"]], ids=["coast1"])  # rowids to continue from
        writes = [
            DocumentWrite(
                owner=kb.owner,
                collection="default",
                document_id=doc_id,
                text=text,
                chunks=[ChunkInput(text, 0, len(text), metadata={"kind": doc_id}, id=doc_id)],
                vectors=embedder.embed_documents([text]),
                source=f"{doc_id}.txt",
            )
            for doc_id, text in texts.items()
        ]
        kb.store.insert_documents(writes)
        assert [h.document_id for h in kb.search("flour valley", k=1)] == ["mill"]
        hit = kb.store.get_chunks(kb.owner, ["tide"])[0]
        assert hit.metadata == {"kind": "tide", "source": "tide.txt", "title": ""}
        assert kb.store.counts() == {
            "documents": 3,
            "chunks": 3,
            "fts_rows": 3,
            "vector_rows": 3,
        }
        rowids = sorted(kb.store.chunk_rowids(kb.owner, ["coast1", "tide", "mill"]).values())
        assert len(set(rowids)) == 3
        kb.add_texts(["A later note about the lighthouse lamp."], ids=["later"])
        assert _rowid(kb, "later") > rowids[-1]  # the rowids continue past the inserted ones
        with pytest.raises(InvalidInputError, match="exists"):
            kb.store.insert_documents(writes[:1])
        with pytest.raises(InvalidInputError, match="twice"):
            kb.store.insert_documents([writes[0], writes[0]])
        assert kb.store.counts()["documents"] == 4  # nothing of a refused batch was written
