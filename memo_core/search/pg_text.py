"""memo's keyword index rebuilt on PostgreSQL ``tsvector``: the same tokens as FTS5.

SQLite indexes text twice with the ``unicode61 remove_diacritics 2`` tokenizer:
the raw text and its PyStemmer stems (:func:`~memo_core.search.text.stem_text`).
The knowledge base and the memory store on PostgreSQL both build those two
representations here, **in Python**, from memo's own tokenizer, so the engines
see identical tokens and no PostgreSQL parser, dictionary or ``unaccent``
extension re-reads the text:

* **Tokens** are :func:`~memo_core.search.text.tokenize` output with diacritics
  folded as unicode61 folds them (:func:`fold`).
* **Index rows** (:func:`index_text`) hold a ``tsvector`` literal per representation,
  positions included (multi-token words match as phrases), and the token count.
* **Queries** (:func:`query_phrases`, :func:`tsquery`) are built only from tokenizer
  output (quoted lexemes, ``<->`` inside a phrase, ``|`` between them), word for
  word what :func:`~memo_core.search.text.fts_match_expression` sends to FTS5, so
  hostile input cannot form tsquery syntax.

PostgreSQL's limits are respected rather than hit: at most 256 positions per
lexeme and none past 16383; a token is cut to :data:`MAX_TOKEN_CHARS` characters
(on both sides, so it still matches itself); lexemes past the 1 MB ``tsvector``
limit are left out of a row.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memo_core.search.bm25 import COLUMN_WEIGHTS
from memo_core.search.text import (
    DEFAULT_LANGUAGES,
    WordSelector,
    detect_language,
    query_words,
    stem_words,
    tokenize,
)

__all__ = [
    "MAX_TOKEN_CHARS",
    "IndexedText",
    "Phrase",
    "fold",
    "index_text",
    "lexeme_query",
    "phrase_query",
    "query_phrases",
    "tsquery",
    "tsquery_pair",
]

#: 500 characters of at most 4 UTF-8 bytes stay under PostgreSQL's 2047-byte lexeme limit.
MAX_TOKEN_CHARS = 500
#: Headroom under PostgreSQL's 1 MB ``tsvector`` limit (lexemes plus positions).
_MAX_VECTOR_BYTES = 900_000
_MAX_POSITION = 16383
_MAX_POSITIONS = 256
#: What ``lower()`` leaves that unicode61 folds away or folds differently.
_SPECIAL = {"\u0307": "", "ς": "σ", "µ": "μ", "ſ": "s"}


@functools.lru_cache(maxsize=8192)
def _fold_char(char: str) -> str:
    special = _SPECIAL.get(char)
    if special is not None:
        return special
    decomposed = unicodedata.normalize("NFD", char)
    if (
        len(decomposed) > 1
        and decomposed[0].isascii()
        and all(unicodedata.combining(mark) for mark in decomposed[1:])
    ):
        return decomposed[0]
    return char


def fold(token: str) -> str:
    """A lower-cased token as unicode61 ``remove_diacritics 2`` stores it.

    Latin letters lose their diacritics (``é`` -> ``e``, ``İ`` -> ``i``); letters that
    are not an ASCII letter plus marks stay (``ø``, ``ß``, ``й``, ``ё``), as in FTS5.
    Checked against FTS5 on every alphanumeric character of the BMP: they differ on
    a few dozen Cherokee and Greek variant letters only.
    """
    token = token[:MAX_TOKEN_CHARS]
    if token.isascii():
        return token
    return "".join(_fold_char(c) for c in token)


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsvector(lexemes: Sequence[str]) -> str:
    positions: dict[str, list[int]] = {}
    for index, lexeme in enumerate(lexemes, start=1):
        found = positions.setdefault(lexeme, [])
        if len(found) < _MAX_POSITIONS:
            found.append(min(index, _MAX_POSITION))
    parts: list[str] = []
    size = 0
    for lexeme, where in positions.items():
        part = f"{_quote(lexeme)}:{','.join(str(p) for p in dict.fromkeys(where))}"
        size += len(part.encode("utf-8")) + 8
        if size > _MAX_VECTOR_BYTES:
            break
        parts.append(part)
    return " ".join(parts)


@dataclass(frozen=True)
class IndexedText:
    """One ``chunks_fts`` row: the two tsvector literals and the token count."""

    raw: str
    stemmed: str
    ntok: int


def index_text(
    text: str, languages: Sequence[str] = DEFAULT_LANGUAGES, tokens: Sequence[str] | None = None
) -> IndexedText:
    """The keyword-index row of ``text``: what FTS5 stores for ``(raw, stem_text(raw))``
    (``tokens``: ``tokenize(text)``, when the caller has it)."""
    if tokens is None:
        tokens = tokenize(text)
    lang = detect_language(text, languages)
    raw = [fold(t) for t in tokens]
    stemmed = [s for s in (fold(t) for t in stem_words(tokens, lang)) if s]
    return IndexedText(_tsvector(raw), _tsvector(stemmed), len(raw) + len(stemmed))


@dataclass(frozen=True)
class Phrase:
    """One phrase of the FTS5 query: a word's lexemes, searched in one column.

    ``group`` numbers the query's distinct stems: a word's raw phrase and its
    stemmed phrase share one, so a row holding either is read once for both.
    """

    column: str
    lexemes: tuple[str, ...]
    group: int

    @property
    def weight(self) -> float:
        return COLUMN_WEIGHTS[self.column]


def query_phrases(
    query: str,
    *,
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    keep: WordSelector | None = None,
    max_terms: int = 64,
) -> list[Phrase]:
    """The phrases ``fts_match_expression(query, keep=keep)`` gives FTS5, folded like its index.

    Raw phrases first, then the de-duplicated stemmed ones, as in the FTS5
    expression, so the BM25 sums add up in the same order. ``keep`` chooses words
    exactly as it does there (it sees the unfolded raw and stemmed sub-tokens).
    """
    words, stems = query_words(query, languages=languages, max_terms=max_terms, keep=keep)
    if not words:
        return []
    unique = {stem: n for n, stem in enumerate(dict.fromkeys(tuple(s) for s in stems))}
    phrases = [
        Phrase("raw", tuple(fold(t) for t in w), unique[tuple(s)])
        for w, s in zip(words, stems, strict=True)
    ]
    phrases += [Phrase("stemmed", tuple(fold(t) for t in s), n) for s, n in unique.items()]
    return [p for p in phrases if p.lexemes and all(p.lexemes)]


def phrase_query(lexemes: Iterable[str]) -> str:
    """A tsquery literal matching ``lexemes`` as adjacent tokens."""
    return " <-> ".join(_quote(x) for x in lexemes)


def tsquery(phrases: Iterable[Phrase]) -> str:
    """A tsquery literal ORing ``phrases`` (the caller passes one column's phrases)."""
    return " | ".join(f"({phrase_query(p.lexemes)})" for p in phrases)


def lexeme_query(lexeme: str) -> str:
    """A tsquery literal matching one (already folded) lexeme."""
    return _quote(lexeme[:MAX_TOKEN_CHARS])


def tsquery_pair(
    query: str, languages: Sequence[str] = DEFAULT_LANGUAGES
) -> tuple[str, str] | None:
    """``(raw, stemmed)`` tsquery literals ORing the query's words, or None if it has none."""
    phrases = query_phrases(query, languages=languages)
    if not phrases:
        return None
    raw = tsquery(p for p in phrases if p.column == "raw")
    stemmed = tsquery(p for p in phrases if p.column == "stemmed")
    return raw, stemmed
