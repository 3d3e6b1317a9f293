"""The three ways a fact is written, shared by capture, ``remember``, items and import.

Every caller keeps the same invariants by writing through :class:`FactWriter`: a
**new** fact starts a chain; a **supersede** closes the current version
(``valid_to``, ``superseded_by``) and adds the next version to the same chain; a
**reinforce** restarts the decay clock of the current version with a boost.
Which of the three a candidate gets is decided in :mod:`~memo_core.memory.versions`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memo_core.memory.base import HoodPart, new_id
from memo_core.memory.decay import refreshed_strength
from memo_core.memory.extract import content_stems
from memo_core.memory.records import FactRow
from memo_core.memory.timeutil import as_utc, from_iso, to_iso

__all__ = ["FactWriter"]


class FactWriter(HoodPart):
    """Writes fact versions: ``draft`` the row, then ``insert``, ``supersede`` or ``reinforce``."""

    def draft(
        self,
        *,
        enc: str,
        statement: str,
        key: str | None,
        category: str,
        pinned: bool,
        when: datetime,
        subject: str = "self",
        subject_kind: str = "self",
        about: str = "",
        party_terms: Sequence[str] = (),
        event: tuple[str, str] | None = None,
        value: dict[str, Any] | None = None,
        source_turn: str | None = None,
        session_id: str | None = None,
        origin: str = "rule",
        strength: float | None = None,
        indexed: bool = True,
    ) -> dict[str, Any]:
        """The row of a new fact that starts its own chain (not written yet)."""
        fact_id = new_id("fact")
        iso = to_iso(when)
        return {
            "id": fact_id,
            "ns": enc,
            "root": enc.split("/", 1)[0],
            "chain_id": fact_id,
            "version": 1,
            "key": key or fact_id,
            "statement": statement,
            "stemmed": " ".join(sorted(content_stems(statement))),
            "value": json.dumps(value, ensure_ascii=False, sort_keys=True)
            if value is not None
            else None,
            "category": category,
            "pinned": 1 if pinned else 0,
            "subject": subject,
            "subject_kind": subject_kind,
            "about": about,
            "party_terms": " ".join(dict.fromkeys(party_terms)),
            "event_start": event[0] if event else None,
            "event_end": event[1] if event else None,
            "valid_from": iso,
            "valid_to": None,
            "superseded_by": None,
            "source_turn": source_turn,
            "session_id": session_id,
            "origin": origin,
            "strength": 1.0
            if pinned
            else (self.config.initial_strength if strength is None else strength),
            "last_used": iso,
            "reinforcements": 0,
            "archived": 0,
            "archived_at": None,
            "indexed": 1 if indexed else 0,
            "created_at": iso,
        }

    def insert(self, values: dict[str, Any], vector: Sequence[float] | None) -> FactRow:
        self._store.insert_fact(values, vector)
        return self._row(values["id"])

    def supersede(
        self, old: FactRow, values: dict[str, Any], vector: Sequence[float] | None
    ) -> FactRow:
        """Close ``old`` and add ``values`` as the next version of its chain."""
        when = max(values["valid_from"], old.valid_from)
        values = {
            **values,
            "chain_id": old.chain_id,
            "version": int(old.version) + 1,
            "key": old.key if values["key"] == values["id"] else values["key"],
            "pinned": 1 if (values["pinned"] or old.pinned) else 0,
            "valid_from": when,
            # A bare correction ("scratch that, Svelte") keeps what the fact is.
            "category": old.category if values["category"] == "fact" else values["category"],
        }
        if values["pinned"]:
            values["strength"] = 1.0
        with self.db.transaction():
            self._store.close_version(old.id, when, values["id"])
            self._store.insert_fact(values, vector)
        return self._row(values["id"])

    def reinforce(self, row: FactRow, when: datetime) -> FactRow:
        last = from_iso(row.last_used)
        if as_utc(when) < last:
            when = last
        strength = refreshed_strength(
            row.strength,
            last,
            when,
            self.config.half_life(row.category),
            self.config.reinforce_boost,
            pinned=bool(row.pinned),
        )
        self._store.update_strength(row.id, strength, to_iso(when), reinforced=True)
        return self._row(row.id)
