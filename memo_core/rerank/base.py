"""Rerankers: a second, slower relevance pass over the fused top candidates.

A reranker only needs ``rerank(query, texts) -> scores``. :class:`SafeReranker`
wraps any of them so that a missing key or a failing provider falls back to the
RRF order with a log line, never an exception to the user.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["Reranker", "SafeReranker"]

log = logging.getLogger(__name__)


@runtime_checkable
class Reranker(Protocol):
    """Scores ``texts`` for ``query``; higher is more relevant. One score per text."""

    name: str

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...


class SafeReranker:
    """Runs a reranker; on any failure logs once per error kind and returns None."""

    def __init__(self, inner: Reranker) -> None:
        self.inner = inner
        self.name = inner.name
        self._warned: set[str] = set()

    def rerank(self, query: str, texts: Sequence[str]) -> list[float] | None:
        if not texts:
            return []
        try:
            scores = self.inner.rerank(query, texts)
        except Exception as exc:  # a provider's failure must never reach the user
            kind = type(exc).__name__
            if kind not in self._warned:
                self._warned.add(kind)
                log.warning(
                    "reranker %s failed (%s: %s); keeping fused order", self.name, kind, exc
                )
            return None
        if len(scores) != len(texts):
            log.warning(
                "reranker %s returned %d scores for %d texts; ignored",
                self.name,
                len(scores),
                len(texts),
            )
            return None
        return [float(s) for s in scores]
