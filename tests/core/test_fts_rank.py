"""The knowledge base's keyword leg on SQLite: FTS5 finds, memo's BM25 ranks.

What must hold: the SQL leg's scores are memo's formula with the knowledge base's
length normalisation (``bm25.KB_B``), computed here by hand from token counts,
not FTS5's ``bm25()`` (b = 0.75); the order that follows from it; FTS5's varints
(a chunk past 127 tokens) read right.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.kb.fts_rank import varints
from memo_core.search import bm25
from memo_core.search.hybrid import SearchSettings
from memo_core.search.keyword_index import index_tokens

TEXTS = [
    "Glacier walk.",
    "A field report: the glacier moved and the glacier cracked.",
    "Orchard notes about apples and pears in the valley.",
    "Harbour log: ships, cranes and containers.",
]


def _base(path: Path) -> MemoBase:
    settings = SearchSettings(keyword_index="sqlite", vector_index="sqlite")
    return MemoBase(path, embedder=HashEmbedder(16), settings=settings)


def _by_hand(kb: MemoBase, query_word: str) -> dict[str, float]:
    """memo's BM25 of a one-word query, from the indexed columns' tokens."""
    ids = {int(r[0]): str(r[1]) for r in kb.db.query("SELECT rowid, id FROM chunks")}
    tokens = {
        ids[rowid]: (index_tokens(raw), index_tokens(stemmed))
        for rows in kb.store.backend.keyword_rows()
        for rowid, raw, stemmed, _, _ in rows
    }
    mean = sum(len(a) + len(b) for a, b in tokens.values()) / len(tokens)
    out: dict[str, float] = {}
    for column, word in ((0, query_word), (1, query_word)):  # "glacier" stems to itself
        holders = {cid: cols[column].count(word) for cid, cols in tokens.items()}
        holders = {cid: f for cid, f in holders.items() if f}
        idf = bm25.idf(len(holders), len(tokens))
        weight = bm25.COLUMN_WEIGHTS[bm25.COLUMNS[column]]
        for cid, f in holders.items():
            length = len(tokens[cid][0]) + len(tokens[cid][1])
            norm = bm25.K1 * (1 - bm25.KB_B + bm25.KB_B * length / mean)
            wf = weight * f
            out[cid] = out.get(cid, 0.0) - idf * wf * (bm25.K1 + 1) / (wf + norm)
    return out


def test_the_sql_leg_ranks_with_the_knowledge_bases_b(tmp_path: Path) -> None:
    kb = _base(tmp_path / "kb.db")
    kb.add_texts(TEXTS * 3, ids=[f"t{i}" for i in range(len(TEXTS) * 3)])
    rowid_of = {int(r[0]): str(r[1]) for r in kb.db.query("SELECT rowid, id FROM chunks")}
    got = {rowid_of[r]: s for r, s in kb.store.keyword_candidates("default", "glacier", 100)}
    want = _by_hand(kb, "glacier")
    assert got.keys() == want.keys() and len(got) == 6
    for cid, score in want.items():
        assert got[cid] == pytest.approx(score, rel=1e-9)
    fts5 = {
        rowid_of[int(r[0])]: float(r[1])
        for r in kb.db.query(
            f"SELECT rowid, {bm25.fts5_bm25('chunks_fts')} FROM chunks_fts"
            " WHERE chunks_fts MATCH 'raw : glacier OR stemmed : glacier'"
        )
    }
    assert fts5.keys() == got.keys()
    assert not all(math.isclose(fts5[c], got[c], rel_tol=1e-6) for c in got)  # not b = 0.75
    # The report says "glacier" twice in ten words: with b = 0.4 its length costs it
    # less than FTS5's 0.75 would, and it outranks the two-word note.
    best = min(got, key=lambda c: got[c])
    assert kb.db.query_one("SELECT text FROM chunks WHERE id = ?", [best])[0] == TEXTS[1]
    assert min(fts5, key=lambda c: fts5[c]) != best
    hits = kb.search("glacier", k=2, mode="keyword")
    assert hits[0].text == TEXTS[1]
    kb.close()


def test_varints_and_long_chunks(tmp_path: Path) -> None:
    assert varints(bytes([0x05, 0x81, 0x00, 0xFF, 0x7F])) == [5, 128, 16383]
    kb = _base(tmp_path / "kb.db")
    long_text = " ".join(f"word{i % 50} glacier" for i in range(200))  # 400+ tokens a column
    kb.add_texts([long_text, "glacier", "orchard"], ids=["long", "short", "other"])
    size = kb.db.query_one(
        "SELECT d.sz FROM chunks_fts_docsize d JOIN chunks c ON c.rowid = d.id WHERE c.id = ?",
        ["long"],
    )[0]
    rowid = kb.db.query_one("SELECT rowid FROM chunks WHERE id = 'long'")[0]
    [(_, raw, stemmed, _, _)] = next(kb.store.backend.keyword_rows([rowid]))
    assert varints(bytes(size)) == [len(index_tokens(raw)), len(index_tokens(stemmed))]
    ranked = kb.store.keyword_candidates("default", "glacier", 10)
    assert len(ranked) == 2
    kb.close()
