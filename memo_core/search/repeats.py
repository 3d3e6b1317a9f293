"""Boilerplate ranks below the document it belongs to.

A chunk whose text is repeated across many documents (``chunks.repeated``, the
share of its words found in three documents or more: ``kb/repeats.py``) keeps its
place among its copies but gives way to text that is said in one place only::

    score'(d) = score(d) - penalty * repeated(d, q) * |score(d)|

``repeated(d, q)`` (:func:`query_shares`) is the share of the question's words
found in the chunk that it holds *only* inside repeated text: a chunk that carries
a notice beside its own paragraph is demoted for a question the notice matches,
not for one its own words answer. When none of the question's words occurs in the
chunk (a vector-only match), the chunk's stored share stands in.

With the default penalty of 0.75, a notice found first by both legs of a hybrid
search (1/61 + 1/61 ≈ 0.0328) scores 0.0082, as if one leg alone had found it 62nd:
below every chunk of its own text the legs retrieved, so the document the notice
points to outranks every copy, while the copies stay in the results (and still
answer a question nothing else matches). A chunk half made of the notice gives up
three eighths of its score.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from memo_core.errors import InvalidInputError
from memo_core.search.text import STOPWORDS, stem_token, tokenize

__all__ = ["DEFAULT_REPEATED_PENALTY", "contenders", "demote_repeated", "query_shares"]

#: How much of its score a wholly repeated chunk gives up (0: none, 1: all of it).
DEFAULT_REPEATED_PENALTY = 0.75

K = TypeVar("K", bound=Hashable)


def demote_repeated(
    ranked: Sequence[tuple[K, float]],
    repeated: Mapping[K, float],
    penalty: float = DEFAULT_REPEATED_PENALTY,
) -> list[tuple[K, float]]:
    """``ranked`` (best first) with each item's score lowered by its repeated share,
    re-sorted best first; ties keep their order (the formula is in the module docstring).

    Works for scores of either sign (a cosine may be negative): the penalty is a
    share of the score's size, always taken away.
    """
    if not 0.0 <= penalty <= 1.0:
        raise InvalidInputError("penalty must be between 0 and 1")
    if not repeated or penalty == 0.0:
        return list(ranked)
    scored = [
        (item, score - penalty * min(1.0, max(0.0, repeated.get(item, 0.0))) * abs(score))
        for item, score in ranked
    ]
    order = {item: i for i, (item, _) in enumerate(scored)}
    return sorted(scored, key=lambda kv: (-kv[1], order[kv[0]]))


def contenders(
    ranked: Sequence[tuple[K, float]], repeated: Mapping[K, float], keep: int
) -> list[K]:
    """The items of ``ranked`` (best first) that can still be among its first ``keep``
    once demoted: demotion only lowers scores, so nothing after the ``keep``-th item
    with no repeated share can overtake it (ties keep their order). Only these need
    their words read by :func:`query_shares`.
    """
    out: list[K] = []
    clean = 0
    for item, _ in ranked:
        out.append(item)
        if item not in repeated:
            clean += 1
            if clean >= keep:
                break
    return out


def query_shares(
    query: str,
    stored: Mapping[K, float],
    masks: Mapping[K, tuple[Sequence[str], Sequence[bool]]],
) -> dict[K, float]:
    """Per chunk, the share of the question's words it matches only in repeated text.

    ``stored``: the chunks' ``repeated`` shares (only chunks above 0 need be given);
    ``masks``: each chunk's words and which of them are repeated. Words compare by
    stem; stopwords do not count. A chunk matching no word of the question keeps
    its stored share.
    """
    terms = {_stem(t) for t in tokenize(query) if t not in STOPWORDS}
    out: dict[K, float] = {}
    for item, share in stored.items():
        words, repeated = masks.get(item, ((), ()))
        own: set[str] = set()
        copied: set[str] = set()
        for word, in_repeat in zip(words, repeated, strict=True):
            stem = _stem(word)
            if stem in terms:
                (copied if in_repeat else own).add(stem)
        matched = own | copied
        out[item] = len(copied - own) / len(matched) if matched else share
    return out


def _stem(word: str) -> str:
    return stem_token(word, "english")  # Cyrillic words take the Russian stemmer
