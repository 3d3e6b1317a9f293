"""``memo migrate``: a base copied between SQLite and PostgreSQL, verified, never re-embedded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.embedders import HashEmbedder
from memo_core.errors import ConfigError
from memo_core.kb import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.memory import MemoHood
from memo_core.migrate import migrate

pytestmark = pytest.mark.usefixtures("postgres_server")

PARAGRAPHS = [
    "Penicillin was discovered by Alexander Fleming in 1928 at St Mary's Hospital.",
    "The Eiffel Tower was completed in 1889 and is 330 metres tall.",
    "Пушкин родился в Москве в 1799 году.",
]


class CountingEmbedder(HashEmbedder):
    """A hash embedder that counts document embeddings (a migration must make none)."""

    def __init__(self) -> None:
        super().__init__(64)
        self.document_calls = 0

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        self.document_calls += len(texts)
        return super().embed_documents(texts)


def _fill(url: str) -> None:
    with MemoBase(url, embedder=HashEmbedder(64)) as kb:
        kb.add_texts(PARAGRAPHS, metadatas=[{"n": i} for i in range(3)], ids=["a", "b", "c"])
    SpendLedger(url).charge("cohere", "rerank", 1)


def _fill_memory(url: str) -> None:
    with MemoHood(url, embedder=HashEmbedder(64)) as hood:
        hood.remember("I am allergic to penicillin.", namespace="user-1")
        hood.remember("I live in Berlin.", namespace="user-1", key="home")
        hood.remember("I live in Lisbon.", namespace="user-1", key="home")


def _search(url: str, embedder: HashEmbedder) -> list[tuple[str, str]]:
    with MemoBase(url, embedder=embedder) as kb:
        return [(h.document_id, h.text) for h in kb.search("when was penicillin found", k=3)]


@pytest.mark.parametrize("direction", ["sqlite->postgres", "postgres->sqlite"])
def test_knowledge_base_round_trip(direction: str, tmp_path: Path, postgres_url: str) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'kb.db'}"
    src, dst = (
        (sqlite_url, postgres_url)
        if direction.startswith("sqlite")
        else (
            postgres_url,
            sqlite_url,
        )
    )
    _fill(src)
    report = migrate(src, dst)
    assert report.verified
    assert {"kb", "ledger"} <= set(report.parts)
    assert report.tables["spend"] == (1, 1)
    counting = CountingEmbedder()
    assert _search(dst, counting) == _search(src, HashEmbedder(64))
    assert counting.document_calls == 0  # the vectors were copied, not recomputed
    with MemoBase(dst, embedder=counting) as kb:
        assert kb.search("Пушкин", k=1, mode="keyword")[0].document_id == "c"
        assert [h.document_id for h in kb.search("tower", k=3, filter={"n": 1})] == ["b"]


@pytest.mark.parametrize("direction", ["sqlite->postgres", "postgres->sqlite"])
def test_memory_round_trip(direction: str, tmp_path: Path, postgres_url: str) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'memory.db'}"
    src, dst = (
        (sqlite_url, postgres_url)
        if direction.startswith("sqlite")
        else (
            postgres_url,
            sqlite_url,
        )
    )
    _fill_memory(src)
    report = migrate(src, dst)
    assert report.verified and "memohood" in report.parts
    with (
        MemoHood(src, embedder=HashEmbedder(64)) as a,
        MemoHood(dst, embedder=HashEmbedder(64)) as b,
    ):
        query = "where do I live and what am I allergic to?"
        recalled = [f.statement for f in a.recall(query, namespace="user-1", use_gate=False).facts]
        assert "I live in Lisbon." in recalled
        assert recalled == [
            f.statement for f in b.recall(query, namespace="user-1", use_gate=False).facts
        ]
        every = a.list_facts("user-1", include_superseded=True)
        assert len(every) == 3
        assert [(f.statement, f.valid_to) for f in every] == [
            (f.statement, f.valid_to) for f in b.list_facts("user-1", include_superseded=True)
        ]


def test_refuses_a_destination_with_data(tmp_path: Path, postgres_url: str) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'kb.db'}"
    _fill(sqlite_url)
    _fill(postgres_url)
    with pytest.raises(ConfigError, match="already holds data"):
        migrate(sqlite_url, postgres_url)


def test_refuses_a_source_that_is_not_a_base(tmp_path: Path, postgres_url: str) -> None:
    with pytest.raises(ConfigError, match="holds no memo base"):
        migrate(f"sqlite:///{tmp_path / 'empty.db'}", postgres_url)


def test_cli_reports_verified_counts(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'kb.db'}"
    _fill(sqlite_url)
    code = main(["migrate", "--from", sqlite_url, "--to", postgres_url, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["verified"] is True
    assert report["tables"]["chunks"] == {"source": 3, "destination": 3}
