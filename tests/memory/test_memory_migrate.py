"""copy_memory: a memory moved between SQLite and PostgreSQL, identical and never re-embedded."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import ConfigError
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.migrate import copy_memory
from memo_core.storage import open_database

from .conftest import MONDAY, day

pytestmark = pytest.mark.usefixtures("postgres_server")

QUERIES = [
    "where do I live?",
    "Suggest an antibiotic for a sore throat",
    "When is my 1:1 with Priyanka?",
    "what do I think about the budget",
    "Что купить маме на день рождения?",
]


class CountingEmbedder(HashEmbedder):
    """Counts document embeddings: opening a copied memory must make none."""

    def __init__(self) -> None:
        super().__init__()
        self.documents = 0

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.documents += len(texts)
        return super().embed_documents(texts)


def _fill(url: str) -> None:
    with MemoHood(url, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        memory.capture("I live in Berlin.", namespace="u1", at=MONDAY, session_id="s1")
        memory.capture("I moved to Lisbon.", namespace="u1", at=day(5), session_id="s1")
        memory.capture("By the way, I'm allergic to penicillin.", namespace="u1", at=day(6))
        memory.capture(
            "My weekly 1:1 with Priyanka is on Tuesdays at 10:00.", namespace="u1", at=day(7)
        )
        memory.capture(
            "Priyanka shifted our 1:1 to Wednesdays at 15:00.", namespace="u1", at=day(9)
        )
        memory.capture("У мамы день рождения 12 мая, она любит пионы.", namespace="u1", at=day(9))
        memory.capture("You could try a stand-up desk.", namespace="u1", role="assistant")
        memory.capture("I think the budget is too tight.", namespace=("u1", "s2"), at=day(10))
        memory.capture("I live in Oslo.", namespace="u2", at=day(3))
        memory.put_item(("u1", "prefs"), "theme", {"text": "dark theme", "n": 1}, at=day(11))
        memory.put_item(("u1", "prefs"), "theme", {"text": "light theme", "n": 2}, at=day(12))
        memory.put_item(("u1", "prefs"), "raw", {"blob": [1, 2]}, index_text="", at=day(12))
        memory.add_message("u1", "chat-1", "user", "Hello there", capture=False, at=day(13))
        memory.add_message("u1", "chat-1", "assistant", "Hi! How can I help?", at=day(13))
        memory.remember("I had pizza for lunch.", namespace="u1", at=day(1))
        pinned = memory.remember("My shoe size is 43.", namespace="u1", at=day(2))
        memory.pin(pinned.id, namespace="u1", at=day(2))
        report = memory.consolidate(day(400), namespace="u1")
        assert report.archived  # an archived fact travels too


def _snapshot(memory: MemoHood) -> dict[str, object]:
    """Everything a user can read back, at fixed times."""
    facts = memory.list_facts(
        "u1", include_superseded=True, include_archived=True, prefix=True, at=day(20)
    )
    recalls = [
        [
            (f.id, f.statement, f.version)
            for f in memory.recall(q, namespace="u1", use_gate=False, at=day(20)).facts
        ]
        for q in QUERIES
    ]
    then = memory.recall("Where do I live?", namespace="u1", as_of=day(3), use_gate=False)
    return {
        "facts": [
            (f.id, f.chain_id, f.version, f.valid_from, f.valid_to, f.superseded_by, f.pinned)
            for f in facts
        ],
        "strengths": [(f.id, f.strength, f.archived) for f in facts],
        "history": [[v.id for v in memory.history(f.id, namespace=f.namespace)] for f in facts],
        "recall": recalls,
        "as_of": [f.statement for f in then.facts],
        "items": [(f.key, f.item_value) for f in memory.search_items("u1", "theme")],
        "messages": [(m.role, m.content, m.at) for m in memory.get_messages("chat-1", "u1")],
        "turns": [t.text for t in memory.recall("budget", namespace=("u1", "s2")).turns],
        "other_user": [f.statement for f in memory.list_facts("u2")],
    }


def _vectors(url: str) -> dict[str, dict[int, list[float]]]:
    with MemoHood(url, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        store = memory._store
        out = {}
        for kind, base in (("facts", "mem_facts"), ("turns", "mem_turns")):
            rowids = [int(r[0]) for r in memory.db.query(f"SELECT rowid FROM {base}")]
            out[kind] = store.read_vectors(kind, rowids, 256)
        return out


@pytest.mark.parametrize("direction", ["sqlite->postgres", "postgres->sqlite"])
def test_copy_keeps_rows_chains_vectors_and_recall(
    direction: str, tmp_path: Path, postgres_url: str
) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'memory.db'}"
    src, dst = (sqlite_url, postgres_url) if direction[0] == "s" else (postgres_url, sqlite_url)
    _fill(src)
    with open_database(src) as a, open_database(dst) as b:
        counts = copy_memory(a, b, batch=3)  # small batches: the paging is exercised
        for table, n in counts.items():
            assert a.query_one(f"SELECT count(*) FROM {table}")[0] == n
            assert b.query_one(f"SELECT count(*) FROM {table}")[0] == n
    assert counts["mem_facts"] == 12 and counts["mem_facts_vec"] == 11  # one item unindexed
    assert counts["mem_facts_fts"] == 11 and counts["mem_turns"] == counts["mem_turns_fts"]
    assert counts["mem_messages"] == 2 and counts["mem_meta"] == 1

    assert _vectors(dst) == _vectors(src)  # bit-identical float32 vectors
    if dst == postgres_url:  # the indexes dropped for the bulk copy are back
        with open_database(dst) as b:
            names = {
                r[0]
                for r in b.query(
                    "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
                )
            }
        assert {"mem_facts_vec_hnsw", "mem_turns_vec_hnsw", "mem_facts_fts_raw"} <= names
        assert {"mem_facts_fts_stemmed", "mem_turns_fts_raw", "mem_turns_fts_stemmed"} <= names
    counting = CountingEmbedder()
    with MemoHood(dst, embedder=counting, gate=RecallGate()) as copied:
        assert counting.documents == 0  # nothing was (re-)embedded
        after = _snapshot(copied)
        new = copied.remember("I started learning Go.", namespace="u1", at=day(21))
        assert (
            copied.get(new.id, namespace="u1").statement == "I started learning Go."
        )  # rowids move on
    with MemoHood(src, embedder=HashEmbedder(), gate=RecallGate()) as original:
        before = _snapshot(original)
    assert after == before
    assert "I live in Berlin." in before["as_of"] and "I moved to Lisbon." not in before["as_of"]
    assert any(len(h) == 2 for h in before["history"])  # chains really were copied


def test_copy_refuses_a_destination_with_memory_and_a_different_embedder(
    tmp_path: Path, postgres_url: str
) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'memory.db'}"
    _fill(sqlite_url)
    with MemoHood(postgres_url, embedder=HashEmbedder(64), gate=RecallGate()) as other:
        pass
    with open_database(sqlite_url) as a, open_database(postgres_url) as b:
        with pytest.raises(ConfigError, match="set up for"):
            copy_memory(a, b)
        assert b.query_one("SELECT count(*) FROM mem_facts")[0] == 0
    with MemoHood(postgres_url, embedder=HashEmbedder(64), gate=RecallGate()) as other:
        other.remember("I live in Paris.", namespace="u9")
    other_sqlite = f"sqlite:///{tmp_path / 'other.db'}"
    with MemoHood(other_sqlite, embedder=None, gate=RecallGate()) as keyword_only:
        keyword_only.remember("I live in Rome.", namespace="u9")
    with open_database(other_sqlite) as a, open_database(postgres_url) as b:
        with pytest.raises(ConfigError, match="already holds memory"):
            copy_memory(a, b)
        assert b.query_one("SELECT count(*) FROM mem_facts")[0] == 1
