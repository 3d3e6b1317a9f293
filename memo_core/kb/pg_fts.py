"""The knowledge base's keyword index on PostgreSQL: FTS5's behaviour, rebuilt on tsvector.

SQLite indexes every chunk twice with the ``unicode61 remove_diacritics 2``
tokenizer (its raw text, and the PyStemmer stems of :func:`~memo_core.search.text.
stem_text`) and ranks with FTS5's BM25 formula and the knowledge base's constants
(:mod:`memo_core.search.bm25`, ``KB_B``; ``kb/fts_rank.py`` on SQLite). This module gives
PostgreSQL the same index and the same ranking, so a base answers alike on both:

* **Tokens** are memo's own :func:`~memo_core.search.text.tokenize` output with
  diacritics folded as unicode61 folds them (:func:`fold`): no PostgreSQL parser,
  dictionary or ``unaccent`` extension re-reads the text.
* **Index rows** (:func:`index_text`) hold a ``tsvector`` literal per representation
  (positions included, so multi-token words match as phrases; GIN serves the
  match) and the token count.
* **Queries** (:func:`query_phrases`, :func:`tsquery`) are built only from
  tokenizer output (quoted lexemes, ``<->`` inside a phrase, ``|`` between them),
  word for word what :func:`~memo_core.search.text.fts_match_expression` sends to
  FTS5, so hostile input cannot form tsquery syntax.
* **Ranking** (:func:`bm25_sql`) is FTS5's BM25 with memo's constants
  (:mod:`memo_core.search.bm25`: k1, b, the IDF and its floor, column weights
  applied to the frequency, length = the row's tokens in both columns), computed
  in SQL. A phrase's frequency in a row is its number of occurrences,
  read from the positions by ``ts_rank_cd`` with unit weights and no normalisation
  (each occurrence of a one-word or ``<->`` query is one cover worth 1; a test pins
  this against counts made in Python). ``ts_rank``/``ts_rank_cd`` as the *score*
  were not used: neither has an IDF, so rare words would weigh no more than common
  ones, and the hybrid searcher's keyword cut-off was calibrated on BM25 values.
  The score keeps FTS5's sign (negative; lower is better), and equals FTS5's to
  about 1e-13 (the terms are summed in another order).

Cost: GIN finds the matching rows but, unlike FTS5's posting lists, not how often
each phrase occurs in them, so ranking reads every matching row once per stem
group. It is several times FTS5's cost on a large base (``bench/`` has figures);
the word budget of ``search/keyword.py`` bounds it on both backends alike.

Where the two can still differ: PostgreSQL keeps at most 256 positions per lexeme
and none past 16383, so a word repeated more often than that in one chunk, or a
phrase lying past that position, counts less; a token is cut to
:data:`MAX_TOKEN_CHARS` characters (on both sides, so it still matches itself);
lexemes past PostgreSQL's 1 MB ``tsvector`` limit are left out of a row.
"""

from __future__ import annotations

from collections.abc import Sequence

from memo_core.search.bm25 import KB_B
from memo_core.search.pg_bm25 import bm25_statement
from memo_core.search.pg_text import (
    MAX_TOKEN_CHARS,
    IndexedText,
    Phrase,
    fold,
    index_text,
    lexeme_query,
    query_phrases,
    tsquery,
)

__all__ = [
    "MAX_TOKEN_CHARS",
    "IndexedText",
    "Phrase",
    "bm25_sql",
    "fold",
    "index_text",
    "lexeme_query",
    "query_phrases",
    "tsquery",
]


def bm25_sql(
    phrases: Sequence[Phrase],
    scope: str,
    scope_params: Sequence[object],
    *,
    weighted: bool = True,
) -> tuple[str, list[object]]:
    """A statement ranking the chunks that match ``phrases``: rows ``(rowid, bm25)``.

    ``weighted``: memo's column weights (False: unit weights, FTS5's ``bm25()``
    called with no weights).

    ``scope`` is a condition over the index row ``f`` (its owner and collection; a
    metadata filter as an ``EXISTS`` on ``chunks``) with ``scope_params``; a
    trailing ``LIMIT ?`` is left for the caller. The arithmetic is
    :func:`~memo_core.search.pg_bm25.bm25_statement`'s, which memory ranks with too.
    """
    return bm25_statement(
        phrases,
        scope,
        scope_params,
        index="chunks_fts",
        stats="chunks_fts_stats",
        weighted=weighted,
        b=KB_B,
    )
