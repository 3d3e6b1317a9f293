"""A question's words in the spelling of the passages it is answered from.

"What does the licence allow?" asked of a text that says "License" shares no term
with it, nor "colour" with "color", "organisation" with "organization" or "centre"
with "center": the search finds the passage by its meaning, and then the gate and
the sentence picker, which weigh the terms a passage holds, miss the one the
question leans on. :func:`respelled` gives the question back with each such word
written as the retrieved passages write it.

Only a word's other *regional* spelling is taken, British for American and back,
from ``breame``'s list of the words spelled both ways (the ``local`` extra; without
it nothing is respelled), and only when the best passage that uses the word at all
(the passages come best first) holds it the other way and not as asked (in any of
its forms, :func:`~memo_core.answer.lemmas.term_of`): a base may mix the two, a
copyright file's "License:" fields beside a licence written "licence", and the
passage found first is the one the answer is read from. A word one letter off
another is not the same word ("storing" and "string", "remote" and "remove"): a
question about the one is never read as one about the other.

So too for the words and phrases documentation uses for one thing (:data:`SYNONYMS`:
"exit code" and "exit status", "folder" and "directory", "config" and "configuration"):
a question saying one is read in the word of the best passage that says any of them,
when it says another and not the asked one. Only these, from a list: a word merely
close in meaning ("largest", "limit") names another thing as often as the same one,
and so does an abbreviation found inside other names ("max" in "max-temp" is no
"maximum").

And for two words a question writes apart that the passages write as one ("zip
file" and ``zipfile``, "time zone" and "timezone"): the pair is read as the passages'
one word when the best passage holding either form holds that one, so the terms the
gate and the picker weigh meet. The engine searches again with the question so read
(``engine.py``).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable, Sequence
from itertools import pairwise

from memo_core.answer.lemmas import term_of
from memo_core.search.text import STOPWORDS, detect_language, tokenize

__all__ = ["respelled", "spellings_available"]

_WORD = re.compile(r"[^\W\d_]+")

#: Groups of words and phrases that software documentation uses for the same thing.
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("exit status", "exit code", "return code", "exit value"),
    ("directory", "folder"),
    ("configuration", "config"),
    ("documentation", "docs"),
    ("repository", "repo"),
    ("environment variable", "env var"),
    ("delete", "remove"),
    ("author", "wrote", "written by"),
    ("several", "multiple"),
    ("require", "depend"),
    ("changelog", "change log", "release notes", "change history"),
    ("homepage", "home page", "website", "web site"),
    ("issues", "issue tracker", "bug tracker", "bug reports", "bugs"),
)
#: A phrase of a group as written in a question or a passage: words apart by spaces,
#: hyphens or underscores ("max_workers" says "max"), the last one maybe plural.
_PHRASES: tuple[tuple[tuple[str, re.Pattern[str]], ...], ...] = tuple(
    tuple(
        (
            phrase,
            re.compile(
                r"(?<![^\W_])"
                + r"[\s_-]+".join(map(re.escape, phrase.split()))
                + r"(?P<plural>e?s)?(?![^\W_])",
                re.IGNORECASE,
            ),
        )
        for phrase in group
    )
    for group in SYNONYMS
)


@functools.cache
def _spellings() -> tuple[Callable[[str], str], Callable[[str], str]] | None:
    """breame's (British for an American word, American for a British word), each
    giving the word itself when it has no other spelling; None without the extra."""
    if importlib.util.find_spec("breame") is None:
        return None
    from breame.spelling import get_american_spelling, get_british_spelling

    return get_british_spelling, get_american_spelling


def spellings_available() -> bool:
    """Whether questions are read in the passages' regional spelling (``breame`` installed)."""
    return _spellings() is not None


def respelled(question: str, passages: Sequence[str]) -> str:
    """``question`` with each word the ``passages`` spell the other regional way, or
    name by a synonym, written as they do (see the module docstring); ``question``
    itself when none is."""
    return _in_passages_compounds(
        _in_passages_synonyms(_in_passages_spelling(question, passages), passages), passages
    )


def _in_passages_compounds(question: str, passages: Sequence[str]) -> str:
    """``question`` with each pair of adjacent content words (apart by a space or a
    hyphen) written as one word where the best passage holding the pair or the one word
    holds the one word."""
    language = detect_language(question)
    lowered = [text.lower() for text in passages]
    held: list[tuple[set[str], set[tuple[str, str]]]] | None = None
    out = question
    for first, second in reversed(list(pairwise(_WORD.finditer(question)))):
        if question[first.end() : second.start()] not in (" ", "-"):
            continue
        a, b = first.group().lower(), second.group().lower()
        if a in STOPWORDS or b in STOPWORDS:
            continue
        # Cheaply first: no passage writes the two words together in any form.
        stem = a + (b[:-2] if len(b) > 4 else b)
        if not any(stem in text for text in lowered):
            continue
        if held is None:
            # In any of their forms: "string literals" writes "string literal" apart.
            terms = [[term_of(t, language) for t in tokenize(text)] for text in passages]
            held = [(set(words), set(pairwise(words))) for words in terms]
        apart, joined = (term_of(a, language), term_of(b, language)), term_of(a + b, language)
        if joined in apart:
            continue  # "Mongol er" is no compound: "er" only ends a word as a suffix would
        for words, pairs in held:
            if apart in pairs:
                break  # the passage writes them apart, as asked
            if joined in words:
                out = out[: first.start()] + first.group() + b + out[second.end() :]
                break
    return out


def _in_passages_synonyms(question: str, passages: Sequence[str]) -> str:
    """``question`` with each phrase of :data:`SYNONYMS` it holds replaced by the one the
    best passage saying any phrase of its group says, when that is not the asked one."""
    out = question
    for group in _PHRASES:
        for _phrase, pattern in group:
            found = pattern.search(out)
            if found is None:
                continue
            for text in passages:
                if pattern.search(text):
                    break  # the passage says it as asked
                said = next((other for other, p in group if p.search(text)), None)
                if said is not None:
                    if found.group("plural"):
                        said += "es" if said.endswith(("s", "x")) else "s"
                    out = out[: found.start()] + said + out[found.end() :]
                    break
            break  # one phrase of a group per question
    return out


def _in_passages_spelling(question: str, passages: Sequence[str]) -> str:
    spellings = _spellings()
    if spellings is None:
        return question
    language = detect_language(question)
    if language != "english":
        return question
    held: list[set[str]] | None = None  # each passage's terms, read at the first such word
    out = question
    for m in reversed(list(_WORD.finditer(question))):  # from the end: earlier offsets hold
        word = m.group().lower()
        others = {spell(word) for spell in spellings} - {word}
        if not others:
            continue
        if held is None:
            held = [{term_of(t, language) for t in tokenize(text)} for text in passages]
        asked = term_of(word, language)
        # The best passage that uses the word at all, either way, decides its spelling.
        for terms in held:
            if asked in terms:
                break
            found = sorted(o for o in others if term_of(o, language) in terms)
            if found:
                spelling = found[0].capitalize() if m.group()[:1].isupper() else found[0]
                out = out[: m.start()] + spelling + out[m.end() :]
                break
    return out
