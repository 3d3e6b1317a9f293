"""Markdown's inline syntax rendered away: the text a reader of the rendered page sees.

A quote is shown to the user and verified verbatim against the stored text, so the
stored text of a Markdown document is what its rendering shows: ``**default**`` is
"default", ``[the guide](https://...)`` is "the guide", an image is its alt text,
``\\*`` is "*", ``&amp;`` is "&". A code span keeps its backticks: they are how the
text shows an identifier as code when it starts a sentence ("`path` defaults to ..."
is a new sentence, "path defaults to ..." after a full stop reads as a run-on), and
the plain text of the same docs writes them too. The block structure stays
line for line (headings keep their ``#`` markers: they are the section locators;
list markers, quote markers, fenced and indented code as written), and a table row
becomes its cells joined by `` | ``, without the outer bars, its empty edge cells or
the delimiter row under the header.

Inline syntax is read by markdown-it-py, CommonMark's rules, one line at a time (an
emphasis that spans two lines keeps its markers). Two exceptions to CommonMark, for
what documentation nearly always means: a single word between underscores is a name
(``__init__``, ``_private_``), and markers inside a word are arithmetic or code
(``2**10``, ``f(*args, **kwargs)`` beside it), not emphasis; both stay as written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["readable_inline", "readable_markdown"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INDENTED = re.compile(r"^(?: {4}|\t)")
# What opens a line and is block syntax, kept as written: indentation, quote markers,
# a list marker, a heading's hashes.
_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*(?:[-*+][ \t]+|\d{1,9}[.)][ \t]+|#{1,6}[ \t]+)?")
_RULE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$")
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_BAR = re.compile(r"(?<!\\)\|")
_BARRED_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$")  # a row written without a header
#: Escaped at a line's start, these keep the line from reading as a heading, a code
#: fence or a quote to the chunker and the sentence splitter: the backslash stays.
_STRUCTURAL = ("\\#", "\\`", "\\>")
_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("strikethrough")


_OPEN = frozenset({"strong_open", "em_open", "s_open"})
_CLOSE = frozenset({"strong_close", "em_close", "s_close"})


def _as_written(tokens: Sequence[Any], opener: int, closer: int) -> bool:
    """Whether an emphasis pair is better read as the characters it is made of: one word
    between underscores (a name such as ``__init__``), or markers inside a word
    ("2**10", "x*y*z"), which in documentation are arithmetic or code, not emphasis."""
    markup = tokens[opener].markup
    inner = tokens[opener + 1 : closer]
    if (
        "_" in markup
        and len(inner) == 1
        and inner[0].type == "text"
        and _WORD.fullmatch(inner[0].content)
    ):
        return True
    before = tokens[opener - 1] if opener > 0 else None
    after = tokens[closer + 1] if closer + 1 < len(tokens) else None
    return bool(
        (before is not None and before.type == "text" and before.content[-1:].isalnum())
        or (after is not None and after.type == "text" and after.content[:1].isalnum())
    )


def _render(tokens: Sequence[Any]) -> str:
    literal: set[int] = set()
    openers: list[int] = []
    for index, token in enumerate(tokens):
        if token.type in _OPEN:
            openers.append(index)
        elif token.type in _CLOSE and openers:
            opener = openers.pop()
            if _as_written(tokens, opener, index):
                literal.update((opener, index))
    out: list[str] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("text", "text_special", "html_inline"):
            out.append(token.content)
        elif kind == "code_inline":
            out.append(token.markup + token.content + token.markup)
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "image":
            out.append(_render(token.children or []))
        elif index in literal:
            out.append(token.markup)
        # other link, emphasis and strikethrough markers show nothing
    return "".join(out)


def readable_inline(text: str) -> str:
    """One line of Markdown (no block syntax) as its rendering reads."""
    if not text.strip():
        return text
    [block] = _parser().parseInline(text)
    return _render(block.children or [])


def _row(line: str) -> str:
    cells = [readable_inline(cell.strip()) for cell in _CELL_BAR.split(line.strip())]
    while cells and not cells[0].strip():
        cells.pop(0)
    while cells and not cells[-1].strip():
        cells.pop()
    return " | ".join(cells)


def readable_markdown(text: str) -> str:
    """``text`` (Markdown) with its inline syntax rendered away, line for line
    (see the module's docstring); code blocks and rules are kept as written."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    in_table = in_code = False
    previous_blank = True
    for index, line in enumerate(lines):
        blank = not line.strip()
        fence_match = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            marker = fence_match.group(1) if fence_match else ""
            if marker[:1] == fence[0] and len(marker) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            out.append(line)
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if blank:
            in_table = False
            out.append(line)
            previous_blank = True
            continue
        if not _INDENTED.match(line):
            in_code = False
        if (
            in_table
            or _BARRED_ROW.match(line)
            or ("|" in line and _DELIMITER_ROW.match(following) and "-" in following)
        ):
            if _DELIMITER_ROW.match(line) and in_table and "-" in line:
                pass  # the delimiter row under a table's header says nothing
            else:
                out.append(_row(line))
            in_table = True
        elif _INDENTED.match(line) and (previous_blank or in_code):
            in_code = True  # an indented code block: as written, until a line that is not
            out.append(line)
        elif _RULE.match(line):
            out.append(line)
        else:
            prefix = _PREFIX.match(line)
            cut = prefix.end() if prefix else 0
            escape = "\\" if line.startswith(_STRUCTURAL, cut) else ""
            out.append(line[:cut] + escape + readable_inline(line[cut:]))
        previous_blank = blank
    return "\n".join(out)
