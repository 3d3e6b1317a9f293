"""LangChain's own standard suites (langchain-tests) run against memo's adapters.

Every fixture opens a fresh base on each storage backend (a SQLite file and a
PostgreSQL schema, the ``backend_url`` fixture); the retriever suite builds its
retriever from constructor parameters, so an autouse fixture fills a fresh base
first and the parameters point at it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_tests", reason="langchain-tests is not installed (dev extra)")

from langchain_core.embeddings import Embeddings
from langchain_tests.integration_tests import (
    EmbeddingsIntegrationTests,
    RetrieversIntegrationTests,
    VectorStoreIntegrationTests,
)
from langchain_tests.unit_tests import EmbeddingsUnitTests

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.langchain import MemoBaseRetriever, MemoBaseVectorStore, MemoEmbeddings

PASSAGES = [
    "Otters hold hands while they sleep so they do not drift apart.",
    "Sea otters use rocks as tools to crack open shellfish.",
    "River otters can close their ears and nostrils underwater.",
    "An otter's fur has up to a million hairs per square inch.",
    "Beavers build dams; they are not otters.",
    "The lighthouse keeper logged the storm at midnight.",
]


class TestMemoBaseRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _base(self, backend_url: str) -> Any:
        kb = MemoBase(backend_url, embedder=HashEmbedder(64))
        kb.add_texts(PASSAGES, [{"n": i} for i in range(len(PASSAGES))])
        self._kb = kb
        yield
        kb.close()

    @property
    def retriever_constructor(self) -> type[MemoBaseRetriever]:
        return MemoBaseRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"kb": self._kb, "k": 2}

    @property
    def retriever_query_example(self) -> str:
        return "otters"


class TestMemoBaseVectorStoreStandard(VectorStoreIntegrationTests):
    """Sync and async halves of the suite (``has_sync``/``has_async`` both True)."""

    @pytest.fixture
    def vectorstore(self, backend_url: str) -> Any:
        store = MemoBaseVectorStore(backend_url, self.get_embeddings())
        yield store
        store.kb.close()


class TestMemoBaseVectorStoreHybridStandard(VectorStoreIntegrationTests):
    """The same suite with the hybrid (BM25 + vector, RRF) search mode and a memo embedder."""

    @pytest.fixture
    def vectorstore(self, backend_url: str) -> Any:
        store = MemoBaseVectorStore(
            backend_url, MemoEmbeddings(HashEmbedder(64)), search_mode="hybrid"
        )
        yield store
        store.kb.close()


class TestMemoEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return MemoEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {"embedder": HashEmbedder(64)}


class TestMemoEmbeddingsIntegration(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[Embeddings]:
        return MemoEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {"embedder": HashEmbedder(64)}
