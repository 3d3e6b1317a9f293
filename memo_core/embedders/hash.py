"""A deterministic embedder for tests, demos and notebooks without a model.

Each token (lower-cased word and its character trigrams) is hashed to a few
dimensions with a sign; the sum is L2-normalised. Texts that share words are
therefore close, disjoint texts nearly orthogonal, and the same text always maps
to the same vector on every machine: distances are predictable, not semantic.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.errors import InvalidInputError

__all__ = ["HashEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Deterministic bag-of-hashed-features embedder (no model, no network)."""

    def __init__(self, dimensions: int = 256, *, trigrams: bool = True) -> None:
        if dimensions < 8:
            raise InvalidInputError("dimensions must be at least 8")
        self._dims = dimensions
        self._trigrams = trigrams
        self.calls = 0  # number of embed_* calls, so tests can prove a call was skipped
        self.texts_embedded = 0

    @property
    def dimensions(self) -> int:
        return self._dims

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        name = f"hash-v1{'-tri' if self._trigrams else ''}"
        return EmbedderFingerprint("hash", name, self._dims, True)

    def _features(self, text: str) -> list[str]:
        words = [w.lower() for w in _WORD.findall(text)]
        feats = list(words)
        if self._trigrams:
            for w in words:
                padded = f"#{w}#"
                feats.extend(padded[i : i + 3] for i in range(len(padded) - 2))
        return feats

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * self._dims
        for feat in self._features(text):
            digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self._dims
            sign = 1.0 if digest[4] & 1 else -1.0
            weight = 1.0 if len(feat) > 3 or not self._trigrams else 0.5
            vec[index] += sign * weight
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0.0:
            vec[0] = 1.0  # empty text: a fixed unit vector, never NaN
            return vec
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        self.texts_embedded += len(texts)
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        self.texts_embedded += 1
        return self._embed(text)
