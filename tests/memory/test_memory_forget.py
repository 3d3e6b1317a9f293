"""Forget deletes for real: every version, FTS rows, vector rows and source turns."""

from __future__ import annotations

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, RecallGate

from .conftest import MONDAY, day, keyword_index_rowids


def _counts(memory: MemoHood) -> dict[str, int]:
    q = memory.db.query_one
    return {
        "facts": q("SELECT count(*) FROM mem_facts")[0],
        "facts_fts": q("SELECT count(*) FROM mem_facts_fts")[0],
        "facts_vec": q("SELECT count(*) FROM mem_facts_vec")[0],
        "turns": q("SELECT count(*) FROM mem_turns")[0],
        "turns_fts": q("SELECT count(*) FROM mem_turns_fts")[0],
        "turns_vec": q("SELECT count(*) FROM mem_turns_vec")[0],
    }


def test_forget_by_id_removes_all_versions_and_index_rows(memory: MemoHood) -> None:
    if not memory.has_vectors:
        pytest.skip("vector search (sqlite-vec / pgvector) is not available here")
    memory.capture("I live in Berlin.", namespace="u1", at=MONDAY)
    latest = memory.capture("I moved to Lisbon.", namespace="u1", at=day(5)).added[0]
    memory.capture("I'm allergic to penicillin.", namespace="u1", at=day(6))
    before = _counts(memory)
    assert before["facts"] == 3 and before["facts_vec"] == 3 and before["facts_fts"] == 3
    deleted = memory.forget(latest.id, namespace="u1")
    assert deleted == 2
    after = _counts(memory)
    assert after["facts"] == after["facts_fts"] == after["facts_vec"] == 1
    assert after["turns"] == after["turns_fts"] == after["turns_vec"] == 1  # source turns gone
    recall = memory.recall("where do I live? Berlin or Lisbon?", namespace="u1", at=day(7))
    assert "Berlin" not in recall.block and "Lisbon" not in recall.block
    assert keyword_index_rowids(memory, "mem_facts_fts", "Lisbon") == []
    assert keyword_index_rowids(memory, "mem_facts_fts", "penicillin") != []


def test_forget_without_an_embedder_still_deletes_the_vectors(backend_url: str) -> None:
    """A handle opened keyword-only must not leave vectors behind for a later rowid."""
    with MemoHood(backend_url, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        if not memory.has_vectors:
            pytest.skip("vector search (sqlite-vec / pgvector) is not available here")
        fact = memory.remember("I live in Berlin.", namespace="u1", at=MONDAY)
    with MemoHood(backend_url, embedder=None, gate=RecallGate()) as keyword_only:
        assert keyword_only.forget(fact.id, namespace="u1") == 1
    with MemoHood(backend_url, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        assert _counts(memory)["facts_vec"] == 0
        again = memory.remember("I am allergic to penicillin.", namespace="u1", at=day(1))
        # The new row got its own vector (it may reuse the deleted rowid on SQLite).
        assert _counts(memory)["facts_vec"] == 1
        assert memory.recall("penicillin", namespace="u1", use_gate=False).facts[0].id == again.id


def test_forget_by_query_only_touches_matching_facts(memory: MemoHood) -> None:
    memory.capture("I'm allergic to penicillin.", namespace="u1", at=MONDAY)
    memory.capture("We decided to use Flyway for migrations.", namespace="u1", at=MONDAY)
    memory.capture("I'm allergic to penicillin, too.", namespace="u2", at=MONDAY)
    assert memory.forget(namespace="u1", query="penicillin allergic") == 1
    assert [f.category for f in memory.list_facts("u1")] == ["decision"]
    assert len(memory.list_facts("u2")) == 1  # another user's memory is untouched
    with pytest.raises(InvalidInputError):
        memory.forget(namespace="u1")
