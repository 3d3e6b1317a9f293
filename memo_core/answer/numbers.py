"""Numbers as documents write them, read the same way in a question and in its evidence.

A thousand thousands is "1,000,000" in English, "1'000'000" in Swiss text,
"1 000 000" with a no-break, thin or narrow no-break space in French or Russian
typography, and ``1_000_000`` in Python. :data:`NUMBER` reads each as one number and
:func:`canonical_number` writes it without its grouping separators, so a question
about 1'000'000 is answered by a passage that says 1,000,000, and not by one
about 1'000 or 000.

A grouping separator is read only where it can be nothing else: one kind per
number, groups of three digits after a first group of one to three that does not
start with 0 (underscores group freely, as Python allows). So "3,5" (a decimal
comma), "0,001", "1,2,3", "3.12.1" (a version), "10:30" and "2024-01-05" keep their
own reading. A point is never read as a grouping separator (German "1.000.000"):
it would read versions as numbers.

A text also states a whole number it does not write in digits:
:class:`StatedNumbers` reads a text's numbers once and tells whether it states a
question's number in any of three forms - the digits (grouped or not), the words
("seven", "seventh", "семь", by ``num2words``), or a closed range that holds it
("0-9", "1 to 15", "between 2 and 8", "от 1 до 9", "up to 5", "at most 5", "5 or
fewer"). A range holds integers only, and only when it has two ends: "protocols
up to 5" states protocol 3 and not protocol 7, "2 or higher" states no number at
all (every number above 2 would be "stated", and a question about protocol 7 is
exactly the one the text does not answer). A hyphen between a larger and a
smaller number is a name, not a range ("ISO 8859-1", "x86-64").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memo_core.search.text import stem_token, tokenize

__all__ = [
    "GROUPED_NUMBER",
    "GROUPING_SEPARATORS",
    "NUMBER",
    "StatedNumbers",
    "canonical_number",
    "number_term",
]

#: Characters that group a number's digits by thousands: comma, apostrophe (straight
#: and typographic), no-break space, thin space, narrow no-break space.
GROUPING_SEPARATORS = ",'\u2019\u00a0\u2009\u202f"

#: Digits grouped by thousands (one named group, ``sep``), with a decimal part.
GROUPED_NUMBER = (
    rf"[1-9]\d{{0,2}}(?P<sep>[{GROUPING_SEPARATORS}])\d{{3}}(?!\d)(?:(?P=sep)\d{{3}}(?!\d))*"
    r"(?:\.\d+)?"
    r"|\d+(?:_\d+)+(?:\.\d+(?:_\d+)*)?"
)
#: A number, a version or a value with its separators ("3.12", "v2", "1,200",
#: "1'000'000", "10:30", "10th", "5GB"), grouped digits first. A pattern to embed
#: in a larger one (it holds one named group, ``sep``).
NUMBER = rf"[vV]?(?:{GROUPED_NUMBER}|\d+(?:[.,:/-]\d+)*)[^\W_]*"
_NUMBER = re.compile(NUMBER)
_GROUPING = re.compile(rf"(?<=\d)[{GROUPING_SEPARATORS}_](?=\d)")


def canonical_number(written: str) -> str:
    """``written`` (one :data:`NUMBER`) with its thousands grouping dropped:
    "1'000'000" -> "1000000", "1,234.5" -> "1234.5"; "3,5" and "3.12" as they are."""
    match = _NUMBER.fullmatch(written)
    if match is None or (match.group("sep") is None and "_" not in written):
        return written
    return _GROUPING.sub("", written)


# One end of a range: an integer, grouped by thousands or not, signed in prose
# ("-9 to -15"); never a piece of a decimal, version, time or date.
_END = r"\d+(?:[,'\u2019_]\d{3})*"
_SIGNED_END = rf"[+\-\u2212]?{_END}"
# Punctuation may stand at an end ("+25 to +31: ...", "(0-9)") but not join it to
# more digits ("3.1-5", "10:30-11").
_BEFORE = r"(?<![\w\-\u2212+])(?<!\d[.,:/])"
_AFTER = r"(?![\w\-]|[.,:/]\d)"
# "0-9", "1–15", "0..9": a hyphen, dash or two dots between two integers.
_DASH_RANGE = re.compile(rf"{_BEFORE}({_END})\s?(?:-|\u2013|\u2014|\.\.\.?)\s?({_END}){_AFTER}")
# "1 to 15", "-9 to -15", "3 through 7", "between 2 and 8", "от 1 до 9".
_WORD_RANGE = re.compile(
    rf"(?:\bbetween\s+|\bот\s+)?{_BEFORE}({_SIGNED_END})\s+(?:to|through|thru|and|до)\s+"
    rf"({_SIGNED_END}){_AFTER}",
    re.IGNORECASE,
)
# "up to 5", "at most 5", "no more than 5", "не более 5", "5 (jobs) or fewer": from 0
# to that end.
_UPPER_BOUND = re.compile(
    rf"\b(?:up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of"
    rf"|не\s+более|не\s+больше)\s+({_END}){_AFTER}"
    rf"|{_BEFORE}({_END})(?:\s+[^\W\d_]+)?\s+or\s+(?:less|fewer)\b",
    re.IGNORECASE,
)
_INTEGER = re.compile(r"(\d+)(st|nd|rd|th)?")
#: Languages whose number words are read, as ``num2words`` names them.
_NUMBER_WORD_LANGUAGES = ("en", "ru")
#: Numbers read from their words up to this: past it, documents write digits.
MAX_WORDED = 1_000_000


@dataclass(frozen=True)
class StatedNumbers:
    """The numbers a text states, as digits, words or ranges (see the module doc)."""

    written: frozenset[str]
    ranges: tuple[tuple[int, int], ...]
    text: str
    language: str

    @functools.cached_property
    def stems(self) -> tuple[str, ...]:
        """The text's words, stemmed, read only when a number is not in digits or ranges."""
        return tuple(stem_token(t, self.language) for t in tokenize(self.text))

    @classmethod
    def read(cls, text: str, language: str) -> StatedNumbers:
        """The numbers ``text`` states; ``language`` stems its words (Cyrillic is always Russian)."""
        written = frozenset(number_term(m.group().lower()) for m in _NUMBER.finditer(text))
        ranges: list[tuple[int, int]] = []
        for m in _DASH_RANGE.finditer(text):
            low, high = _integer(m.group(1)), _integer(m.group(2))
            if low < high:  # "8859-1", "86-64" are names
                ranges.append((low, high))
        for m in _WORD_RANGE.finditer(text):
            if m.group().split()[0].lower() in ("between", "от") or " and " not in m.group():
                low, high = _integer(m.group(1)), _integer(m.group(2))
                ranges.append((min(low, high), max(low, high)))
        for m in _UPPER_BOUND.finditer(text):
            ranges.append((0, _integer(m.group(1) or m.group(2))))
        return cls(written, tuple(ranges), text, language)

    def states(self, number: str) -> bool:
        """Whether the text states ``number`` (a question's number as
        :func:`number_term` writes it: "7", "1000000", "10th", "3.12")."""
        if number in self.written:
            return True
        match = _INTEGER.fullmatch(number)
        if match is None:
            return False  # a decimal, version, time or value with a unit: as written only
        value, ordinal = int(match.group(1)), match.group(2) is not None
        if not ordinal and any(low <= value <= high for low, high in self.ranges):
            return True
        spelled = _number_words(value, ordinal)
        return bool(spelled) and any(_holds(self.stems, words) for words in spelled)


def number_term(folded: str) -> str:
    """A lower-cased number as a question and its evidence compare it: no "v" before a
    version ("v3.12" is "3.12"), no grouping of thousands (:func:`canonical_number`)."""
    if folded[:1] == "v" and folded[1:2].isdigit():
        folded = folded[1:]
    return canonical_number(folded)


def _integer(written: str) -> int:
    return int(re.sub(r"[,'\u2019_+]", "", written).replace("\u2212", "-"))


def _holds(stems: tuple[str, ...], words: tuple[str, ...]) -> bool:
    n = len(words)
    return any(stems[i : i + n] == words for i in range(len(stems) - n + 1))


@functools.lru_cache(maxsize=1024)
def _number_words(value: int, ordinal: bool) -> tuple[tuple[str, ...], ...]:
    """The stemmed words of ``value`` in each language ``num2words`` reads here.

    One is left out: "one" and "один" are pronouns as often as numbers ("the one
    that", "one of"), so a text saying them states no 1. Without ``num2words``
    (the ``local`` extra) numbers are read from their digits only.
    """
    if value > MAX_WORDED or (value == 1 and not ordinal):
        return ()
    try:
        from num2words import num2words
    except ImportError:
        return ()
    out = []
    for lang in _NUMBER_WORD_LANGUAGES:
        spelled = str(num2words(value, lang=lang, to="ordinal" if ordinal else "cardinal"))
        language = "russian" if lang == "ru" else "english"
        words = tuple(stem_token(t, language) for t in tokenize(spelled) if t != "and")
        if words:
            out.append(words)
    return tuple(out)
