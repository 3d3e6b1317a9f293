"""The opt-in in-RAM keyword index (``SearchSettings(keyword_index="memory")``).

What must hold: it returns the chunks the SQL leg returns with the scores it gives
(memo's BM25 over FTS5's matches, ``kb/fts_rank.py``; stemming, diacritics, Cyrillic,
stopwords, repeated words, owners and collections included); writes from any connection reach it by
replaying the change log; it is saved beside the file and loaded rather than
rebuilt, and a damaged or foreign file is rebuilt; phrases (found by FTS5, counted
from its score) rank as in the SQL leg; metadata filters and PostgreSQL run in SQL.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.search.hybrid import SearchSettings
from memo_core.search.keyword_index import RamKeywordIndex, index_tokens

pytest.importorskip("numpy", reason="the in-RAM keyword index needs numpy")

_WORD_TEXT = (
    "river rivers running runs ran runner contract contracts contracted invoice invoices"
    " penicillin allergy allergic budget harbour engine engines violin orchard glacier"
    " ledger comet café cafe naïve naive Zürich zurich Ærø straße the a of and is was"
    " договор договора договоры аллергия пенициллин река реки бюджет 4471 2024 x9"
)
WORDS = tuple(_WORD_TEXT.split())


def _texts(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(1, 14))
        if rng.random() < 0.2:  # repeated words: in-chunk frequency above 1
            words += [words[0]] * rng.randint(1, 5)
        out.append(f"note {i}: " + " ".join(words))
    return out


def _queries(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    extra = ["unknownword", "RIVER", "Cafe", "NAIVE", "Договоров", "running?!", "the"]
    return [" ".join(rng.choices(WORDS + tuple(extra), k=rng.randint(1, 6))) for _ in range(n)]


def _base(path: Path | str, keyword_index: str = "memory", **kw: object) -> MemoBase:
    return MemoBase(
        path,
        embedder=HashEmbedder(32),
        settings=SearchSettings(keyword_index=keyword_index),
        **kw,  # type: ignore[arg-type]
    )


def _fill(kb: MemoBase, n: int = 240) -> None:
    texts = _texts(n)
    scopes = [(o, c) for o in ("alice", "bob") for c in ("notes", "mail")]
    for slot, (owner, collection) in enumerate(scopes):
        part = [t for i, t in enumerate(texts) if i % len(scopes) == slot]
        kb.add_texts(
            part,
            ids=[f"{owner}-{collection}-{i}" for i in range(len(part))],
            owner=owner,
            collection=collection,
        )


def _index(kb: MemoBase) -> RamKeywordIndex:
    if kb.searcher._keywords is None:
        kb.searcher._keywords = RamKeywordIndex(kb.store)
    return kb.searcher._keywords


def _ram(kb: MemoBase, owner: str, query: str, limit: int, collections=None):  # type: ignore[no-untyped-def]
    with kb.store.reading():
        return _index(kb).candidates(owner, query, limit, collections=collections)


def _assert_same(want: list[tuple[int, float]], got: list[tuple[int, float]] | None) -> None:
    """Same chunks with the same scores; equal scores may come in either order."""
    assert got is not None
    assert sorted(r for r, _ in got) == sorted(r for r, _ in want)
    scores = dict(want)
    for rowid, score in got:
        assert score == pytest.approx(scores[rowid], rel=1e-12, abs=1e-12)
    assert [s for _, s in got] == sorted(s for _, s in got)  # best (lowest) first


def test_same_chunks_and_scores_as_fts5(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    _fill(kb)
    compared = 0
    for query in _queries(60):
        for owner, collections in (
            ("alice", None),
            ("bob", ["mail"]),
            ("alice", ["notes", "mail"]),
            ("nobody", None),
        ):
            # A limit above the number of matches: the whole ranked list is compared.
            want = kb.store.keyword_candidates(owner, query, 1000, collections=collections)
            _assert_same(want, _ram(kb, owner, query, 1000, collections))
            compared += bool(want)
    assert compared > 100
    # Top k: the same best chunks as FTS5 (ties at the edge aside).
    for query in _queries(20, seed=3):
        want = kb.store.keyword_candidates("alice", query, 5)
        got = _ram(kb, "alice", query, 5)
        assert got is not None and len(got) == len(want)
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
    assert _index(kb).builds == 1
    kb.close()


def test_ties_at_the_edge_of_the_top_k_go_to_the_lower_rowid_as_in_fts5(tmp_path: Path) -> None:
    # Chunks of one text tie; the one above and the one below them in rowid order
    # score higher, so a partition alone keeps some tied chunk past the lowest rowids.
    kb = _base(tmp_path / "kb.db")
    ties = ["orchard ledger ledger", *["orchard ledger comet"] * 10, "orchard ledger ledger ledger"]
    texts = ties + [f"violin glacier {i}" for i in range(60)]
    kb.add_texts(texts, ids=[f"c{i}" for i in range(len(texts))])
    owner = kb._owner(None)
    for limit in (3, 5, 8):
        want = kb.store.keyword_candidates(owner, "orchard ledger", limit)
        got = _ram(kb, owner, "orchard ledger", limit)
        assert got is not None and len(set(s for _, s in want)) == 3  # two leaders, then ties
        assert [r for r, _ in got] == [r for r, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
    kb.close()


def test_top_k_over_one_scope_equals_fts5s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One owner, no collections: the index lists only chunks at or above a floor
    # under the k-th best score, taken from the rarest words' chunks.
    from memo_core.search import keyword_index

    floors: list[float] = []
    real_floor = keyword_index._floor

    def spy(*args):  # type: ignore[no-untyped-def]
        floors.append(real_floor(*args))
        return floors[-1]

    monkeypatch.setattr(keyword_index, "_floor", spy)
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(400), ids=[f"n{i}" for i in range(400)])
    owner = kb._owner(None)
    for query in _queries(40, seed=5):
        for limit in (3, 10):
            want = kb.store.keyword_candidates(owner, query, limit)
            got = _ram(kb, owner, query, limit)
            assert got is not None
            assert [r for r, _ in got] == [r for r, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-12)
    assert sum(f > 0.0 for f in floors) > 20  # the floor was set, and kept every best chunk
    kb.close()


def test_tokens_as_fts5_stores_them(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    text = "Zürich CAFÉ naïve Ærø straße Договор x9-4471 l'été"
    kb.add_texts([text], ids=["t"])
    vocabulary = {str(r[0]) for r in kb.db.query("SELECT term FROM chunks_fts_vocab")}
    assert set(index_tokens(text)) <= vocabulary
    kb.close()


def test_writes_from_another_connection_are_replayed(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    reader = _base(path)
    _fill(reader)
    reader.search("river", owner="alice", k=3, mode="keyword")
    index = _index(reader)
    assert index.builds == 1
    writer = _base(path, keyword_index="sqlite")
    writer.add_texts(["glacier glacier penicillin ledger"], ids=["fresh"], owner="alice")
    writer.delete(["alice-notes-0"], owner="alice")
    hits = reader.search("glacier penicillin", owner="alice", k=50, mode="keyword")
    assert "fresh" in {h.document_id for h in hits}
    assert "alice-notes-0" not in {h.document_id for h in hits}
    for query in _queries(30):
        _assert_same(
            reader.store.keyword_candidates("alice", query, 1000),
            _ram(reader, "alice", query, 1000),
        )
    assert index.builds == 1 and index.replayed >= 2
    writer.close()
    reader.close()


def test_a_large_delta_is_folded_in_without_a_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    kb = _base(path)
    kb.add_texts(_texts(40), ids=[f"a{i}" for i in range(40)])
    index = RamKeywordIndex(kb.store, compact_min=10, compact_share=0.1)
    kb.searcher._keywords = index
    kb.search("river", k=3, mode="keyword")
    # Deletes (the last chunk too, so SQLite may reuse its rowid), re-adds, new tokens.
    kb.delete(["a39", "a3", "a7"])
    kb.add_texts([*_texts(30, seed=4), "zygote quokka"], ids=[f"b{i}" for i in range(31)])
    kb.add_texts(["river again"], ids=["a3"])
    assert kb.search("quokka", k=3, mode="keyword")
    assert index.builds == 1 and index.compactions == 1
    for query in [*_queries(30), "zygote quokka", "note 3", "river again"]:
        _assert_same(
            kb.store.keyword_candidates("default", query, 1000), _ram(kb, "default", query, 1000)
        )
    kb.close()
    again = _base(path)  # the compacted index was saved: loaded, not rebuilt
    assert again.search("quokka", k=3, mode="keyword")
    assert _index(again).loads == 1 and _index(again).builds == 0
    again.close()


def test_saved_beside_the_file_and_loaded_not_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    kb = _base(path)
    _fill(kb, 80)
    kb.search("river", owner="bob", k=3, mode="keyword")
    assert (tmp_path / "kb.db.kwidx").exists() and (tmp_path / "kb.db.kwidx.json").exists()
    kb.close()

    again = _base(path)
    hits = again.search("river contract", owner="bob", k=5, mode="keyword")
    assert hits
    assert _index(again).loads == 1 and _index(again).builds == 0
    _assert_same(
        again.store.keyword_candidates("bob", "river contract", 1000),
        _ram(again, "bob", "river contract", 1000),
    )
    again.close()

    (tmp_path / "kb.db.kwidx").write_bytes(b"not an index")  # damaged: rebuilt
    damaged = _base(path)
    assert damaged.search("river", owner="bob", k=3, mode="keyword")
    assert _index(damaged).builds == 1 and _index(damaged).loads == 0
    damaged.close()


def test_an_index_saved_before_later_writes_catches_up(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    kb = _base(path)
    kb.add_texts(_texts(50), ids=[f"a{i}" for i in range(50)])
    kb.search("river", k=3, mode="keyword")
    kb.close()
    plain = _base(path, keyword_index="sqlite")
    plain.add_texts(["comet comet orchard"], ids=["late"])
    plain.close()
    kb = _base(path)
    hits = kb.search("comet orchard", k=60, mode="keyword")
    assert "late" in {h.document_id for h in hits}
    assert _index(kb).loads == 1 and _index(kb).builds == 0 and _index(kb).replayed == 1
    kb.close()


def test_phrases_score_as_in_fts5(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    texts = [
        "Order A-4471 shipped",
        "A-4471 and A-4471 again, then a-4471",
        "a then 4471 apart",
        "4471 a reversed",
        "it's the earth's orbit, it's said",
        "an a-a-a chain: a a a a",
        "Zürich's lake, zurich s",
        *_texts(60),
    ]
    kb.add_texts(texts, ids=[f"t{i}" for i in range(len(texts))])
    for query in ("A-4471", "A-4471 shipped", "it's earth's", "a-a", "a-a-a orbit", "Zürich's"):
        want = kb.store.keyword_candidates("default", query, 1000)
        assert want
        _assert_same(want, _ram(kb, "default", query, 1000))
    hits = kb.search("A-4471", k=5, mode="keyword")
    assert [h.document_id for h in hits][:2] == ["t1", "t0"]
    kb.close()


def test_phrases_in_chunks_added_since_the_build_score_as_in_fts5(tmp_path: Path) -> None:
    # Chunks written after the index was built live in its delta: a phrase found in
    # them by FTS5 must map back to their delta positions, not to a built chunk.
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(["Order B-2290 shipped", *_texts(40)], ids=[f"old{i}" for i in range(41)])
    _ram(kb, "default", "B-2290", 10)  # built now
    kb.add_texts(
        ["B-2290 and B-2290 again", "a spare b-2290 part, then B 2290 apart"],
        ids=["new0", "new1"],
    )
    for query in ("B-2290", "B-2290 shipped", "spare b-2290"):
        want = kb.store.keyword_candidates("default", query, 1000)
        assert len(want) >= 2
        _assert_same(want, _ram(kb, "default", query, 1000))
    assert _index(kb).builds == 1 and _index(kb).replayed >= 2
    kb.close()


def test_filters_run_in_sql_with_the_same_answer(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    texts = ["Order A-4471 shipped", "a then 4471 apart", "4471 a reversed"]
    kb.add_texts(texts, ids=["x", "y", "z"], metadatas=[{"n": 1}, {"n": 2}, {"n": 3}])
    plain = _base(tmp_path / "kb.db", keyword_index="sqlite")
    for query, flt in (("4471", {"n": {"$gte": 2}}), ("A-4471 shipped", None)):
        want = plain.search(query, k=5, mode="keyword", filter=flt)
        got = kb.search(query, k=5, mode="keyword", filter=flt)
        assert got
        assert [(h.chunk_id, h.score) for h in got] == [(h.chunk_id, h.score) for h in want]
    plain.close()
    kb.close()


def test_hybrid_results_equal_the_sql_leg(backend_url: str) -> None:
    memory = _base(backend_url)
    _fill(memory, 120)
    plain = _base(backend_url, keyword_index="sqlite")
    for query in _queries(15, seed=11):
        for mode in ("keyword", "hybrid"):
            want = plain.search(query, owner="alice", k=8, mode=mode)
            got = memory.search(query, owner="alice", k=8, mode=mode)
            assert [h.score for h in got] == pytest.approx([h.score for h in want], rel=1e-9)
            assert {h.chunk_id for h in got} <= {h.chunk_id for h in want} | {
                h.chunk_id for h in plain.search(query, owner="alice", k=30, mode=mode)
            }
    memory.close()
    plain.close()


def test_hostile_queries_never_fail(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(_texts(30), ids=[f"a{i}" for i in range(30)])
    rng = random.Random(5)
    for _ in range(100):
        query = "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(0, 40)))
        got = _ram(kb, "default", query, 20)
        want = kb.store.keyword_candidates("default", query, 1000)
        if got is not None:
            assert {r for r, _ in got} <= {r for r, _ in want}
            assert len(got) == min(20, len(want))
    assert _ram(kb, "default", "", 5) == []
    assert _ram(kb, "default", "river", 0) == []
    kb.close()


def test_an_empty_base_and_unknown_settings(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    assert kb.search("river", k=3, mode="keyword") == []
    assert _index(kb).describe()["chunks"] == 0
    with pytest.raises(InvalidInputError, match="keyword_index"):
        SearchSettings(keyword_index="lucene")
    kb.close()
