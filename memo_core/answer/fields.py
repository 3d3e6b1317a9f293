"""A record's fields answer only the questions that name what they hold.

A record ("Name: heronlog", "Version: 2.4", "Author: Jane Roe", "Requires-Dist: ...")
names its subject once and then lists what is known of it, field by field. Every
field shares the subject's name with a question about the subject, so any of them
looks on topic: "Who maintains heronlog?" asked of a record with no maintainer field
was answered by "Name: heronlog", and "Where is its documentation?" by its
dependencies. A quote made only of fields answers a question when one of its fields
is one the question names ("Author" for "Who is the author?", "Copyright" for "Who
holds the copyright?", "Requires-Python" for "Which Python does it require?") or asks
for in other words (``field_words``: "Who wrote it?" for "Author"), or a value holds
a term the question asks by beyond the subject's own name ("Bug Reports, https://..."
for "Where do I report bugs?"; a classifier by its label or its values as written, not
by a stem it shares: "Development Status" does not answer "Who develops it?"); the
subject is what the quoted document's title and file name say (a Debian copyright file
is named "copyright": its "Copyright:" fields still answer). Asked about the subject
of one document of the base by its name ("Which Python does tidelib require?"), the
fields of another record answer nothing, though they may name it as a dependency
(:func:`asked_subjects`); and a field asked for by its own name ("Which keywords
describe it?") is not stood in for by another ("Summary:"). The extractive picker passes
over such fields (:func:`field_off_question`), so the field asked for is quoted in their
place.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePath

from memo_core.answer.field_words import asked_terms, value_label
from memo_core.answer.lemmas import content_terms, term_of
from memo_core.answer.lexicon import COMMON_ZIPF, word_frequency
from memo_core.answer.sentences import is_field_shaped, line_content
from memo_core.answer.types import Citation
from memo_core.answer.windows import without_type_cue
from memo_core.search.text import STOPWORDS, detect_language, tokenize
from memo_core.types import Hit

__all__ = ["asked_subjects", "document_names", "field_off_question", "fields_off_question"]

#: Verbs that ask what a thing is or does ("What does heronlog provide?"): its summary
#: answers them without saying "provides".
_DESCRIBING = ("provide", "offer")


def _fields(sentence: str) -> list[tuple[str, str]] | None:
    """The ``(name, value)`` of each line of ``sentence`` when every line reads as a
    "Name: value" field (a Markdown hard break's backslash at a line's end aside), else None."""
    lines = [line_content(line).removesuffix("\\").strip() for line in sentence.split("\n")]
    lines = [line for line in lines if line]
    if not lines or not all(is_field_shaped(line) for line in lines):
        return None
    return [(name, value) for name, _, value in (line.partition(":") for line in lines)]


def fields_off_question(
    question: str, citations: Sequence[Citation], subjects: frozenset[str] = frozenset()
) -> bool:
    """Whether ``citations`` quote only record fields and none of them answers
    ``question`` (see the module docstring): none is a field the question names
    ("Copyright" for "Who holds the copyright?") and no value holds a term of it beyond
    those of the subject of its document; or the question names the subject of another
    document (``subjects``, :func:`asked_subjects`). False when a quote is prose, or the
    question names nothing but the subject ("What is heronlog?", "What does heronlog
    provide?")."""
    return bool(citations) and all(
        field_off_question(
            question, c.sentence or c.quote, title=c.title, source=c.source, subjects=subjects
        )
        for c in citations
    )


def field_off_question(
    question: str,
    sentence: str,
    *,
    title: str,
    source: str,
    subjects: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``sentence``, of the document titled ``title`` from ``source``, is made
    only of record fields none of which answers ``question`` (as
    :func:`fields_off_question` reads each quote): what the picker passes over."""
    fields = _fields(sentence)
    if fields is None:
        return False  # prose: the other checks read it
    if subjects and not subjects & document_names(title, source):
        return True  # the fields of another subject's record
    language, asked = _asked(question)
    titled = set(content_terms(title, language))
    wanted = asked - titled - set(content_terms(PurePath(source).stem, language))
    classifiers = [(name, value) for name, value in fields if _CLASSIFIER in value]
    plain = [field for field in fields if field not in classifiers]
    values = set(content_terms(" ".join(value for _, value in plain), language))
    if not wanted or wanted & values:
        return False
    # A file's name may be what the question asks for ("Copyright:" in "copyright"), a
    # title's is the subject: a field named by its words is none the question names.
    named = _names_field(asked - titled, plain, language)
    if classifiers and not named:
        subject = set(tokenize(title)) | set(tokenize(PurePath(source).stem))
        written = set(tokenize(question)) - subject - STOPWORDS
        named = any(
            _names_classifier(written, asked - titled, name, value, language)
            for name, value in classifiers
        )
    if not named:
        return True
    # A field the question asks for by its own distinctive name is the one asked for:
    # "Which keywords describe httpx?" is not answered by the summary that "describe"
    # would find, when the record has no keywords.
    distinct = _distinct_terms(language) & (asked - titled)
    return bool(distinct) and not any(
        distinct & _names_of_field(name, value, language) for name, value in fields
    )


#: Field names a question uses for that field alone ("keywords", "maintainer"), unlike
#: "version", "source" or "description", which also say other things.
_DISTINCT_FIELDS = (
    "keywords", "maintainer", "author", "copyright", "license", "licence", "changelog",
    "documentation", "uploaders",
)  # fmt: skip


@functools.cache
def _distinct_terms(language: str) -> frozenset[str]:
    return frozenset(term_of(word, language) for word in _DISTINCT_FIELDS)


def _names_of_field(name: str, value: str, language: str) -> set[str]:
    """The terms ``name: value`` is named by: its name's, its value's label's (a link's
    or a classifier's), and the words it is asked for by."""
    return (
        set(content_terms(name, language))
        | set(content_terms(value_label(value), language))
        | asked_terms(name, value, language)
    )


def document_names(title: str, source: str) -> frozenset[str]:
    """What a document is named by, lower-cased: its file's name without the extension,
    and its title when that is a name, maybe with a version ("heronlog 2.4", as a
    record's "Name" and "Version" title it)."""
    names = {PurePath(source).stem.casefold()}
    named = _NAME_TITLE.match(title)
    if named:
        names.add(named.group(1).casefold())
    return frozenset(n for n in names if n)


def asked_subjects(question: str, hits: Iterable[Hit]) -> frozenset[str]:
    """The names (:func:`document_names`) of the documents of ``hits`` that ``question``
    writes as a word of its own ("pytest-timeout", not the "pytest" in it): what it asks
    about. A record's fields say what they say of their own record's subject, so asked
    about one document's subject, another record's "Requires-Dist: pytest-timeout" or
    "Summary: ..." answers nothing."""
    names = set().union(*(document_names(h.title, h.source) for h in hits))
    return frozenset(name for name in names if _is_name(name) and _asks_about(question, name))


def _asks_about(question: str, name: str) -> bool:
    """Whether ``question`` writes ``name`` as what it asks about: as a word of its own,
    and not as what other things need ("Which packages depend on tidelib?" is answered
    by the records that require it)."""
    found = re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", question, re.IGNORECASE)
    return found is not None and not _NEEDING.search(question[: found.start()])


def _is_name(name: str) -> bool:
    """Whether a document's name names a thing of its own ("pytest-timeout", "langcodes",
    "h11"), not a word a question uses in its own sense ("license", "index"): spelled
    with a hyphen, a dot, an underscore or a digit, or no common word."""
    if len(name) < _MIN_NAME:
        return False
    if _NAME_MARKS.search(name):
        return True
    frequency = word_frequency(name)
    return frequency is not None and frequency < COMMON_ZIPF


#: A title that is a name, maybe with a version: "heronlog", "heronlog 2.4.0".
_NAME_TITLE = re.compile(r"\s*([\w.+-]+)(?:\s+v?\d[\w.+-]*)?\s*$")
#: Names shorter than this are words or abbreviations as often ("io", "re").
_MIN_NAME = 3
#: What only a name is spelled with: "pytest-timeout", "huggingface_hub", "h11".
_NAME_MARKS = re.compile(r"[-_.\d]")
#: What stands before a thing that others need: "depend on", "require", "use".
_NEEDING = re.compile(
    r"\b(?:depends?\s+on|requires?|needs?|uses?|installs?|pulls?\s+in)\s+$", re.IGNORECASE
)


@functools.lru_cache(maxsize=256)
def _asked(question: str) -> tuple[str, frozenset[str]]:
    """The language of ``question`` and the terms it asks by (read once per question:
    the picker asks about each of its candidates)."""
    language = detect_language(question)
    asked = set(content_terms(without_type_cue(question), language))
    return language, frozenset(asked - {term_of(verb, language) for verb in _DESCRIBING})


#: What parts a classifier's value: "Development Status :: 5 - Production/Stable".
_CLASSIFIER = "::"


def _names_classifier(
    written: set[str], asked: frozenset[str], name: str, value: str, language: str
) -> bool:
    """Whether a question naming ``asked`` (its terms beyond the subject's) and
    ``written`` (its words beyond the subject's, as written) names the classifier
    ``name: value``: the last word of its label ("Status" of "Development Status",
    "System" of "Operating System"), a word it is asked for by (``field_words``:
    "support" for an operating system), or one of its values as written ("Solaris").
    A classifier sorts a project by topic: "Who develops heronlog?" is not answered
    by its "Development Status" nor by its audience of "Developers", which share only
    a stem with the question."""
    label, _, rest = value.partition(_CLASSIFIER)
    head = content_terms(label, language)[-1:]
    if asked & set(head) or asked & asked_terms(name, value, language):
        return True
    return bool(written & set(tokenize(rest)))


def _names_field(asked: frozenset[str], fields: Sequence[tuple[str, str]], language: str) -> bool:
    """Whether ``asked`` names one of ``fields``: half its name's words or more
    ("Maintainer-Email" for "Who is the maintainer?", not "Description-Content-Type"
    for a question about types), or a word it is asked for by (``field_words``)."""
    for name, value in fields:
        words = set(content_terms(name, language))
        if 2 * len(words & asked) >= len(words) > 0 or asked & asked_terms(name, value, language):
            return True
    return False
