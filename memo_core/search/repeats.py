"""Boilerplate ranks below the document it belongs to.

A chunk whose text is repeated across many documents (``chunks.repeated``, the
share of its words found in three documents or more: ``kb/repeats.py``) keeps its
place among its copies but gives way to text that is said in one place only::

    score'(d) = score(d) - penalty * repeated(d, q) * |score(d)|

``repeated(d, q)`` (:func:`query_shares`) is the share of the question's words
found in the chunk that it holds *only* inside repeated text: a chunk that carries
a notice beside its own paragraph is demoted for a question the notice matches,
not for one its own words answer. When none of the question's words occurs in the
chunk (a vector-only match), the chunk's stored share stands in. Words compare as
:func:`repeat_term` makes them (stemmed), and the terms a chunk holds outside and
only inside its repeated text are stored with it at ingest (:class:`RepeatedText`,
``kb/repeats.py``): a query reads two short strings per chunk, never its text.

With the default penalty of 0.75, a notice found first by both legs of a hybrid
search (1/61 + 1/61 ≈ 0.0328) scores 0.0082, as if one leg alone had found it 62nd:
below every chunk of its own text the legs retrieved, so the document the notice
points to outranks every copy, while the copies stay in the results (and still
answer a question nothing else matches). A chunk half made of the notice gives up
three eighths of its score.
"""

from __future__ import annotations

from collections.abc import Container, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from memo_core.errors import InvalidInputError
from memo_core.search.text import STOPWORDS, stem_token, tokenize

__all__ = [
    "DEFAULT_REPEATED_PENALTY",
    "RepeatedText",
    "StoredTerms",
    "demote_repeated",
    "query_shares",
    "repeat_term",
    "repeat_terms",
]

#: How much of its score a wholly repeated chunk gives up (0: none, 1: all of it).
DEFAULT_REPEATED_PENALTY = 0.75

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class RepeatedText:
    """What a chunk holding repeated text keeps for search (``kb/repeats.py``).

    ``share``: ``chunks.repeated``, the share of its words inside repeated text.
    ``own``: the terms (:func:`repeat_term`) it holds outside repeated text;
    ``copied``: those it holds only inside it. Both empty when the whole chunk is
    repeated (every question it matches, it matches in repeated text).
    """

    share: float
    own: Container[str] = frozenset()
    copied: Container[str] = frozenset()


class StoredTerms:
    """Terms as a chunk stores them (``chunks.own_terms`` / ``copied_terms``: one
    string, space-separated), asked one by one without splitting the string.

    A query tests its handful of terms against each of some forty candidates;
    building a set of every candidate's terms cost more than the rest of the
    demotion (0.3 ms a query at 100k chunks). Terms are runs of letters and digits,
    so a space-delimited search finds exactly the stored terms.
    """

    __slots__ = ("_padded",)

    def __init__(self, stored: str) -> None:
        self._padded = f" {stored} "

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and term != "" and f" {term} " in self._padded

    def count(self, padded_terms: Sequence[str]) -> int:
        """How many of ``padded_terms`` (non-empty terms, each as ``" term "``) are
        stored here: the loop runs in C, where ``in`` term by term calls
        :meth:`__contains__` in Python (some 500 calls a query at 100k chunks)."""
        return sum(map(self._padded.__contains__, padded_terms))

    def __repr__(self) -> str:
        return f"StoredTerms({self._padded.strip()!r})"


def repeat_term(word: str) -> str:
    """How a word compares between a question and a chunk's repeated text: its stem
    (English; Cyrillic words take the Russian stemmer)."""
    return stem_token(word, "english")


def repeat_terms(words: Sequence[str], repeated: Sequence[bool]) -> tuple[set[str], set[str]]:
    """``(own, copied)`` terms of a chunk's ``words`` (``search.text.tokenize``) given
    which of them lie in repeated text: terms with an occurrence outside it, and
    terms found only inside it. Stopwords do not count."""
    own: set[str] = set()
    inside: set[str] = set()
    for word, in_repeat in zip(words, repeated, strict=True):
        if word not in STOPWORDS:
            (inside if in_repeat else own).add(word)
    own_terms = {repeat_term(w) for w in own}
    return own_terms, {repeat_term(w) for w in inside} - own_terms


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


def query_shares(query: str, stored: Mapping[K, RepeatedText]) -> dict[K, float]:
    """Per chunk, the share of the question's terms it matches only in repeated text
    (the chunks' stored share where it matches none of them)."""
    terms = {repeat_term(t) for t in tokenize(query) if t not in STOPWORDS} - {""}
    padded = [f" {term} " for term in terms]

    def count(held: Container[str]) -> int:
        if isinstance(held, StoredTerms):
            return held.count(padded)
        return sum(term in held for term in terms)

    out: dict[K, float] = {}
    for item, text in stored.items():
        copied = count(text.copied)
        matched = copied + count(text.own)
        out[item] = copied / matched if matched else text.share
    return out
