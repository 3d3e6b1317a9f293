"""Structure-aware chunking with exact character spans.

A chunk never crosses a hard section boundary (a page, a heading section, a CSV
row), so every chunk has exactly one locator. Timecoded sections (captions,
transcript segments) are short, so consecutive ones are grouped up to ``max_chars``
and the chunk's locator spans from the first one's start to the last one's end.

Inside a region the cut falls at the last paragraph break that fits, else the last
sentence end, else the last line break, else the last space, else at ``max_chars``.
The next chunk starts up to ``overlap_chars`` earlier, on a word start, so a
sentence cut in two is still found whole in one of them. Leading and trailing
whitespace is trimmed from every span; ``chunk.text == doc.text[start:end]`` always.
The function is pure and deterministic.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from memo_core.errors import InvalidInputError, SourceTooLargeError
from memo_core.ingest.types import ChunkDraft, ExtractedDocument, Section

__all__ = ["chunk_document"]

_SENTENCE_END = re.compile(r"[.!?…。][\"'”’»)\]]*\s+")


def chunk_document(
    doc: ExtractedDocument,
    *,
    max_chars: int = 1200,
    overlap_chars: int = 150,
    min_chars: int = 200,
    max_chunks: int | None = None,
) -> list[ChunkDraft]:
    """Split ``doc`` into chunks of at most ``max_chars`` characters.

    ``min_chars`` is the shortest cut the splitter will choose inside a long region
    (it avoids slivers); a whole short section still makes one short chunk, because
    merging it with a neighbour would blur its locator. ``overlap_chars`` and
    ``min_chars`` are capped at half of ``max_chars``, so a small ``max_chars``
    alone is a valid call. With ``max_chunks``, a document that would give more
    chunks raises :class:`~memo_core.errors.SourceTooLargeError` as soon as it
    passes the bound (``IngestPolicy.max_chunks_per_document`` on the ingest path).
    """
    if max_chars < 1:
        raise InvalidInputError("max_chars must be positive")
    if overlap_chars < 0 or min_chars < 0:
        raise InvalidInputError("overlap_chars and min_chars cannot be negative")
    overlap_chars = min(overlap_chars, max_chars // 2)
    min_chars = min(min_chars, max_chars // 2)
    chunks: list[ChunkDraft] = []
    text = doc.text
    lines = _LineIndex(text) if doc.kind in LINE_LOCATED_KINDS else None
    for start, end, sections in _regions(doc, max_chars):
        for span_start, span_end in _split(text, start, end, max_chars, overlap_chars, min_chars):
            locator = _locator(sections, span_start, span_end)
            if lines is not None:
                locator = {**lines.span(span_start, span_end), **locator}
            chunks.append(
                ChunkDraft(
                    text=text[span_start:span_end],
                    start=span_start,
                    end=span_end,
                    locator=locator,
                )
            )
            if max_chunks is not None and len(chunks) > max_chunks:
                raise SourceTooLargeError(
                    f"{doc.source}: more than {max_chunks:,} chunks "
                    "(IngestPolicy.max_chunks_per_document); refused before embedding"
                )
    return chunks


#: Kinds with no pages, headings or timecodes: their chunks are located by line range.
LINE_LOCATED_KINDS = frozenset({"text"})


class _LineIndex:
    """Character offsets to 1-based line numbers (``line_start``/``line_end``, inclusive)."""

    def __init__(self, text: str) -> None:
        self._breaks = [i for i, ch in enumerate(text) if ch == "\n"]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._breaks, offset - 1) + 1

    def span(self, start: int, end: int) -> dict[str, int]:
        return {"line_start": self.line(start), "line_end": self.line(max(start, end - 1))}


def _regions(doc: ExtractedDocument, max_chars: int) -> Iterator[tuple[int, int, list[Section]]]:
    """Yield the spans no chunk may cross, with the sections each one covers."""
    text = doc.text
    sections = doc.sections or [Section(0, len(text), {})]
    cursor = 0
    group: list[Section] = []

    def flush() -> Iterator[tuple[int, int, list[Section]]]:
        if group:
            yield group[0].start, group[-1].end, list(group)
            group.clear()

    for section in sections:
        if text[cursor : section.start].strip():
            # Text no section claims still gets indexed, with no locator.
            yield from flush()
            yield cursor, section.start, []
        if section.is_timed and (not group or section.end - group[0].start <= max_chars):
            group.append(section)
        else:
            yield from flush()
            if section.is_timed:
                group.append(section)
            else:
                yield section.start, section.end, [section]
        cursor = max(cursor, section.end)
    yield from flush()
    if text[cursor:].strip():
        yield cursor, len(text), []


def _locator(sections: list[Section], start: int, end: int) -> dict[str, Any]:
    if not sections:
        return {}
    if len(sections) == 1 or not sections[0].is_timed:
        return dict(sections[0].locator)
    touched = [s for s in sections if s.start < end and s.end > start] or sections
    locator = dict(touched[0].locator)
    locator["end_time"] = touched[-1].locator.get("end_time", locator.get("end_time"))
    return locator


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _split(
    text: str, start: int, end: int, max_chars: int, overlap: int, min_chars: int
) -> Iterator[tuple[int, int]]:
    position, end = _trim(text, start, end)
    while position < end:
        if end - position <= max_chars:
            yield position, end
            return
        # Leave at least min_chars for the tail when the rest is only a little too long.
        limit = min(position + max_chars, max(end - min_chars, position + 1))
        cut = _best_cut(text, position + max(min_chars, 1), limit)
        piece_start, piece_end = _trim(text, position, cut)
        if piece_start < piece_end:
            yield piece_start, piece_end
        position = _next_start(text, position, cut, overlap)
        position, end = _trim(text, position, end)


def _best_cut(text: str, low: int, high: int) -> int:
    """The best place in ``(low, high]`` to end a chunk; ``high`` when none is found."""
    if low >= high:
        return high
    window = text[low:high]
    paragraph = window.rfind("\n\n")
    if paragraph >= 0:
        return low + paragraph + 2
    sentence_cut = -1
    for match in _SENTENCE_END.finditer(window):
        sentence_cut = match.end()
    if sentence_cut > 0:
        return low + sentence_cut
    for separator in ("\n", " ", "\t"):
        found = window.rfind(separator)
        if found >= 0:
            return low + found + 1
    return high


def _next_start(text: str, previous: int, cut: int, overlap: int) -> int:
    """Where the next chunk begins: a word start at most ``overlap`` before ``cut``."""
    if overlap <= 0:
        return cut
    for candidate in range(max(cut - overlap, previous + 1), cut):
        if text[candidate - 1].isspace() and not text[candidate].isspace():
            return candidate
    return cut
