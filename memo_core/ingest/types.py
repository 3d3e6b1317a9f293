"""The values extraction hands to storage: a document, its located sections, chunk drafts.

These types are the contract between the extractors (``memo_core.ingest``) and the
knowledge-base pipeline that stores them. Every offset is a character index into
``ExtractedDocument.text``, the *normalised* text that storage keeps verbatim, so a
citation can always be checked against the stored document.

Locators, one shape per kind of source:

- PDF: ``{"page": n}`` (1-based page number)
- Markdown, Obsidian, DOCX, HTML, web: ``{"heading": "H1 > H2"}``; text before the
  first heading has the empty locator ``{}``
- audio, video, YouTube: ``{"start_time": s, "end_time": s}`` (seconds, floats)
- CSV: ``{"row": n}`` (the spreadsheet row number: the header is row 1)
- plain text: ``{}``
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from memo_core.errors import InvalidInputError

__all__ = ["KINDS", "TRUST_LEVELS", "ChunkDraft", "ExtractedDocument", "Section"]

#: Every value ``ExtractedDocument.kind`` can take.
KINDS = frozenset(
    {"text", "markdown", "csv", "docx", "html", "pdf", "obsidian", "web", "youtube", "audio"}
)

#: ``"low"`` marks text whose locators are estimates (e.g. timecodes spread evenly).
TRUST_LEVELS = frozenset({"normal", "low"})


@dataclass(frozen=True)
class Section:
    """A span ``[start, end)`` of the document text that one locator describes."""

    start: int
    end: int
    locator: dict[str, Any] = field(default_factory=dict)

    @property
    def is_timed(self) -> bool:
        """Timecoded sections (captions, transcript segments) may share a chunk."""
        return "start_time" in self.locator


@dataclass(frozen=True)
class ExtractedDocument:
    """One source turned into normalised text plus located sections.

    ``source`` is the absolute path or the URL the document came from (its identity
    for re-ingest); ``metadata`` holds JSON-safe values only (front matter, tags,
    page count, ``secrets`` findings...). Sections are sorted and do not overlap;
    text outside every section is whitespace only (the separators between sections).
    """

    text: str
    source: str
    title: str
    kind: str
    sections: list[Section] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    trust: str = "normal"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidInputError(f"unknown document kind {self.kind!r}")
        if self.trust not in TRUST_LEVELS:
            raise InvalidInputError(f"unknown trust level {self.trust!r}")
        previous_end = 0
        for section in self.sections:
            if not previous_end <= section.start <= section.end <= len(self.text):
                raise InvalidInputError(
                    f"section [{section.start}, {section.end}) is out of order or outside "
                    f"the text (length {len(self.text)})"
                )
            previous_end = section.end

    @property
    def content_hash(self) -> str:
        """sha256 of the normalised text: equal text means an unchanged document."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before storage: ``text == document.text[start:end]``, always."""

    text: str
    start: int
    end: int
    locator: dict[str, Any] = field(default_factory=dict)
