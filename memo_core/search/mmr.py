"""Maximal Marginal Relevance: pick results that are relevant *and* not redundant.

Carbonell & Goldstein (1998). Each step takes the candidate ``c`` maximising::

    lambda_mult * cos(query, c) - (1 - lambda_mult) * max(cos(c, s) for s already picked)

so ``lambda_mult=1`` is plain similarity order and ``0`` maximal diversity. The
penalty is the similarity to the *closest* pick so far (not only the latest one):
a third near-duplicate is held back as firmly as the second.

A pure function on plain vectors; :meth:`memo_core.kb.base.MemoBase.search_mmr`
feeds it the stored vectors of a vector search's candidates, and both framework
adapters call that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memo_core.errors import InvalidInputError

__all__ = ["cosine", "mmr_select"]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.0
    return sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb)


def mmr_select(
    query: Sequence[float],
    candidates: Sequence[Sequence[float]],
    k: int,
    lambda_mult: float = 0.5,
) -> list[int]:
    """Indexes into ``candidates`` of up to ``k`` picks, in the order picked.

    Ties go to the earlier candidate, so a candidate list sorted by similarity
    keeps its order at ``lambda_mult=1``.
    """
    if not 0.0 <= lambda_mult <= 1.0:
        raise InvalidInputError("lambda_mult must be between 0 and 1")
    relevance = [cosine(query, c) for c in candidates]
    picked: list[int] = []
    left = list(range(len(candidates)))
    # Highest similarity to anything picked so far (nothing picked yet: no penalty).
    redundancy = [-math.inf] * len(candidates)

    def gain(i: int) -> tuple[float, int]:
        penalty = redundancy[i] if picked else 0.0
        return (lambda_mult * relevance[i] - (1 - lambda_mult) * penalty, -i)

    while left and len(picked) < k:
        best = max(left, key=gain)
        picked.append(best)
        left.remove(best)
        for i in left:
            redundancy[i] = max(redundancy[i], cosine(candidates[i], candidates[best]))
    return picked
