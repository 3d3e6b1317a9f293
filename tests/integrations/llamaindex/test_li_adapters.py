"""Embedding adapters both ways, the LLM adapter, and the package's public surface."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.embeddings import MockEmbedding

import memo_integrations.llamaindex as li
from memo_core.embedders import Embedder, HashEmbedder
from memo_core.errors import (
    DimensionMismatchError,
    EmbedderMismatchError,
    InvalidInputError,
    ProviderError,
)
from memo_core.kb.base import MemoBase
from memo_core.llm import LLM, ChatMessage
from memo_integrations.llamaindex import LlamaIndexEmbedder, LlamaIndexLLM, MemoEmbedding


def test_public_surface_is_pinned() -> None:
    assert li.__all__ == sorted(li.__all__)
    assert set(li.__all__) == {
        "GuardedQueryEngine",
        "LlamaIndexEmbedder",
        "LlamaIndexLLM",
        "MemoBaseVectorStore",
        "MemoEmbedding",
        "MemoHoodChatStore",
        "MemoHoodDBChatStore",
        "MemoHoodMemoryBlock",
        "MemoUnifiedRetriever",
        "memo_memory",
        "to_memo_filter",
    }
    for name in li.__all__:
        assert getattr(li, name) is not None


# -- MemoEmbedding ---------------------------------------------------------------------


def test_memo_embedding_matches_the_memo_embedder(embedder: HashEmbedder) -> None:
    model = MemoEmbedding(embedder)
    assert model.get_query_embedding("hello") == embedder.embed_query("hello")
    assert model.get_text_embedding("a b") == embedder.embed_documents(["a b"])[0]
    texts = [f"text {i}" for i in range(70)]
    calls = embedder.calls
    assert model.get_text_embedding_batch(texts) == embedder.embed_documents(texts)
    assert embedder.calls - calls == 3  # one call per batch of 64, not one per text
    assert model.model_name == embedder.fingerprint.describe()
    assert model.embedder is embedder
    with pytest.raises(InvalidInputError):
        MemoEmbedding("not an embedder")  # type: ignore[arg-type]


async def test_memo_embedding_async(embedder: HashEmbedder) -> None:
    model = MemoEmbedding(embedder)
    assert await model.aget_query_embedding("q") == embedder.embed_query("q")
    assert await model.aget_text_embedding("t") == embedder.embed_documents(["t"])[0]
    assert await model.aget_text_embedding_batch(["x", "y"]) == embedder.embed_documents(["x", "y"])


# -- LlamaIndexEmbedder ---------------------------------------------------------------


def test_llamaindex_embedder_is_a_normalised_memo_embedder() -> None:
    adapter = LlamaIndexEmbedder(MockEmbedding(embed_dim=16), model_name="mock-16")
    assert isinstance(adapter, Embedder)
    assert adapter.dimensions == 16  # probed once
    vec = adapter.embed_query("anything")
    assert math.sqrt(sum(v * v for v in vec)) == pytest.approx(1.0)
    assert vec == pytest.approx([0.25] * 16)  # [0.5]*16 normalised
    docs = adapter.embed_documents(["a", "b", "c"])
    assert len(docs) == 3 and all(d == pytest.approx(vec) for d in docs)
    assert adapter.embed_documents([]) == []
    fp = adapter.fingerprint
    assert (fp.provider, fp.model, fp.dimensions, fp.normalized) == (
        "llamaindex:MockEmbedding",
        "mock-16",
        16,
        True,
    )


def test_round_trip_through_both_adapters(embedder: HashEmbedder) -> None:
    back = LlamaIndexEmbedder(MemoEmbedding(embedder), model_name="hash", dimensions=64)
    assert back.embed_query("round trip") == pytest.approx(embedder.embed_query("round trip"))


def test_llamaindex_embedder_guards(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        LlamaIndexEmbedder(object(), model_name="x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        LlamaIndexEmbedder(MockEmbedding(embed_dim=8), model_name="")
    wrong = LlamaIndexEmbedder(MockEmbedding(embed_dim=8), model_name="m", dimensions=9)
    with pytest.raises(DimensionMismatchError, match="8 dimensions, not 9"):
        wrong.embed_query("x")


def test_llamaindex_embedder_failure_is_a_provider_error() -> None:
    class Broken(MockEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            raise ConnectionError("offline")

    with pytest.raises(ProviderError, match="offline"):
        LlamaIndexEmbedder(Broken(embed_dim=8), model_name="m", dimensions=8).embed_query("x")


def test_a_base_built_with_a_llamaindex_model_refuses_another(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(
        path, embedder=LlamaIndexEmbedder(MockEmbedding(embed_dim=8), model_name="a")
    ) as kb:
        kb.add_texts(["some text"])
        assert kb.store.counts()["vector_rows"] == 1
    with pytest.raises(EmbedderMismatchError):
        MemoBase(path, embedder=LlamaIndexEmbedder(MockEmbedding(embed_dim=8), model_name="b"))


# -- LlamaIndexLLM ---------------------------------------------------------------------


def test_llm_adapter_forwards_roles_and_returns_text(scripted_llm: Any) -> None:
    llm = scripted_llm("the reply")
    adapter = LlamaIndexLLM(llm)
    assert isinstance(adapter, LLM)
    messages = [
        ChatMessage("system", "be brief"),
        ChatMessage("user", "hi"),
        ChatMessage("assistant", "yo"),
    ]
    assert adapter.complete(messages, max_tokens=50) == "the reply"
    [sent] = llm.calls
    assert [(m.role.value, m.content) for m in sent] == [
        ("system", "be brief"),
        ("user", "hi"),
        ("assistant", "yo"),
    ]
    assert llm.kwargs_seen == [{"max_tokens": 50}]
    assert adapter.supports_json_mode is False


def test_llm_adapter_omits_max_tokens_and_wraps_failures(scripted_llm: Any) -> None:
    llm = scripted_llm("ok")
    LlamaIndexLLM(llm).complete([ChatMessage("user", "q")], json_mode=True)
    assert llm.kwargs_seen == [{}]
    with pytest.raises(ProviderError, match="rate limited"):
        LlamaIndexLLM(scripted_llm(fail_with="rate limited")).complete([ChatMessage("user", "q")])
    with pytest.raises(InvalidInputError):
        LlamaIndexLLM("gpt")  # type: ignore[arg-type]
