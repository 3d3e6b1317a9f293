"""memo's BM25 over SQLite's FTS5 index: FTS5 finds the chunks, memo scores them.

Why: the knowledge base ranks chunks with its own length normalisation
(:data:`~memo_core.search.bm25.KB_B`), and FTS5's ``bm25()`` fixes ``b`` at 0.75;
SQL cannot change it, and Python's ``sqlite3`` cannot register an FTS5 ranking
function. So each query phrase is matched on its own column, and FTS5's
``bm25()`` of that phrase alone gives back the phrase's count in each chunk: with
the chunk's token count (FTS5's ``docsize`` table) and the index's totals (its
averages record) FTS5's formula is inverted, ``f = s K1 L / (idf (K1 + 1) - s)``.
The chunk's score is then memo's formula over those counts, with the same N,
document counts and mean length as FTS5 and the in-RAM index
(``search/keyword_index.py``), so every engine gives the same scores.

Cost: one FTS5 query per phrase, each scoring only the chunks holding that phrase
(FTS5's ``OR`` query scored every match against every phrase), plus the token
counts of the matched chunks.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

from memo_core.search.bm25 import COLUMN_WEIGHTS, K1, B, idf, length_norm
from memo_core.search.pg_text import Phrase
from memo_core.storage.base import SQLDatabase

__all__ = ["phrase_bm25", "ranked_chunks", "varints"]

#: FTS5 keeps its totals (rows, then tokens per column) in this record of ``<table>_data``.
_AVERAGES_ROWID = 1


def varints(blob: bytes) -> list[int]:
    """The SQLite varints packed in ``blob`` (FTS5's docsize and averages records)."""
    out: list[int] = []
    value, length = 0, 0
    for byte in blob:
        length += 1
        if length == 9:  # the ninth byte carries 8 bits
            out.append((value << 8) | byte)
            value, length = 0, 0
        elif byte & 0x80:
            value = (value << 7) | (byte & 0x7F)
        else:
            out.append((value << 7) | byte)
            value, length = 0, 0
    return out


class _Index:
    """One FTS5 table's totals, and each phrase's matches with their counts."""

    def __init__(self, db: SQLDatabase, table: str) -> None:
        self.db, self.table = db, table
        row = db.query_one(f"SELECT block FROM {table}_data WHERE id = ?", [_AVERAGES_ROWID])
        totals = varints(bytes(row[0])) if row is not None else []
        self.rows = totals[0] if totals else 0
        self.mean_length = max(sum(totals[1:]) / self.rows, 1e-9) if self.rows > 0 else 1.0
        # A chunk's length enters only through two terms: computed once per distinct
        # docsize record (there are few), not once per match.
        self._norms: dict[bytes, tuple[float, float]] = {}

    def matches(
        self, column: str, lexemes: Sequence[str]
    ) -> tuple[float, list[tuple[int, int, float]]]:
        """The phrase's IDF and ``[(rowid, count, memo's length term)]`` of the chunks
        holding it in ``column``: FTS5's ``bm25()`` of the phrase alone, inverted."""
        tokens = " ".join(t.replace('"', '""') for t in lexemes)
        matched = self.db.query(
            # CROSS JOIN: FTS5 drives and the docsize row is looked up per match (the
            # planner may otherwise scan docsize and probe FTS5 once per row).
            f"SELECT f.rowid, bm25({self.table}), d.sz FROM {self.table} f"
            f" CROSS JOIN {self.table}_docsize d ON d.id = f.rowid WHERE {self.table} MATCH ?",
            [f'{column} : "{tokens}"'],
        )
        if not matched:
            return 0.0, []
        phrase_idf = idf(len(matched), self.rows)
        inverse, plus_one, norms = -1.0 / phrase_idf, K1 + 1.0, self._norms
        out = []
        for rowid, fts5_score, size in matched:
            pair = norms.get(size)
            if pair is None:
                length = sum(varints(bytes(size)))
                pair = norms[size] = (
                    length_norm(length, self.mean_length, B),  # what FTS5 computed with
                    length_norm(length, self.mean_length),  # what memo ranks with
                )
            share = fts5_score * inverse
            out.append((rowid, int(share * pair[0] / (plus_one - share) + 0.5) or 1, pair[1]))
        return phrase_idf, out


def ranked_chunks(
    db: SQLDatabase,
    phrases: Sequence[Phrase],
    limit: int,
    visible: Callable[[list[int]], set[int]] | None = None,
    *,
    table: str = "chunks_fts",
) -> list[tuple[int, float]]:
    """``[(rowid, bm25)]``, the ``limit`` best rows of ``table`` for ``phrases``, best
    first (lower is better, as FTS5 reports it); ties by rowid.

    ``visible``, when given, returns which of the rowids it is handed are in the
    caller's scope; it is asked about the best-ranked rows first, a batch at a time.
    ``table`` is a trusted identifier (an FTS5 table with the raw and stemmed columns).
    """
    if not phrases or limit <= 0:
        return []
    index = _Index(db, table)
    if index.rows <= 0:
        return []
    scores: dict[int, float] = {}
    known = scores.get
    for phrase in phrases:
        phrase_idf, matched = index.matches(phrase.column, phrase.lexemes)
        weight = COLUMN_WEIGHTS[phrase.column]
        gain = phrase_idf * (K1 + 1.0)
        for rowid, count, norm in matched:
            weighted = count * weight
            scores[rowid] = known(rowid, 0.0) - gain * weighted / (weighted + norm)
    if visible is None:
        return heapq.nsmallest(limit, scores.items(), key=_order)
    return _in_scope(sorted(scores.items(), key=_order), limit, visible)


def phrase_bm25(
    db: SQLDatabase, column: str, lexemes: Sequence[str], *, table: str = "chunks_fts"
) -> list[tuple[int, float]]:
    """``[(rowid, bm25)]`` of every row holding the phrase ``lexemes`` in ``column``:
    memo's BM25 of that phrase alone at unit column weight."""
    index = _Index(db, table)
    if index.rows <= 0:
        return []
    phrase_idf, matched = index.matches(column, lexemes)
    gain = phrase_idf * (K1 + 1.0)
    return [(rowid, -gain * count / (count + norm)) for rowid, count, norm in matched]


def _order(item: tuple[int, float]) -> tuple[float, int]:
    return item[1], item[0]


def _in_scope(
    ranked: Sequence[tuple[int, float]], limit: int, visible: Callable[[list[int]], set[int]]
) -> list[tuple[int, float]]:
    """The first ``limit`` of ``ranked`` that ``visible`` keeps, asked in batches."""
    out: list[tuple[int, float]] = []
    batch = max(4 * limit, 200)
    for start in range(0, len(ranked), batch):
        part = ranked[start : start + batch]
        keep = visible([rowid for rowid, _ in part])
        out.extend(item for item in part if item[0] in keep)
        if len(out) >= limit:
            break
    return out[:limit]
