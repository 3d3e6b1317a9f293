"""HTML to Markdown-shaped text, so headings become section locators.

trafilatura (the ``web`` extra) finds the main text and drops navigation and
boilerplate; when it is not installed, finds nothing or fails on hostile markup,
a streaming stdlib parser takes over. That parser never recurses, so nesting a
hundred thousand levels deep costs memory proportional to the input, not a crash.

Both read a ``<br>`` as the line break it is, not as the end of a paragraph: pages
that wrap running prose with ``<br>`` (pydoc's do, every line) must keep a wrapped
sentence one sentence, because the sentence splitter ends sentences at blank lines.
Two breaks with nothing visible between them (``<br>&nbsp;<br>``) are an empty
line, a paragraph break, as on the page.
"""

from __future__ import annotations

import html
import re
import unicodedata
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
_SOURCE_WHITESPACE = re.compile(r"[ \t\r\n\f]+")  # HTML's whitespace; not U+00A0
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


class _TextCollector(HTMLParser):
    """Collect visible text; headings as ``#`` lines, blocks as line breaks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip_stack: list[str] = []
        self._heading: int | None = None
        self._pre = 0  # open <pre> elements: inside one, source line breaks are lines

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
        elif tag == "br":
            self.out.append("\n")  # a line break inside its paragraph, not a new block
        elif tag in _BLOCK:
            if tag == "pre":
                self._pre += 1
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
        elif tag in _BLOCK and tag != "br":
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip_stack:
            return
        if self._heading is not None:
            data = " ".join(data.split())  # a heading must stay on its one line
        elif not self._pre:
            # A line break in the source is a space on the page; only <br> and
            # blocks break lines (a wrapped source line must not split a sentence).
            data = _SOURCE_WHITESPACE.sub(" ", data)
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


def _trafilatura_markdown(markup: str) -> str | None:
    """trafilatura's main text as Markdown, with ``<br>`` read as a line break.

    trafilatura's Markdown writer ends a paragraph at every ``<lb/>`` (its ``<br>``),
    so the extracted tree is mended first (:func:`_fold_line_breaks`) and then
    written with trafilatura's own writer.
    """
    import trafilatura
    from trafilatura.xml import xmltotxt

    document = trafilatura.bare_extraction(
        markup,
        output_format="markdown",
        include_tables=True,
        include_comments=False,
        favor_recall=True,
    )
    body = getattr(document, "body", None)
    if body is None:
        return None
    _fold_line_breaks(body)
    return unicodedata.normalize("NFC", xmltotxt(body, True))


def _fold_line_breaks(body: Any) -> None:
    """Turn each ``<lb/>`` of trafilatura's tree into the text line break it stands for.

    A run of breaks with only whitespace between them is an empty line on the page:
    one ``<lb/>`` is kept, which the writer renders as a paragraph break. A break in
    a table cell stays as it is (the writer joins a cell's lines, and a line break
    there would end the table row).
    """
    for lb in list(body.iter("lb")):
        parent = lb.getparent()
        if parent is None or _in_cell(lb):
            continue
        following = lb.getnext()
        if following is not None and following.tag == "lb" and not (lb.tail or "").strip():
            continue  # the first break of an empty line: the writer's paragraph break
        previous = lb.getprevious()
        if previous is not None and previous.tag == "lb" and not (previous.tail or "").strip():
            previous.tail = lb.tail  # the second break of an empty line: one is enough
            parent.remove(lb)
            continue
        text = "\n" + (lb.tail or "").lstrip(" \t\r\n")
        if previous is not None:
            previous.tail = (previous.tail or "").rstrip(" \t\r\n") + text
        else:
            parent.text = (parent.text or "").rstrip(" \t\r\n") + text
        parent.remove(lb)


def _in_cell(element: Any) -> bool:
    return any(ancestor.tag == "cell" for ancestor in element.iterancestors())


def html_to_markdown(markup: str, *, use_trafilatura: bool = True) -> str:
    """The main text of ``markup`` with ``#`` headings; empty when there is none."""
    if use_trafilatura:
        try:
            extracted = _trafilatura_markdown(markup)
        except ImportError:  # the web extra is not installed
            extracted = None
        except (Exception, RecursionError):  # hostile markup: fall back, never crash
            extracted = None
        if extracted and extracted.strip():
            return unescape_markdown(extracted)
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
