"""memo's BM25 constants: one home, hand-worked numbers, and every keyword leg using them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memo_core.memory import MemoHood
from memo_core.memory.keyword_scope import scoped_match
from memo_core.search import bm25


def test_idf_is_fts5s_with_its_floor() -> None:
    assert bm25.idf(1, 10) == pytest.approx(math.log(9.5 / 1.5))  # 1.8458...
    assert bm25.idf(5, 10) == bm25.IDF_FLOOR  # ln(5.5 / 5.5) = 0 is not positive
    assert bm25.idf(9, 10) == bm25.IDF_FLOOR


def test_the_fts5_call_carries_the_column_weights_in_column_order() -> None:
    assert bm25.COLUMNS == ("raw", "stemmed")
    assert bm25.fts5_bm25("chunks_fts") == "bm25(chunks_fts, 1.0, 0.6)"


def test_memory_ranks_with_the_knowledge_bases_weights_on_sqlite(tmp_path: Path) -> None:
    """A fact that matches by its stem alone scores 0.6 of a raw match, as in the KB."""
    with MemoHood(tmp_path / "m.db", embedder=None) as memory:  # keyword ranking only
        memory.remember("She goes running on Sundays.", namespace="u")
        memory.remember("He runs a small bakery near the station.", namespace="u")
        store, db = memory._store, memory.db
        stored = [str(r[0]) for r in db.query("SELECT DISTINCT ns FROM mem_facts")]
        got = dict(store.search_keyword("facts", "running", stored, 10))
        assert len(got) == 2  # "runs" matches through its stem only

        def scores(call: str) -> dict[int, float]:
            rows = db.query(
                f"SELECT rowid, {call} FROM mem_facts_fts WHERE mem_facts_fts MATCH ?",
                [scoped_match("running", stored)],
            )
            return {int(r[0]): float(r[1]) for r in rows}

        weighted, unweighted = (
            scores("bm25(mem_facts_fts, 1.0, 0.6)"),
            scores("bm25(mem_facts_fts)"),
        )
        assert got == pytest.approx(weighted)
        assert got != pytest.approx(unweighted)  # the weights are not FTS5's defaults
