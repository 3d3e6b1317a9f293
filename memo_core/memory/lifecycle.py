"""Reading, pinning and forgetting facts."""

from __future__ import annotations

from datetime import datetime

from memo_core.errors import InvalidInputError
from memo_core.memory.base import HoodPart
from memo_core.memory.extract import content_stems
from memo_core.memory.namespace import NamespaceLike
from memo_core.memory.ranking import analyse_query, coverage
from memo_core.memory.records import FactRow
from memo_core.memory.timeutil import as_utc, to_iso
from memo_core.memory.types import Fact

__all__ = ["Lifecycle"]


class Lifecycle(HoodPart):
    """``get``, ``history``, ``list_facts``, ``pin``/``unpin``, ``forget``."""

    def get(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """One fact version by id, owned by ``namespace`` or a descendant of it."""
        row = self._owned_row(fact_id, namespace)
        return self._fact(row, at)

    def history(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> list[Fact]:
        """Every version of the fact ``fact_id`` belongs to, oldest first, with dates."""
        row = self._owned_row(fact_id, namespace)
        return [self._fact(r, at) for r in self._store.chain(row.chain_id)]

    def list_facts(
        self,
        namespace: NamespaceLike | None,
        *,
        include_superseded: bool = False,
        include_archived: bool = False,
        prefix: bool = False,
        at: datetime | None = None,
    ) -> list[Fact]:
        """Facts stored at ``namespace`` (and its descendants with ``prefix=True``)."""
        _, enc = self._ns(namespace)
        rows = self._store.facts_in(
            [enc],
            prefix=enc if prefix else None,
            current_only=not include_superseded,
            include_archived=include_archived,
            order="chain_id, version" if include_superseded else "valid_from, rowid",
        )
        facts = [self._fact(r, at) for r in rows]
        if include_superseded:
            facts.sort(key=lambda f: (f.valid_from, f.version))
        return facts

    def pin(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """Pin the current version of the fact: it never decays or archives."""
        return self._set_pin(fact_id, True, namespace, at)

    def unpin(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """Unpin: decay starts from full strength at ``at`` (default now)."""
        return self._set_pin(fact_id, False, namespace, at)

    def _set_pin(
        self, fact_id: str, pinned: bool, namespace: NamespaceLike | None, at: datetime | None
    ) -> Fact:
        row = self._owned_row(fact_id, namespace)
        when = as_utc(at)
        with self.db.transaction():  # the current version cannot change under us
            current = next(
                (
                    FactRow(r)
                    for r in self._store.chain(row.chain_id)
                    if FactRow(r).valid_to is None
                ),
                row,
            )
            self._store.set_pinned(current.id, pinned, 1.0, to_iso(when))
        return self._fact(self._row(current.id), when)

    def forget(
        self,
        fact_id: str | None = None,
        *,
        namespace: NamespaceLike | None,
        query: str | None = None,
    ) -> int:
        """Delete for real: every version of a fact (or of each fact matching ``query``)."""
        _, enc = self._ns(namespace)
        if fact_id is None and not (query and query.strip()):
            raise InvalidInputError("forget needs a fact_id or a query")
        chain_ids: set[str] = set()
        turn_ids: set[str] = set()
        if fact_id is not None:
            row = self._owned_row(fact_id, namespace)
            chain_ids.add(row.chain_id)
        if query and query.strip():
            info = analyse_query(query, self.config)
            fact_hits = self._store.search_keyword(
                "facts",
                query,
                self._namespaces_under("mem_facts", enc),
                100_000,
            )
            for raw in self._store.facts_by_rowids(r for r, _ in fact_hits):
                row = FactRow(raw)
                if coverage(info, row.stems)[0] >= self.config.forget_min_coverage:
                    chain_ids.add(row.chain_id)
            turn_hits = self._store.search_keyword(
                "turns",
                query,
                self._namespaces_under("mem_turns", enc),
                100_000,
            )
            for turn in self._store.turns_by_rowids(r for r, _ in turn_hits):
                if coverage(info, content_stems(turn[6]))[0] >= self.config.forget_min_coverage:
                    turn_ids.add(turn[1])
        with self.db.transaction():  # versions added meanwhile are deleted too
            rows = [FactRow(r) for r in self._store.chains(sorted(chain_ids))]
            turn_ids |= {r.source_turn for r in rows if r.source_turn}
            deleted = self._store.delete_facts([r.rowid for r in rows])
            self._store.delete_turns(sorted(turn_ids))
        return deleted

    def _namespaces_under(self, table: str, enc: str) -> list[str]:
        rows = self.db.query(
            f"SELECT DISTINCT ns FROM {table} WHERE substr(ns, 1, ?) = ?", [len(enc), enc]
        )
        return [r[0] for r in rows]
