"""The knowledge-store methods callers above the storage layer use, alike on both backends.

Each test runs on SQLite and on PostgreSQL (``backend_url``) and checks fixed
answers, so a backend whose method is inert or counts differently fails here.
"""

from __future__ import annotations

import pytest

from memo_core.kb import MemoBase

# Sentences written for this test: "lighthouse" in two chunks, "keeper" in one,
# "harbour" (the stem of "harbours") in one, "the" in all three.
TEXTS = {
    "coast1": "The lighthouse keeper climbs the stairs before dusk.",
    "coast2": "Ships steer by the lighthouse when fog covers the harbours.",
    "farm": "Apple trees in the orchard blossom late in the cold spring.",
}


@pytest.fixture
def base(backend_url: str) -> MemoBase:
    kb = MemoBase(backend_url, embedder=None)
    kb.add_texts(list(TEXTS.values()), ids=list(TEXTS))
    return kb


def test_document_frequencies_count_chunks_per_term(base: MemoBase) -> None:
    terms = ["lighthouse", "keeper", "harbour", "orchard", "the", "submarine"]
    with base:
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
    with base:
        assert base.store.chunk_total() == 3
        assert base.store.document_frequencies(["lighthouse", "the"]) == {
            "lighthouse": 2,
            "the": 3,
        }
        base.delete(["coast1", "coast2"])
        assert base.store.chunk_total() == 1
        assert base.store.document_frequencies(["lighthouse", "the"]) == {
            "lighthouse": 0,
            "the": 1,
        }
