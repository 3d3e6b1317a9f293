"""Evidence windows: a sentence with its neighbours, the unit the gate decides on.

A chunk of 300 words may share the question's terms in sentences far apart and
still not answer it; the sentence that answers, read with the sentences around it,
does. :func:`best_window` finds, over the top hits, the window that covers most of
the question's term weight. A heading (a short line with no closing punctuation,
or a Markdown ``#`` line) is context for its neighbours, never a window's centre:
:func:`is_heading` tells, and the extractive picker uses it too.
:func:`answer_type_match` checks that a window holds the kind of thing the
question asks for (a date for "when", a number for "how many", a name for "who");
:func:`answer_slot` that a sentence holds one the question does not already name;
:func:`answer_form` that it takes a stance for a yes/no question or gives a reason
for a "why".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from memo_core.answer.field_words import field_terms
from memo_core.answer.lemmas import identifier_terms, term_of
from memo_core.answer.lexicon import MODALS, NEGATIONS, word_frequency
from memo_core.answer.salience import is_coined
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.sentences import (
    CLOSING,
    is_markup_only,
    is_record_field,
    is_section_title,
    is_signature,
    line_content,
    option_entry,
    record_around,
    record_sentences,
    split_sentences,
    titles_indented_text,
)
from memo_core.search.text import STOPWORDS, detect_language, tokenize
from memo_core.types import Hit

__all__ = [
    "CANDIDATES",
    "PER_DOCUMENT",
    "Window",
    "answer_form",
    "answer_slot",
    "answer_type_match",
    "asked_superlatives",
    "asks_for_exception",
    "asks_for_number",
    "asks_for_place",
    "asks_own_version",
    "best_window",
    "diversify",
    "holds_asked_number",
    "implied_terms",
    "is_heading",
    "named_documents",
    "names_exception",
    "names_indented_text",
    "names_place",
    "rank_windows",
    "sentence_contexts",
    "states_asked_default",
    "states_superlative",
    "titles_version",
    "without_type_cue",
]

_HEADING_WORDS = 10

#: At most this many of the hits an answer reads come from one document.
PER_DOCUMENT = 2
#: How many of the best windows get their sentence embedded (the costly part).
CANDIDATES = 8
#: What may stand before a heading on its line: a gutter of bars or a section number
#: ("4.", "2.1"). Not a bullet: a bulleted line is an item of a list ("* Enable the
#: debug mode"), which states what it says without a full stop.
_HEADING_PREFIX = re.compile(r"[\s|]*(?:\d{1,3}(?:\.\d{1,3})*\.?)?\s*")


# A title's underline, in Markdown's setext or reStructuredText ("3.0.0 (2021-10-21)"
# over "------------------"): one of these marks repeated along the line, about as long
# as the title. Not a code fence's backticks, nor a short rule under a paragraph.
_UNDERLINE = re.compile(r"\s*([=\-~^*+])\1{2,}\s*")


def _underlined(text: str, line_start: int, line_end: int) -> bool:
    """Whether the line ``text[line_start:line_end]`` is underlined as a title: the very
    next line is a run of one mark (:data:`_UNDERLINE`) at least half as long."""
    if line_end >= len(text):
        return False
    next_end = text.find("\n", line_end + 1)
    following = text[line_end + 1 : len(text) if next_end == -1 else next_end]
    title = text[line_start:line_end].strip()
    return _UNDERLINE.fullmatch(following) is not None and 2 * len(following.strip()) >= len(title)


def _neighbour_line(text: str, start: int, end: int, step: int) -> str:
    """The content of the nearest non-blank line after (``step`` 1) or before (-1) the
    line spanning ``start``..``end``; "" when there is none."""
    while True:
        if step > 0:
            at = text.find("\n", end)
            if at == -1:
                return ""
            start, end = (
                at + 1,
                len(text) if text.find("\n", at + 1) == -1 else text.find("\n", at + 1),
            )
        else:
            at = text.rfind("\n", 0, start)
            if at == -1:
                return ""
            start, end = text.rfind("\n", 0, at) + 1, at
        line = line_content(text[start:end])
        if line and not _FENCE.match(line):  # a fence is markup around code, not a line of it
            return line


#: A Markdown code fence: markup around a block, no line of content.
_FENCE = re.compile(r"(?:```|~~~)")
#: A manual page's running header or footer: columns apart by three spaces or more,
#: the first the same as the last ("LS(1)      User Commands      LS(1)").
_RUNNING_HEADER = re.compile(r"(\S+(?: \S+)*) {3,}.*\S {3,}\1")


#: An entry of a Markdown table of contents: a line that is only a link to a section of
#: the page ("- [Load .env files in IPython](#load-env-files-in-ipython)"). It names a
#: section, as its heading does, and says nothing itself.
_CONTENTS_ENTRY = re.compile(r"[\s|]*(?:[-*+]|\d{1,3}[.)])?\s*\[[^\]\n]+\]\(#[^)\s]*\)\s*")

#: What stands on a clause's line before its run-in title: the number that opens a clause
#: of a contract or a licence ("3.", "4.1", "Section 2.", "§ 7").
_CLAUSE_PREFIX = re.compile(
    r"\s*(?:(?:section|article|clause|§)\s*)?\d{1,3}(?:\.\d{1,3})*\.?\s+", re.IGNORECASE
)
#: At most this many words in a clause's run-in title ("Commercial use.").
_RUN_IN_WORDS = 4
#: A copyright notice: a statement of who holds the rights, never a title.
_NOTICE = re.compile(r"(?:copyright|\u00a9|\(c\))\s*(?:\(c\)|\u00a9)?\s*\d{4}", re.IGNORECASE)


def _is_run_in_title(sentence: str, prefix: str, rest_of_line: str) -> bool:
    """Whether ``sentence`` is the run-in title of a numbered clause: a few words ending in
    a full stop, right after the clause's number, with the clause going on on the same
    line ("3. Patents. If you start a patent claim ..."). It names what the clause is
    about and says nothing itself."""
    return (
        _CLAUSE_PREFIX.fullmatch(prefix) is not None
        and sentence.endswith(".")
        and len(sentence.split()) <= _RUN_IN_WORDS
        and sentence[:1].isupper()
        and bool(rest_of_line.strip())
    )


def is_heading(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a sentence span) is a heading, a title or a signature line.

    A Markdown ``#`` line is a heading, and so are a manual page's running header and a
    numbered clause's run-in title ("3. Patents. If you start ..."). An entry of an
    option list alone on its line ("--fast  compress faster") and a record's field
    ("Copyright: 2011 Jane Roe" among other fields) are definitions, and a copyright
    notice ("Copyright 2019 Jane Roe") a statement, never titles. A short line with no
    closing punctuation is a title, unless it sits right under a call signature
    ("total(self)") or a section title in capitals ("NAME" on a manual page), or right
    above a heading: then it is a description whose author left out the full stop ("Sum
    of the counts"); nor right under a line ending in a colon, which introduces it ("To
    install it, run:" over "pip install quillsync", across a code fence). A signature
    itself is no heading: it holds the defaults ("fallback=(80, 24)"); the picker weighs
    it as such.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    if text.startswith("#", line_start):
        return True
    if _RUNNING_HEADER.fullmatch(text[line_start:line_end].strip()):
        return True
    if _CONTENTS_ENTRY.fullmatch(text, line_start, line_end):
        return True
    sentence = text[start:end].strip()
    prefix = text[line_start:start]
    if _is_run_in_title(sentence, prefix, text[end:line_end]):
        return True
    alone = _HEADING_PREFIX.fullmatch(prefix) is not None and not text[end:line_end].strip()
    if not alone:
        return False
    if sentence and _underlined(text, line_start, line_end):
        return True  # underlined as a title, whatever it ends with ("3.0 (2021-10-21)")
    if len(sentence.split()) > _HEADING_WORDS or sentence[-1:] in CLOSING:
        return False
    if option_entry(text[line_start:line_end]):
        return False  # an option and its help ("--fast  compress faster"): a definition
    if is_record_field(text, line_start):
        # "Copyright: 2011 Jane Roe" in a record states a value; "License: Expat" over
        # the licence's text, indented under it, names what that text is, when it opens
        # its record. After other fields of its record ("Files: src/*" above it), it is
        # the value of that record, whatever note is indented under it.
        record = record_around(text, line_start)
        opens = record is None or record[0] >= line_start
        return opens and names_indented_text(text, start, end)
    if _NOTICE.match(sentence):
        return False  # "Copyright 2019 Jane Roe" says who holds it, whatever its length
    after = _neighbour_line(text, line_start, line_end, 1)
    before = _neighbour_line(text, line_start, line_end, -1)
    described = (
        is_signature(before)
        or after.startswith("#")
        or is_signature(after)
        # A manual page's "NAME" above "quillsync - mirror a folder"; a bare name there
        # is still a title
        or (is_section_title(before) and before.isupper() and len(sentence.split()) >= 3)
        # What a line ending in a colon introduces ("To install it, run:" over "pip
        # install quillsync"): a command or an example, not a title.
        or before.endswith(":")
        # A help text's description, in the paragraph under its usage synopsis.
        or _follows_usage(text, line_start)
    )
    return not described


def _follows_usage(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` opens the paragraph right after a usage
    synopsis ("usage: python -m tarfile [-h] ..."), where a help text says what the
    program does."""
    end = line_start
    while end > 0 and text[end - 1] in " \t\n":
        end -= 1
    if text.count("\n", end, line_start) < 2:
        return False  # no blank line between: the same paragraph
    opening = text.rfind("\n\n", 0, end)
    return text[opening + 2 if opening >= 0 else 0 : end].lstrip()[:6].casefold() == "usage:"


def names_indented_text(text: str, start: int, end: int) -> bool:
    """Whether the sentence ``text[start:end]``, alone on its line, is a "Name: value"
    field naming the prose indented under it (:func:`~memo_core.answer.sentences.
    titles_indented_text`), as a Debian copyright file's "License: Expat" heads that
    licence's text. Such a title is context for the text, and the text's first
    sentence no introduction but the text itself."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end == -1 or text[end:line_end].strip():
        return False
    nxt_end = text.find("\n", line_end + 1)
    nxt = text[line_end + 1 : len(text) if nxt_end == -1 else nxt_end]
    return titles_indented_text(text[line_start:line_end], nxt)


@dataclass(frozen=True)
class Window:
    """One candidate answer ``sentence`` (``start``..``end`` of hit ``rank``'s text) with
    its neighbours (``text``), the question-term weight of the window and of the
    sentence, and the sentence's embedding similarity to the question (``None`` when
    not scored: beyond the first candidates, or without an embedder)."""

    rank: int
    chunk_id: str
    start: int
    end: int
    text: str
    weight: float
    sentence_weight: float
    sentence: str
    similarity: float | None = None
    #: What the sentence is about, as its document says it above it: the document's
    #: title, the heading the sentence sits under and, for a record's field, the
    #: record's first field (" › " between them). The passage reader reads it with the
    #: sentence.
    context: str = ""


def rank_windows(
    question: str,
    hits: Sequence[Hit],
    idf: Mapping[str, float],
    *,
    similarity: SentenceSimilarity | None = None,
    candidates: int = CANDIDATES,
) -> list[Window]:
    """The best windows of ``hits``, best first: every non-heading sentence with its
    neighbours (and its document's title), ranked by the question-term weight
    (``idf``) of the window and then of the sentence itself; the first ``candidates``
    of them get the embedding similarity of their sentence to the question when
    ``similarity`` is given.
    """
    windows: list[Window] = []
    asks_version = asks_own_version(question)
    for rank, hit in enumerate(hits):
        text = hit.text
        spans = split_sentences(text)
        if not spans:
            continue
        lang = detect_language(text)
        stems = [
            {term_of(t, lang) for t in tokenize(text[a:b])} | implied_terms(text[a:b], lang, idf)
            for a, b in spans
        ]
        # A document's title says what every window of it is about: a man page or a
        # licence seldom repeats its own name in the sentence that answers about it.
        titled = {term_of(t, lang) for t in tokenize(hit.title)}
        records = record_sentences(text, spans)
        headings = [is_heading(text, a, b) for a, b in spans]
        heading = str(hit.locator.get("heading", ""))
        contexts = sentence_contexts(text, spans, headings, records, hit.title, heading)
        for i, (a, b) in enumerate(spans):
            # Asked which version a text is, the title that says it is the evidence, as
            # the picker quotes it (``extractive._sentences``).
            version_title = headings[i] and asks_version and titles_version(text, a, b)
            if (headings[i] and not version_title) or is_markup_only(text[a:b]):
                continue
            lo, hi = max(0, i - 1), min(len(spans), i + 2)
            if hi == i + 2 and headings[i + 1]:
                hi = i + 1  # a heading titles the text after it, not the sentence above it
            if i in records:
                # A record's field is read with the whole record: what it is about is
                # named once, in another field ("Name: h11" for "Author: ...").
                lo, hi = min(lo, records[i][0]), max(hi, records[i][1])
            present = set().union(titled, *stems[lo:hi])
            windows.append(
                Window(
                    rank=rank,
                    chunk_id=hit.chunk_id,
                    start=a,
                    end=b,
                    text=text[spans[lo][0] : spans[hi - 1][1]],
                    weight=sum(v for t, v in idf.items() if t in present),
                    sentence_weight=sum(v for t, v in idf.items() if t in stems[i]),
                    sentence=text[a:b],
                    context=contexts[i],
                )
            )
    windows.sort(key=lambda w: (-w.weight, -w.sentence_weight, w.rank, w.start))
    if similarity is None or not windows:
        return windows
    top = windows[:candidates]
    keys = [(w.chunk_id, w.start, w.end) for w in top]  # so the base can keep their vectors
    scores = similarity.similarities(question, [w.sentence for w in top], keys)
    return [replace(w, similarity=s) for w, s in zip(top, scores, strict=True)] + windows[
        candidates:
    ]


#: The longest context (in characters) kept for the reader: a title or heading says what
#: the text is about in its first words.
_CONTEXT_CHARS = 160


def sentence_contexts(
    text: str,
    spans: Sequence[tuple[int, int]],
    headings: Sequence[bool],
    records: Mapping[int, tuple[int, int]],
    title: str = "",
    heading: str = "",
) -> list[str]:
    """For each sentence of ``spans`` of a passage's ``text`` (``headings``: which of them
    are headings, by :func:`is_heading`; ``records``: :func:`record_sentences`), what it
    is about as the document says it above it: the document's ``title``, the last
    heading above it in the text (else ``heading``, the one the passage sits under) and,
    for a record's field, the record's first field ("Name: tidelib" for "Author: ...").
    The distinct parts, each on one line, joined by " › " and cut to
    :data:`_CONTEXT_CHARS`. The passage reader reads a sentence after its context."""
    out: list[str] = []
    for i, (a, b) in enumerate(spans):
        first = records[i][0] if i in records else i
        parts = (title, heading, text[spans[first][0] : spans[first][1]] if first < i else "")
        kept: list[str] = []
        for part in parts:
            line = " ".join(part.lstrip("#").split())
            if line and line not in kept:
                kept.append(line)
        out.append(" › ".join(kept)[:_CONTEXT_CHARS])
        if headings[i]:
            heading = text[a:b]
    return out


def best_window(question: str, hits: Sequence[Hit], idf: Mapping[str, float]) -> tuple[str, float]:
    """The window (sentence +- 1) of ``hits`` covering most question-term weight, and that weight."""
    windows = rank_windows(question, hits, idf)
    if not windows or windows[0].weight <= 0:
        return "", 0.0
    return windows[0].text, windows[0].weight


# The preposition a question may open a date with ("Until which date ...?").
_DATE_PREPOSITION = r"(?:(?:in|until|till|since|by|before|after|from|on|as\s+of)\s+)?"
# "When ...?", "What year ...?", "Until which date ...?", "Since what year ...?".
_WHEN = re.compile(rf"^\s*(?:when|{_DATE_PREPOSITION}"
                   r"(?:what|which)\s+(?:year|date|day|month|century))\b|^\s*what\s+time\b|"
                   r"^\s*(?:когда|в\s+каком\s+году)", re.IGNORECASE)  # fmt: skip
# The word after "how" that names the kind of answer ("how long", "how many").
_HOW_WORDS = r"(?:many|much|long|old|far|big|often|large)"
_HOW_MANY = re.compile(rf"\bhow\s+{_HOW_WORDS}\b|"
                       r"\bwhat\s+(?:percentage|percent|number|amount)\b|"
                       r"\bсколько\b", re.IGNORECASE)  # fmt: skip
# That word says what type the answer is, not what it is about: no term a passage must hold.
_HOW_CUE = re.compile(rf"\b(how)\s+{_HOW_WORDS}\b", re.IGNORECASE)
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b|^\s*(?:кто|кого|чей)\b", re.IGNORECASE)
_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2})s?\b|\b\d{1,2}(?:st|nd|rd|th)?\b|\b(?:january|february|march|april|"
    r"may|june|july|august|september|october|november|december|century|centuries|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|year|years|ago)\b|"
    r"\b(?:январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|век|год)",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|dozen|half|several|few|many)\b|"
    r"\b(?:один|два|три|четыре|пять|десять|сто|тысяч|миллион)",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZА-ЯЁ][\w'-]+")


_WHERE = re.compile(r"^\s*(?:where|in\s+what\s+(?:place|city|country|region))\b|^\s*где\b",
                    re.IGNORECASE)  # fmt: skip
_LOCATIVE = re.compile(
    r"\b(?:in|at|near|inside|under|within|from)\b|\b(?:в|на|около)\b", re.IGNORECASE
)
# "What is the ..." before the noun phrase: "What is the oldest Python version ...?"
# asks "Which oldest Python version ...?".
_THE_ONE = r"(?:is|are|was|were)\s+the\s+"
# "Which version added ...?", "Since which release ...?", "In what Python version ...?":
# answered by a version number, not by the text about the thing that has one.
_WHICH_VERSION = re.compile(
    r"^\s*(?:(?:in|since|from|as\s+of|until|before|after|up\s+to)\s+)?(?:which|what)\s+"
    rf"(?:{_THE_ONE})?(?:[\w.+-]+\s+){{0,2}}"
    r"(?:version|release)s?\b|"
    r"^\s*(?:(?:в|с|начиная\s+с)\s+)?(?:какой|какая|какие|каких)\s+(?:\w+\s+)?(?:верси|релиз)",
    re.IGNORECASE,
)
# A version as a text writes it: dotted digits or a "v" number ("3.8", "HTTP/1.0", "v2",
# "14.0.0"), a number after the word ("Version 3", as a licence's title says it), or one a
# requirement bounds, right after the name it constrains ("h2<5,>=3", "click (>=5)"); not
# a count, a PEP's number or the digit a program's name ends with ("python3").
_VERSION_NUMBER = re.compile(
    r"(?<![^\W\d])(?:\d+(?:\.\d+)+|[vV]\d+)(?!\w)|(?i:\bversion\s+)\d+(?!\w)|"
    r"(?:(?<=[\w\]])|(?<=\())(?:[<>]=?|~=|===?|!=)v?\d+(?![\w.])"
)
_WHICH_OPTION = re.compile(
    r"^\s*(?:which|what)\s+(?:\w+\s+)?(?:option|flag|argument|parameter|mode|value|setting|"
    r"constant|keyword|format|method|function|attribute|exception|error|class)s?\b|"
    r"^\s*(?:какой|какая|какое|какие)\s+(?:\w+\s+)?(?:параметр|опци|флаг|режим|аргумент)",
    re.IGNORECASE,
)
# An option token: a quoted value, a --flag, a dotted or snake_case name, a CONSTANT, a call().
_OPTION = re.compile(
    r"[\"'`‘“«][^\"'`’”»\n]{1,40}[\"'`’”»]|(?<!\w)--?[A-Za-z][\w-]*|\b\w+[_.]\w+\b|"
    r"\b[A-Z][A-Z0-9_]{2,}\b|\b\w+\(|\b[A-Z][a-z]+[A-Z]\w*"
)


#: "What happens when ...?" asks for an outcome: the text states it ("raises
#: ValueError", "the lock is released") without the word "happens".
_HAPPENS = re.compile(
    r"^(\s*what\s+(?:(?:will|would|could|might|can|may|should|does|did)\s+)?)"
    r"happen(?:s|ed)?\b",
    re.IGNORECASE,
)

#: "... if I give no port?", "... when --main is not given?", "... when none is given?"
#: ask what holds by default: the text says "defaults to", "if omitted" or shows the
#: value, seldom "given".
_NOT_GIVEN = re.compile(
    r"\b((?:if|when|unless)\s+(?:i\s+|you\s+|we\s+)?)(?:give|pass|supply|specify)\s+(no\b)|"
    r"\b(no\s+\w+\s+)(?:is|are)\s+(?:given|passed|supplied|specified)\b|"
    r"\b(?:is|are)\s+not\s+(?:given|passed|supplied|specified)\b|"
    r"\bnone\s+(?:is|are)\s+(?:given|passed|supplied|specified)\b",
    re.IGNORECASE,
)


def _what_is_not_given(found: re.Match[str]) -> str:
    """A :data:`_NOT_GIVEN` phrase without its verb: "if I give no port" -> "if I no
    port", "no count is given" -> "no count"; "is not given" and "none is given" go."""
    if found.group(1):
        return f"{found.group(1)}{found.group(2)}"
    return found.group(3) or ""


#: "Who counts as a member?" asks what a member is: the text defining it need not count.
_COUNTS_AS = re.compile(r"\b(?:counts?|counted)\s+(?=as\b)", re.IGNORECASE)


def without_type_cue(question: str) -> str:
    """``question`` without the word that only names its answer type: "How long is
    the lease?" asks about the lease; "long" is answered by a duration, not by the
    word itself, so term coverage must not miss it. So "happens" in "What happens
    when ...?" asks for an outcome, "is not given" in "What does it read when no file
    is given?" for a default, and "counts as" only for a definition ("What counts as a
    file object?")."""
    plain = _HAPPENS.sub(r"\1", _HOW_CUE.sub(r"\1", question))
    plain = _NOT_GIVEN.sub(_what_is_not_given, plain)
    return _COUNTS_AS.sub("", plain)


#: (the question asks for..., the text holds one) in the order they are checked.
_TYPE_CHECKS = (
    (_WHEN, _DATE),
    (_HOW_MANY, _QUANTITY),
    (_WHO, _NAME),
    (_WHERE, _NAME),
    (_WHICH_VERSION, _VERSION_NUMBER),
    (_WHICH_OPTION, _OPTION),
)


def answer_type_match(question: str, window: str) -> float:
    """0.0 when the question asks for a kind of thing the window lacks, else 1.0.

    when -> a date; how many / much / long -> a number or quantity; who -> a
    name; where -> a name or a place phrase; which version / release -> a version
    number; which option / argument / mode -> an option token (a quoted value, a
    flag, an identifier, a constant).
    """
    for asks, holds in _TYPE_CHECKS:
        if asks.search(question):
            if holds is _NAME and asks is _WHERE and _LOCATIVE.search(window):
                return 1.0
            return 1.0 if holds.search(window) else 0.0
    return 1.0


def answer_slot(question: str, sentence: str) -> float:
    """Whether ``sentence`` fills the slot the question asks about: 1.0 when the
    question asks for a typed thing (as :func:`answer_type_match` reads it) and the
    sentence holds one the question does not already say, -1.0 when it holds none
    new, 0.0 for a question of no such type.

    "When did Alice sign?" is answered by "Alice signed on 3 May", not by "Alice
    signed the lease": a date, name or number the question itself gives is no answer.
    """
    asked = question.casefold()
    for asks, holds in _TYPE_CHECKS:
        if asks.search(question):
            new = (m.group().casefold().strip("\"'`‘’“”«»(") for m in holds.finditer(sentence))
            return 1.0 if any(token not in asked for token in new) else -1.0
    return 0.0


# The auxiliary verbs a question opens its clause with ("What does ...", "Which is ...").
_AUXILIARY = r"(?:is|are|was|were|do|does|did|has|have|had)\b"
# "Which (minor) version ...", not "What did release 4.2 add?": a verb between the
# question word and "version" / "release" asks what a release did, not which one it is,
# and a conjunction opens a clause ("What happens when release is called?").
_ASKS_VERSION = re.compile(
    r"^\s*(?:(?:in|since|from|as\s+of|until|before|after|up\s+to)\s+)?(?:which|what)\s+"
    rf"(?:{_THE_ONE})?(?:(?!{_AUXILIARY}|(?:will|would|can|could|should|"
    r"happens?|when|if|while|once|unless|whether)\b)[\w.+-]+\s+)"
    r"{0,2}(?:version|release)s?\b|"
    r"^\s*(?:(?:в|с|начиная\s+с)\s+)?(?:какой|какая|какие|каких)\s+(?:\w+\s+)?(?:верси|релиз)",
    re.IGNORECASE,
)


def asks_for_number(question: str) -> bool:
    """Whether ``question`` asks for a count, an amount, a version or a date by name
    ("how many ...", "which version ...", "until which date ...", "what year ..."):
    the answer to it is a number, and a sentence on the topic that states none does not
    answer it; so is "When did X 2.0 come out?", a release's date. (When, where, who and
    which option are not read so otherwise: "when" also asks for a condition, "where" for
    a file, and their answers need not hold a date or a name.)"""
    return bool(
        _HOW_MANY.search(question)
        or _ASKS_VERSION.search(question)
        or _ASKS_DATE.search(question)
        or _ASKS_NUMBERED.search(question)
    )


# A number asked for by what it numbers ("What port number ...?", "Which PEP number ...?",
# "Какой номер порта ...?"): one number, not the kinds of numbers ("Which numbers ...?").
_ASKS_NUMBERED = re.compile(
    r"\b(?:what|which)\s+(?:[\w-]+\s+)?number\b(?!s)|\b(?:какой|каким)\s+(?:\w+\s+)?номер",
    re.IGNORECASE,
)


# When a release came out ("When did heronlog 2.0 come out?", "When was it published?").
_RELEASE_DATE = (
    r"^\s*when\s+(?:did|was|were|will|has|have)\b.*\b(?:releas|publish|launch|ship|"
    r"c[ao]me\s+out\b|go\s+out\b|went\s+out\b)"
)
# A date asked for by name ("What year ...?", "Until which date ...?"), not "When ...?"
# (also a condition: "When is close() called?"); but a release's date is a date.
_ASKS_DATE = re.compile(
    rf"^\s*{_DATE_PREPOSITION}(?:what|which)\s+"
    r"(?:year|date)s?\b(?!\s+(?:formats?|strings?|fields?|columns?|types?|objects?|class|stamps?))|"
    + _RELEASE_DATE,
    re.IGNORECASE,
)
# A date as a text states it: a year ("1066", "1880s"), a month's name ("May" only beside a
# number: it is a modal verb as often), a written date ("2024-01-05", "5/1/24").
_STATED_DATE = re.compile(
    r"(?<!\d)(?<!\d\.)(?:1\d{3}|20\d{2})(?!\d|\.\d)|"
    r"\b(?:january|february|march|april|june|july|august|september|october|november|december)\b|"
    r"\bmay\s+\d|\d\s+may\b|"
    r"\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b",
    re.IGNORECASE,
)


# Words that give a count without a numeral ("only the last frame", "evaluated once",
# "fourteen days"; the other number words are already in _QUANTITY).
_QUANTIFIER = re.compile(
    r"\b(?:once|twice|thrice|single|only|both|all|none|every|unlimited|unbounded|zero|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|sixty|seventy|eighty|"
    r"ninety)\b|"
    r"\b(?:однажды|дважды|единственн|только|оба|все|каждый)",
    re.IGNORECASE,
)


#: "Which version of X is this?", "What version is X?": the version a thing is, which
#: its title may state; not "Which Python version does X need?" (another thing's). And
#: "When did X 2.0 come out?": a release's title states its date beside its version.
_ASKS_OWN_VERSION = re.compile(
    r"^\s*(?:which|what)\s+(?:version|release)\b|" + _RELEASE_DATE, re.IGNORECASE
)


def asks_own_version(question: str) -> bool:
    """Whether ``question`` asks which version a thing is ("Which version of X is
    this?", "What version is the licence?"), as a title or a running footer states it,
    or when a release came out, which a changelog's title for it states beside it
    ("2.0.1 (2024-05-09)")."""
    return _ASKS_OWN_VERSION.search(question) is not None


#: The word that makes a title say which version a text is ("Version 3, June 2007").
_VERSION_WORD = re.compile(r"\b(?:version|release)\b", re.IGNORECASE)


def titles_version(text: str, start: int, end: int) -> bool:
    """Whether the heading ``text[start:end]`` says which version the text is about: a
    version number in a Markdown heading or an underlined title, a manual page's running
    header or footer ("grain 2.1   March 2026   GRAIN(1)"), or a title with the word ("THE
    HERON TERMS, VERSION 4"). Not a short line of code that holds one ("model='x-v1.5'")."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    line = text[line_start:line_end].strip()
    sentence = text[start:end]
    if _VERSION_NUMBER.search(sentence) is None:
        return False
    return (
        line.startswith("#")
        or _underlined(text, line_start, line_end)
        or _RUNNING_HEADER.fullmatch(line) is not None
        or _VERSION_WORD.search(sentence) is not None
    )


# "Which Python version does X require?", "Which version of h2 does X need?", "What is
# the minimum Python version for X?": the version of another thing that X requires,
# needs, supports, accepts, allows, depends or runs on, or one end of its range. The
# thing is the one or two words before "version" (not a word saying which end of a range
# is asked) or the word after "version of".
_REQUIRED_VERSION = re.compile(
    rf"^\s*(?:which|what)\s+(?:{_THE_ONE})?(?:(?P<bound>minimum|maximum|oldest|lowest|newest|latest|highest|"
    r"earliest|required|supported)\s+)?"
    rf"(?:(?P<thing>(?!{_AUXILIARY})[\w.+-]+(?:\s+(?!{_AUXILIARY})[\w.+-]+)?)\s+versions?"
    r"|versions?\s+of\s+(?P<of>[\w.+-]+))\b"
    # The requirement is the main clause's: in "Which X version should I keep if my code
    # needs Y?" the need is the condition's, and the version asked is X's own.
    r"(?(bound)|(?=(?:(?!\b(?:if|when|whenever|unless|because)\b).)*"
    r"\b(?:requir|need|support|accept|allow|depend|run)\w*))",
    re.IGNORECASE,
)


# The most a requirement lets another thing be ("Up to which version of h11 does X allow?",
# "What is the newest click version X's cli extra accepts?"): answered by an upper bound
# ("<2", "<=1.4"), not by the least version accepted (">=1.0"). Not the latest release of
# a thing itself ("Which is the latest X version supporting Python 2.7?").
_ASKS_UPPER_BOUND = re.compile(
    r"^\s*up\s+to\s+(?:which|what)\s+version\b|"
    r"\b(?:newest|latest|highest|maximum|most\s+recent)\s+[\w.+-]+\s+versions?\s+(?:that\s+)?"
    r"(?!supporting\b)[\w.'’-]+(?:\s+[\w.'’-]+){0,3}?\s+(?:accepts?|allows?|permits?|supports?)\b",
    re.IGNORECASE,
)
# What may stand between a thing's name and the version it must have: a colon, a
# bracket, a comparison, the word "version", markup ("Python 3.9+", "Requires-Python: >=3.9",
# "msgpack (>=1.0.7,<2)", "Python versions 3.8 to 3.12", "`build`_ (>=0.6)"), after the
# extras a requirement names ("lxml[html_clean]>=4.4").
_TO_VERSION = (
    r"(?:\[[\w,.\s-]*\])?(?:\s*(?:[:(\[`*_]|versions?\b|[<>=!~]=?))*\s*['\"]?v?\d+(?:\.\d+)*"
)


def _versions_required_thing(question: str, text: str) -> bool:
    """Whether ``text`` gives a version beside the thing whose version a question of
    :data:`_REQUIRED_VERSION` asks for (a word of it, standing alone, the version right
    after it: "Requires-Python: >=3.9" gives Python's, "pytest-timeout 2.4" no pytest's,
    and "pyright ; extra == 'dev'" none, whatever version the next field holds); True
    for any other question."""
    found = _REQUIRED_VERSION.search(question)
    if found is None:
        return True
    words = (found.group("thing") or found.group("of")).split()
    return any(
        re.search(rf"(?<!\w){re.escape(word)}(?![\w-]){_TO_VERSION}", text, re.IGNORECASE)
        for word in words
    )


# "Which Windows versions / releases ...": the thing whose release is asked for.
_RELEASE_OF = re.compile(
    rf"^\s*(?:which|what)\s+(?:{_THE_ONE})?(?P<thing>(?!{_AUXILIARY})[\w.+-]+"
    rf"(?:\s+(?!{_AUXILIARY})[\w.+-]+)?)\s+(?:version|release)s?\b",
    re.IGNORECASE,
)


def _named_release(question: str, text: str) -> bool:
    """Whether ``text`` names a release of the thing whose version or release the question
    asks for by a plain number right after the thing's name, one the question does not
    say: "Windows 10", "Windows 2000" (not "heronkit < 5")."""
    found = _RELEASE_OF.search(question)
    words = found.group("thing").split() if found else []
    return any(
        re.search(rf"(?<![\d.]){m.group(1)}(?![\d.])", question) is None
        for word in words
        for m in re.finditer(rf"(?<![\w-]){re.escape(word)}\s+(\d+)(?![\w.])", text, re.IGNORECASE)
    )


def holds_asked_number(question: str, text: str) -> bool:
    """Whether ``text`` gives what a question of :func:`asks_for_number` asks for: a
    number, version or date the question does not already say, or a word that counts
    ("once", "only", "all"); asked for a number by what it numbers, a numeral. The
    version another thing must have ("Which Python version does X require?") is stated
    beside that thing's name: the project's own version ("Version: 2.4") is no answer to
    it, nor another's beside it; and the most it may be, by an upper bound."""
    if _ASKS_VERSION.search(question):
        stated = (
            _VERSION_NUMBER.search(text) is not None
            and answer_slot(question, text) > 0
            and _versions_required_thing(question, text)
        )
        # Beside the thing asked about, a plain number is a release of it ("Windows 10").
        return (stated or _named_release(question, text)) and (
            _ASKS_UPPER_BOUND.search(question) is None or _UPPER_BOUND.search(text) is not None
        )
    asked = question.casefold()
    if _ASKS_DATE.search(question):
        # The date of a release named by its version stands beside that version: the
        # title of another release, with its own date, is no answer.
        folded = text.casefold()
        return any(m.group().casefold() not in asked for m in _STATED_DATE.finditer(text)) and all(
            v.group() in folded for v in _VERSION_NUMBER.finditer(asked)
        )
    if _ASKS_NUMBERED.search(question) and not _HOW_MANY.search(question):
        return any(m.group() not in asked for m in _NUMERAL.finditer(_NO_COUNT.sub(" ", text)))
    if not _names_counted(question, text):
        return False
    counted = _NO_COUNT.sub(" ", text)
    if answer_slot(question, counted) > 0:
        return True
    # Asked for a bound ("at most", "the maximum"), "all" or "only" says none; "no limit" does.
    counts = _BOUNDLESS if _ASKS_BOUND.search(question) else _QUANTIFIER
    return counts.search(counted) is not None


# A count asked for as a bound, and what states that there is none.
_ASKS_BOUND = re.compile(
    r"\bat\s+(?:most|least)\b|\b(?:maximum|minimum|max|min|largest|smallest|limit)\b|"
    r"\bне\s+более\b|\bмаксимум|\bминимум",
    re.IGNORECASE,
)
_BOUNDLESS = re.compile(
    r"\b(?:unlimited|unbounded|limitless|infinite|no\s+(?:upper\s+|lower\s+)?limit|"
    r"any\s+number)\b|\bбез\s+ограничени|\bнеогранич",
    re.IGNORECASE,
)
# A numeral standing alone ("8080", "3.5"): not the digits of a name ("PEP8" is no number).
_NUMERAL = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")

# What "how many" counts: the words after it, up to a function word ("How many MTEB
# points does ...", "How many languages are ...").
_TIMES = frozenset({"time", "times"})
_HOW_MANY_WHAT = re.compile(r"\bhow\s+many\s+((?:[^\W\d_][\w-]*\s*){1,4})", re.IGNORECASE)
# What "how big is ..." measures: the words after its verb and article ("How big is the
# penalty ...", "How long can a map key be ...").
_HOW_BIG_WHAT = re.compile(
    r"\bhow\s+(?:big|large|small|long|much|far|old|often|high|deep|wide|heavy)\s+"
    r"(?:is|are|was|were|can)\s+(?:(?:the|a|an|its|their)\s+)?"
    r"((?:[^\W\d_][\w-]*\s*){1,4})",
    re.IGNORECASE,
)


def _names_counted(question: str, text: str) -> bool:
    """Whether ``text`` names what a "how many" question counts, or what a "how big is
    ..." question measures (a word of it, in any of its forms; not a coined name, which
    names the subject): "a factor of up to 50" counts no MTEB points, a code sample's
    ``dim=384`` no languages, a frequency's "5.32" is no penalty's size. True for any
    other question."""
    found = _HOW_MANY_WHAT.search(question)
    measures = found is None  # a size, a length, a frequency
    if measures:
        found = _HOW_BIG_WHAT.search(question)
    if found is None:
        return True
    words = []
    for word in tokenize(found.group(1)):
        if word in STOPWORDS:
            break
        if not (measures and is_coined(word)):
            words.append(word)
    if not words or words[0] in _TIMES:
        return True  # "how many times" is answered by "once" as well as by "3 times"
    language = detect_language(question)
    held = {term_of(t, language) for t in tokenize(text)}
    return any(term_of(word, language) in held for word in words)


# Digits that count nothing: a version ("1.2.4", "v2") and those inside a name ("e5-small",
# "python3", "ID3"); a count may carry its unit ("64MB", "10x", "3rd").
_NO_COUNT = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?!\.?\w)|[^\W\d_]+\d[\w.-]*")


# A negated predicate: an auxiliary with "not" ("is not", "does the ferry not", "can't",
# "cannot"), "never", "non-". Not the "not" of a repair ("no not that", "chemists not engineers",
# "that is not right"), which says what the asker did not mean.
_NEGATED = re.compile(
    r"\b(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|must|may|"
    r"might)\b(?:\s+[\w'-]+){0,3}?\s+not\b(?!\s+(?:that|right|correct|it)\b)|n['’]t\b|"
    r"\bcannot\b|\bnever\b|\bnon-",
    re.IGNORECASE,
)
# A condition ("if I do not pass one", "when it is not set") asks what holds then, and a
# why-question asks for a reason, which need not repeat the negation.
_CONDITION = re.compile(r"\b(?:if|when|unless|whether)\b.*", re.IGNORECASE)
# What states a negation, or the exception or lack that answers a negated question
# ("only X", "all but", "except", "lacks", "fails", "unable", "excluded", "un-" words).
_NEGATING = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|except|only|but|"
    r"lacks?|lacking|fails?|failed|unable|instead|rather|exclud\w*|non|absent|missing)\b|"
    r"n['’]t\b|\bun[a-z]{3,}|\bне\b|\bнет\b|\bбез\b",
    re.IGNORECASE,
)


def asks_negated(question: str) -> bool:
    """Whether ``question`` asks about what is not so ("Which city is not on the coast?",
    "What can't be pickled?"): its main clause negates its predicate."""
    if _WHY.search(question):
        return False
    return _NEGATED.search(_CONDITION.sub("", question)) is not None


def states_negation(text: str) -> bool:
    """Whether ``text`` could answer a question of :func:`asks_negated`: it negates, or
    names an exception or a lack. A text on the question's topic that says none of it
    states what is so, and answers "Which X is not Y?" with an X that is."""
    return _NEGATING.search(text) is not None


# Where a thing is, as a text says it beyond a place phrase of :data:`_LOCATIVE` and a
# name: more place phrases ("to stderr", "on the disk"), a URL, a path or a file name.
_PLACE_FORM = re.compile(
    r"\b(?:on|to|into|onto|beside|below|above|во|у|из)\b|"
    r"[a-z][\w+.-]*://|(?<![\w/])[~.]{0,2}/[\w.]|\\\w|\b\w+\.[a-z]{1,5}\b",
    re.IGNORECASE,
)


def asks_for_place(question: str) -> bool:
    """Whether ``question`` asks where something is ("Where is ...?", "Где ...?")."""
    return _WHERE.search(question) is not None


def names_place(text: str) -> bool:
    """Whether ``text`` could answer a question of :func:`asks_for_place`: it holds a
    place phrase, a URL, a path or a file name, or a name; a record's "Name: heron" on
    its own says what a thing is, not where."""
    return any(form.search(text) for form in (_LOCATIVE, _NAME, _PLACE_FORM))


# A superlative a question asks by ("Which backend is the fastest?"): a word ending in
# "-est" whose comparative ("faster") is a common word, so not "interest" or "forest".
# Not a date's or a version's ("latest", "oldest"): a release or a year answers those.
_TIME_SUPERLATIVES = frozenset({"latest", "earliest", "newest", "oldest"})
#: How common a superlative's comparative must be (Zipf) for it to read as one.
_COMPARATIVE_ZIPF = 3.0


def asked_superlatives(question: str) -> list[str]:
    """The stems of the superlatives ``question`` asks by ("fastest" -> "fast", "biggest"
    -> "big", "easiest" -> "eas"), but for a date's or version's and for a question
    asking for a number (a bound is stated as one: "up to 10**18" for "the largest")."""
    if asks_for_number(question):
        return []
    stems = []
    for word in re.findall(r"\b[a-z]{3,}est\b", question.casefold()):
        if word in _TIME_SUPERLATIVES:
            continue
        if (word_frequency(word[:-3] + "er", "en") or 0.0) < _COMPARATIVE_ZIPF:
            continue
        stem = word[:-3].removesuffix("i")
        doubled = len(stem) > 3 and stem[-1] == stem[-2]
        if doubled and (word_frequency(stem[:-1], "en") or 0.0) >= _COMPARATIVE_ZIPF:
            stem = stem[:-1]  # "biggest": "big"; "smallest" stays "small"
        stems.append(stem)
    return stems


def states_superlative(stems: Sequence[str], text: str) -> bool:
    """Whether ``text`` speaks of a quality ``stems`` asks about (:func:`asked_superlatives`),
    in any degree ("fast", "faster", "fastest"): "Some maintained alternatives: dragnet"
    says which are maintained, not which is fastest. One is enough: "the warmest, no,
    the coldest" asks about one of its two."""
    return any(re.search(rf"\b{re.escape(stem)}", text, re.IGNORECASE) for stem in stems)


# A question that asks which exception or error is raised ("Which exception does it
# raise?", "What error do I get ...?", "Какое исключение ...?"); not one about an
# error's message, code or handler, which are no exception's name.
_ASKS_EXCEPTION = re.compile(
    r"\b(?:which|what)\s+(?:kind\s+of\s+|type\s+of\s+)?(?:exception|error)s?\b"
    r"(?!\s+(?:message|code|leader|handler|handling|status|text|string|level|output|stream|"
    r"log|page|number|value)s?\b)|"
    r"\b(?:какое|какую|какие)\s+(?:исключени\w*|ошибк\w*)",
    re.IGNORECASE,
)
# How an exception is named: a class name ("KeyError", "SMTPRecipientsRefused",
# "DTDForbidden"), a module's ("copy.Error", "re.error"), a snake-case one
# ("error_proto"), a status constant ("SQLITE_BUSY"), or the word itself as a name
# ("Exception raised for ...", "builtins.Exception").
_EXCEPTION_NAME = re.compile(
    r"\b[A-Z]\w*[a-z]\w*[A-Z]\w*\b|\b[A-Z]{2,}[a-z]\w*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|"
    r"\.(?:Error|error|Exception)\b|\b\w*_(?:error|exception)\b|\b(?:error|exception)_\w+|"
    r"\b\w*(?:Error|Exception|Warning)\b"
)


def asks_for_exception(question: str) -> bool:
    """Whether ``question`` asks which exception or error is raised ("Which exception
    does it raise ...?"), not what an error's message or code says."""
    return _ASKS_EXCEPTION.search(question) is not None


def names_exception(text: str) -> bool:
    """Whether ``text`` could answer a question of :func:`asks_for_exception`: it names an
    exception as code names one. "It may fail if no zone is configured" says that
    something fails, not with what."""
    return _EXCEPTION_NAME.search(text) is not None


# A question about a default ("What is the default mode?", "What does it default to?",
# "... by default?"), or about what holds when a setting is left out ("if I don't pass
# one", "when --main is not given", "with no arguments", "unless told otherwise"); not
# a name that holds the word (``default_factory``, ``defaultdict``).
_ASKS_DEFAULT = re.compile(
    r"(?<![\w-])defaults?(?![\w-])|по\s+умолчанию|"
    r"\b(?:if|when|unless)\s+(?:I|you|we|one)\s+(?:do\s+not|don't|didn't|did\s+not)\s+"
    r"(?:pass|give|set|specify|provide|supply|choose)\b|"
    r"\b(?:is|are)\s+not\s+(?:given|passed|set|specified|provided|supplied)\b|"
    r"\b(?:if|when)\s+(?:none\s+is|nothing\s+is)\s+(?:given|passed|set|specified)\b|"
    r"\b(?:with|given)\s+no\s+arguments?\b|\bunless\s+told\s+otherwise\b|"
    r"\bif\s+(?:I|you)\s+leave\s+(?:it|them)\s+out\b|\bif\s+omitted\b|"
    r"\bесли\s+не\s+(?:указ|зада|переда)",
    re.IGNORECASE,
)
# What states one: the word ("defaults to", "(default: 8000)", "by default"), or what
# holds when the setting is left out, as manual pages and docstrings say it ("Without
# --keep, prune keeps 7", "if not given", "if omitted", "If no mask is provided", "if
# it is given ...; otherwise a new lock is made", "failing to provide a mask"); or a
# value given in a signature (below).
_STATES_DEFAULT = re.compile(
    r"\bdefault|по\s+умолчанию|"
    r"\bwithout\s+-{1,2}\w|\b(?:if|when)\s+(?:omitted|unset|absent)\b|"
    r"\b(?:if|when|is|are)\s+not\s+(?:given|set|specified|provided)\b|"
    r"\b(?:if|when)\s+(?:no\s+(?:\w+\s+){0,2}|none\s+|nothing\s+)(?:is|are)\s+"
    r"(?:given|set|specified|provided|passed|supplied)\b|"
    r"\b(?:given|set|specified|provided|passed|supplied|None)\b[^.;]*[.;,]?\s*otherwise\b|"
    r"\bfailing\s+to\s+(?:provide|give|pass|specify|supply)\b|"
    r"\bесли\s+не\s+(?:указан|задан)",
    re.IGNORECASE,
)
# A sentence opening on "Otherwise", after the one that states a condition ("If lock is
# given, ..."), states what holds without it: what the asker of "... when none is given?"
# wants. Not a default in a text's words: "Otherwise try complete_<command>" holds no
# "default" for the gate to find.
_FALLBACK = re.compile(r"\W*otherwise\b", re.IGNORECASE)
# A name given a value ("width=70"); not an option on a command line ("--timeout=600"),
# nor a placeholder of one letter ("Len(min_length=x)" shows a call, not a default).
_ASSIGNED = re.compile(r"(?<![\w-])[^\W\d]\w*\s?=\s?(?![^\W\d_](?:[,)`\s]|$))[^\s=,)]")
# A value that is what a call returns ("= get_tld(url)", "= httpx.Client()").
_CALLED = re.compile(r"\s*[^\W\d][\w.]*\(")
# A literal argument: a quoted string or a number ("file.log", 42).
_LITERAL = re.compile(r"""^\s*(?:[rbfu]{0,2}["'].*|[-+]?\d[\w.]*)\s*$""", re.IGNORECASE)


def states_asked_default(question: str, text: str) -> bool:
    """False when ``question`` asks about a default and ``text`` states none: the text
    about a setting's other values, or about another default, answers "What is the
    default encoding?" no better than silence. True for any other question."""
    if not _ASKS_DEFAULT.search(question):
        return True
    return _states_default(text) or _FALLBACK.match(text) is not None


def _states_default(text: str) -> bool:
    """Whether ``text`` states a default: in words, or as a signature's value."""
    if _STATES_DEFAULT.search(text):
        return True
    return any(_in_signature(text, m.start()) for m in _ASSIGNED.finditer(text))


# A version or number given as a bound: ">=3.10", "3.8+", "2.0 or newer" state the least
# one accepted, "<2", "<=1.19" the most: the words a question asks them by.
_LOWER_BOUND = re.compile(
    r"(?:>=|~=)\s*v?\d|(?<![\w.])v?\d+(?:\.\d+)*\+(?![\w+])|"
    r"\d\s+or\s+(?:newer|later|higher|greater|above)\b",
    re.IGNORECASE,
)
_UPPER_BOUND = re.compile(
    r"(?<![<>=!~-])<=?\s*v?\d|\d\s+or\s+(?:older|earlier|lower|below)\b", re.IGNORECASE
)


def implied_terms(text: str, language: str, named: Collection[str] = ()) -> frozenset[str]:
    """The terms ``text`` holds beyond its own words': those of its CamelCase
    identifiers (:func:`~memo_core.answer.lemmas.identifier_terms`, ``named`` as
    there), "version" when it writes a version number ("Added in 2.4" answers "Which
    version added it?"), "default" when it states a default without the word, as
    a signature does ("fire(glaze, temperature=1040)" answers "What is the default
    temperature?"), and "minimum" or "maximum" when it gives a bound (">=3.10", "3.8+",
    "<2"), and a record field's terms beyond its name (``field_words.field_terms``:
    "write" for "Author: Jane Roe"). What a question asks by the kind of thing, the
    text says by one."""
    terms = set(identifier_terms(text, language, named))
    if _VERSION_NUMBER.search(text):
        terms.add(term_of("version", language))
    if _states_default(text):
        terms.add(term_of("default", language))
    if _LOWER_BOUND.search(text):
        terms.add(term_of("minimum", language))
    if _UPPER_BOUND.search(text):
        terms.add(term_of("maximum", language))
    return frozenset(terms) | field_terms(text, language)


# An interactive interpreter's prompt opening a line (">>> ", "... ", "In [3]: ").
_PROMPT = re.compile(r"[ \t]*(?:>>>|\.\.\.|In \[\d+\]:)\s")


def _in_signature(text: str, at: int) -> bool:
    """Whether the ``name=value`` at ``at`` is a parameter's default: alone, or in a
    parenthesised list whose items before it are names ("fire(glaze, temperature=1040)").
    After a literal it is a call's argument, an example's value: ``logger.add("app.log",
    rotation="500 MB")`` shows a rotation, not the default one, and so does a call typed
    at a prompt (``>>> kiln.fire(temperature=1100)``)."""
    line_start = text.rfind("\n", 0, at) + 1
    if _PROMPT.match(text, line_start):
        return False  # typed at an interpreter's prompt: a call, not a signature
    depth, opened = 0, -1
    for i in range(at - 1, line_start - 1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            if depth == 0:
                opened = i
                break
            depth -= 1
    if opened < 0:
        # Alone, "timeout=30" states a value; "res = get_tld(url)" keeps what a call
        # returns, a line of an example.
        return _CALLED.match(text, text.index("=", at) + 1) is None
    return not any(_LITERAL.match(item) for item in text[opened + 1 : at].split(","))


# A yes/no question opens with an auxiliary verb ("Can a name be ...?", "Does it
# compile ...?"); a Russian one holds the particle "ли" or opens with "можно".
_POLAR = re.compile(
    r"^\s*(?:can|could|does|do|did|is|are|was|were|must|may|might|should|shall|will|would|"
    r"has|have|had)\b|\bли\b|^\s*(?:можно|нужно|надо|должен|должна|должны)\b",
    re.IGNORECASE,
)
# A yes/no answer says it with a negation or a modal verb.
_STANCE = frozenset(NEGATIONS | MODALS)
_WHY = re.compile(r"^\s*(?:why|for\s+what\s+reason)\b|^\s*(?:почему|зачем)\b", re.IGNORECASE)
# What gives a reason: "because", "so that", "to avoid", "this is for ...", and what a
# help text says a thing is for: "useful if you ...", "this helps avoid ...", "meant for".
_REASON = re.compile(
    r"\b(?:because|since|so\s+that|in\s+order\s+to|to\s+(?:avoid|prevent|allow|ensure|make\s+sure)|"
    r"due\s+to|reason|otherwise|hence|thus|therefore|this\s+is\s+(?:for|to|why|so)|"
    r"useful\s+(?:if|when|for|to)|helps?\s+(?:to\s+)?(?:avoid|prevent|protect|keep|ensure)|"
    r"(?:intended|designed|meant)\s+(?:to|for)|in\s+case|so\s+as\s+to)\b|"
    r"\b(?:потому\s+что|так\s+как|поскольку|чтобы|из-за|поэтому|иначе)\b",
    re.IGNORECASE,
)


def answer_form(question: str, sentence: str) -> float:
    """Whether ``sentence`` has the form of an answer to a yes/no or a why question:
    for "Can ...?" / "Does ...?" 1.0 when it takes a stance (a negation or a modal
    verb: "must not be used", "cannot", "may be"), for "Why ...?" 1.0 when it gives a
    reason ("because", "to avoid", "this is for"); else 0.0 (and 0.0 for any other
    question)."""
    if _WHY.search(question):
        return 1.0 if _REASON.search(sentence) else 0.0
    if _POLAR.search(question):
        folded = sentence.casefold()
        stance = "n't" in folded or "n’t" in folded
        stance = stance or any(w in _STANCE for w in re.findall(r"[^\W\d_]+", folded))
        return 1.0 if stance else 0.0
    return 0.0


def named_documents(question: str, hits: Sequence[Hit]) -> set[str]:
    """The documents of ``hits`` that ``question`` names: its file's name without the
    extension, or its whole title, stands in the question as a word of its own
    ("HTTPX" for ``httpx.txt``, "json" in "json.dumps"; not "path" in "os.path")."""
    asked = question.casefold()
    named = set()
    for hit in hits:
        names = {PurePosixPath(hit.source.replace("\\", "/")).stem, hit.title}
        for name in filter(None, (n.strip().casefold() for n in names)):
            if re.search(rf"(?<![\w.'’-]){re.escape(name)}(?![\w-])", asked):
                named.add(hit.document_id)
    return named


def diversify(
    hits: Sequence[Hit],
    k: int,
    per_document: int = PER_DOCUMENT,
    *,
    uncapped: Collection[str] = (),
) -> list[Hit]:
    """The first ``k`` of ``hits`` (in order), at most ``per_document`` from one document,
    except the documents in ``uncapped`` (those the question names: a question about
    one package's README reads as much of it as ranks).

    One long document must not fill every slot the answer reads; when the other
    documents run out, the remaining slots go to the held-back hits, in order.
    """
    kept: list[Hit] = []
    held: list[Hit] = []
    count: dict[str, int] = {}
    for hit in hits:
        if hit.document_id in uncapped or count.get(hit.document_id, 0) < per_document:
            count[hit.document_id] = count.get(hit.document_id, 0) + 1
            kept.append(hit)
        else:
            held.append(hit)
        if len(kept) == k:
            return kept
    return kept + held[: k - len(kept)]
