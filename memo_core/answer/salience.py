"""The terms of a question that an answer cannot do without.

A question about "version 3.14", "Product B" or "the Zurich office" is not answered
by a passage about version 3.12, Product A or the Berlin office, however similar
the rest; nor is a question about ``csv.reader``'s ``header_row`` parameter by the
text about its other parameters. :func:`hard_terms` picks out the question's
numbers, versions, capitalised names (not its first word, which is capitalised
anyway), code identifiers (``snake_case``, ``camelCase``, the attribute of a
dotted name) and coined words, which no word list of the language knows (a module
or a parameter written in lower case: a question about ``getopt`` is not answered
from the ``optparse`` page that does not name it). :func:`missing_terms` lists
those absent from the evidence - numbers as the evidence states them (digits,
words or a range holding them: :class:`~memo_core.answer.numbers.StatedNumbers`),
identifiers exactly, names by stem, without a possessive or in a derived form
(:data:`DERIVATIONS`: "European" is found in a text about Europe), without accents
("Jeronimo", "Jerónimo"), two of them as one word ("Sky Drive", "SkyDrive"), an
acronym as the capitalised name it abbreviates ("EU", "European Union"), a coined
word also as its one-edit typo - with
the literals the question names verbatim (:mod:`~memo_core.answer.literals`:
options, operators, quoted code, "the X statement"). The gate reads them as
features; the engine refuses an answer whose cited passages miss one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rapidfuzz.distance import OSA

from memo_core.answer.lexicon import word_frequency
from memo_core.answer.literals import missing_literals
from memo_core.answer.numbers import NUMBER, StatedNumbers, number_term
from memo_core.answer.repairs import corrected
from memo_core.search.text import STOPWORDS, detect_language, stem_token
from memo_core.types import Hit

__all__ = ["hard_terms", "hit_evidence", "is_coined", "missing_terms"]

# A version or number ("3.12", "v2", "1,200", "1'000'000", "10th") or a word.
_TERM = re.compile(rf"{NUMBER}|[^\W\d_]+(?:['’][^\W_]+)*")
_DIGIT = re.compile(r"\d")
# A code identifier: snake_case, camelCase, or the attribute after a dot ("csv.reader").
_IDENTIFIER = re.compile(
    r"(?<![\w.])[A-Za-z_]\w*_\w+|(?<![\w.])[a-z]+[A-Z]\w*|(?<=\w\w\.)[A-Za-z_]\w+"
)
_WORD = re.compile(r"\w+")
#: A coined name is this long at least: shorter unknown spellings are abbreviations
#: and fragments ("cls", "kwd") as often as names.
MIN_COINED = 4
#: A coined-looking word one edit from an evidence word is read as its typo from this
#: length on: shorter names differ by one letter from real words ("zlib", "lzma").
MIN_TYPO_LENGTH = 6
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"'«“(]\s*)$")


def hard_terms(question: str) -> list[str]:
    """Numbers, versions, capitalised names, identifiers and coined words (ones no
    word list knows: "getopt", "wbits") of ``question``, lower-cased.

    Identifiers come first, then the rest in order of appearance. What the asker took
    back ("version 3.1 no sorry 3.2": :func:`~memo_core.answer.repairs.corrected`) is
    no term of the question.
    """
    return _hard_terms(corrected(question))


def _hard_terms(question: str) -> list[str]:
    """:func:`hard_terms` of a question already read as its asker meant it."""
    out: list[str] = [m.group().lower().strip("_") for m in _IDENTIFIER.finditer(question)]
    parts = {p for term in out for p in _TERM.findall(term)}
    for m in _TERM.finditer(question):
        word = m.group()
        folded = word.lower()
        if folded in parts:
            continue  # a piece of an identifier: the identifier itself is the term
        if _DIGIT.search(word):
            out.append(number_term(folded))
            continue
        at_start = bool(_SENTENCE_START.search(question[: m.start()]))
        named = word[:1].isupper() and not at_start and folded not in STOPWORDS and len(word) > 1
        if named or is_coined(folded):
            out.append(folded)
    return list(dict.fromkeys(out))


def is_coined(folded: str) -> bool:
    """Whether ``folded`` is a word no frequency list of its language knows: a coined
    name ("getopt", "tracemalloc", "wbits"), which a passage about something else
    does not say, as an identifier. Without the lists (the ``local`` extra) no word is."""
    if len(folded) < MIN_COINED or folded in STOPWORDS or not folded.isalpha():
        return False
    return word_frequency(folded) == 0.0


def _misspells(term: str, words: set[str]) -> bool:
    """Whether ``term`` is one edit from a word of ``words``: a coined-looking word that
    is a typo of the evidence's ("innnate", "chainging", "exlposion": two letters
    swapped are one slip), not a name of its own."""
    if len(term) < MIN_TYPO_LENGTH:
        return False
    return any(
        abs(len(w) - len(term)) <= 1 and OSA.distance(term, w, score_cutoff=1) <= 1 for w in words
    )


def hit_evidence(hit: Hit) -> str:
    """What ``hit`` says, to look a question's terms up in: its title, source, the
    names in its locator (a heading path) and its text.

    A locator's positions (page, line, row, time) are where the text stands, not
    what it says: page 7 of a PDF does not state protocol 7, and lines 120-180 of
    a file do not state every number between.
    """
    names = " ".join(v for v in hit.locator.values() if isinstance(v, str))
    return f"{hit.title} {hit.source} {names} {hit.text}"


def missing_terms(question: str, evidence: Iterable[str]) -> list[str]:
    """The :func:`hard_terms` of ``question`` that no text of ``evidence`` contains,
    then the literals it names verbatim that none names
    (:func:`~memo_core.answer.literals.missing_literals`: ``--no-restart``, ``>>>``,
    "the async while statement")."""
    texts = list(evidence)
    question = corrected(question)
    missing = _missing_hard_terms(question, texts)
    seen = {m.lower() for m in missing}
    return missing + [m for m in missing_literals(question, texts) if m.lower() not in seen]


def _missing_hard_terms(question: str, evidence: list[str]) -> list[str]:
    terms = _hard_terms(question)  # ``question`` is corrected already (missing_terms)
    if not terms:
        return []
    text = " ".join(evidence)
    language = detect_language(text)
    words = {m.group().lower() for m in _TERM.finditer(text)}
    numbers = StatedNumbers.read(text, language)
    stems = {stem_token(w, language) for w in words if not _DIGIT.search(w)}
    identifiers = {w.lower().strip("_") for w in _WORD.findall(text)}
    # A name written as code ("orjson.dump", "max_size") is matched as written: "dumps"
    # is another function, not a form of it.
    as_code = {m.group().lower().strip("_") for m in _IDENTIFIER.finditer(question)}
    asked_acronyms = {w.lower() for w in _ACRONYM.findall(question)}
    # Read from the evidence only for a term no plainer way finds (most questions: none).
    plain: set[str] | None = None
    initials: list[str] | None = None
    missing = []
    for term in terms:
        if term in as_code or _IDENTIFIER.fullmatch(term) or "_" in term:
            found = term in identifiers
        elif _DIGIT.search(term):
            found = numbers.states(term)
        elif (
            term in words
            or stem_token(term, language) in stems
            or _POSSESSIVE.sub("", term) in words
            or _derived(term, words)
            or any(term + u in words or u + term in words for u in terms if u != term)
        ):
            found = True
        else:
            if plain is None:
                plain = {_without_accents(w) for w in words}
            if term in asked_acronyms and initials is None:
                initials = _name_initials(text)
            bare = _POSSESSIVE.sub("", term)  # "Nederrikn's" is a typo as "Nederrikn" is
            found = (
                _without_accents(term) in plain  # "Jeronimo" of a text saying "Jerónimo"
                or (term in asked_acronyms and any(term in run for run in initials or ()))
                or (is_coined(bare) and _misspells(bare, words))
            )
        if not found:
            missing.append(term)
    return missing


#: An acronym as a question writes it: two to five capitals ("EU", "ECJ").
_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
#: A capitalised word of a name, and the small words a name's initials skip.
_CAPITALISED = re.compile(r"[A-Z][^\W\d_]*|[^\W\d_]+")
_SKIPPED_IN_INITIALS = frozenset({"of", "the", "and", "for", "on", "de", "la", "du"})


def _without_accents(word: str) -> str:
    """``word`` without its diacritics: "jerónimo" is "jeronimo"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _name_initials(text: str) -> list[str]:
    """The lower-cased initials of each run of two or more capitalised words in ``text``
    (small words inside it skipped): "European Union", "Court of Justice" give "eu",
    "cj". An acronym the question asks by stands for such a name of the evidence, or
    for a part of it."""
    out: list[str] = []
    run: list[str] = []
    for word in [*_CAPITALISED.findall(text), ""]:
        if word[:1].isupper():
            run.append(word[0].lower())
            continue
        if word.lower() in _SKIPPED_IN_INITIALS and run:
            continue
        if len(run) >= 2:
            out.append("".join(run))
        run = []
    return out


#: The endings that make a people or an adjective of a place's name and back
#: ("Europe"/"European", "Israel"/"Israelis", "Germany"/"German", "Korea"/"Korean").
_DERIVATIONS_TEXT = "n an ian ns ans ians i is y ese"
DERIVATIONS: frozenset[str] = frozenset(_DERIVATIONS_TEXT.split())
#: A name is matched by its derived form from this length on: shorter ones are
#: other words with an ending ("Ura"/"Uran").
MIN_DERIVED = 4
_POSSESSIVE = re.compile(r"['’]s$")


def _derived(term: str, words: set[str]) -> bool:
    """Whether a word of ``words`` is ``term`` (a name, lower-cased) with one of the
    :data:`DERIVATIONS` endings added or taken off: a passage about Europe answers a
    question about the European one, in the words it uses."""
    if len(term) < MIN_DERIVED or not term.isalpha():
        return False
    for word in words:
        short, long = (term, word) if len(term) <= len(word) else (word, term)
        if (
            len(short) >= MIN_DERIVED
            and long.startswith(short)
            and long[len(short) :] in DERIVATIONS
        ):
            return True
    return False
