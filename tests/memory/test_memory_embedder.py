"""Embedder fingerprint guard, keyword-only mode and vectors actually used."""

from __future__ import annotations

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import EmbedderMismatchError
from memo_core.memory import MemoHood, RecallGate

from .conftest import MONDAY, day


def test_a_different_embedder_is_refused(backend_url: str) -> None:
    path = backend_url
    with MemoHood(path, embedder=HashEmbedder(256), gate=RecallGate()) as memory:
        if not memory.has_vectors:
            pytest.skip("vector search (sqlite-vec / pgvector) is not available here")
        memory.capture("I'm allergic to penicillin.", namespace="u1", at=MONDAY)
    with pytest.raises(EmbedderMismatchError, match="hash"):
        MemoHood(path, embedder=HashEmbedder(128), gate=RecallGate())
    with MemoHood(path, embedder=HashEmbedder(256), gate=RecallGate()) as again:
        assert len(again.list_facts("u1")) == 1


def test_rows_written_without_an_embedder_get_vectors_later(backend_url: str) -> None:
    path = backend_url
    with MemoHood(path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        if not memory.has_vectors:
            pytest.skip("vector search (sqlite-vec / pgvector) is not available here")
    with MemoHood(path, gate=RecallGate()) as keyword_only:
        assert not keyword_only.has_vectors
        keyword_only.capture("I'm allergic to penicillin.", namespace="u1", at=MONDAY)
        recall = keyword_only.recall("penicillin?", namespace="u1", at=day(1))
        assert "penicillin" in recall.block
    with MemoHood(path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        count = memory.db.query_one("SELECT count(*) FROM mem_facts_vec")[0]
        assert count == 1


def test_vector_leg_finds_what_keywords_miss(backend_url: str) -> None:
    embedder = HashEmbedder()
    with MemoHood(backend_url, embedder=embedder, gate=RecallGate()) as memory:
        if not memory.has_vectors:
            pytest.skip("vector search (sqlite-vec / pgvector) is not available here")
        memory.remember(
            "Our deployment pipeline uses Kubernetes clusters.",
            namespace="u1",
            category="fact",
            at=MONDAY,
        )
        calls = embedder.calls
        # "kubernetes" shares character trigrams with "kubernete" but not the stem.
        recall = memory.recall("kubernete", namespace="u1", at=day(1))
        assert embedder.calls == calls + 1  # one query embedding
        assert recall.facts and recall.facts[0].statement.startswith("Our deployment")
