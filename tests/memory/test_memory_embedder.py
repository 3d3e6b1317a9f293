"""Embedder fingerprint guard, keyword-only mode and vectors actually used."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import EmbedderMismatchError, InvalidInputError, MissingDependencyError
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
    with MemoHood(path, embedder=None, gate=RecallGate()) as keyword_only:
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


def test_the_local_embedder_is_the_default(tmp_path: Path) -> None:
    """``MemoHood(path)`` embeds with the offline model, as ``MemoBase(path)`` does."""
    pytest.importorskip("fastembed", reason="the local embedder needs memo[local]")
    from memo_core.embedders import DEFAULT_LOCAL_MODEL

    with MemoHood(tmp_path / "m.db", gate=RecallGate()) as memory:
        if not memory.has_vectors:
            pytest.skip("vector search (sqlite-vec) is not available here")
        assert memory.embedder is not None
        assert memory.embedder.fingerprint.model == DEFAULT_LOCAL_MODEL
        memory.remember("I have played the cello since I was nine.", namespace="u1", at=MONDAY)
        memory.remember("My flat is on the fourth floor.", namespace="u1", at=MONDAY)
        # No shared word: only the vectors can find it (keyword-only recalls nothing here).
        recall = memory.recall(
            "which musical instrument do I practise?", namespace="u1", at=day(1), use_gate=False
        )
        assert [f.statement for f in recall.facts] == ["I have played the cello since I was nine."]


def test_without_the_local_extra_memory_and_kb_are_keyword_only_and_say_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from memo_core.embedders import auto, fastembed
    from memo_core.kb.base import MemoBase

    def missing() -> None:
        raise MissingDependencyError("fastembed", "local", "local embeddings")

    monkeypatch.setattr(fastembed, "default_local_embedder", missing)
    monkeypatch.setattr(auto, "_warned", threading.Event())
    with caplog.at_level(logging.WARNING, logger="memo_core.embedders.auto"):
        for name in ("a.db", "b.db"):
            with MemoHood(tmp_path / name, gate=RecallGate()) as memory:
                assert memory.embedder is None and not memory.has_vectors
        with MemoBase(tmp_path / "kb.db") as kb:
            assert kb.embedder is None
    warnings = [r for r in caplog.records if r.name == "memo_core.embedders.auto"]
    assert len(warnings) == 1
    assert "keyword-only" in warnings[0].getMessage() and "memo[local]" in warnings[0].getMessage()


def test_an_unknown_embedder_spec_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown embedder spec"):
        MemoHood(tmp_path / "m.db", embedder="bert", gate=RecallGate())
