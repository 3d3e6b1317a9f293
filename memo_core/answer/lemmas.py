"""The terms the answer engine compares a question and a passage by: stems of lemmas.

The Snowball stemmer gives a regular word's forms one stem ("signed", "signs" and
"signing" are "sign"), but not an irregular verb's: "Who wrote it?" shares no term
with "Written by Jane Roe", nor "When did the war begin?" with "The war began in
1914". Reading each English word as its dictionary form first (``simplemma``'s
lemma list, the ``local`` extra) joins them: :func:`term_of` is the stem of that form.

A lemma is taken only when it is a lower-case word starting with the word's own
letter: irregular verbs keep their first letter ("wrote"/"write", "held"/"hold",
"began"/"begin"), while the forms that come from another root ("better"/"good",
"went"/"go") would match words the question does not say. Other languages (Russian
inflects regularly enough for its stemmer) and installs without ``simplemma`` get
the stem alone.

A passage's CamelCase identifier also holds the terms of its words
(:func:`identifier_terms`): "Which executor uses chunksize?" is answered by "used by
ProcessPoolExecutor", and "Which error does it raise?" by "TypeError". Only on the
passage's side: a question naming the identifier matches it whole, as before.

Only the answer engine compares by these terms (the gate's coverage, the evidence
windows, the sentence picker); the keyword index keeps plain stems, so nothing
stored depends on the lemma list.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable, Collection

from memo_core.search.text import STOPWORDS, stem_token, tokenize

__all__ = ["content_terms", "identifier_terms", "lemmas_available", "term_of"]

#: A word with a capital after its first letter and a lower-case letter: an identifier
#: joined in CamelCase ("ProcessPoolExecutor", "SMTPAuthenticationError", "IPv4Network").
_CAMEL_CASE = re.compile(r"\b(?=\w*[a-z])\w[\w]*?[A-Z]\w*\b")
#: The words of one: a run of capitals before a capitalised word ("SMTP"), a
#: capitalised or lower-case word.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
#: Shorter parts ("Py", "IO") name nothing a question asks by.
_PART_LETTERS = 3


@functools.cache
def _lemmatizer() -> Callable[[str], str] | None:
    """simplemma's English lemmatizer, or None without the ``local`` extra."""
    if importlib.util.find_spec("simplemma") is None:
        return None
    import simplemma

    return functools.partial(simplemma.lemmatize, lang="en")


def lemmas_available() -> bool:
    """Whether irregular forms are read as their dictionary form (``simplemma`` installed)."""
    return _lemmatizer() is not None


@functools.lru_cache(maxsize=1 << 16)
def term_of(token: str, language: str) -> str:
    """The term ``token`` (lower-cased, from ``search.text.tokenize``) is compared by:
    the stem of its dictionary form when it is an English word with an irregular
    form (see the module docstring), else its stem."""
    lemmatize = _lemmatizer()
    if lemmatize is not None and language == "english" and token.isascii() and token.isalpha():
        lemma = lemmatize(token)
        if lemma != token and lemma.isalpha() and lemma.islower() and lemma[0] == token[0]:
            token = lemma
    return stem_token(token, language)


def content_terms(text: str, language: str) -> list[str]:
    """The terms (:func:`term_of`) of ``text``'s words that are not stop words, in order."""
    return [term_of(t, language) for t in tokenize(text) if t not in STOPWORDS]


def identifier_terms(text: str, language: str, named: Collection[str] = ()) -> frozenset[str]:
    """The terms of the words joined in ``text``'s CamelCase identifiers: "executor" and
    "pool" for ``ProcessPoolExecutor`` (parts of fewer than three letters and stop words
    left out). An identifier whose own term is in ``named`` (the question's terms) is
    matched whole: its parts would count it twice ("Why does StreamHandler close its
    stream?" is not about every line naming ``StreamHandler``)."""
    terms: set[str] = set()
    for match in _CAMEL_CASE.finditer(text):
        identifier = match.group()
        parts = _CAMEL_PART.findall(identifier)
        if len(parts) < 2 or term_of(identifier.lower(), language) in named:
            continue
        for part in parts:
            word = part.lower()
            if len(word) >= _PART_LETTERS and word not in STOPWORDS:
                terms.add(term_of(word, language))
    return frozenset(terms)
