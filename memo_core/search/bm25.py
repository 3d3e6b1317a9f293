"""memo's BM25: FTS5's formula and the constants every keyword leg ranks with.

SQLite's FTS5 ``bm25()`` is the reference. The in-RAM keyword index
(``search/keyword_index.py``) and the PostgreSQL keyword indexes (``search/pg_bm25.py``)
compute the same score from these constants, so they stay equal to FTS5's when one
of them changes here::

    score = -sum over phrases of  idf * w f (K1 + 1) / (w f + K1 (1 - B + B len / avglen))
    idf   = ln((N - n + 0.5) / (n + 0.5)), or IDF_FLOOR where that is not positive

``f`` is the phrase's frequency in the column, ``w`` the column's weight, ``len``
the row's tokens in all columns, ``N`` the rows of the index and ``n`` those the
phrase matches. The score is negative; lower is better, as FTS5 reports it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["COLUMNS", "COLUMN_WEIGHTS", "IDF_FLOOR", "K1", "B", "fts5_bm25", "idf"]

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6
#: An index's columns, in FTS5 column order: the raw text and its stems.
COLUMNS = ("raw", "stemmed")
#: A stemmed match counts 0.6 of a raw one: the exact word ranks above its relatives.
COLUMN_WEIGHTS: Mapping[str, float] = MappingProxyType({"raw": 1.0, "stemmed": 0.6})


def idf(matching: int, rows: int) -> float:
    """FTS5's inverse document frequency of a phrase ``matching`` of ``rows`` rows."""
    value = math.log((rows - matching + 0.5) / (matching + 0.5))
    return value if value > 0 else IDF_FLOOR


def fts5_bm25(table: str) -> str:
    """``bm25(table, 1.0, 0.6)``: the FTS5 call with memo's column weights.

    ``table`` is a trusted identifier (an FTS5 table with :data:`COLUMNS`).
    """
    weights = ", ".join(repr(COLUMN_WEIGHTS[c]) for c in COLUMNS)
    return f"bm25({table}, {weights})"
