"""Fixtures: a memory file and a knowledge base on tmp_path, both with the hash embedder.

The memory uses the lexical recall gate (no Model2Vec model is loaded), so the
suite is fast and offline. ``GRANT`` is a document whose Hollis deadline
(30 March 2026) disagrees with what the user told the memory (March 27).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.kb import ChunkInput, MemoBase
from memo_core.memory import MemoHood, RecallGate

MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
USER = ("alice",)

GRANT = (
    "Hollis grant: the final report is due on 30 March 2026, submitted through the "
    "foundation portal. The budget review meeting is on 12 March 2026."
)
CONTRACT = (
    "4.1 This Agreement has an initial term of 24 months from the Effective Date. "
    "It renews automatically unless either party gives notice at least 90 days before the end."
)


def day(n: float) -> datetime:
    """``n`` days after Monday 2 March 2026, 09:00 UTC."""
    return MONDAY + timedelta(days=n)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoHood]:
    with MemoHood(tmp_path / "memory.db", embedder=HashEmbedder(), gate=RecallGate()) as mem:
        yield mem


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[MemoBase]:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as base:
        yield base


def add_grant(kb: MemoBase, text: str = GRANT, *, owner: str | None = None) -> None:
    kb.add_document(
        text,
        source="notes/grant-schedule.md",
        title="Grant schedule",
        chunks=[ChunkInput(text, 0, len(text), {"heading": "Hollis grant"})],
        owner=owner,
    )


def add_contract(kb: MemoBase) -> None:
    kb.add_document(
        CONTRACT,
        source="contract.pdf",
        title="Sample contract",
        chunks=[ChunkInput(CONTRACT, 0, len(CONTRACT), {"page": 2})],
    )


def tell_hollis(
    memory: MemoHood, final: str = "March 27", namespace: tuple[str, ...] = USER
) -> None:
    """The SUPERSEDE story: the deadline changes twice; the last one is current."""
    for n, text in enumerate(
        (
            "The Hollis grant report is due on March 20.",
            "Actually the Hollis deadline moved to March 23.",
            f"Update: the Hollis report deadline changed to {final}.",
        ),
        start=1,
    ):
        memory.capture(text, namespace=namespace, at=day(2 * n))
