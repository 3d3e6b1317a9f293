"""Turning stored rows into the public value types (and back into export records)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memo_core.memory.config import MemoryConfig
from memo_core.memory.decay import decayed_strength
from memo_core.memory.namespace import decode_namespace
from memo_core.memory.timeutil import from_iso
from memo_core.memory.types import Fact, Message, Turn

__all__ = ["FactRow", "fact_from_row", "message_from_row", "turn_from_row"]


class FactRow:
    """Named access to a ``mem_facts`` row selected with ``FACT_COLUMNS``."""

    __slots__ = (
        "about",
        "archived",
        "archived_at",
        "category",
        "chain_id",
        "created_at",
        "event_end",
        "event_start",
        "id",
        "indexed",
        "key",
        "last_used",
        "ns",
        "origin",
        "party_terms",
        "pinned",
        "reinforcements",
        "root",
        "rowid",
        "session_id",
        "source_turn",
        "statement",
        "stemmed",
        "strength",
        "subject",
        "subject_kind",
        "superseded_by",
        "valid_from",
        "valid_to",
        "value",
        "version",
    )

    _ORDER = (
        "rowid",
        "id",
        "ns",
        "root",
        "chain_id",
        "version",
        "key",
        "statement",
        "stemmed",
        "value",
        "category",
        "pinned",
        "subject",
        "subject_kind",
        "about",
        "party_terms",
        "event_start",
        "event_end",
        "valid_from",
        "valid_to",
        "superseded_by",
        "source_turn",
        "session_id",
        "origin",
        "strength",
        "last_used",
        "reinforcements",
        "archived",
        "archived_at",
        "indexed",
        "created_at",
    )

    def __init__(self, row: Any) -> None:
        for name, value in zip(self._ORDER, row, strict=True):
            setattr(self, name, value)

    rowid: int
    id: str
    ns: str
    root: str
    chain_id: str
    version: int
    key: str
    statement: str
    stemmed: str
    value: str | None
    category: str
    pinned: int
    subject: str
    subject_kind: str
    about: str
    party_terms: str
    event_start: str | None
    event_end: str | None
    valid_from: str
    valid_to: str | None
    superseded_by: str | None
    source_turn: str | None
    session_id: str | None
    origin: str
    strength: float
    last_used: str
    reinforcements: int
    archived: int
    archived_at: str | None
    indexed: int
    created_at: str

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(self.stemmed.split())

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self.party_terms.split())

    def strength_at(self, now: datetime, config: MemoryConfig) -> float:
        return decayed_strength(
            self.strength,
            from_iso(self.last_used),
            now,
            config.half_life(self.category),
            pinned=bool(self.pinned),
        )

    def to_record(self) -> dict[str, Any]:
        """The export form: every column except caches, namespaces as lists."""
        out = {
            name: getattr(self, name) for name in self._ORDER if name not in ("rowid", "stemmed")
        }
        out["namespace"] = list(decode_namespace(self.ns))
        del out["ns"], out["root"]
        out["value"] = json.loads(self.value) if self.value else None
        out["pinned"] = bool(self.pinned)
        out["archived"] = bool(self.archived)
        out["indexed"] = bool(self.indexed)
        return out


def fact_from_row(
    row: Any, config: MemoryConfig, now: datetime, *, score: float | None = None
) -> Fact:
    r = row if isinstance(row, FactRow) else FactRow(row)
    return Fact(
        id=r.id,
        namespace=decode_namespace(r.ns),
        key=r.key,
        statement=r.statement,
        category=r.category,
        pinned=bool(r.pinned),
        valid_from=from_iso(r.valid_from),
        valid_to=from_iso(r.valid_to) if r.valid_to else None,
        superseded_by=r.superseded_by,
        chain_id=r.chain_id,
        version=int(r.version),
        strength=round(r.strength_at(now, config), 6),
        last_used=from_iso(r.last_used),
        subject=r.subject,
        subject_kind=r.subject_kind,
        about=r.about,
        value=json.loads(r.value) if r.value else None,
        reinforcements=int(r.reinforcements),
        archived=bool(r.archived),
        source_turn=r.source_turn,
        session_id=r.session_id,
        origin=r.origin,
        event_start=r.event_start,
        event_end=r.event_end,
        score=score,
    )


def turn_from_row(row: Any, *, relevance: float | None = None) -> Turn:
    _rowid, tid, ns, _root, session_id, role, text, at, decision, score, _focus, _created = row
    return Turn(
        id=tid,
        namespace=decode_namespace(ns),
        role=role,
        text=text,
        at=from_iso(at),
        session_id=session_id,
        decision=decision,
        score=float(score),
        relevance=relevance,
    )


def message_from_row(row: Any) -> Message:
    _rowid, mid, ns, session_key, seq, role, content, metadata, at, turn_id = row
    return Message(
        id=mid,
        namespace=decode_namespace(ns),
        session_key=session_key,
        index=int(seq),
        role=role,
        content=content,
        at=from_iso(at),
        metadata=json.loads(metadata) if metadata else {},
        turn_id=turn_id,
    )
