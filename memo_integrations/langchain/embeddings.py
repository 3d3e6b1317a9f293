"""Embeddings in both directions between memo and LangChain.

* :class:`MemoEmbeddings` is a LangChain ``Embeddings`` backed by a memo embedder
  (the offline MiniLM model by default), so a chain can embed exactly like the base.
* :class:`LangChainEmbedder` is a memo :class:`~memo_core.embedders.base.Embedder`
  backed by any LangChain ``Embeddings``, so a base can be indexed with a model the
  application already uses. Its vectors are L2-normalised (memo compares by cosine
  and records ``normalized=True`` in the file's fingerprint).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings

from memo_core.embedders.base import Embedder, EmbedderFingerprint, normalize_vector
from memo_core.errors import InvalidInputError, ProviderError

__all__ = ["LangChainEmbedder", "MemoEmbeddings", "as_memo_embedder"]


class MemoEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` over a memo embedder.

    ``embedder``: any memo embedder (``HashEmbedder`` for tests, a
    ``FastEmbedEmbedder``, a ``CloudflareEmbedder``...). ``model_name``: a fastembed
    model name, used when no embedder is given. With neither, the zero-download
    default (all-MiniLM-L6-v2 int8 from the ``memo[local]`` extra) is used.
    """

    def __init__(self, embedder: Embedder | None = None, *, model_name: str | None = None) -> None:
        if embedder is not None and model_name is not None:
            raise InvalidInputError("pass either an embedder or a model_name, not both")
        if embedder is None:
            if model_name is not None:
                from memo_core.embedders.fastembed import FastEmbedEmbedder

                embedder = FastEmbedEmbedder(model_name)
            else:
                from memo_core.embedders.fastembed import default_local_embedder

                embedder = default_local_embedder()
        self.embedder: Embedder = embedder

    @property
    def dimensions(self) -> int:
        return self.embedder.dimensions

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return self.embedder.fingerprint

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [[float(x) for x in v] for v in self.embedder.embed_documents(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.embedder.embed_query(text)]

    def __repr__(self) -> str:
        return f"MemoEmbeddings({self.embedder.fingerprint.describe()})"


def _default_model_name(embeddings: Embeddings) -> str:
    """A model name for the fingerprint: the object's own ``model``/``model_name``
    attribute when it has one, else its class name."""
    for attr in ("model", "model_name", "model_id"):
        value = getattr(embeddings, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(embeddings).__name__


class LangChainEmbedder:
    """A memo embedder (the ``Embedder`` protocol) backed by a LangChain ``Embeddings``.

    ``model_name`` goes into the base's fingerprint, so that reopening the base with
    another model is refused; it defaults to the object's ``model``/``model_name``
    attribute, else its class name. ``dimensions`` is probed with one embedding call
    on first use when not given.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        model_name: str | None = None,
        dimensions: int | None = None,
        provider: str = "langchain",
    ) -> None:
        if not isinstance(embeddings, Embeddings):
            raise InvalidInputError("LangChainEmbedder needs a langchain_core Embeddings object")
        if dimensions is not None and dimensions < 1:
            raise InvalidInputError("dimensions must be positive")
        self.embeddings = embeddings
        self.model_name = model_name or _default_model_name(embeddings)
        self.provider = provider
        self._dims = dimensions

    @property
    def dimensions(self) -> int:
        if self._dims is None:
            self._dims = len(self.embeddings.embed_query("dimension probe"))
            if self._dims == 0:
                raise ProviderError("the embedding model returned an empty vector")
        return self._dims

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return EmbedderFingerprint(self.provider, self.model_name, self.dimensions, True)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self.embeddings.embed_documents(list(texts))
        if len(vectors) != len(texts):
            raise ProviderError(
                f"the embedding model returned {len(vectors)} vectors for {len(texts)} texts"
            )
        dims = self.dimensions
        return [normalize_vector(v, dims, source="embedding model") for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        return normalize_vector(
            self.embeddings.embed_query(text), self.dimensions, source="embedding model"
        )

    def __repr__(self) -> str:
        return f"LangChainEmbedder({self.fingerprint.describe()})"


_EMBEDDER_ATTRS = ("embed_documents", "embed_query", "dimensions", "fingerprint")


def as_memo_embedder(embedding: Embeddings | Embedder | Any) -> Embedder:
    """The memo embedder behind ``embedding``: unwraps :class:`MemoEmbeddings` (so the
    fingerprint stays the memo model's), wraps any other LangChain ``Embeddings``, and
    passes a memo embedder through."""
    if isinstance(embedding, MemoEmbeddings):
        return embedding.embedder
    if isinstance(embedding, Embeddings):
        return LangChainEmbedder(embedding)
    # Checked on the type: probing an instance would evaluate ``dimensions``, which
    # can load (or download) a model.
    if all(hasattr(type(embedding), n) for n in _EMBEDDER_ATTRS):
        return embedding
    raise InvalidInputError(f"not an embedding model: {type(embedding).__name__}")
