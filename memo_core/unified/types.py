"""Values returned by :func:`~memo_core.unified.recall.recall_all`.

Frozen dataclasses with ``to_dict()`` giving JSON-ready values (the shape of
``memo recall --json``). An item is either a memory fact (with its dates and
version), a past message kept by memory, or a document chunk (with its citation
locator); every item says which source it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from memo_core.memory.types import Fact, Turn
from memo_core.types import Hit
from memo_core.unified.values import ValueKind

__all__ = ["Conflict", "ItemKind", "Source", "UnifiedItem"]

Source = Literal["memory", "kb"]
ItemKind = Literal["fact", "turn", "chunk"]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


@dataclass(frozen=True)
class UnifiedItem:
    """One entry of the fused context.

    ``ref`` is stable across calls (``memory:<fact or turn id>``, ``kb:<chunk id>``)
    and is what :class:`Conflict` sides point to. ``rank`` is the 1-based position
    in the fused list, ``source_rank`` the 1-based position within its own source,
    ``score`` the fused RRF score. ``label`` is how :meth:`UnifiedRecall.render`
    introduces it (``[memory, said 2026-03-16, current]``,
    ``[document: Sample contract, p. 2]``).
    """

    ref: str
    source: Source
    kind: ItemKind
    text: str
    rank: int
    source_rank: int
    score: float
    label: str
    fact: Fact | None = None
    turn: Turn | None = None
    hit: Hit | None = None
    history: tuple[Fact, ...] = ()

    @property
    def valid_from(self) -> datetime | None:
        """When a memory fact became true (was said); a past message's time."""
        if self.fact is not None:
            return self.fact.valid_from
        return self.turn.at if self.turn is not None else None

    @property
    def valid_to(self) -> datetime | None:
        """``None`` while a memory fact is current (always, for recalled facts)."""
        return self.fact.valid_to if self.fact is not None else None

    @property
    def version(self) -> int | None:
        return self.fact.version if self.fact is not None else None

    @property
    def locator(self) -> dict[str, Any]:
        """Where a chunk is in its document (page, heading, start_time); empty for memory."""
        return dict(self.hit.locator) if self.hit is not None else {}

    @property
    def title(self) -> str:
        return self.hit.title if self.hit is not None else ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ref": self.ref,
            "source": self.source,
            "kind": self.kind,
            "rank": self.rank,
            "source_rank": self.source_rank,
            "score": self.score,
            "label": self.label,
            "text": self.text,
        }
        if self.fact is not None:
            fact = self.fact
            out.update(
                fact_id=fact.id,
                key=fact.key,
                category=fact.category,
                pinned=fact.pinned,
                valid_from=_iso(fact.valid_from),
                valid_to=_iso(fact.valid_to),
                version=fact.version,
                strength=fact.strength,
                namespace=list(fact.namespace),
                history=[
                    {
                        "statement": old.statement,
                        "valid_from": _iso(old.valid_from),
                        "valid_to": _iso(old.valid_to),
                        "version": old.version,
                    }
                    for old in self.history
                ],
            )
        if self.turn is not None:
            out.update(turn_id=self.turn.id, role=self.turn.role, at=_iso(self.turn.at))
        if self.hit is not None:
            hit = self.hit
            out.update(
                chunk_id=hit.chunk_id,
                document_id=hit.document_id,
                document_source=hit.source,
                title=hit.title,
                locator=dict(hit.locator),
                start=hit.start,
                end=hit.end,
                keyword_rank=hit.keyword_rank,
                vector_rank=hit.vector_rank,
                vector_similarity=hit.vector_similarity,
            )
        return out


@dataclass(frozen=True)
class Conflict:
    """Two (or more) items giving different values for one subject and attribute.

    ``sides`` pairs an item ``ref`` with the value that item states, as written
    (dates also in ISO form when the year is known). Nothing is resolved: the
    caller (or the model reading the rendered context) sees both sides.
    """

    subject: str
    attribute: str
    sides: tuple[tuple[str, str], ...]
    kind: ValueKind

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(ref for ref, _ in self.sides)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "attribute": self.attribute,
            "kind": self.kind,
            "sides": [{"ref": ref, "value": value} for ref, value in self.sides],
        }
