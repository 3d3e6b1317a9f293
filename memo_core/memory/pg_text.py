"""Full-text search on PostgreSQL the way memo's SQLite FTS5 tables do it.

SQLite indexes each text twice with the ``unicode61 remove_diacritics 2``
tokenizer: the raw text and its PyStemmer stems (:func:`~memo_core.search.text.
stem_text`). PostgreSQL gets the same two representations, built **in Python**
from memo's own tokenizer so both engines see identical tokens:

* tokens are :func:`~memo_core.search.text.tokenize` output with diacritics folded
  the way unicode61 folds them (a character whose canonical decomposition is an
  ASCII letter plus combining marks becomes that letter: ``é`` -> ``e``, while
  ``ø``, ``ß``, ``й`` and ``ё`` stay), without relying on the ``unaccent`` extension;
* each representation is a ``tsvector`` literal with token positions (so phrases
  work), cast with ``::tsvector`` under the ``simple`` rules: no PostgreSQL parser
  or dictionary ever re-reads the text;
* a query is a ``tsquery`` literal built only from tokenizer output (quoted
  lexemes joined with ``|``, multi-token words as ``<->`` phrases), so no user input
  can form tsquery syntax. It mirrors :func:`~memo_core.search.text.
  fts_match_expression`: the same words, stopwords dropped the same way, the same
  stems.

PostgreSQL limits are respected rather than hit: a lexeme is at most 2046 bytes
(tokens are cut to :data:`MAX_TOKEN_CHARS` characters on both sides, so a long
token still matches itself), positions stop at 16383, a ``tsvector`` stays under
1 MB (:data:`MAX_VECTOR_BYTES`; lexemes past it are left out).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Sequence

from memo_core.search.text import (
    DEFAULT_LANGUAGES,
    STOPWORDS,
    detect_language,
    stem_token,
    tokenize,
)

__all__ = [
    "MAX_TOKEN_CHARS",
    "MAX_VECTOR_BYTES",
    "fold_diacritics",
    "tsquery_pair",
    "tsvector_literal",
    "tsvector_pair",
]

#: 500 characters of at most 4 UTF-8 bytes stay under PostgreSQL's 2046-byte lexeme limit.
MAX_TOKEN_CHARS = 500
#: Headroom under PostgreSQL's 1 MB tsvector limit.
MAX_VECTOR_BYTES = 900_000
_MAX_POSITION = 16383
_MAX_POSITIONS_PER_LEXEME = 256
_MAX_QUERY_TERMS = 64


@functools.lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    decomposed = unicodedata.normalize("NFD", char)
    if (
        len(decomposed) > 1
        and decomposed[0].isascii()
        and all(unicodedata.combining(mark) for mark in decomposed[1:])
    ):
        return decomposed[0]
    return char


def fold_diacritics(token: str) -> str:
    """``token`` with diacritics removed as unicode61 ``remove_diacritics 2`` does."""
    if token.isascii():
        return token
    return "".join(_fold_char(c) for c in token)


def _lexeme(token: str) -> str:
    return fold_diacritics(token[:MAX_TOKEN_CHARS])


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(tokens: Iterable[str]) -> str:
    """A ``tsvector`` literal of ``tokens`` with 1-based positions (``'a':1,3 'b':2``)."""
    positions: dict[str, list[int]] = {}
    for index, token in enumerate(tokens, start=1):
        lexeme = _lexeme(token)
        if not lexeme:
            continue
        found = positions.setdefault(lexeme, [])
        if len(found) < _MAX_POSITIONS_PER_LEXEME:
            found.append(min(index, _MAX_POSITION))
    parts: list[str] = []
    size = 0
    for lexeme, where in positions.items():
        part = f"{_quote(lexeme)}:{','.join(str(p) for p in dict.fromkeys(where))}"
        size += len(part.encode("utf-8")) + 8
        if size > MAX_VECTOR_BYTES:
            break
        parts.append(part)
    return " ".join(parts)


def tsvector_pair(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES) -> tuple[str, str]:
    """``(raw, stemmed)`` tsvector literals of ``text``, as the FTS5 rows hold them."""
    tokens = tokenize(text)
    lang = detect_language(text, languages)
    return tsvector_literal(tokens), tsvector_literal(stem_token(t, lang) for t in tokens)


def _query_words(query: str) -> list[list[str]]:
    """The query's whitespace words as token lists, as ``fts_match_expression`` takes them."""
    words = [w for w in (tokenize(part) for part in query.split()) if w]
    kept = [w for w in words if not (len(w) == 1 and w[0] in STOPWORDS)]
    if kept:
        words = kept
    return list({tuple(w): w for w in words}.values())[:_MAX_QUERY_TERMS]


def _phrase(tokens: Sequence[str]) -> str:
    lexemes = [_quote(_lexeme(t)) for t in tokens]
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def tsquery_pair(
    query: str, languages: Sequence[str] = DEFAULT_LANGUAGES
) -> tuple[str, str] | None:
    """``(raw, stemmed)`` tsquery literals ORing the query's words, or None if it has none."""
    words = _query_words(query)
    if not words:
        return None
    lang = detect_language(query, languages)
    raw = " | ".join(dict.fromkeys(_phrase(w) for w in words))
    stemmed = " | ".join(dict.fromkeys(_phrase([stem_token(t, lang) for t in w]) for w in words))
    return raw, stemmed
