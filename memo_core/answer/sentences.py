"""Sentence spans: the one sentence splitter of documents and of chat messages.

Rule-based splitters (English and Russian) that return character spans, so every
sentence they yield is, by construction, a verbatim quote of the text.

:func:`split_sentences` reads documents (extractive answers, evidence windows,
the verifier benchmark, unified conflicts). It splits after ``. ! ? …`` (and any closing quotes or brackets) when the next
word does not start in lower case, except after known abbreviations ("e.g.",
"Dr.", "т.е.", "г."), single-letter initials ("J. K. Rowling") and inside numbers
("3.5", and "9. 81" as tokenized text writes it); it also splits at blank lines
(a line holding only a gutter of bars, as pydoc draws, is blank too), before
bullets and numbered items, around a call signature alone on its line
("dist(p, q, /)"), after Markdown headings and short title lines, and before each
entry of an option list (:func:`option_entry`: "-b ADDRESS, --bind ADDRESS  bind
to this address", "PYTHONPATH : search path"), whose help reads on without a full
stop; an option alone on its line keeps the help indented under it. A record's fields
("Name: value" lines, as mail headers, package metadata and Debian's control files
write them; :func:`is_record_field`) are split by the line rules above, so a short
field stands alone and a field whose value ends in punctuation reads on into the next
one ("Files: vendor/*" with the "Copyright: ..." under it, which is what it is about).

:func:`split_chat_sentences` reads chat messages (memory capture), where people
type in lower case and one line is one thought: it splits after ``. ! ? …``
whatever follows, and at every line break, except after a short list of titles
and Latin abbreviations (:data:`CHAT_ABBREVIATIONS`). The document list would keep
"I said no. then I left" as one sentence ("no." as in "No. 5").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = [
    "ABBREVIATIONS",
    "CHAT_ABBREVIATIONS",
    "CLOSING",
    "field_names",
    "is_field_shaped",
    "is_markup_only",
    "is_record_field",
    "is_section_title",
    "is_signature",
    "is_synopsis",
    "line_content",
    "option_entry",
    "option_spelling",
    "record_around",
    "record_sentences",
    "sentence_around",
    "split_chat_sentences",
    "split_sentences",
    "titles_indented_text",
]

#: Lower-cased words that end with a period without ending a sentence.
ABBREVIATIONS: frozenset[str] = frozenset(
    str.split(
        """e.g i.e etc vs viz cf al approx dr mr mrs ms prof st jr sr inc ltd co corp no nos fig
    figs vol pp p ch sec art gen col lt capt sgt rev hon mt ft dept est ed eds univ jan feb
    mar apr jun jul aug sep sept oct nov dec u.s u.k u.n a.m p.m ph.d b.c a.d
    т.е т.д т.п т.к т.н др пр г гг см им ул д проф стр рис тыс млн млрд руб коп вв н.э
    акад доц св ср напр"""
    )
)

_TERMINAL = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)|[.!?…]+[\"'”’»)\]]*$")
_WORD_BEFORE = re.compile(r"([\w.]+)\.$")
_BULLET = re.compile(r"(?:[-*•‣◦▪–—]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"#{1,6}\s")
#: A line's opening number up to its full stop ("3.", "  4.1."), as a numbered clause or
#: list item starts.
_LINE_NUMBER = re.compile(r"[ \t]*\d{1,3}(?:\.\d{1,3})*\.")
# A numbered clause ("4.1 The term ...") opens a new sentence after a title line, as a
# capital letter does; a wrapped line starting with "3.5" after ordinary prose does not.
_CLAUSE_NUMBER = re.compile(r"\d{1,3}(?:\.\d{1,3})*\.?\s+\S")
_TITLE_MAX = 40
_TITLE_WORDS = 6
# A left gutter of bars, as pydoc draws around a class's members ("     |  text").
_GUTTER = re.compile(r"[ \t]*(?:\|(?=\s|$)[ \t]*)+")
# A call signature alone on its line, as API references put above a description:
# "dist(p, q, /)", "class Path(PurePath)", "sum(xs) -> int", "open(name) from
# builtins.type", and an alias's "insort = insort_right(a, x)". The description, not
# the signature, answers. A line that goes on ("S.clear() -> None -- remove all items",
# "cycle(p) --> p0, p1, ...") says something.
_SIGNATURE = re.compile(
    r"(?:class\s+|[A-Za-z_]\w*\s=\s)?[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*\)"
    r"(?:\s*->\s*[\w.\[\], ]{1,40}?|\s+from\s+[\w.]+)?:?"
)
# A decimal split by a tokenizer ("9. 81", "28. 5"): the period does not end a sentence.
_SPLIT_DECIMAL = re.compile(r"(?<=\d)\. (?=\d)")


#: What opens an option list's entry: an option ("-b", "--bind", "-X", "-?") or, followed
#: at once by the gap or colon before its help, a variable or placeholder ("PYTHONPATH"),
#: or, followed by two spaces or more, a number (a manual page's exit status: "2    the
#: destination could not be reached").
_OPTION_START = re.compile(
    r"-{1,2}[A-Za-z0-9?]|[A-Z][A-Z0-9_]{2,}(?= {2,}| ?: )|\d{1,3}(?= {2,}\S)"
)
#: Between an entry's option and its help: two spaces or more, or a colon ("-b : ...",
#: "PYTHONSTARTUP: ..."), optionally with a dash rule ("--help / -h   -- print").
_OPTION_GAP = re.compile(r" {2,}(?:-{1,2} +)?| ?: +")
#: A token of an option's spelling: an option, a placeholder, choices or a repeat mark
#: ("-c", "<name>", "[<file>", "...],", "{text,html}", "FILE|DIR", "always|default|never:").
_OPTION_TOKEN = re.compile(r"(?:[-<\[{(]|\.\.\.|[A-Z][A-Z0-9_]*\b|\S*[|=])\S*")
_OPTION_MAX = 60
#: An environment variable's name ("GRAIN_HOME", "EDITOR").
_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]{2,}")
#: A file's path ("/etc/grain.conf", "~/.config/grain/", "$XDG_DATA_HOME/grain/*.db").
_PATH = re.compile(r"(?:~|\$[A-Z][A-Z0-9_]*|\.{1,2})?/[\w.~*+@%=-]+(?:/[\w.~*+@%=-]*)*")
#: The start of a command's usage synopsis ("usage: tar [-h] ...", "Usage: 2to3 [options]").
_USAGE = re.compile(r"usage:\s", re.IGNORECASE)


def option_entry(line: str) -> str | None:
    """How ``line`` opens an entry of an option list: ``"entry"`` when it holds an option
    and its help ("-q, --quiet  say less", "-X utf8: enable UTF-8 mode"), ``"option"``
    when it holds only the option's spelling ("-b ADDRESS, --bind ADDRESS"; its help is
    on the lines below), None when it is no option entry (prose, a wrapped help line)."""
    found = _option_spelling(line)
    return None if found is None else found[1]


def option_spelling(line: str) -> str | None:
    """The option an entry of an option list opens with ("-b ADDRESS, --bind ADDRESS"
    of "-b ADDRESS, --bind ADDRESS  bind to this address"); None for any other line."""
    found = _option_spelling(line)
    return None if found is None else found[0]


def _option_spelling(line: str) -> tuple[str, str] | None:
    content = line_content(line)
    if _VARIABLE.fullmatch(content) or _PATH.fullmatch(content):
        # An environment variable or a file alone on an indented line, its help below
        # it, as a manual page's ENVIRONMENT and FILES list them; unindented, a word in
        # capitals is the title of a section ("NOTES").
        return (content, "option") if _indent(line) > 0 else None
    if not _OPTION_START.match(content):
        return None
    gap = _OPTION_GAP.search(content)
    if gap is not None:
        term = content[: gap.start()]
        return (term, "entry") if len(term) <= _OPTION_MAX and ". " not in term else None
    tokens = content.split()
    # Alone on its line, a spelling may be long ("-o {A,B,...}, --option {A,B,...}"): every
    # token of it is an option's, which prose never is.
    if content[-1] not in ".,;" and all(_OPTION_TOKEN.fullmatch(t) for t in tokens):
        return content, "option"
    return None


#: A field of a record, one a line: a name of one to three words (hyphens allowed), a
#: colon and the value on the same line ("Upstream-Contact: Jane Roe", "Requires-Python:
#: >=3.8", "Last updated: 2021-04-01").
_FIELD = re.compile(r"[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,2}:[ \t]+\S")


def is_field_shaped(line: str) -> bool:
    """Whether ``line`` (its content) reads as a "Name: value" field and not a usage
    synopsis: a field when another stands beside it (:func:`is_record_field`)."""
    return bool(_FIELD.match(line)) and not _USAGE.match(line)


#: A field's value of at most this many words can be the name of the text under it.
_FIELD_NAME_WORDS = 3
#: The first line of a field's continued value is prose from this many words on: a
#: licence's text under "License: Expat", not a second value ("2020 Brannock Labs").
_BODY_WORDS = 6
#: What closes a sentence or a clause at a line's end: a line ending otherwise can be a title.
CLOSING = ".!?:;\"')»”…"


def titles_indented_text(line: str, next_line: str) -> bool:
    """Whether ``line`` is a "Name: value" field naming the prose indented under it, as
    a Debian copyright file's "License: GPL-3+" heads that licence's text: a short value
    with no closing punctuation, and a ``next_line`` indented deeper that reads as
    prose. Such a line ends its sentence: the name is no part of the text's first one."""
    field = line_content(line)
    value = field.partition(":")[2].split()
    if not is_field_shaped(field) or len(value) > _FIELD_NAME_WORDS or field[-1:] in CLOSING:
        return False
    deeper = _indent(next_line) > _indent(line)
    return deeper and len(line_content(next_line).split()) >= _BODY_WORDS


def _record_fields(contents: list[str], indents: list[int]) -> list[bool]:
    """Which lines are fields of a record: a line shaped as a field (:data:`_FIELD`, not a
    usage synopsis) with another such line beside it at its indentation, past the more
    indented lines that continue a value. One such line alone is prose or a title with a
    colon ("Chapter 3: The Return"), which stays what the other rules make of it."""
    shaped = [is_field_shaped(c) for c in contents]

    def beside(k: int, step: int) -> bool:
        j = k + step
        while 0 <= j < len(contents) and contents[j] and indents[j] > indents[k]:
            j += step  # a line that continues a value
        return 0 <= j < len(contents) and shaped[j] and indents[j] == indents[k]

    return [shaped[k] and (beside(k, -1) or beside(k, 1)) for k in range(len(contents))]


@functools.lru_cache(maxsize=256)
def _records(text: str) -> tuple[frozenset[int], tuple[tuple[int, int], ...]]:
    """The offsets at which the record fields of ``text`` start their line, and the span
    of each record: its fields in a row with the lines that continue their values."""
    lines = text.split("\n")
    contents = [line_content(x) for x in lines]
    indents = [_indent(x) for x in lines]
    fields = _record_fields(contents, indents)
    starts: set[int] = set()
    records: list[tuple[int, int]] = []
    pos, field_indent = 0, -1
    for line, content, indent, field in zip(lines, contents, indents, fields, strict=True):
        if field:
            starts.add(pos)
            if records and records[-1][1] == pos - 1 and indent == field_indent:
                records[-1] = (records[-1][0], pos + len(line))
            else:
                records.append((pos, pos + len(line)))
            field_indent = indent
        elif records and records[-1][1] == pos - 1 and content and indent > field_indent:
            records[-1] = (records[-1][0], pos + len(line))  # a value goes on
        pos += len(line) + 1
    return frozenset(starts), tuple(records)


def is_record_field(text: str, line_start: int) -> bool:
    """Whether the line of ``text`` starting at ``line_start`` is a field of a record
    ("Copyright: 2011 Jane Roe" among "Files: ..." and "License: ..."): it states a
    value, so it is a sentence that can answer, never a title."""
    return line_start in _records(text)[0]


def record_around(text: str, offset: int) -> tuple[int, int] | None:
    """The span of the record of ``text`` holding ``offset`` (its fields in a row, with
    the lines continuing their values), or None outside every record."""
    return next((r for r in _records(text)[1] if r[0] <= offset < r[1]), None)


def field_names(text: str, start: int, end: int) -> list[str]:
    """The names of the record fields (:func:`is_record_field`) whose lines the sentence
    ``text[start:end]`` holds, in order ("Author" for "Author: Jane Roe")."""
    names = []
    line_start = text.rfind("\n", 0, start) + 1
    while line_start < end:
        if is_record_field(text, line_start):
            line = text[line_start : text.find(":", line_start)]
            names.append(line_content(line))
        nxt = text.find("\n", line_start)
        if nxt == -1:
            break
        line_start = nxt + 1
    return names


def record_sentences(text: str, spans: Sequence[tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """``{sentence index: (first, last + 1)}``: for each sentence of ``spans`` that starts
    inside a record of ``text``, the sentences of that record (one pass over both)."""
    out: dict[int, tuple[int, int]] = {}
    members: dict[tuple[int, int], list[int]] = {}
    for i, (a, _) in enumerate(spans):
        record = record_around(text, a)
        if record is not None:
            members.setdefault(record, []).append(i)
    for indices in members.values():
        for i in indices:
            out[i] = (indices[0], indices[-1] + 1)
    return out


def is_section_title(line: str) -> bool:
    """Whether ``line`` titles a section of a help text or a manual page: unindented, a
    few words ending in a colon ("options:", "positional arguments:", "Exit codes:") or
    written in capitals, as a manual page titles its sections ("EXIT STATUS", "SEE
    ALSO")."""
    return (
        line[:1].isalpha()
        and "," not in line  # "To install it, run:" is a sentence that introduces a command
        and (line.endswith(":") or (line.isupper() and line.replace(" ", "").isalpha()))
        and len(line) <= _TITLE_MAX
        and len(line.split()) <= 4
    )


#: A line mostly of bracketed options and alternatives, as a synopsis is ("[-n | -t] url").
_SYNOPSIS_TOKEN = re.compile(r"[\[(|{]|.*[\])}]$")


def is_synopsis(sentence: str) -> bool:
    """Whether ``sentence`` is a command's usage synopsis ("usage: tar [-h] [-f FILE] ...",
    "[-n | -t] url"): it names every option and says what none of them does, so it is
    context for a question, never its answer."""
    if _USAGE.match(sentence.lstrip()):
        return True
    tokens = sentence.split()
    bracketed = sum(bool(_SYNOPSIS_TOKEN.match(t)) for t in tokens)
    return len(tokens) >= 4 and bracketed >= 0.6 * len(tokens)


#: Text its author struck through (HTML ``<s>``, ``<del>``, ``<strike>``; Markdown ``~~``):
#: a claim withdrawn, kept on the page to show it no longer holds.
_STRUCK = re.compile(
    r"(?:<(s|del|strike)>(?:(?!</?(?:s|del|strike)>).)*</\1>|~~(?:(?!~~).)+~~)[.,;:!]?",
    re.IGNORECASE | re.DOTALL,
)
#: Markup that shows or links something and says nothing: images and badges (Markdown
#: ``![alt](url)``, linked ``[![alt](url)](url)``, reST ``.. image::`` with its options and
#: ``|name|`` substitutions), HTML tags, bare links.
_MARKUP = re.compile(
    r"!\[[^\]]*\]\([^)]*\)"
    r"|\[\s*\]\([^)]*\)"
    r"|<[^<>]*>"
    r"|\.\.\s+(?:image|figure)::\s*\S*"
    r"|:(?:target|alt|width|height|align):[^\n]*"
    r"|\|[\w .-]+\|(?:_{1,2})?"
    r"|https?://\S+",
    re.IGNORECASE,
)


def is_markup_only(sentence: str) -> bool:
    """Whether ``sentence`` says nothing a reader could take as an answer: struck through
    as a whole (its author withdrew it), or nothing but images, badges, tags and links
    (a README's shield row). Such a sentence is never the answer, whatever words its
    alt texts or link targets share with a question."""
    text = sentence.strip()
    if _STRUCK.fullmatch(text):
        return True
    rest = _MARKUP.sub(" ", text)
    return bool(text) and not re.search(r"\w", rest)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def line_content(line: str) -> str:
    """``line`` without surrounding whitespace and any left gutter of bars."""
    m = _GUTTER.match(line)
    return line[m.end() if m else 0 :].strip()


def is_signature(line: str) -> bool:
    """Whether ``line`` (one line, gutter allowed) is a call or class signature alone."""
    return _SIGNATURE.fullmatch(line_content(line)) is not None


def _is_abbreviation(text: str, dot: int) -> bool:
    """Whether the period at ``text[dot]`` ends an abbreviation or an initial."""
    m = _WORD_BEFORE.search(text, 0, dot + 1)
    if not m:
        return False
    word = m.group(1).lower()
    if word in ABBREVIATIONS or word.strip(".") in ABBREVIATIONS:
        return True
    token = m.group(1)
    if len(token) == 1 and token.isalpha() and token.isupper():
        return True  # an initial: "J. K. Rowling"
    # dotted acronyms such as "U.S.A" or "т.е": single letters separated by periods
    return bool(re.fullmatch(r"(?:\w\.)+\w", token))


def _line_breaks(text: str) -> list[int]:
    """Positions where a line structure (not punctuation) ends a sentence."""
    cuts: list[int] = []
    lines = text.split("\n")
    # What each line is, read once: every line is looked at as the current and the next.
    contents = [line_content(line) for line in lines]
    indents = [_indent(line) for line in lines]
    entries = [option_entry(line) for line in lines]
    titles = [is_section_title(line) for line in lines]
    signatures = [is_signature(content) for content in contents]
    pos = 0
    usage: int | None = None  # the indentation of the usage synopsis being read, if any
    for k, line in enumerate(lines[:-1]):
        end = pos + len(line)
        nxt = contents[k + 1]
        cur = contents[k]
        deeper = indents[k + 1] > indents[k]
        if _USAGE.match(cur):
            usage = indents[k]
        if _USAGE.match(nxt) or (usage is not None and indents[k + 1] <= usage):
            # A usage synopsis is a sentence of its own: it runs over its indented lines.
            usage = None if not _USAGE.match(nxt) else usage
            cuts.append(end)
            pos = end + 1
            continue
        if entries[k] == "option" and deeper and nxt and not _BULLET.match(nxt):
            pos = end + 1  # an option alone on its line: its help follows, indented
            continue
        item, next_item = _BULLET.match(cur), _BULLET.match(nxt)
        if (
            item
            and next_item
            and option_entry(cur[item.end() :]) == "option"
            and not option_entry(nxt[next_item.end() :])
        ):
            # A definition list written as a list ("- -b ADDRESS" / "- bind to this
            # address"), as HTML's <dt>/<dd> come out of a page: the option and its help.
            pos = end + 1
            continue
        if (
            # The next entry of an option list, or its first under a title ("options:").
            (entries[k + 1] and (not deeper or cur.endswith(":")))
            # A section title of a help text, and what it titles.
            or (titles[k + 1] and (cur[-1:] in ".!?:)" or indents[k] > 0))
            or (titles[k] and deeper)
            or not any(c.isalnum() for c in cur)  # blank, or a rule such as "-----"
            or not any(c.isalnum() for c in nxt)
            or signatures[k]
            or signatures[k + 1]
            or titles_indented_text(line, lines[k + 1])
            or _BULLET.match(nxt)
            or _HEADING.match(nxt)
            or _HEADING.match(cur)
            # A full stop before a line standing out to the left: the next entry of an
            # indented list ("Compression level, 0-9." over "  wbits"), whatever its case.
            or (cur[-1:] in ".!?" and indents[k + 1] < indents[k] and nxt[:1].isalnum())
            or (
                len(cur) <= _TITLE_MAX
                and cur[-1:].isalnum()
                and (
                    nxt[:1].isupper()
                    or (len(cur.split()) <= _TITLE_WORDS and _CLAUSE_NUMBER.match(nxt))
                )
            )
        ):
            cuts.append(end)
        pos = end + 1
    return cuts


def _punctuation_breaks(text: str) -> list[int]:
    cuts: list[int] = []
    for m in _TERMINAL.finditer(text):
        end = m.end()
        rest = text[end:].lstrip()
        if rest and rest[0].islower():
            continue
        if _SPLIT_DECIMAL.match(text, m.end() - 1):
            continue
        punct = m.group().rstrip("\"'”’»)]")
        if punct == "..." and m.start() and text[m.start() - 1] in " \t[]":
            # A repeat mark of a synopsis ("[file ...]", "[arg] ...", "[OPTION]..."), no ellipsis.
            continue
        if punct == "." and _is_abbreviation(text, m.start()) and rest:
            continue
        if punct == "." and _LINE_NUMBER.fullmatch(text, text.rfind("\n", 0, m.start()) + 1, end):
            continue  # "3." opening a clause or an item: its number, not a sentence
        cuts.append(end)
    return cuts


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    for rule in (_GUTTER, _BULLET, _HEADING):
        m = rule.match(text, a, b)
        if m:
            a = m.end()
    if b > a and text[b - 1] == "\\" and text[b : b + 1] in ("", "\n"):
        b -= 1  # a Markdown hard line break ends the line, no part of what it says
    while a < b and text[a].isspace():
        a += 1
    return a, b


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, in order.

    Spans exclude surrounding whitespace and leading bullet or heading markers;
    fragments without a letter or digit are dropped.
    """
    # One answer splits the same top chunks several times (windows, picker, related
    # passages), and the next question often retrieves them again: split each once.
    return list(_spans(text))


@functools.lru_cache(maxsize=256)
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    cuts = sorted(set(_punctuation_breaks(text)) | set(_line_breaks(text)))
    spans: list[tuple[int, int]] = []
    prev = 0
    for cut in [*cuts, len(text)]:
        if cut <= prev:
            continue
        a, b = _trim(text, prev, cut)
        if a < b and any(c.isalnum() for c in text[a:b]):
            spans.append((a, b))
        prev = cut
    return tuple(spans)


def sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the whole sentence(s) of ``text`` holding ``text[start:end]``.

    From the start of the sentence that holds ``text[start]`` to the end of the one
    that holds ``text[end - 1]``; never narrower than ``(start, end)``.
    """
    spans = _spans(text)
    left = next((a for a, b in spans if start < b), start)
    right = next((b for a, b in reversed(spans) if a < end), end)
    return min(left, start), max(right, end)


#: Words that end with a period without ending a sentence in a chat message.
CHAT_ABBREVIATIONS = re.compile(
    r"\b(?:mr|mrs|ms|dr|st|prof|vs|etc|e\.g|i\.e|т\.е|т\.д|ул|г|им|стр)\.$", re.IGNORECASE
)
_CHAT_BREAK = re.compile(r"(?<=[.!?…])\s+|\n+")


def split_chat_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of a chat message, in order.

    Spans exclude surrounding whitespace; a span running past an abbreviation
    ("Mr. Smith") holds the whitespace between its parts as the message had it.
    """
    spans: list[tuple[int, int]] = []
    prev = 0
    for cut in [*(m.start() for m in _CHAT_BREAK.finditer(text)), len(text)]:
        a, b = prev, cut
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        prev = cut
        if a >= b:
            continue
        if spans and CHAT_ABBREVIATIONS.search(text, spans[-1][0], spans[-1][1]):
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    return spans
