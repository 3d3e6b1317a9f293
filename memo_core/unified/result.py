"""UnifiedRecall: what :func:`~memo_core.unified.recall.recall_all` returns.

It holds the ranked items and conflicts (:mod:`memo_core.unified.types`) and
renders them through :mod:`memo_core.unified.render`; it lives apart from the item
types so that the renderer, which reads those types, is not imported by them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memo_core.errors import NotFoundError
from memo_core.memory.types import Fact, GateDecision
from memo_core.types import Hit
from memo_core.unified.render import render_context
from memo_core.unified.types import Conflict, UnifiedItem

__all__ = ["UnifiedRecall"]


@dataclass(frozen=True)
class UnifiedRecall:
    """What :func:`recall_all` found: ranked items, conflicts, and the gate's verdict.

    ``gate`` is the memory gate's decision (``None`` when no memory was asked);
    ``dropped`` lists the refs that ranked but did not fit ``token_budget``;
    ``tokens`` is the estimated size of :meth:`render` (about 4 characters per token).
    """

    message: str
    items: tuple[UnifiedItem, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    gate: GateDecision | None = None
    token_budget: int = 0
    tokens: int = 0
    dropped: tuple[str, ...] = ()
    weights: dict[str, float] = field(default_factory=dict, hash=False)

    @property
    def memory_facts(self) -> tuple[Fact, ...]:
        """The recalled memory facts that fitted, best first (for ``GuardedAnswerer.ask``)."""
        return tuple(i.fact for i in self.items if i.fact is not None)

    @property
    def hits(self) -> tuple[Hit, ...]:
        """The document chunks that fitted, best first."""
        return tuple(i.hit for i in self.items if i.hit is not None)

    def item(self, ref: str) -> UnifiedItem:
        """The item with ``ref``; :class:`~memo_core.errors.NotFoundError` (a ``KeyError``) if absent."""
        for item in self.items:
            if item.ref == ref:
                return item
        raise NotFoundError(f"no item {ref!r} in this recall")

    def conflicts_for(self, ref: str) -> tuple[Conflict, ...]:
        """The conflicts an item takes part in."""
        return tuple(c for c in self.conflicts if ref in c.refs)

    def metadata(self, item: UnifiedItem) -> dict[str, Any]:
        """Flat, JSON-ready metadata for a framework document or node made from ``item``.

        ``source`` is ``"memory"`` or ``"kb"``; memory facts add their dates
        (``valid_from``, ``valid_to``) and ``version``, chunks their locator
        (``page``, ``heading``, ``start_time``...) and ``document_source`` (the
        file or URL); ``conflicts`` lists the conflicts the item takes part in.
        """
        data = item.to_dict()
        data.pop("text", None)
        data.pop("history", None)
        locator = data.pop("locator", None) or {}
        out: dict[str, Any] = {**locator, **data}
        out["conflicts"] = [c.to_dict() for c in self.conflicts_for(item.ref)]
        return out

    def render(self) -> str:
        """The fenced, labelled context block for a prompt ("" when nothing was found)."""
        return render_context(self.items, self.conflicts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "gate": self.gate.to_dict() if self.gate is not None else None,
            "items": [i.to_dict() for i in self.items],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "token_budget": self.token_budget,
            "tokens": self.tokens,
            "dropped": list(self.dropped),
            "weights": dict(self.weights),
            "context": self.render(),
        }
