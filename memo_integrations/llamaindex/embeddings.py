"""Embedding adapters both ways: memo embedder <-> LlamaIndex ``BaseEmbedding``.

``MemoEmbedding(embedder)`` lets a LlamaIndex index embed with any memo embedder
(the offline MiniLM model, ``HashEmbedder`` in tests), so no OpenAI default is
ever reached. ``LlamaIndexEmbedder(embed_model, model_name=...)`` lets a memo
base embed with any LlamaIndex embedding; its vectors are L2-normalised and its
fingerprint names the LlamaIndex class and model, so a base built with one model
refuses to open with another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from memo_core.embedders.base import Embedder, EmbedderFingerprint, normalize_vector
from memo_core.errors import InvalidInputError, MemoError, ProviderError

__all__ = ["LlamaIndexEmbedder", "MemoEmbedding"]


class MemoEmbedding(BaseEmbedding):
    """A memo :class:`~memo_core.embedders.base.Embedder` as a LlamaIndex embedding.

    Queries go through ``embed_query`` (asymmetric models add their query prefix),
    passages through ``embed_documents`` in batches of ``embed_batch_size``. Without
    an embedder, memo's offline MiniLM (``memo[local]``), as ``MemoEmbeddings()``.
    """

    _embedder: Embedder = PrivateAttr()

    def __init__(
        self, embedder: Embedder | None = None, *, embed_batch_size: int = 64, **kwargs: Any
    ) -> None:
        if embedder is None:  # the same default as the LangChain side: the offline MiniLM
            from memo_core.embedders.fastembed import default_local_embedder

            embedder = default_local_embedder()
        if not isinstance(embedder, Embedder):
            raise InvalidInputError("MemoEmbedding needs a memo Embedder")
        kwargs.setdefault("model_name", embedder.fingerprint.describe())
        super().__init__(embed_batch_size=embed_batch_size, **kwargs)
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "MemoEmbedding"

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return list(self._embedder.embed_query(query))

    def _get_text_embedding(self, text: str) -> list[float]:
        return list(self._embedder.embed_documents([text])[0])

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [list(v) for v in self._embedder.embed_documents(texts)]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)


class LlamaIndexEmbedder:
    """Any LlamaIndex ``BaseEmbedding`` as a memo embedder (vectors L2-normalised).

    ``model_name`` goes into the base's fingerprint (LlamaIndex models do not all
    report one reliably). ``dimensions`` defaults to the length of one probe
    embedding, computed on first use; pass it to avoid that call.
    """

    def __init__(
        self, embed_model: BaseEmbedding, *, model_name: str, dimensions: int | None = None
    ) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise InvalidInputError("LlamaIndexEmbedder needs a LlamaIndex BaseEmbedding")
        if not model_name:
            raise InvalidInputError("model_name is required (it goes into the base fingerprint)")
        if dimensions is not None and dimensions < 1:
            raise InvalidInputError("dimensions must be positive")
        self.embed_model = embed_model
        self.model_name = model_name
        self._dims = dimensions

    @property
    def dimensions(self) -> int:
        if self._dims is None:
            probe = _call(self.embed_model.get_query_embedding, "dimension probe")
            self._dims = len(probe)
        return self._dims

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        provider = f"llamaindex:{self.embed_model.class_name()}"
        return EmbedderFingerprint(provider, self.model_name, self.dimensions, True)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        dims = self.dimensions
        vectors = _call(self.embed_model.get_text_embedding_batch, list(texts))
        if len(vectors) != len(texts):
            raise ProviderError(
                f"the LlamaIndex embedding returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return [normalize_vector(v, dims, source="LlamaIndex embedding") for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        dims = self.dimensions
        return normalize_vector(
            _call(self.embed_model.get_query_embedding, text), dims, source="LlamaIndex embedding"
        )


def _call(method: Callable[[Any], Any], arg: Any) -> Any:
    """Call the LlamaIndex model; its failures become memo's ``ProviderError``."""
    try:
        return method(arg)
    except MemoError:
        raise
    except Exception as exc:
        raise ProviderError(f"the LlamaIndex embedding failed: {exc}") from exc
