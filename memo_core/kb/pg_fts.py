"""The knowledge base's keyword index on PostgreSQL: FTS5's behaviour, rebuilt on tsvector.

SQLite indexes every chunk twice with the ``unicode61 remove_diacritics 2``
tokenizer (its raw text, and the PyStemmer stems of :func:`~memo_core.search.text.
stem_text`) and ranks with FTS5's BM25 formula and the knowledge base's constants
(:mod:`memo_core.search.bm25`, ``kb/fts_rank.py``). This module gives
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
* **Ranking** (:func:`bm25_sql`) is FTS5's BM25 with the knowledge base's constants
  (:mod:`memo_core.search.bm25`: k1, ``KB_B``, the IDF and its floor, column weights
  applied to the frequency, length = the row's tokens in both columns), computed
  in SQL. A phrase's frequency in a row is its number of occurrences,
  read from the positions by ``ts_rank_cd`` with unit weights and no normalisation
  (each occurrence of a one-word or ``<->`` query is one cover worth 1; a test pins
  this against counts made in Python). ``ts_rank``/``ts_rank_cd`` as the *score*
  were not used: neither has an IDF, so rare words would weigh no more than common
  ones, and the hybrid searcher's keyword cut-off was calibrated on BM25 values.
  The score keeps FTS5's sign (negative; lower is better), and equals the SQLite
  leg's to about 1e-13 (the terms are summed in another order).

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

from memo_core.search.bm25 import IDF_FLOOR, K1, KB_B
from memo_core.search.pg_text import (
    MAX_TOKEN_CHARS,
    IndexedText,
    Phrase,
    fold,
    index_text,
    lexeme_query,
    phrase_query,
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
    phrases: Sequence[Phrase], scope: str, scope_params: Sequence[object]
) -> tuple[str, list[object]]:
    """A statement ranking the chunks that match ``phrases``: rows ``(rowid, bm25)``.

    ``scope`` is a condition over the index row ``f`` (its owner and collection; a
    metadata filter as an ``EXISTS`` on ``chunks``) with ``scope_params``; a
    trailing ``LIMIT ?`` is left for the caller.

    N, the document counts and the average length are the whole index's, as in
    FTS5, so a chunk scores the same whoever else shares the base; the counts come
    from the GIN indexes alone (``count(*)`` reads no row the visibility map vouches
    for). Like FTS5 reading posting lists, the rest of the work follows the matches
    in scope, not the rows times the phrases: each stem group (a word's raw and
    stemmed phrases) fetches the rows it matches and yields one ``(row, phrase,
    frequency)`` tuple per phrase present, and those are summed per row.
    """
    params: list[object] = []
    counts = []
    for i, phrase in enumerate(phrases):
        counts.append(
            f"({i}, (SELECT count(*) FROM chunks_fts WHERE {phrase.column} @@ CAST(? AS tsquery)))"
        )
        params.append(phrase_query(phrase.lexemes))
    groups: dict[int, list[int]] = {}
    for i, phrase in enumerate(phrases):
        groups.setdefault(phrase.group, []).append(i)
    parts: list[str] = []
    for members in groups.values():
        # Placeholders in text order: the phrase queries, the match, the scope.
        params.extend(phrase_query(phrases[i].lexemes) for i in members)
        match = []
        for column in ("raw", "stemmed"):
            own = [phrases[i] for i in members if phrases[i].column == column]
            if own:
                match.append(f"f.{column} @@ CAST(? AS tsquery)")
                params.append(tsquery(own))
        params.extend(scope_params)
        queries = ", ".join(f"CAST(? AS tsquery) AS q{i}" for i in members)
        frequencies = ", ".join(
            f"{phrases[i].weight!r}::float8 * ts_rank_cd(q.unit, f.{phrases[i].column}, q.q{i}, 0)"
            f" AS t{i}"
            for i in members
        )
        pairs = ", ".join(f"({i}, y.t{i})" for i in members)
        parts.append(
            f"SELECT y.rowid, y.ntok, v.i, v.tf FROM (SELECT f.rowid, f.ntok, {frequencies}"
            f" FROM (SELECT CAST('{{1,1,1,1}}' AS real[]) AS unit, {queries}) q"
            f" CROSS JOIN chunks_fts f WHERE ({' OR '.join(match)}) AND ({scope})) y"
            f" CROSS JOIN LATERAL (VALUES {pairs}) v(i, tf) WHERE v.tf > 0"
        )
    k1, b, floor = f"{K1!r}::float8", f"{KB_B!r}::float8", f"{IDF_FLOOR!r}::float8"
    sql = (
        f"WITH n (i, n) AS (VALUES {', '.join(counts)}),"
        " s AS (SELECT nrows::float8 AS nrows,"
        " GREATEST(ntokens, 1)::float8 / GREATEST(nrows, 1) AS avgdl FROM chunks_fts_stats),"
        # FTS5: idf = ln((N - n + 0.5) / (n + 0.5)), and the floor where that is not positive.
        f" w AS (SELECT n.i, CASE WHEN n.n * 2 >= s.nrows THEN {floor}"
        " ELSE ln((s.nrows - n.n + 0.5) / (n.n + 0.5)) END AS idf, s.avgdl FROM n CROSS JOIN s),"
        f" p AS MATERIALIZED ({' UNION ALL '.join(parts)})"
        # FTS5's arithmetic, in its order: phrase by phrase, idf * (f (k1 + 1) / (f + K)).
        f" SELECT p.rowid, -sum(w.idf * (p.tf * ({k1} + 1)"
        f" / (p.tf + {k1} * (1 - {b} + {b} * p.ntok / w.avgdl))) ORDER BY p.i) AS score"
        " FROM p JOIN w ON w.i = p.i GROUP BY p.rowid ORDER BY score, p.rowid LIMIT ?"
    )
    return sql, params
