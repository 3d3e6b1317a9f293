"""Which query words reach the FTS5 OR query: the rarest ones, within a postings budget.

Why: an FTS5 ``OR`` query ranked by ``bm25()`` scores every chunk that holds any
of its words, so its cost grows with the sum of the words' document frequencies,
and common words dominate it: at 100k chunks one question's "work" and
"parliament" cost 50 times its "principal". With a budget
(``SearchSettings(keyword_postings_budget=...)``), a query that would read more
postings keeps its words rarest first until the budget is spent (never fewer
than :data:`MIN_WORDS`); a query within budget is untouched, so small bases rank
exactly as without it. It is opt-in because rarity is not relevance: on the
100k-chunk benchmark the words it drops ("immune", "system", "oxygen") often
carry the question's topic while rare fillers ("um", "wait") stay, and keyword
MRR@10 fell from 0.878 to 0.846 at a budget of 20,000 (bench/README.md, Scale).

Document frequencies come from an ``fts5vocab`` table and are cached per store:
they only steer the choice of words (ranking is still FTS5's own BM25 on the
kept words), so the cache is refreshed when the base grows or shrinks by a
tenth, not after every write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

__all__ = [
    "MIN_WORDS",
    "POSTINGS_BUDGET",
    "DocumentFrequencies",
    "select_words",
]

#: A budget measured in bench/README.md (Scale): at 100k chunks it cuts the keyword
#: leg by about 40% and keyword MRR@10 by 0.03; pass it to
#: ``SearchSettings(keyword_postings_budget=...)`` to opt in.
POSTINGS_BUDGET = 20_000
#: The rarest words always kept, whatever they cost: the query must still say something.
MIN_WORDS = 3


def word_cost(word: Sequence[str], stems: Sequence[str], df: Mapping[str, int]) -> int:
    """Postings read for one query word: its raw and stemmed tokens' document counts."""
    tokens = dict.fromkeys([*word, *stems])
    return sum(df.get(t, 0) for t in tokens)


def select_words(
    costs: Sequence[int],
    *,
    budget: int = POSTINGS_BUDGET,
    min_words: int = MIN_WORDS,
) -> list[int]:
    """Positions of the words to query, given each word's cost in postings.

    All of them when the query fits ``budget``; else the cheapest (rarest) first
    while the budget lasts, and at least the ``min_words`` cheapest. A word found
    nowhere costs nothing and is always kept.
    """
    if sum(costs) <= budget:
        return list(range(len(costs)))
    keep: list[int] = []
    spent = counted = 0
    for i in sorted(range(len(costs)), key=lambda i: (costs[i], i)):
        if costs[i] and counted >= min_words and spent + costs[i] > budget:
            break
        keep.append(i)
        if costs[i]:
            spent += costs[i]
            counted += 1
    return sorted(keep)


class DocumentFrequencies:
    """A per-store cache of token document counts read through ``lookup``.

    ``lookup(tokens)`` returns the stored document count of each token it knows;
    ``size()`` a cheap measure of the base's size (its largest chunk rowid). The
    cache empties itself when that size moves by more than ``tolerance`` or it
    holds more than ``max_entries`` tokens.
    """

    def __init__(
        self,
        lookup: Callable[[Sequence[str]], Mapping[str, int]],
        size: Callable[[], int],
        *,
        tolerance: float = 0.1,
        max_entries: int = 200_000,
    ) -> None:
        self._lookup = lookup
        self._size = size
        self._tolerance = tolerance
        self._max_entries = max_entries
        self._counts: dict[str, int] = {}
        self._at_size = -1
        self._lock = threading.Lock()

    def get(self, tokens: Sequence[str]) -> dict[str, int]:
        """Document count of each token (0 for a token no chunk holds)."""
        size = self._size()
        with self._lock:
            moved = abs(size - self._at_size) > self._tolerance * max(self._at_size, 1)
            if moved or len(self._counts) > self._max_entries:
                self._counts = {}
                self._at_size = size
            counts = self._counts
        missing = [t for t in dict.fromkeys(tokens) if t not in counts]
        if missing:
            found = self._lookup(missing)
            for t in missing:
                counts[t] = int(found.get(t, 0))
        return {t: counts[t] for t in tokens}
