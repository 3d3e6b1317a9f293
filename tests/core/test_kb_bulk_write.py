"""Texts stored with precomputed vectors go in a batch per transaction (``kb.base.BULK_BATCH``).

The batched path must build the same base as storing the texts one call at a time
(rows, keyword index, vectors, search results), replace a document repeated inside
one batch like two calls would, and keep each batch all-or-nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.kb import base as kb_base

EMBEDDER = HashEmbedder(64)
TEXTS = [
    "The harbour crane lifts forty containers an hour.",
    "Tide tables for the northern pier are posted weekly.",
    "Ferry tickets are refunded up to a day before sailing.",
    "The lighthouse keeper logs every passing tanker.",
    "Dock workers change shifts at six in the morning.",
    "Fishing boats unload their catch before dawn.",
    "The customs office closes at noon on Saturdays.",
    "Storm warnings raise the red flag on the harbour mast.",
    "Cargo manifests are checked twice before departure.",
    "The pilot boat guides large ships through the channel.",
    "Harbour fees are charged per metre of hull length.",
]
QUERIES = ["harbour crane containers", "ferry refund", "storm warning flag", "pilot channel ships"]


def _ids(n: int) -> list[str]:
    return [f"doc-{i}" for i in range(n)]


def _snapshot(kb: MemoBase) -> dict[str, object]:
    table = kb.store.vector_table
    rows = kb.db.query(
        "SELECT d.id, c.id, c.text, c.metadata, c.flags FROM chunks c "
        "JOIN documents d ON d.rowid = c.doc_rowid ORDER BY d.id"
    )
    return {
        # PostgreSQL hands JSON back decoded, SQLite as text
        "rows": [
            (*r[:3], r[3] if isinstance(r[3], dict) else json.loads(r[3]), r[4]) for r in rows
        ],
        "fts": kb.db.query_one("SELECT count(*) FROM chunks_fts")[0],
        "vectors": kb.db.query_one(f"SELECT count(*) FROM {table}")[0],
        "search": {
            (q, mode): [h.chunk_id for h in kb.search(q, k=5, mode=mode)]
            for q in QUERIES
            for mode in ("keyword", "vector", "hybrid")
        },
    }


def test_batched_texts_build_the_base_one_call_per_text_builds(
    backend_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kb_base, "BULK_BATCH", 4)  # three batches, the last one short
    vectors = EMBEDDER.embed_documents(TEXTS)
    metadatas = [{"page": i % 3, "source": f"s{i}"} for i in range(len(TEXTS))]
    with MemoBase(backend_url, embedder=EMBEDDER) as bulk:
        assert bulk.add_texts(TEXTS, metadatas, _ids(len(TEXTS)), vectors=vectors) == _ids(
            len(TEXTS)
        )
        batched = _snapshot(bulk)
    with MemoBase(tmp_path / "one.db", embedder=EMBEDDER) as one:
        for i, text in enumerate(TEXTS):
            one.add_texts([text], [metadatas[i]], [f"doc-{i}"], vectors=[vectors[i]])
        single = _snapshot(one)
    assert batched == single
    assert batched["fts"] == batched["vectors"] == len(TEXTS)


def test_a_document_repeated_in_one_batch_is_replaced_like_two_calls(backend_url: str) -> None:
    texts = [TEXTS[0], TEXTS[1], TEXTS[2]]
    with MemoBase(backend_url, embedder=EMBEDDER) as kb:
        kb.add_texts(texts, ids=["a", "b", "a"], vectors=EMBEDDER.embed_documents(texts))
        rows = kb.db.query("SELECT id, text FROM chunks ORDER BY id")
        assert [tuple(r) for r in rows] == [("a", TEXTS[2]), ("b", TEXTS[1])]
        assert kb.db.query_one("SELECT count(*) FROM chunks_fts")[0] == 2
        table = kb.store.vector_table
        assert kb.db.query_one(f"SELECT count(*) FROM {table}")[0] == 2
        assert [h.chunk_id for h in kb.search("crane containers", k=3, mode="keyword")] == []
        assert [h.chunk_id for h in kb.search("ferry refunded", k=1, mode="keyword")] == ["a"]


def test_each_batch_is_all_or_nothing(backend_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kb_base, "BULK_BATCH", 5)
    vectors = EMBEDDER.embed_documents(TEXTS)
    vectors[7] = [float("nan")] * 64  # in the second batch
    with MemoBase(backend_url, embedder=EMBEDDER) as kb:
        with pytest.raises(InvalidInputError):
            kb.add_texts(TEXTS, ids=_ids(len(TEXTS)), vectors=vectors)
        stored = [r[0] for r in kb.db.query("SELECT id FROM documents ORDER BY id")]
    assert stored == _ids(5)  # the first batch committed, nothing of the second
