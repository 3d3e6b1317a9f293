"""memo's BM25: FTS5's formula and the constants every keyword leg ranks with.

The formula is SQLite FTS5's ``bm25()``::

    score = -sum over phrases of  idf * w f (K1 + 1) / (w f + K1 (1 - b + b len / avglen))
    idf   = ln((N - n + 0.5) / (n + 0.5)), or IDF_FLOOR where that is not positive

``f`` is the phrase's frequency in the column, ``w`` the column's weight, ``len``
the row's tokens in all columns, ``N`` the rows of the index and ``n`` those the
phrase matches. The score is negative; lower is better, as FTS5 reports it.

Two length normalisations. FTS5's ``bm25()`` fixes ``b`` at :data:`B` (0.75);
memory's fact search ranks with it as it is. The knowledge base's chunks rank
with :data:`KB_B` (0.4) on every engine: FTS5 finds the chunks and memo scores them
(``kb/fts_rank.py``), and the in-RAM index (``search/keyword_index.py``) and
PostgreSQL (``search/pg_bm25.py``) compute the same score from these constants. Why
lower: ``b`` is how much a long chunk is penalised for its length, and with 0.75
the right paragraph lost to short chunks that repeat a few query words. Among
100,000 chunks (bench/README.md, "Quality among 100,000 chunks") keyword MRR@10
went from 0.873 to 0.900 and hybrid from 0.893 to 0.916; on the 500-paragraph
corpus alone hybrid went from 0.936 to 0.937 (b = 0.5: 0.914 and 0.936; 0.3: 0.912
and 0.937).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = [
    "COLUMNS",
    "COLUMN_WEIGHTS",
    "IDF_FLOOR",
    "K1",
    "KB_B",
    "B",
    "fts5_bm25",
    "idf",
    "length_norm",
]

K1 = 1.2
#: FTS5's length normalisation, fixed inside SQLite's ``bm25()`` (memory's facts rank with it).
B = 0.75
#: The knowledge base's length normalisation, on every engine (measured above).
KB_B = 0.4
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


def length_norm(length: Any, mean_length: float, b: float = KB_B) -> Any:
    """``K1 (1 - b + b len / avglen)``, the denominator's length term, for a row's
    token count ``length`` (a number or a NumPy array of them)."""
    return K1 * (1.0 - b + b * length / mean_length)
