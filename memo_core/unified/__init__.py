"""Unified recall: memory (MemoHood) and the knowledge base (MemoBase) in one context.

:func:`recall_all` asks both for the same message and returns a
:class:`UnifiedRecall`: items ranked by Reciprocal Rank Fusion across the two
sources (per-source weights), each labelled with where it came from (a memory
fact with its dates and version, or a document chunk with its citation locator),
within one token budget, with explicit :class:`Conflict` flags where a memory
and a document (or two memories) give different dates, numbers or names for the
same thing. ``UnifiedRecall.render()`` is the fenced block for a prompt;
``UnifiedRecall.memory_facts`` feeds ``GuardedAnswerer.ask(memory_facts=...)``.
"""

from memo_core.prompt import estimate_tokens
from memo_core.unified.conflicts import detect_conflicts
from memo_core.unified.recall import DEFAULT_WEIGHTS, fit_budget, fuse_sources, recall_all
from memo_core.unified.result import UnifiedRecall
from memo_core.unified.types import Conflict, UnifiedItem
from memo_core.unified.values import Value, extract_values

__all__ = [
    "DEFAULT_WEIGHTS",
    "Conflict",
    "UnifiedItem",
    "UnifiedRecall",
    "Value",
    "detect_conflicts",
    "estimate_tokens",
    "extract_values",
    "fit_budget",
    "fuse_sources",
    "recall_all",
]
