"""Plain value types shared across the engine (no behaviour, no framework imports)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Hit", "SearchMode"]


class SearchMode(StrEnum):
    """Which retrieval legs a search runs."""

    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk with everything needed to cite it and to judge it.

    ``score`` is the ranking score of the mode that produced the hit (RRF for
    hybrid, cosine similarity for vector, negated BM25 for keyword, or the rerank
    score). The absolute signals the sufficiency gate needs are kept separately:
    ``vector_similarity`` (cosine, -1..1) and ``keyword_rank``/``vector_rank``
    (1-based position in each leg, None when the leg did not return it).
    """

    chunk_id: str
    document_id: str
    text: str
    score: float
    source: str = ""
    title: str = ""
    collection: str = "default"
    start: int = 0
    end: int = 0
    locator: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    keyword_rank: int | None = None
    vector_rank: int | None = None
    keyword_score: float | None = None
    vector_similarity: float | None = None
    rerank_score: float | None = None
    #: Ingest-time flags of the chunk (``memo_core.kb.flags``): ``"instructions"``...
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["flags"] = list(self.flags)
        return out
