"""Ranking: FTS5 query building, metadata filters, RRF fusion, the hybrid searcher."""

from memo_core.search.filter_tree import parse_filter
from memo_core.search.filters import compile_filter
from memo_core.search.hybrid import HybridSearcher, SearchSettings
from memo_core.search.rrf import DEFAULT_RRF_K, rrf
from memo_core.search.text import fts_match_expression

__all__ = [
    "DEFAULT_RRF_K",
    "HybridSearcher",
    "SearchSettings",
    "compile_filter",
    "fts_match_expression",
    "parse_filter",
    "rrf",
]
