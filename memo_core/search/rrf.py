"""Reciprocal Rank Fusion: combine ranked lists by position, not by score.

Raw scores from BM25 and from cosine similarity are not comparable, so RRF uses
only each item's rank (counted from 1) in each list::

    score(d) = sum over lists i containing d of  w_i / (k + rank_i(d))

with ``k = 60`` (Cormack, Clarke & Büttcher, 2009) and weights ``w_i`` (default 1).
An item #2 in one list and #5 in another (1/62 + 1/65 ≈ 0.0315) beats an item #1
in only one list (1/61 ≈ 0.0164).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from memo_core.errors import InvalidInputError

__all__ = ["DEFAULT_RRF_K", "rrf"]

#: The standard RRF constant; larger values flatten the head of each list.
DEFAULT_RRF_K = 60

K = TypeVar("K", bound=Hashable)


def rrf(
    ranked_lists: Sequence[Sequence[K]],
    k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse ``ranked_lists`` (best first) into ``[(item, score)]``, best first.

    A duplicate inside one list counts at its best rank only. Ties keep the order
    in which items were first seen (list by list), so the result is deterministic.
    """
    if k < 0:
        raise InvalidInputError("k must be non-negative")
    if weights is None:
        weights = [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise InvalidInputError("one weight per ranked list")
    scores: dict[K, float] = {}
    for items, weight in zip(ranked_lists, weights, strict=True):
        unique = list(dict.fromkeys(items))  # a repeat counts once, at its best rank
        for rank, item in enumerate(unique, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
