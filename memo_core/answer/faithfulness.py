"""Does a model-written claim say what its verified quotes say?

The citation check proves each quote is in its source; :func:`is_grounded` that the
claim's words come from the quotes. Neither stops a claim from rearranging true
words into a lie. :func:`unfaithful` does, by what a restatement must keep:

* **negations** - the claim has as many as its quotes ("may not sublet" stays "not");
* **modal verbs** - the same ones (``must`` is not ``may``; a dropped ``may`` turns a
  permission into a fact);
* **numbers with what they count** - every number of the claim (digits or words)
  appears in *one* quote
  together with the word it counts in the claim (the next content word, else the
  one before), so "2" cannot be taken from "2 months" and given to "euros"; and a
  number the claim puts right before a word ("12 dollars") stands right before
  that word in a quote too, so "costs 480 dollars and includes 12 sessions" does
  not become "costs 12 dollars";
* **parties in their roles** - no two words of a quote trade places around a word
  between them ("the Licensor grants the Licensee" is not "the Licensee grants the
  Licensor").

A claim that fails is not shown; the engine shows its verified quotes instead.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from memo_core.answer.lexicon import MODALS, NEGATIONS, NUMBER_WORDS
from memo_core.answer.numbers import GROUPED_NUMBER, canonical_number
from memo_core.search.text import STOPWORDS, detect_language, stem_token

__all__ = ["unfaithful"]

_WORD = re.compile(rf"(?:{GROUPED_NUMBER})|\d+(?:[.,:/]\d+)*|[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"\d")


def _words(text: str) -> list[str]:
    """The words of ``text``, lower-cased; numbers without their thousands grouping
    ("1'000" and "1,000" are one number, :func:`~memo_core.answer.numbers.canonical_number`)."""
    words = (m.group() for m in _WORD.finditer(text.lower()))
    return [canonical_number(w) if w[0].isdigit() else w.replace("’", "'") for w in words]


def _negations(words: list[str]) -> int:
    return sum(1 for w in words if w in NEGATIONS or w.endswith("n't"))


def _modals(words: list[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for w in words:
        base = w[:-3] if w.endswith("n't") else w
        base = {"ca": "can", "wo": "will", "sha": "shall"}.get(base, base)
        if base in MODALS or w == "cannot":
            out["can" if w == "cannot" else base] += 1
    return out


def _is_number(word: str) -> bool:
    """Digits, or a spelled-out number ("two", "пять")."""
    return bool(_NUMBER.search(word)) or word in NUMBER_WORDS


def _content(words: list[str], language: str) -> list[str]:
    """Stems of the content words and numbers, in order."""
    return [
        w if _is_number(w) else stem_token(w, language)
        for w in words
        if _is_number(w) or (w not in STOPWORDS and w not in NEGATIONS)
    ]


def _numbers_keep_their_context(claim: list[str], quotes: list[list[str]]) -> str | None:
    for i, word in enumerate(claim):
        if not _is_number(word):
            continue
        # What the number counts: the word after it ("2 months"), else the one before.
        counted = next((w for w in claim[i + 1 : i + 2] if not _is_number(w)), None)
        if counted is None and i > 0:
            counted = claim[i - 1]
        if not any(word in q and (counted is None or counted in q) for q in quotes):
            near = " ".join(claim[max(0, i - 1) : i + 2])
            return f"the number in {near!r} is not said of the same thing in any one quote"
    return None


def _roles_kept(claim: list[str], quotes: list[list[str]]) -> str | None:
    first = {w: i for i, w in reversed(list(enumerate(claim)))}
    for quote in quotes:
        at = {w: i for i, w in reversed(list(enumerate(quote)))}
        shared = sorted((w for w in at if w in first), key=at.__getitem__)
        for a, v, b in combinations(shared, 3):  # a < v < b in the quote
            if first[b] < first[v] < first[a]:
                return f"{a!r} and {b!r} trade places around {v!r}"
    return None


def unfaithful(claim: str, quotes: Sequence[str]) -> str | None:
    """Why ``claim`` does not faithfully restate ``quotes``, or ``None`` when it does."""
    cw = _words(claim)
    qws = [_words(q) for q in quotes]
    every = [w for q in qws for w in q]
    if _negations(cw) != _negations(every):
        return f"negations differ: claim {_negations(cw)}, quotes {_negations(every)}"
    if _modals(cw) != _modals(every):
        return f"modal verbs differ: claim {dict(_modals(cw))}, quotes {dict(_modals(every))}"
    language = detect_language(" ".join(quotes))
    claim_content = _content(cw, language)
    quote_content = [_content(q, language) for q in qws]
    return (
        _numbers_keep_their_context(claim_content, quote_content)
        or _units_kept(cw, qws, language)
        or _roles_kept(claim_content, quote_content)
    )


def _units_kept(claim: list[str], quotes: list[list[str]], language: str) -> str | None:
    """A number followed at once by a content word (its unit) is followed by it in a quote."""
    for i, word in enumerate(claim[:-1]):
        unit = claim[i + 1]
        if not _is_number(word) or _is_number(unit) or unit in STOPWORDS or unit in NEGATIONS:
            continue
        stem = stem_token(unit, language)
        if not any(
            q[j] == word and stem_token(q[j + 1], language) == stem
            for q in quotes
            for j in range(len(q) - 1)
        ):
            return f"{word!r} is not said of {unit!r} in any quote"
    return None
