"""The embedder protocol: what memo needs from any embedding model.

An embedder is anything with ``embed_documents``, ``embed_query``, ``dimensions``
and ``fingerprint`` (a ``typing.Protocol``: LangChain or LlamaIndex objects adapt
without inheriting). The fingerprint is stored in every base so that opening it
with another model is an error instead of silently meaningless distances.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Protocol, runtime_checkable

from memo_core.errors import DimensionMismatchError, ProviderError

__all__ = ["Embedder", "EmbedderFingerprint", "batched", "normalize_vector"]


@dataclass(frozen=True)
class EmbedderFingerprint:
    """What makes two embedders' vectors comparable."""

    provider: str
    model: str
    dimensions: int
    normalized: bool = True

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EmbedderFingerprint:
        return cls(**json.loads(text))

    def describe(self) -> str:
        return f"{self.provider}:{self.model} ({self.dimensions}d)"


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. Vectors must be L2-normalised when ``normalized``."""

    @property
    def dimensions(self) -> int: ...

    @property
    def fingerprint(self) -> EmbedderFingerprint: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages to be stored (batched by the implementation)."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query (asymmetric models add their query prefix)."""
        ...


def batched(items: Sequence[str], size: int) -> list[Sequence[str]]:
    """Split ``items`` into consecutive batches of at most ``size``."""
    if size < 1:
        raise ValueError("batch size must be at least 1")
    return [items[i : i + size] for i in range(0, len(items), size)]


def normalize_vector(
    vector: Sequence[float], dims: int | None, *, source: str = "embedder"
) -> list[float]:
    """A foreign model's vector as memo stores it: floats, the expected length, unit norm.

    Adapters of LangChain or LlamaIndex embeddings use this, so a model that
    returns NaN, a zero vector or the wrong length fails with a typed error
    instead of writing meaningless distances.
    """
    values = [float(v) for v in vector]
    if dims is not None and len(values) != dims:
        raise DimensionMismatchError(f"the {source} returned {len(values)} dimensions, not {dims}")
    if not all(math.isfinite(v) for v in values):
        raise ProviderError(f"the {source} returned NaN or infinity")
    norm = math.sqrt(sum(v * v for v in values))
    if norm == 0.0:
        raise ProviderError(f"the {source} returned a zero vector")
    return [v / norm for v in values]
