"""Consolidation: the background job that archives facts whose strength has decayed.

Never on the reply path. Strength is computed from timestamps by
:mod:`~memo_core.memory.decay` (never compounded), with the half-lives and the
archive threshold of :class:`~memo_core.memory.config.MemoryConfig`.
"""

from __future__ import annotations

from datetime import datetime

from memo_core.memory.base import HoodPart
from memo_core.memory.decay import decayed_strength
from memo_core.memory.namespace import NamespaceLike
from memo_core.memory.timeutil import as_utc, from_iso, to_iso
from memo_core.memory.types import ConsolidationReport

__all__ = ["Consolidation"]

#: Current facts read per query while consolidating (memory stays flat at any size).
_BATCH = 1000


class Consolidation(HoodPart):
    """``consolidate``: decay and archive, on any schedule, with the same result."""

    def consolidate(
        self, now: datetime | None = None, *, namespace: NamespaceLike | None = None
    ) -> ConsolidationReport:
        """Archive current facts whose decayed strength fell under ``archive_threshold``."""
        when = as_utc(now)
        where = ""
        params: list[object] = []
        if namespace is not None:
            _, enc = self._ns(namespace)
            where, params = " AND substr(ns, 1, ?) = ?", [len(enc), enc]
        examined = 0
        pinned = 0
        archived: list[str] = []
        strengths: dict[str, float] = {}
        last = 0
        while True:
            batch = self.db.query(
                "SELECT rowid, id, category, pinned, strength, last_used FROM mem_facts "
                f"WHERE valid_to IS NULL AND archived = 0 AND rowid > ?{where} "
                "ORDER BY rowid LIMIT ?",
                [last, *params, _BATCH],
            )
            if not batch:
                break
            for rowid, fid, category, is_pinned, strength, last_used in batch:
                last = int(rowid)
                examined += 1
                if is_pinned:
                    pinned += 1
                    strengths[fid] = 1.0
                    continue
                value = decayed_strength(
                    float(strength), from_iso(last_used), when, self.config.half_life(category)
                )
                strengths[fid] = round(value, 9)
                if value < self.config.archive_threshold:
                    archived.append(fid)
        if archived:
            with self.db.transaction():
                self._store.archive(archived, to_iso(when))
        return ConsolidationReport(
            now=when,
            examined=examined,
            archived=tuple(archived),
            pinned=pinned,
            strengths=strengths,
        )
