"""The memory's keyword rows and queries on PostgreSQL, as its FTS5 tables hold them.

The tokens, diacritic folding, ``tsvector`` and ``tsquery`` literals are the
knowledge base's (:mod:`memo_core.search.pg_text`): one implementation, so a word
matches alike in documents and in memory on both engines.
"""

from __future__ import annotations

from collections.abc import Sequence

from memo_core.search.pg_text import index_text, tsquery_pair
from memo_core.search.text import DEFAULT_LANGUAGES

__all__ = ["tsquery_pair", "tsvector_pair"]


def tsvector_pair(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES) -> tuple[str, str]:
    """``(raw, stemmed)`` tsvector literals of ``text``."""
    row = index_text(text, languages)
    return row.raw, row.stemmed
