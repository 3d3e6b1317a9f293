"""Fixtures for the LlamaIndex adapter tests (self-contained: no shared conftest).

Every test runs with LlamaIndex's global ``Settings.llm`` / ``Settings.embed_model``
made to fail and no OpenAI key, so any code path that silently falls back to the
OpenAI defaults fails loudly instead of passing by accident.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
)
from llama_index.core.bridge.pydantic import Field
from llama_index.core.llms.custom import CustomLLM
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.settings import _Settings

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex import MemoBaseVectorStore, MemoEmbedding

DIMS = 64


def _forbidden(self: object) -> Any:
    raise AssertionError("LlamaIndex global Settings were read: pass models explicitly")


def _forbidden_set(self: object, value: object) -> None:
    raise AssertionError("LlamaIndex global Settings were written")


@pytest.fixture(autouse=True)
def _no_global_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(_Settings, "llm", property(_forbidden, _forbidden_set))
    monkeypatch.setattr(_Settings, "embed_model", property(_forbidden, _forbidden_set))


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(DIMS)


@pytest.fixture
def embed_model(embedder: HashEmbedder) -> MemoEmbedding:
    return MemoEmbedding(embedder)


@pytest.fixture
def kb(backend_url: str, embedder: HashEmbedder) -> Iterator[MemoBase]:
    """A fresh base on each storage backend (SQLite file, PostgreSQL schema)."""
    base = MemoBase(backend_url, embedder=embedder)
    yield base
    base.close()


@pytest.fixture
def store(kb: MemoBase) -> MemoBaseVectorStore:
    return MemoBaseVectorStore(kb)


def make_node(
    node_id: str,
    text: str,
    ref_doc_id: str | None = None,
    metadata: dict[str, Any] | None = None,
    embed: HashEmbedder | None = None,
) -> TextNode:
    node = TextNode(id_=node_id, text=text, metadata=dict(metadata or {}))
    if ref_doc_id is not None:
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=ref_doc_id)
    if embed is not None:
        node.embedding = embed.embed_documents([text])[0]
    return node


@pytest.fixture
def node_factory(embedder: HashEmbedder) -> Any:
    """``node_factory(id, text, ref_doc_id=None, metadata=None, embedded=True)``."""

    def build(
        node_id: str,
        text: str,
        ref_doc_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        embedded: bool = True,
    ) -> TextNode:
        return make_node(node_id, text, ref_doc_id, metadata, embedder if embedded else None)

    return build


class ScriptedLLM(CustomLLM):
    """A LlamaIndex LLM replaying queued replies and recording every chat call."""

    replies: list[str] = Field(default_factory=list)
    calls: list[list[ChatMessage]] = Field(default_factory=list)
    kwargs_seen: list[dict[str, Any]] = Field(default_factory=list)
    fail_with: str | None = None

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=True, model_name="scripted")

    def _next(self) -> str:
        if self.fail_with is not None:
            raise RuntimeError(self.fail_with)
        if not self.replies:
            raise AssertionError("ScriptedLLM has no reply left")
        return self.replies.pop(0)

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self.calls.append(list(messages))
        self.kwargs_seen.append(dict(kwargs))
        return ChatResponse(message=ChatMessage(role="assistant", content=self._next()))

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.calls.append([ChatMessage(role="user", content=prompt)])
        self.kwargs_seen.append(dict(kwargs))
        return CompletionResponse(text=self._next())

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.fixture
def scripted_llm() -> Any:
    """``scripted_llm(*replies)`` -> a fresh :class:`ScriptedLLM`."""

    def build(*replies: str, fail_with: str | None = None) -> ScriptedLLM:
        return ScriptedLLM(replies=list(replies), calls=[], kwargs_seen=[], fail_with=fail_with)

    return build


@pytest.fixture
def hood(backend_url: str, embedder: HashEmbedder) -> Iterator[Any]:
    """A MemoHood on each storage backend, with the lexical recall gate (no Model2Vec model)."""
    from memo_core.memory import MemoHood, RecallGate

    memory = MemoHood(backend_url, embedder=embedder, gate=RecallGate())
    yield memory
    memory.close()
