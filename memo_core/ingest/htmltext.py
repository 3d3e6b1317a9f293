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

A page laid out with tables (:func:`layout_tables`: cells that hold lists, nested
tables, preformatted text or lines of prose, as pydoc's pages and many older sites
are built) is read by the stdlib parser, each layout cell a block of its own:
trafilatura's main-text heuristics drop the short, link-dense lines of such a page
(a class's signature line, a section title) once the cells are blocks, and keep a
table's cell on one line otherwise (a signature run into the next sentence). A table
of data keeps its rows, one line each, its cells separated by `` | ``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any

from memo_core.ingest.markdown import extract_markdown
from memo_core.ingest.types import ExtractedDocument

__all__ = ["extract_html", "html_title", "html_to_markdown", "layout_tables", "unescape_markdown"]

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
#: Blocks that start a line, not a paragraph: a blank line after a term would part
#: it from its definition.
_LINES = frozenset({"li", "dt", "dd"})
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


#: What a table of data does not hold in a cell: a page that puts these there lays
#: itself out with the table.
_LAYOUT_BLOCKS = frozenset(
    {"table", "dl", "ul", "ol", "pre", "blockquote", "hr", "h1", "h2", "h3", "h4", "h5", "h6"}
)
#: What marks a table of data: header cells, a header section, a caption.
_DATA_MARKS = frozenset({"th", "thead", "caption"})


@dataclass
class _SurveyedTable:
    """What :class:`_TableSurvey` has seen of one open table."""

    index: int
    layout: bool  # a cell holds a block, or the table says it is for presentation
    data: bool = False  # header cells, a header section or a caption
    prose: bool = False  # a cell holds text on two lines (broken with <br>)
    in_cell: bool = False
    cell_text: bool = False  # the open cell has shown text...
    cell_broken: bool = False  # ...and a line break after it


class _TableSurvey(HTMLParser):
    """For each ``<table>`` in document order: whether it lays out the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.layout: list[bool] = []
        self._open: list[_SurveyedTable] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            if self._open and self._open[-1].in_cell:
                self._open[-1].layout = True  # a table nested in a cell
            role = (dict(attrs).get("role") or "").strip().lower()
            self.layout.append(False)
            self._open.append(
                _SurveyedTable(len(self.layout) - 1, role in ("presentation", "none"))
            )
            return
        if not self._open:
            return
        table = self._open[-1]
        if tag in _DATA_MARKS:
            table.data = True
        if tag in ("td", "th"):
            table.in_cell, table.cell_text, table.cell_broken = True, False, False
        elif tag == "tr":
            table.in_cell = False
        elif table.in_cell and tag in _LAYOUT_BLOCKS:
            table.layout = True
        elif table.in_cell and tag == "br" and table.cell_text:
            table.cell_broken = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._open:
            table = self._open.pop()
            self.layout[table.index] = table.layout or (table.prose and not table.data)
        elif tag in ("td", "th") and self._open:
            self._open[-1].in_cell = False

    def handle_data(self, data: str) -> None:
        if not self._open or not self._open[-1].in_cell or not data.strip():
            return
        table = self._open[-1]
        table.prose = table.prose or table.cell_broken
        table.cell_text = True


def layout_tables(markup: str) -> list[bool]:
    """For each ``<table>`` of ``markup`` in document order, whether it lays out the page
    rather than holding data.

    A layout table has a cell holding a block (a list, a nested table, preformatted
    text, a rule, a heading or a quote) or is marked ``role="presentation"``; a table
    without header cells, header section or caption is one too when a cell holds
    lines of text broken with ``<br>``. Anything else is a table of data.
    """
    survey = _TableSurvey()
    survey.feed(markup)
    survey.close()
    return survey.layout


class _TextCollector(HTMLParser):
    """Collect visible text; headings as ``#`` lines, blocks as line breaks."""

    def __init__(self, layout: list[bool] | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip_stack: list[str] = []
        self._heading: int | None = None
        self._pre = 0  # open <pre> elements: inside one, source line breaks are lines
        self._layout = layout or []  # layout_tables() of the same markup
        # per open table: [layout, its row has shown text, a cell waits for its first text];
        # an empty cell (a gutter, a spacer) leaves no separator behind
        self._tables: list[list[bool]] = []
        self._seen_tables = 0

    def _in_data_cell(self) -> bool:
        return bool(self._tables) and not self._tables[-1][0]

    def _at_line_start(self) -> bool:
        for chunk in reversed(self.out):
            visible = chunk.rstrip(" \t\u00a0")
            if visible:
                return visible.endswith("\n")
        return True

    def _line_break(self) -> None:
        """End the line unless it is empty: a term, its definition, a list item, a
        layout row or cell starts a line of its own, not a paragraph (a signature
        stays right above its description, as the plain-text rendering shows it)."""
        if not self._at_line_start():
            self.out.append("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # an unclosed <head> (legal HTML) must not hide the page
            self._skip_stack.clear()
        if tag == "table":
            self._seen_tables += 1  # counted hidden or not, as layout_tables() counts them
        if self._skip_stack:
            if tag == self._skip_stack[-1] or (tag in _SKIP and tag not in _VOID):
                self._skip_stack.append(tag)
            return
        if tag in _SKIP:
            self._skip_stack.append(tag)
        elif tag in _HEADINGS:
            self.out.append("\n\n" + "#" * _HEADINGS[tag] + " ")
            self._heading = _HEADINGS[tag]
        elif tag == "table":
            index = self._seen_tables - 1
            layout = self._layout[index] if index < len(self._layout) else False
            self._tables.append([layout, False, False])
            self.out.append("\n\n")
        elif tag == "tr" and self._tables:
            self._tables[-1][1] = self._tables[-1][2] = False
            self._line_break()
        elif tag in ("td", "th") and self._tables and self._tables[-1][0]:
            self._line_break()  # a layout cell is a block
        elif tag in ("td", "th") and self._tables:
            self._tables[-1][2] = True  # the separator waits for the cell's first text
        elif tag == "br" and self._in_data_cell():
            self.out.append(" ")  # a row of data stays one line
        elif tag == "br":
            self.out.append("\n")  # a line break inside its paragraph, not a new block
        elif tag in _LINES:
            self._line_break()
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
        elif tag == "table" and self._tables:
            self._tables.pop()
            self.out.append("\n")
        elif tag in _LINES or (tag in ("td", "th", "tr") and self._tables and self._tables[-1][0]):
            self._line_break()
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
        if not self._pre and not data.strip() and self._at_line_start():
            return  # a gutter's &nbsp; or indentation before a block: nothing on the line
        if self._in_data_cell() and self._tables[-1][2] and data.strip():
            table = self._tables[-1]
            if table[1]:
                self.out.append(" | ")
            table[1], table[2] = True, False
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
    text, from_trafilatura = _main_text(markup, use_trafilatura)
    return unescape_markdown(text) if from_trafilatura else text


def _main_text(markup: str, use_trafilatura: bool = True) -> tuple[str, bool]:
    """The page's main text, and whether it is trafilatura's Markdown (escapes and
    inline syntax included) rather than the stdlib reader's text."""
    layout = layout_tables(markup)
    if use_trafilatura and not any(layout):
        try:
            extracted = _trafilatura_markdown(markup)
        except ImportError:  # the web extra is not installed
            extracted = None
        except (Exception, RecursionError):  # hostile markup: fall back, never crash
            extracted = None
        if extracted and extracted.strip():
            return extracted, True
    collector = _TextCollector(layout)
    collector.feed(markup)
    collector.close()
    lines = (
        " ".join(line.split()) if not line.startswith("#") else line.strip()
        for line in "".join(collector.out).split("\n")
    )
    return "\n".join(lines), False


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
    """An HTML page as a document with heading-path locators.

    trafilatura's Markdown is rendered as the page reads (emphasis, code and link
    syntax away, its backslash escapes read), the stdlib reader's text is that already.
    """
    text, from_trafilatura = _main_text(markup)
    doc = extract_markdown(
        text,
        source=source,
        default_title=default_title,
        kind=kind,
        metadata=metadata,
        front_matter=False,
        rendered=from_trafilatura,
    )
    title = html_title(markup)
    return replace(doc, title=title) if title else doc
