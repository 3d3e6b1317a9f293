"""bench/misses.py: why a gold answer was not read, and what won over the gold sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.extractive import PickCandidate
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.kb.records import ChunkInput

pytest.importorskip("numpy", reason="the benchmarks need numpy (pip install 'memo[bench]')")

BENCH = Path(__file__).resolve().parents[2] / "bench"

# One manual of our own in three chunks, all about the lantern, and a short note.
MANUAL = [
    "The brass lantern burns lamp oil for nine hours on one filling.",
    "Trim the lantern wick before lighting the lantern oil again.",
    "A lantern left burning lamp oil overnight blackens its glass chimney.",
]
NOTE = "The lantern shop on the quay sells lamp oil by the litre."


@pytest.fixture
def misses(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import misses

    return misses


@pytest.fixture
def base(tmp_path: Path) -> Any:
    kb = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    text, chunks, at = "", [], 0
    for part in MANUAL:
        chunks.append(ChunkInput(part, at, at + len(part)))
        text += part + "\n\n"
        at = len(text)
    kb.add_document(text.strip(), document_id="manual", chunks=chunks)
    kb.add_texts([NOTE], ids=["note"])
    yield kb
    kb.close()


def _holder(kb: Any, words: str) -> set[str]:
    return {h.chunk_id for h in kb.filter_chunks() if words in h.text}


def test_a_gold_answer_in_no_chunk_is_told_apart(misses: Any, base: Any) -> None:
    engine = GuardedAnswerer(base, k=2)
    assert misses.why_not_read(base, engine, "How long does the lantern burn?", set()) == {
        "cause": "in no chunk"
    }


def test_a_third_chunk_of_one_document_is_held_back_by_diversifying(misses: Any, base: Any) -> None:
    engine = GuardedAnswerer(base, k=3)
    question = "lantern lamp oil"
    read = {h.chunk_id for h in engine.retrieve(question)}
    manual = {h.chunk_id for h in base.filter_chunks() if h.document_id == "manual"}
    assert len(read & manual) == 2  # at most two per document
    [unread] = manual - read
    why = misses.why_not_read(base, engine, question, {unread})
    assert why["cause"] == "held back by diversifying"
    assert why["pool_rank"] <= engine.k


def test_a_hit_past_the_best_k_is_in_the_pool_past_k(misses: Any, base: Any) -> None:
    engine = GuardedAnswerer(base, k=1)
    question = "Where does the shop on the quay sell lamp oil?"
    [first] = engine.retrieve(question)
    others = {h.chunk_id for h in base.filter_chunks()} - {first.chunk_id}
    pool = [h.chunk_id for h in base.search(question, k=2)]
    unread = {pool[1]} & others
    assert unread
    assert misses.why_not_read(base, engine, question, unread)["cause"] == "in the pool past k"


def _candidate(start: int, end: int, chunk: str = "c", **features: float) -> PickCandidate:
    return PickCandidate(chunk, start, end, "", dict(features), True)


def test_the_winner_is_named_by_where_it_stands_against_the_gold_sentence(misses: Any) -> None:
    text = "Open the valve. It then hisses.\n  |  Close it after use. Store it dry."
    texts = {"c": text, "d": "Another passage."}
    gold = _candidate(16, 31)  # "It then hisses."
    kind = misses._winner_kind
    assert kind(_candidate(0, 15), gold, texts) == "sentence before the gold"
    assert kind(_candidate(37, 56), gold, texts) == "sentence after the gold"  # past a gutter
    assert kind(_candidate(57, 70), gold, texts) == "same passage"
    assert kind(_candidate(0, 16, chunk="d"), gold, texts) == "another passage"
    assert kind(_candidate(0, 15), None, texts) == "another passage"
    assert kind(_candidate(0, 15, signature=1.0), gold, texts) == "signature"
    assert kind(_candidate(0, 15, after_signature=1.0), gold, texts) == "under a signature"
    assert kind(_candidate(0, 15, after_heading=1.0), gold, texts) == "under a heading"
