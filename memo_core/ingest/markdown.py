"""Plain text and Markdown: heading sections with their heading path as locator.

Headings are ATX (``## Term``) or setext (a line underlined with ``===``/``---``),
never inside fenced code. Each section runs from its heading line to the next
heading, so a chunk quoting a clause also carries the heading it sits under.

Markdown is stored as it reads (:mod:`memo_core.ingest.inline`): emphasis markers,
link syntax and code-span backticks are rendered away, in the text and in the heading
path, before offsets are taken, so a quote shows what the reader of the page sees and
still sits verbatim at its offsets. Plain text is stored as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memo_core.ingest.frontmatter import split_front_matter
from memo_core.ingest.inline import readable_inline, readable_markdown
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.types import ExtractedDocument

__all__ = [
    "MarkdownSection",
    "extract_markdown",
    "extract_plain_text",
    "first_heading",
    "split_markdown",
]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NOT_PARAGRAPH = re.compile(r"^ {0,3}(?:[-*+>]|\d+[.)]|#|$)")


@dataclass(frozen=True)
class MarkdownSection:
    """A heading section: its heading path (``None`` before the first heading) and text."""

    heading: str | None
    text: str


def split_markdown(body: str) -> list[MarkdownSection]:
    """Cut Markdown at its headings, outside fenced code blocks."""
    lines = body.split("\n")
    starts: list[tuple[int, int, str]] = []  # (line index, level, heading text)
    fence: str | None = None
    for index, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            starts.append((index, len(atx.group(1)), (atx.group(2) or "").strip()))
            continue
        setext = _SETEXT.match(line)
        if (
            setext
            and index > 0
            and not _NOT_PARAGRAPH.match(lines[index - 1])
            and not (starts and starts[-1][0] == index - 1)
        ):
            level = 1 if setext.group(1)[0] == "=" else 2
            starts.append((index - 1, level, lines[index - 1].strip()))
    sections: list[MarkdownSection] = []
    first = starts[0][0] if starts else len(lines)
    if first > 0:
        sections.append(MarkdownSection(None, "\n".join(lines[:first])))
    path: list[tuple[int, str]] = []
    for number, (line_index, level, title) in enumerate(starts):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))
        end = starts[number + 1][0] if number + 1 < len(starts) else len(lines)
        heading = " > ".join(t for _, t in path if t)
        sections.append(MarkdownSection(heading, "\n".join(lines[line_index:end])))
    return sections


def first_heading(sections: list[MarkdownSection]) -> str | None:
    """The first top-level heading, a natural title for a note without one."""
    for section in sections:
        if section.heading and section.text.lstrip().startswith("# "):
            return section.heading.split(" > ")[0]
    return None


def extract_markdown(
    text: str,
    *,
    source: str,
    default_title: str,
    kind: str = "markdown",
    metadata: dict[str, Any] | None = None,
    front_matter: bool = True,
    rendered: bool = True,
) -> ExtractedDocument:
    """Markdown text to a document with heading-path locators and front matter metadata.

    ``rendered``: store the text as its rendering reads (inline syntax rendered away);
    False for text that is already as it reads, with ``#`` headings as its only
    Markdown (the HTML reader's own output).
    """
    meta: dict[str, Any] = dict(metadata or {})
    body = text
    if front_matter:
        fields, body, error = split_front_matter(text)
        if fields:
            meta["front_matter"] = fields
        if error:
            meta["front_matter_error"] = error
    sections = split_markdown(body.replace("\r\n", "\n").replace("\r", "\n"))
    if rendered:
        sections = [
            MarkdownSection(
                readable_inline(s.heading) if s.heading else None, readable_markdown(s.text)
            )
            for s in sections
        ]
    builder = DocumentBuilder()
    for section in sections:
        builder.add(section.text, {"heading": section.heading} if section.heading else {})
    title = _title_from(meta.get("front_matter"), sections) or default_title
    return builder.build(source=source, title=title, kind=kind, metadata=meta)


def _title_from(fields: Any, sections: list[MarkdownSection]) -> str | None:
    if isinstance(fields, dict):
        title = fields.get("title")
        if isinstance(title, str) and title.strip():
            return title.strip()
    return first_heading(sections)


def extract_plain_text(
    text: str, *, source: str, title: str, metadata: dict[str, Any] | None = None
) -> ExtractedDocument:
    """Plain text: one section without a locator; chunking splits it at paragraphs."""
    builder = DocumentBuilder()
    builder.add(text)
    return builder.build(source=source, title=title, kind="text", metadata=metadata)
