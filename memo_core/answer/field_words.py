"""What a record's field holds, in the words a question asks for it by.

A record names what each line holds once, in the field's name ("Author: Jane Roe",
"Requires-Dist: click>=8"), and a question seldom says that name: it asks "Who
created heronlog?", "Which packages does it depend on?", "Where do I report a
problem?". The terms a field is asked by are those of its name's words, for the
fields of :data:`FIELDS`, and of the label a value opens with (package metadata labels
its links and classifiers so: "Project-URL: Issues, https://...", "Classifier:
Operating System :: POSIX"), looked up in :data:`ASKED_BY`: the vocabulary of the
record genres memo reads, package metadata, Debian control and copyright files, mail
headers. A link to a code forge ("https://github.com/...") is where a project's code
is kept, whatever its field.

The words are deliberately narrow: each one a question would use *for that field*
and no other, so that a record without the field still answers nothing ("Where is
the documentation?" is not answered by a home page, nor "Who maintains it?" by its
author).
"""

from __future__ import annotations

import functools
import re

from memo_core.answer.lemmas import term_of
from memo_core.answer.sentences import is_field_shaped, line_content

__all__ = ["ASKED_BY", "FIELDS", "asked_terms", "field_terms", "value_label"]

#: A word of a field's name or label -> the words a question asks for that field by.
ASKED_BY: dict[str, tuple[str, ...]] = {
    # who made it, and how to reach them
    # Not "develop": its stem is also the "development" of "What is the development
    # status?", which a record without that classifier must not answer by its author.
    "author": ("write", "wrote", "create", "creator", "behind"),
    "authors": ("write", "wrote", "create", "creator", "behind"),
    "maintainer": ("maintain", "behind"),
    "uploaders": ("upload", "maintain"),
    "copyright": ("own", "owner", "holder", "hold"),
    # the terms it may be used under, in either spelling, and what they cover
    "license": ("licence", "licensed", "terms"),
    "licence": ("license", "licensed", "terms"),
    "files": ("cover", "apply", "path"),
    "contact": ("reach", "email", "mail", "address"),
    "email": ("contact", "reach", "mail", "address"),
    # what it is
    "summary": ("describe", "description", "line", "offer", "purpose"),
    "description": ("describe", "summary", "offer", "purpose"),
    "keywords": ("keyword", "search", "tag"),
    "version": ("number",),
    # where it lives
    "homepage": ("home", "website"),
    "home": ("homepage", "website"),
    "source": ("code", "repository", "download", "obtain"),
    "repository": ("code", "source"),
    "vcs": ("code", "source", "repository"),
    "issues": ("report", "bug", "problem", "issue", "tracker"),
    "issue": ("report", "bug", "problem", "issues", "tracker"),
    "bug": ("report", "problem", "issue", "tracker"),
    "bugs": ("report", "problem", "issue", "tracker"),
    "tracker": ("report", "bug", "problem", "issue"),
    "changelog": ("change", "changed", "history", "release"),
    "changes": ("change", "changelog", "history", "release"),
    "history": ("change", "changed", "changelog", "release"),
    "documentation": ("docs", "doc", "manual", "documented"),
    "docs": ("documentation", "doc", "manual", "documented"),
    # what it needs and offers
    "requires": ("need", "depend", "dependency", "accept"),
    "depends": ("need", "require", "dependency", "accept"),
    "extra": ("optional",),
    # how its classifiers sort it
    "operating": ("support", "run", "platform"),
    "language": ("written", "write"),
    "status": ("stable", "mature"),
    "audience": ("target", "meant"),
    "framework": ("support", "work"),
}

#: The fields whose names are read by :data:`ASKED_BY` (lower-case, words joined by a
#: space): those of package metadata, Debian control and copyright files and mail
#: headers. Another field sharing a word with one says something else
#: ("Description-Content-Type" is no description, "Metadata-Version" no release).
FIELDS = frozenset(
    {
        "author",
        "author email",
        "authors",
        "maintainer",
        "maintainer email",
        "uploaders",
        "upstream contact",
        "contact",
        "email",
        "copyright",
        "license",
        "licence",
        "files",
        "summary",
        "description",
        "keywords",
        "version",
        "home page",
        "homepage",
        "source",
        "repository",
        "vcs git",
        "vcs browser",
        "bugs",
        "bug reports",
        "changelog",
        "documentation",
        "requires dist",
        "requires python",
        "requires external",
        "requires",
        "depends",
        "pre depends",
        "build depends",
        "provides extra",
    }
)

#: A link to a code forge: where the project's code is, whatever field holds it.
_FORGE = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com|codeberg\.org|bitbucket\.org|"
    r"git\.sr\.ht|salsa\.debian\.org)/",
    re.IGNORECASE,
)
_FORGE_WORDS = ("code", "source", "repository")
#: A value's label: "Issues, https://..." (a link's, before the comma and its address),
#: "Operating System :: ..." (a classifier's, before the first "::"); not any text before
#: a comma ("Structured logs, small daemons").
_LABEL = re.compile(r"\s*([A-Za-z][\w .-]*?)\s*(?:,\s*(?=[a-z][\w+.-]*://)|::)", re.IGNORECASE)
_WORDS = re.compile(r"[a-z]+")


@functools.cache
def _asked_terms(word: str, language: str) -> frozenset[str]:
    return frozenset(term_of(w, language) for w in ASKED_BY.get(word, ()))


def field_terms(text: str, language: str) -> frozenset[str]:
    """The terms a question asks for the record fields of ``text`` by: those of
    :func:`asked_terms` for each line of ``text`` that reads as a "Name: value" field."""
    terms: set[str] = set()
    for line in text.split("\n"):
        field = line_content(line)
        if is_field_shaped(field):
            name, _, value = field.partition(":")
            terms |= asked_terms(name, value, language)
    return frozenset(terms)


def asked_terms(name: str, value: str, language: str) -> frozenset[str]:
    """The terms a question asks for the field ``name: value`` by (see the module
    docstring): those of its name's words, of its value's label, and of a link to a
    code forge."""
    words = _WORDS.findall(name.casefold())
    if " ".join(words) not in FIELDS:
        words = []
    words += _WORDS.findall(value_label(value).casefold())
    terms = frozenset().union(*(_asked_terms(word, language) for word in words))
    if _FORGE.search(value):
        terms |= {term_of(w, language) for w in _FORGE_WORDS}
    return terms


def value_label(value: str) -> str:
    """What a field's value says it is, as a link or a classifier labels it ("Issues" of
    "Issues, https://...", "Operating System" of "Operating System :: POSIX"), else ""."""
    label = _LABEL.match(value)
    return label.group(1) if label else ""
