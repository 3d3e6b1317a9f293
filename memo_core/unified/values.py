"""Subjects of a sentence for conflict detection; its values come from :mod:`memo_core.values`.

Conflict flags (:mod:`memo_core.unified.conflicts`) compare what two sources say
about the same thing, so they need three things from each sentence, all found by
rules (no model, no network), deliberately conservative:

* **values** — dates, numbers *with a unit* and names given to a role, found by
  :func:`memo_core.values.extract_values`, the extractor memory's SUPERSEDE uses
  too (a bare number is never a value here: it may be a year, a section or a room);
* the **attribute** of each value — the class of the cue word nearest to it
  (``due``/``deadline`` -> ``deadline``, ``budget``/``price`` -> ``money``), or
  ``None`` when the sentence has no cue;
* the **subject** — the stems of the sentence's content words outside the
  values (no stopwords, fillers or change verbs such as "moved"), with the
  surface form of each, so a conflict can name what it is about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memo_core.memory import lexicon as lx
from memo_core.search.text import STOPWORDS, detect_language, stem_token
from memo_core.values import (
    ATTRIBUTE_CUES,
    DATE_CUES,
    MONTH_WORDS,
    NUMBER_CUES,
    WEEKDAYS,
    Value,
    ValueKind,
)
from memo_core.values import extract_values as _extract

__all__ = [
    "ATTRIBUTE_CUES",
    "CONFLICT_KINDS",
    "DATE_CUES",
    "NUMBER_CUES",
    "Sentence",
    "Value",
    "ValueKind",
    "analyse_sentence",
    "extract_values",
]

#: Words that say a value changed; they are framing, not part of the subject.
_CHANGE_WORDS = frozenset(
    ("actually", "update", "updated", "updates", "changed", "change", "changes", "moved", "move",
     "moves", "now", "new", "instead", "still", "currently", "correction", "corrected",
     "postponed", "rescheduled", "pushed", "back", "set", "is", "are", "was", "were", "be",
     "will", "says", "said", "told", "note", "remember", "reminder")
)  # fmt: skip

_NOT_SUBJECT = frozenset(
    MONTH_WORDS | set(WEEKDAYS) | {"st", "nd", "rd", "th", "of", "on", "by", "to", "at", "in"}
)

#: The kinds of value a conflict compares (a weekday or a place is no claim of a document).
CONFLICT_KINDS: tuple[ValueKind, ...] = ("date", "number", "name")


def extract_values(text: str) -> list[Value]:
    """Every date, number with a unit and role name in ``text``, in order, with attributes."""
    return _extract(text, kinds=CONFLICT_KINDS)


@dataclass(frozen=True)
class Sentence:
    """A sentence's values and subject: stems -> surface words (first seen)."""

    text: str
    values: tuple[Value, ...]
    subject: dict[str, str]

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(self.subject)


_TOKEN = re.compile(r"\w+", re.UNICODE)
_NOISE = frozenset(STOPWORDS | lx.FILLER_WORDS | lx.GENERIC_WORDS | _CHANGE_WORDS | _NOT_SUBJECT)


def subject_words(text: str, spans: Iterable[tuple[int, int]] = ()) -> dict[str, str]:
    """Content stems of ``text`` outside ``spans`` -> their surface form (first seen)."""
    lang = detect_language(text)
    blocked = list(spans)
    out: dict[str, str] = {}
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        word = m.group(0)
        token = word.lower()
        if token in _NOISE or len(token) < 2 or token.isdigit() or "_" in token:
            continue
        out.setdefault(stem_token(token, lang), word)
    return out


def analyse_sentence(text: str, context: str = "") -> Sentence:
    """Values and subject of one sentence; ``context`` (a title, a heading) adds subject words."""
    values = extract_values(text)
    subject = subject_words(text, [(v.start, v.end) for v in values])
    for stem, word in subject_words(context).items():
        subject.setdefault(stem, word)
    return Sentence(text, tuple(values), subject)
