"""Text normalisation, and the builder that assembles located pieces into one document.

Normalising *before* offsets are taken is what keeps every locator true: each
extractor feeds pieces (a page, a heading section, a caption) to
:class:`DocumentBuilder`, which normalises each one and records where it lands in the
final text. ``normalize_text`` is idempotent, so the assembled text is itself
normalised and its ``content_hash`` is stable across re-ingests.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.frequencies import dictionary_available, frequency_language, word_frequency
from memo_core.ingest.types import ExtractedDocument, Section

__all__ = ["HYPHEN_MARGIN", "WORD_ZIPF", "DocumentBuilder", "joins_across_line", "normalize_text"]

# C0/C1 control characters except tab and newline; DEL; zero-width no-break space
# (a stray BOM); soft hyphen (invisible, breaks words for search).
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufeff\u00ad]")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\x85]")
_TRAILING_SPACE = re.compile(r"[ \t\f\v\u00a0]+(?=\n|\Z)")
_BLANK_RUNS = re.compile(r"\n{3,}")
# Words hyphenated at line ends: "infor-\nmation" (a word the line broke, as
# typesetting and PDF extraction leave it), "left-\nhand" (a compound whose own
# hyphen fell at the line end), and a chain of them when a narrow column broke one
# word twice ("in-\ncompre-\nhensible"). Letters only, so "page 12-\n13" and list
# dashes are left alone.
_HYPHEN_CHAIN = re.compile(r"[^\W\d_]+(?:-\n[^\W\d_]+)+")
#: A chain with more breaks than this is read break by break (its readings are
#: weighed all together below this: 2**n of them).
MAX_CHAIN_BREAKS = 8
#: Zipf frequency (wordfreq's scale: 3.0 is once per million words) from which a spelling
#: counts as a word here, and by how much the hyphenated spelling must be the more
#: frequent one to keep its hyphen although the joined one is a word too (web lists
#: hold misspellings such as "чтото"). Measured with ``python bench/hyphenation.py``
#: on the line-end hyphens of the Python docs (all compounds, their source says) and
#: on their dictionary words broken at random: 27 of 29 compounds keep the hyphen,
#: 1555 of 1558 broken words are joined.
WORD_ZIPF = 3.0
HYPHEN_MARGIN = 1.5


@functools.lru_cache(maxsize=16384)
def joins_across_line(left: str, right: str) -> bool:
    """Whether ``left-\nright`` is one word the line broke (join it), not a compound.

    Decided by word frequencies (``wordfreq``, English or Russian by script): the
    hyphen stays when both parts are words and the joined spelling is not one
    ("left-hand", "built-in") or is far rarer than the hyphenated one ("что-то");
    otherwise the parts are joined ("infor-mation", "some-thing"). Without
    ``wordfreq`` every such hyphen is joined.
    """
    if not dictionary_available():
        return True
    language = frequency_language(left + right)
    left, right = left.lower(), right.lower()

    def zipf(word: str) -> float:
        return word_frequency(word, language) or 0.0

    if zipf(left) < WORD_ZIPF or zipf(right) < WORD_ZIPF:
        return True  # a part is no word: a word the line broke
    joined = zipf(left + right)
    return joined >= WORD_ZIPF and zipf(f"{left}-{right}") <= joined + HYPHEN_MARGIN


def _join_chain(match: re.Match[str]) -> str:
    """A chain of line-end hyphens with each break joined or kept.

    A break is judged on the whole words on its two sides, and these depend on the
    chain's other breaks: in "self-\nevi-\ndent" the first break stands between
    "self" and "evident" only once the second is joined. So every reading of the
    chain (each break joined or kept) is weighed, and the one taken is the reading
    that most of its own breaks agree with (:func:`joins_across_line` on the words
    that reading makes), fewer hyphens kept on a tie. A break before a capital is
    always kept ("Jean-\nPierre").
    """
    parts = match.group().split("-\n")
    breaks = len(parts) - 1
    if breaks > MAX_CHAIN_BREAKS:
        kept: Sequence[bool] = [not _joins(parts[i], parts[i + 1]) for i in range(breaks)]
    else:
        readings = itertools.product((False, True), repeat=breaks)
        kept = max(readings, key=lambda reading: _agreement(parts, reading))
    out = [parts[0]]
    for part, keep in zip(parts[1:], kept, strict=True):
        out.append(("-\n" if keep else "") + part)
    return "".join(out)


def _agreement(parts: list[str], kept: Sequence[bool]) -> tuple[int, int]:
    """How many breaks of a reading agree with it, then how few hyphens it keeps."""
    # The words on the two sides of break i reach back to the previous kept break
    # and on to the next one.
    bounds = [0, *(i + 1 for i, keep in enumerate(kept) if keep), len(parts)]
    agree = 0
    for i, keep in enumerate(kept):
        start = max(b for b in bounds if b <= i)
        end = min(b for b in bounds if b > i + 1)
        left, right = "".join(parts[start : i + 1]), "".join(parts[i + 1 : end])
        agree += keep != _joins(left, right)
    return agree, -sum(kept)


def _joins(left: str, right: str) -> bool:
    return right[0].islower() and joins_across_line(left, right)


def normalize_text(text: str) -> str:
    """Return ``text`` in the one form memo stores and searches.

    Line endings become ``\\n``; form feeds become paragraph breaks; NUL and other
    control characters, BOMs and soft hyphens are dropped; trailing spaces go;
    a word hyphenated across a line break is joined, a compound keeps its hyphen
    (:func:`joins_across_line`); runs of blank lines collapse to one; the result is
    NFC and stripped. Idempotent.
    """
    # Each rewrite runs only when its trigger is present: most text has none.
    if "\r" in text or "\u2028" in text or "\u2029" in text or "\x85" in text:
        text = _LINE_BREAKS.sub("\n", text)
    text = text.replace("\x0c", "\n\n")
    text = _CONTROL.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = _TRAILING_SPACE.sub("", text)
    while "-\n" in text:
        # Joining some breaks of a chain can change how its kept ones read (their
        # words grew), so the chains are read again until none changes.
        joined = _HYPHEN_CHAIN.sub(_join_chain, text)
        if joined == text:
            break
        text = joined
    if "\n\n\n" in text:
        text = _BLANK_RUNS.sub("\n\n", text)
    return text.strip()


class DocumentBuilder:
    """Accumulate located pieces of text into one normalised document.

    Pieces are normalised one by one and joined with ``separator`` (a paragraph
    break by default; captions use a single newline). Empty pieces are dropped, so
    a section always covers non-empty text.
    """

    def __init__(self, separator: str = "\n\n") -> None:
        if separator not in ("\n", "\n\n"):
            raise InvalidInputError("separator must be a newline or a paragraph break")
        self._separator = separator
        self._parts: list[str] = []
        self._sections: list[Section] = []
        self._length = 0

    def add(self, text: str, locator: dict[str, Any] | None = None) -> bool:
        """Append ``text`` as one section; return False when it normalised to nothing."""
        piece = normalize_text(text)
        if not piece:
            return False
        if self._parts:
            self._parts.append(self._separator)
            self._length += len(self._separator)
        start = self._length
        self._parts.append(piece)
        self._length += len(piece)
        self._sections.append(Section(start, self._length, dict(locator or {})))
        return True

    @property
    def is_empty(self) -> bool:
        return not self._parts

    @property
    def text(self) -> str:
        return "".join(self._parts)

    def build(
        self,
        *,
        source: str,
        title: str,
        kind: str,
        metadata: dict[str, Any] | None = None,
        trust: str = "normal",
    ) -> ExtractedDocument:
        return ExtractedDocument(
            text=self.text,
            source=source,
            title=title,
            kind=kind,
            sections=list(self._sections),
            metadata=dict(metadata or {}),
            trust=trust,
        )
