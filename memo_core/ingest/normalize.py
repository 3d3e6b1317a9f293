"""Text normalisation, and the builder that assembles located pieces into one document.

Normalising *before* offsets are taken is what keeps every locator true: each
extractor feeds pieces (a page, a heading section, a caption) to
:class:`DocumentBuilder`, which normalises each one and records where it lands in the
final text. ``normalize_text`` is idempotent, so the assembled text is itself
normalised and its ``content_hash`` is stable across re-ingests.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.ingest.types import ExtractedDocument, Section

__all__ = ["DocumentBuilder", "normalize_text"]

# C0/C1 control characters except tab and newline; DEL; zero-width no-break space
# (a stray BOM); soft hyphen (invisible, breaks words for search).
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufeff\u00ad]")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029\x85]")
_TRAILING_SPACE = re.compile(r"[ \t\f\v\u00a0]+(?=\n|\Z)")
_BLANK_RUNS = re.compile(r"\n{3,}")
# A word broken across lines by a hyphen, as PDF text extraction leaves it:
# "infor-\nmation" -> "information". Only letter-hyphen-newline-lowercase letter,
# so "Jean-\nPierre" and list dashes are left alone.
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-\n(?=[^\W\d_])")


def _join_if_lowercase(match: re.Match[str]) -> str:
    following = match.string[match.end()]
    return "" if following.islower() else match.group(0)


def normalize_text(text: str) -> str:
    """Return ``text`` in the one form memo stores and searches.

    Line endings become ``\\n``; form feeds become paragraph breaks; NUL and other
    control characters, BOMs and soft hyphens are dropped; trailing spaces go;
    words hyphenated across a line break are joined; runs of blank lines collapse
    to one; the result is NFC and stripped. Idempotent.
    """
    # Each rewrite runs only when its trigger is present: most text has none.
    if "\r" in text or "\u2028" in text or "\u2029" in text or "\x85" in text:
        text = _LINE_BREAKS.sub("\n", text)
    text = text.replace("\x0c", "\n\n")
    text = _CONTROL.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = _TRAILING_SPACE.sub("", text)
    if "-\n" in text:
        text = _HYPHEN_BREAK.sub(_join_if_lowercase, text)
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
