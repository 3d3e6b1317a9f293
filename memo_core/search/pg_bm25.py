"""FTS5's BM25, computed in PostgreSQL SQL over a tsvector index memo built itself.

An index (the knowledge base's ``chunks_fts``, the memory's ``mem_facts_fts`` and
``mem_turns_fts``) holds per row a ``raw`` and a ``stemmed`` tsvector
(:mod:`memo_core.search.pg_text`) and ``ntok``, the row's token count in both
columns; a one-row statistics table beside it holds ``nrows`` and ``ntokens``,
kept in step by every write in the same transaction. From those,
:func:`bm25_statement` ranks exactly as FTS5's ``bm25()`` does with memo's
constants (:mod:`memo_core.search.bm25`: k1, b, the IDF and its floor, column
weights applied to the frequency, length = the row's tokens in both columns).

A phrase's frequency in a row is its number of occurrences, read from the
positions by ``ts_rank_cd`` with unit weights and no normalisation (each occurrence
of a one-word or ``<->`` query is one cover worth 1; ``tests/core/test_kb_postgres.py``
pins this against counts made in Python). ``ts_rank``/``ts_rank_cd`` as the *score*
were not used: neither has an IDF, so a rare word would weigh no more than a common
one. The score keeps FTS5's sign (negative; lower is better), and equals FTS5's to
about 1e-13 (the terms are summed in another order).
"""

from __future__ import annotations

from collections.abc import Sequence

from memo_core.search.bm25 import IDF_FLOOR, K1, B
from memo_core.search.pg_text import Phrase, phrase_query, tsquery

__all__ = ["bm25_statement"]


def bm25_statement(
    phrases: Sequence[Phrase],
    scope: str,
    scope_params: Sequence[object],
    *,
    index: str,
    stats: str,
    weighted: bool = True,
    b: float = B,
    partition: str | None = None,
    scope_first: bool = False,
) -> tuple[str, list[object]]:
    """A statement ranking the rows of ``index`` that match ``phrases``: ``(rowid, bm25)``.

    ``index`` and ``stats`` are trusted identifiers (the index table and its one-row
    statistics table). ``scope`` is a condition over the index row ``f`` (an owner,
    a namespace, a metadata filter as an ``EXISTS``) with ``scope_params``; a
    trailing ``LIMIT ?`` is left for the caller. ``weighted``: memo's column weights
    (False: unit weights, FTS5's ``bm25()`` called with no weights). ``b``: the length
    normalisation (FTS5's by default, as memory's facts rank on SQLite; the knowledge
    base passes its own, ``bm25.KB_B``).

    N, the document counts and the average length are the whole index's, as in
    FTS5, so a row scores the same whoever else shares the base; the counts come
    from the GIN indexes alone (``count(*)`` reads no row the visibility map vouches
    for). ``partition``, an expression over ``f`` (the memory's namespace of the
    row), counts a phrase's rows within the row's own partition, among the rows in
    scope: the SQLite memory index, whose tokens carry their namespace's code
    (``memory/keyword_scope.py``), counts them so. ``scope_first`` reads the rows in
    scope once, before any matching, and counts and matches among them: for a scope
    holding few rows of a large index (one user's memory among every user's), where
    following each word's matches through GIN would read every user's rows. Like FTS5 reading posting lists, the rest of the work follows the matches
    in scope, not the rows times the phrases: each stem group (a word's raw and
    stemmed phrases) fetches the rows it matches and yields one ``(row, phrase,
    frequency)`` tuple per phrase present, and those are summed per row.
    """
    params: list[object] = []
    counts = []
    head = ""
    part = "0" if partition is None else partition
    source, row_params = index, list(scope_params)
    if scope_first:
        head = (
            f"r AS MATERIALIZED (SELECT f.rowid, f.ntok, f.raw, f.stemmed, {part} AS part"
            f" FROM {index} f WHERE ({scope})), "
        )
        params.extend(scope_params)
        source, scope, row_params, part = "r", "TRUE", [], "f.part"
    for i, phrase in enumerate(phrases):
        if partition is None:
            counts.append(
                f"SELECT {i}, 0, (SELECT count(*) FROM {index}"
                f" WHERE {phrase.column} @@ CAST(? AS tsquery))"
            )
            params.append(phrase_query(phrase.lexemes))
        else:
            counts.append(
                f"SELECT {i}, {part}, count(*) FROM {source} f"
                f" WHERE f.{phrase.column} @@ CAST(? AS tsquery) AND ({scope}) GROUP BY 2"
            )
            params.extend([phrase_query(phrase.lexemes), *row_params])
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
        params.extend(row_params)
        queries = ", ".join(f"CAST(? AS tsquery) AS q{i}" for i in members)
        weights = [phrases[i].weight if weighted else 1.0 for i in members]
        frequencies = ", ".join(
            f"{w!r}::float8 * ts_rank_cd(q.unit, f.{phrases[i].column}, q.q{i}, 0) AS t{i}"
            for i, w in zip(members, weights, strict=True)
        )
        pairs = ", ".join(f"({i}, y.t{i})" for i in members)
        parts.append(
            f"SELECT y.rowid, y.ntok, y.part, v.i, v.tf FROM (SELECT f.rowid, f.ntok,"
            f" {part} AS part, {frequencies}"
            f" FROM (SELECT CAST('{{1,1,1,1}}' AS real[]) AS unit, {queries}) q"
            f" CROSS JOIN {source} f WHERE ({' OR '.join(match)}) AND ({scope})) y"
            f" CROSS JOIN LATERAL (VALUES {pairs}) v(i, tf) WHERE v.tf > 0"
        )
    k1, bl, floor = f"{K1!r}::float8", f"{float(b)!r}::float8", f"{IDF_FLOOR!r}::float8"
    sql = (
        f"WITH {head}n (i, part, n) AS ({' UNION ALL '.join(counts)}),"
        " s AS (SELECT nrows::float8 AS nrows,"
        f" GREATEST(ntokens, 1)::float8 / GREATEST(nrows, 1) AS avgdl FROM {stats}),"
        # FTS5: idf = ln((N - n + 0.5) / (n + 0.5)), and the floor where that is not positive.
        f" w AS (SELECT n.i, n.part, CASE WHEN n.n * 2 >= s.nrows THEN {floor}"
        " ELSE ln((s.nrows - n.n + 0.5) / (n.n + 0.5)) END AS idf, s.avgdl FROM n CROSS JOIN s),"
        f" p AS MATERIALIZED ({' UNION ALL '.join(parts)})"
        # FTS5's arithmetic, in its order: phrase by phrase, idf * (f (k1 + 1) / (f + K)).
        f" SELECT p.rowid, -sum(w.idf * (p.tf * ({k1} + 1)"
        f" / (p.tf + {k1} * (1 - {bl} + {bl} * p.ntok / w.avgdl))) ORDER BY p.i) AS score"
        " FROM p JOIN w ON w.i = p.i AND w.part = p.part"
        " GROUP BY p.rowid ORDER BY score, p.rowid LIMIT ?"
    )
    return sql, params
