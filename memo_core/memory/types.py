"""Value types MemoHood returns: facts and their versions, turns, messages, results.

All are frozen dataclasses with a ``to_dict()`` giving JSON-ready values
(datetimes as ISO text, namespaces as lists), used by the CLI and export.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

from memo_core.memory.namespace import Namespace

__all__ = [
    "BackfillReport",
    "CaptureResult",
    "ConsolidationReport",
    "Decision",
    "Fact",
    "GateDecision",
    "ImportReport",
    "Message",
    "Recall",
    "Turn",
]

Decision = Literal["keep", "drop", "borderline"]


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


class _Serialisable:
    def to_dict(self) -> dict[str, Any]:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class Fact(_Serialisable):
    """One version of a remembered fact.

    ``valid_to`` is ``None`` while the version is current; a superseded version
    keeps its text and gets ``valid_to`` and ``superseded_by`` (the id of the
    version that replaced it). All versions of one fact share ``chain_id``.
    ``strength`` is the decayed strength at the time of the read (1.0 when pinned).
    ``subject`` is ``"self"`` for the user, or a person/pet the fact is about
    (``about`` names them as the user did). ``score`` is set by searches.
    """

    id: str
    namespace: Namespace
    key: str
    statement: str
    category: str
    pinned: bool
    valid_from: datetime
    valid_to: datetime | None
    superseded_by: str | None
    chain_id: str
    version: int
    strength: float
    last_used: datetime
    subject: str = "self"
    subject_kind: str = "self"
    about: str = ""
    value: dict[str, Any] | None = None
    reinforcements: int = 0
    archived: bool = False
    source_turn: str | None = None
    session_id: str | None = None
    origin: str = "rule"
    event_start: str | None = None
    event_end: str | None = None
    score: float | None = None

    @property
    def current(self) -> bool:
        return self.valid_to is None

    @property
    def item_value(self) -> dict[str, Any]:
        """The value a key-value store shows: the stored dict, or the fact rendered as one."""
        if self.value is not None:
            return dict(self.value)
        return {
            "text": self.statement,
            "category": self.category,
            "pinned": self.pinned,
            "about": self.about or None,
        }


@dataclass(frozen=True)
class Turn(_Serialisable):
    """One raw conversation turn kept as searchable episodic memory."""

    id: str
    namespace: Namespace
    role: str
    text: str
    at: datetime
    session_id: str | None = None
    decision: str = "drop"
    score: float = 0.0
    relevance: float | None = None


@dataclass(frozen=True)
class Message(_Serialisable):
    """One message of a chat transcript kept per session key (for chat-history adapters)."""

    id: str
    namespace: Namespace
    session_key: str
    index: int
    role: str
    content: str
    at: datetime
    metadata: dict[str, Any] = field(default_factory=dict)
    turn_id: str | None = None


@dataclass(frozen=True)
class CaptureResult(_Serialisable):
    """What :meth:`MemoHood.capture` did with one turn."""

    turn_id: str
    decision: Decision
    score: float
    signals: tuple[str, ...] = ()
    added: tuple[Fact, ...] = ()
    superseded: tuple[Fact, ...] = ()
    reinforced: tuple[Fact, ...] = ()
    llm_called: bool = False
    reason: str = ""


@dataclass(frozen=True)
class GateDecision(_Serialisable):
    """The recall gate's verdict: ``score`` is small-talk minus memory similarity."""

    action: Literal["recall", "skip"]
    score: float
    small_talk: float = 0.0
    memory: float = 0.0
    method: str = "lexical"

    @property
    def recall(self) -> bool:
        return self.action == "recall"


@dataclass(frozen=True)
class Recall(_Serialisable):
    """What :meth:`MemoHood.recall` found for a message.

    ``facts`` are current versions (or the versions current at ``as_of``) that the
    message matched, best first; ``unmatched`` the other current facts of a small
    namespace that fill what the token budget leaves (``MemoryConfig.recall_fill``),
    shown in the block under their own heading; ``history`` the older versions of
    both, ``turns`` relevant raw turns, and ``block`` the fenced text to put in a
    prompt (empty when the gate skipped).
    """

    gate: GateDecision
    facts: tuple[Fact, ...] = ()
    turns: tuple[Turn, ...] = ()
    history: tuple[Fact, ...] = ()
    block: str = ""
    as_of: datetime | None = None
    unmatched: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class ConsolidationReport(_Serialisable):
    """What :meth:`MemoHood.consolidate` did at ``now``."""

    now: datetime
    examined: int
    archived: tuple[str, ...] = ()
    pinned: int = 0
    strengths: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class BackfillReport(_Serialisable):
    """Totals of a back-fill of an existing chat history."""

    turns: int = 0
    kept: int = 0
    borderline: int = 0
    facts_added: int = 0
    superseded: int = 0
    reinforced: int = 0


@dataclass(frozen=True)
class ImportReport(_Serialisable):
    """Records read from an export, and how many were new."""

    facts: int = 0
    turns: int = 0
    messages: int = 0
    skipped: int = 0
