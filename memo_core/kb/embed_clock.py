"""Seconds each thread has spent embedding documents (ingest reports diff them).

Per thread, so concurrent ingests through one shared MemoBase time only their own work.
"""

from __future__ import annotations

import threading

__all__ = ["add_embed_seconds", "embed_seconds"]

_CLOCK = threading.local()


def embed_seconds() -> float:
    """Seconds the calling thread has spent embedding documents."""
    return float(getattr(_CLOCK, "seconds", 0.0))


def add_embed_seconds(seconds: float) -> None:
    _CLOCK.seconds = embed_seconds() + seconds
