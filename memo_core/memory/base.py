"""The shared core of MemoHood: the file, the configuration, and fact writes.

Writing a fact happens in exactly three ways, all here so every caller (capture,
``remember``, items, import) keeps the same invariants: a **new** fact starts a
chain; a **supersede** closes the current version (``valid_to``,
``superseded_by``) and adds the next version to the same chain; a **reinforce**
restarts the decay clock of the current version with a boost.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.llm.base import LLM
from memo_core.memory.config import MemoryConfig
from memo_core.memory.decay import refreshed_strength
from memo_core.memory.extract import content_stems
from memo_core.memory.gate import RecallGate
from memo_core.memory.namespace import (
    Namespace,
    NamespaceLike,
    encode_namespace,
    normalize_namespace,
)
from memo_core.memory.records import FactRow, fact_from_row
from memo_core.memory.store import FactStore, open_fact_store
from memo_core.memory.timeutil import as_utc, from_iso, to_iso
from memo_core.memory.types import Fact
from memo_core.storage import open_database
from memo_core.storage.base import Tracer

__all__ = ["HoodBase", "new_id"]

_DEFAULT_GATES: dict[str, RecallGate] = {}
_GATE_LOCK = threading.Lock()


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


def _default_gate(config: MemoryConfig) -> RecallGate:
    """One default gate per process and margin (loading a model costs about a second)."""
    key = f"{config.gate_margin}:{config.gate_neighbours}"
    with _GATE_LOCK:
        if key not in _DEFAULT_GATES:
            _DEFAULT_GATES[key] = RecallGate.default(config=config)
        return _DEFAULT_GATES[key]


class HoodBase:
    """File, configuration, providers and the fact-writing primitives."""

    def __init__(
        self,
        path: str | Path,
        *,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        gate: RecallGate | None = None,
        config: MemoryConfig | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.path = str(path)
        self.db = open_database(path, tracer=tracer)
        try:
            self._store: FactStore = open_fact_store(self.db, embedder)
        except BaseException:
            self.db.close()
            raise
        self.embedder = embedder
        self.llm = llm
        self._gate = gate
        self._closed = False

    # -- lifecycle --------------------------------------------------------------------

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.db.close()

    def __enter__(self) -> HoodBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def gate(self) -> RecallGate:
        """The recall gate (the default Model2Vec gate is loaded on first use)."""
        if self._gate is None:
            self._gate = _default_gate(self.config)
        return self._gate

    @property
    def has_vectors(self) -> bool:
        """Whether recall uses vectors (an embedder is attached, sqlite-vec or pgvector loaded)."""
        return self._store.vectors is not None

    # -- helpers ----------------------------------------------------------------------

    @staticmethod
    def _ns(namespace: NamespaceLike | None) -> tuple[Namespace, str]:
        ns = normalize_namespace(namespace)
        return ns, encode_namespace(ns)

    def _fact(self, row: Any, now: datetime | None = None, *, score: float | None = None) -> Fact:
        return fact_from_row(row, self.config, as_utc(now), score=score)

    def _row(self, fact_id: str) -> FactRow:
        if not isinstance(fact_id, str) or not fact_id:
            raise InvalidInputError("fact_id must be a non-empty string")
        if "\x00" in fact_id:
            raise InvalidInputError("fact_id contains a NUL character")
        row = self._store.fact_by_id(fact_id)
        if row is None:
            raise NotFoundError(f"no fact with id {fact_id!r}")
        return FactRow(row)

    def _owned_row(self, fact_id: str, namespace: NamespaceLike | None) -> FactRow:
        """The row ``fact_id`` if ``namespace`` (or an ancestor of its owner) may see it.

        Fails closed: no namespace raises ``NamespaceRequiredError`` before any read; a
        fact stored under another namespace raises the same ``NotFoundError`` as an
        unknown id, so an id reveals nothing across owners.
        """
        _, enc = self._ns(namespace)
        row = self._row(fact_id)
        if not row.ns.startswith(enc):
            raise NotFoundError(f"no fact with id {fact_id!r} in this namespace")
        return row

    # -- fact writes ------------------------------------------------------------------

    def _values(
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

    def _insert(self, values: dict[str, Any], vector: Sequence[float] | None) -> FactRow:
        self._store.insert_fact(values, vector)
        return self._row(values["id"])

    def _supersede(
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

    def _reinforce(self, row: FactRow, when: datetime) -> FactRow:
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
