"""A record's fields answer only the questions that name what they hold.

A record ("Name: heronlog", "Version: 2.4", "Author: Jane Roe", "Requires-Dist: ...")
names its subject once and then lists what is known of it, field by field. Every
field shares the subject's name with a question about the subject, so any of them
looks on topic: "Who maintains heronlog?" asked of a record with no maintainer field
was answered by "Name: heronlog", and "Where is its documentation?" by its
dependencies. A quote made only of fields answers a question when one of its fields
is one the question names ("Author" for "Who is the author?", "Copyright" for "Who
holds the copyright?", "Requires-Python" for "Which Python does it require?"), or a
value holds a term the question asks by beyond the subject's own name ("Bug Reports,
https://..." for "Where do I report bugs?"); the subject is what the quoted document's
title and file name say (a Debian copyright file is named "copyright": its
"Copyright:" fields still answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from memo_core.answer.lemmas import content_terms, term_of
from memo_core.answer.sentences import is_field_shaped, line_content
from memo_core.answer.types import Citation
from memo_core.answer.windows import without_type_cue
from memo_core.search.text import detect_language

__all__ = ["fields_off_question"]

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


def fields_off_question(question: str, citations: Sequence[Citation]) -> bool:
    """Whether ``citations`` quote only record fields and none of them answers
    ``question`` (see the module docstring): none is a field the question names
    ("Copyright" for "Who holds the copyright?") and no value holds a term of it beyond
    those of the subject of its document. False when a quote is prose, or the question
    names nothing but the subject ("What is heronlog?", "What does heronlog provide?")."""
    if not citations:
        return False
    language = detect_language(question)
    asked = set(content_terms(without_type_cue(question), language))
    asked -= {term_of(verb, language) for verb in _DESCRIBING}
    for citation in citations:
        fields = _fields(citation.sentence or citation.quote)
        if fields is None:
            return False  # prose: the other checks read it
        subject = set(content_terms(f"{citation.title} {PurePath(citation.source).stem}", language))
        wanted = asked - subject
        names = set(content_terms(" ".join(name for name, _ in fields), language))
        values = set(content_terms(" ".join(value for _, value in fields), language))
        if not wanted or asked & names or wanted & values:
            return False
    return True
