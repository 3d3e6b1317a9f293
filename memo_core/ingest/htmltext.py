"""HTML to Markdown-shaped text, so headings become section locators.

trafilatura (the ``web`` extra) finds the main text and drops navigation and
boilerplate; when it is not installed, finds nothing or fails on hostile markup,
a streaming stdlib parser takes over. That parser never recurses, so nesting a
hundred thousand levels deep costs memory proportional to the input, not a crash.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

from memo_core.ingest.markdown import extract_markdown
from memo_core.ingest.types import ExtractedDocument

__all__ = ["extract_html", "html_title", "html_to_markdown", "unescape_markdown"]

_SKIP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "head",
        "nav",
        "footer",
        "aside",
        "iframe",
        "object",
        "select",
        "button",
        "form",
    }
)
_BLOCK = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "li",
        "table",
        "tr",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "address",
        "hr",
        "br",
        "body",
    }
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


class _TextCollector(HTMLParser):
    """Collect visible text; headings as ``#`` lines, blocks as line breaks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip_stack: list[str] = []
        self._heading: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # an unclosed <head> (legal HTML) must not hide the page
            self._skip_stack.clear()
        if self._skip_stack:
            if tag == self._skip_stack[-1] or (tag in _SKIP and tag not in _VOID):
                self._skip_stack.append(tag)
            return
        if tag in _SKIP:
            self._skip_stack.append(tag)
        elif tag in _HEADINGS:
            self.out.append("\n\n" + "#" * _HEADINGS[tag] + " ")
            self._heading = _HEADINGS[tag]
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag in _BLOCK:
            self.out.append("\n\n" if tag in ("p", "table", "pre", "blockquote") else "\n")

    def handle_endtag(self, tag: str) -> None:
        if self._skip_stack:
            if tag in self._skip_stack:
                while self._skip_stack and self._skip_stack.pop() != tag:
                    pass
            return
        if tag in _HEADINGS:
            self.out.append("\n\n")
            self._heading = None
        elif tag in _BLOCK:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip_stack:
            return
        if self._heading is not None:
            data = " ".join(data.split())  # a heading must stay on its one line
        self.out.append(data)


#: The punctuation trafilatura's Markdown output puts a backslash before. The page
#: never showed those backslashes, and a quote or an identifier (``max_value``,
#: ``a*b``) must read as it does on the page, so they are taken out again.
_MD_ESCAPE = re.compile(r"\\([`*_{}\[\]<>()#+\-.!|~])")
#: Escapes that keep the structure the Markdown reader sees: at the start of a line
#: an unescaped ``#`` would make a heading, a backtick a code fence, ``>`` a quote.
_STRUCTURAL_AT_LINE_START = frozenset("#`>")


def _unescaped(match: re.Match[str]) -> str:
    line, char = match.string, match.group(1)
    if char == "|" and line.lstrip().startswith("|"):  # a table row: keep its cells
        return match.group(0)
    at_line_start = match.start() == len(line) - len(line.lstrip())
    if at_line_start and char in _STRUCTURAL_AT_LINE_START:
        return match.group(0)
    return char


def unescape_markdown(text: str) -> str:
    """``text`` without the backslash escapes of Markdown punctuation, except where the
    backslash keeps a line from becoming a heading, fence or quote, or keeps a ``|``
    inside a table cell from splitting it."""
    return "\n".join(_MD_ESCAPE.sub(_unescaped, line) for line in text.split("\n"))


def html_to_markdown(markup: str, *, use_trafilatura: bool = True) -> str:
    """The main text of ``markup`` with ``#`` headings; empty when there is none."""
    if use_trafilatura:
        try:
            import trafilatura
        except ImportError:
            pass
        else:
            try:
                extracted = trafilatura.extract(
                    markup,
                    output_format="markdown",
                    include_tables=True,
                    include_comments=False,
                    favor_recall=True,
                )
            except (Exception, RecursionError):  # hostile markup: fall back, never crash
                extracted = None
            if extracted and extracted.strip():
                return unescape_markdown(str(extracted))
    collector = _TextCollector()
    collector.feed(markup)
    collector.close()
    lines = (
        " ".join(line.split()) if not line.startswith("#") else line.strip()
        for line in "".join(collector.out).split("\n")
    )
    return "\n".join(lines)


def html_title(markup: str) -> str | None:
    """The document's ``<title>``, unescaped and on one line."""
    match = _TITLE.search(markup[:200_000])
    if not match:
        return None
    title = " ".join(html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).split())
    return title or None


def extract_html(
    markup: str,
    *,
    source: str,
    default_title: str,
    kind: str = "html",
    metadata: dict[str, Any] | None = None,
) -> ExtractedDocument:
    """An HTML page as a document with heading-path locators."""
    text = html_to_markdown(markup)
    doc = extract_markdown(
        text,
        source=source,
        default_title=default_title,
        kind=kind,
        metadata=metadata,
        front_matter=False,
    )
    title = html_title(markup)
    return replace(doc, title=title) if title else doc
