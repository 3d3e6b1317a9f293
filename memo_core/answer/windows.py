"""Evidence windows: a sentence with its neighbours, the unit the gate decides on.

A chunk of 300 words may share the question's terms in sentences far apart and
still not answer it; the sentence that answers, read with the sentences around it,
does. :func:`best_window` finds, over the top hits, the window that covers most of
the question's term weight. A heading (a short line with no closing punctuation,
or a Markdown ``#`` line) is context for its neighbours, never a window's centre:
:func:`is_heading` tells, and the extractive picker uses it too.
:func:`answer_type_match` checks that a window holds the kind of thing the
question asks for (a date for "when", a number for "how many", a name for "who").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memo_core.answer.sentences import split_sentences
from memo_core.search.text import detect_language, stem_token, tokenize
from memo_core.types import Hit

__all__ = ["PER_DOCUMENT", "answer_type_match", "best_window", "diversify", "is_heading"]

_HEADING_WORDS = 10

#: At most this many of the hits an answer reads come from one document.
PER_DOCUMENT = 2
_CLOSING = ".!?:;\"')»”…"
#: What may stand before a heading on its line: a bullet or a section number ("4.", "2.1").
_HEADING_PREFIX = re.compile(r"[\s\-*•]*(?:\d{1,3}(?:\.\d{1,3})*\.?)?\s*")


def is_heading(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a sentence span) is a heading or title line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    if text.startswith("#", line_start):
        return True
    sentence = text[start:end].strip()
    prefix = text[line_start:start]
    alone = _HEADING_PREFIX.fullmatch(prefix) is not None and not text[end:line_end].strip()
    return alone and len(sentence.split()) <= _HEADING_WORDS and sentence[-1:] not in _CLOSING


def best_window(question: str, hits: Sequence[Hit], idf: Mapping[str, float]) -> tuple[str, float]:
    """The window (sentence +- 1) of ``hits`` covering most question-term weight, and that weight."""
    best_text, best_score = "", 0.0
    for hit in hits:
        text = hit.text
        spans = split_sentences(text)
        if not spans:
            continue
        lang = detect_language(text)
        stems = [{stem_token(t, lang) for t in tokenize(text[a:b])} for a, b in spans]
        for i, (a, b) in enumerate(spans):
            if is_heading(text, a, b):
                continue
            lo, hi = max(0, i - 1), min(len(spans), i + 2)
            present = set().union(*stems[lo:hi])
            score = sum(v for t, v in idf.items() if t in present)
            if score > best_score:
                best_text, best_score = text[spans[lo][0] : spans[hi - 1][1]], score
    return best_text, best_score


_WHEN = re.compile(r"^\s*(?:when|what\s+(?:year|date|day|month|time|century)|in\s+what\s+year)\b|"
                   r"^\s*(?:когда|в\s+каком\s+году)", re.IGNORECASE)  # fmt: skip
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much|long|old|far|big|often|large)\b|"
                       r"\bwhat\s+(?:percentage|percent|number|amount)\b|"
                       r"\bсколько\b", re.IGNORECASE)  # fmt: skip
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b|^\s*(?:кто|кого|чей)\b", re.IGNORECASE)
_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2})s?\b|\b\d{1,2}(?:st|nd|rd|th)?\b|\b(?:january|february|march|april|"
    r"may|june|july|august|september|october|november|december|century|centuries|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|year|years|ago)\b|"
    r"\b(?:январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|век|год)",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|dozen|half|several|few|many)\b|"
    r"\b(?:один|два|три|четыре|пять|десять|сто|тысяч|миллион)",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZА-ЯЁ][\w'-]+")


def answer_type_match(question: str, window: str) -> float:
    """0.0 when the question asks for a date, a quantity or a name the window lacks, else 1.0."""
    if _WHEN.search(question):
        return 1.0 if _DATE.search(window) else 0.0
    if _HOW_MANY.search(question):
        return 1.0 if _QUANTITY.search(window) else 0.0
    if _WHO.search(question):
        return 1.0 if _NAME.search(window) else 0.0
    return 1.0


def diversify(hits: Sequence[Hit], k: int, per_document: int = PER_DOCUMENT) -> list[Hit]:
    """The first ``k`` of ``hits`` (in order), at most ``per_document`` from one document.

    One long document must not fill every slot the answer reads; when the other
    documents run out, the remaining slots go to the held-back hits, in order.
    """
    kept: list[Hit] = []
    held: list[Hit] = []
    count: dict[str, int] = {}
    for hit in hits:
        if count.get(hit.document_id, 0) < per_document:
            count[hit.document_id] = count.get(hit.document_id, 0) + 1
            kept.append(hit)
        else:
            held.append(hit)
        if len(kept) == k:
            return kept
    return kept + held[: k - len(kept)]
