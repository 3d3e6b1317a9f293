"""Recall: the gate, then the facts (and turns) a message needs, as a fenced block.

See :mod:`memo_core.memory.ranking` for the four sources and the scoring. Recall
reads namespace N **and its ancestors**: a fact stored at ``("u1",)`` is recalled
in ``("u1", "session-3")``; nothing at a sibling, descendant or other root is.
Recall refreshes the last use of the facts it returns (so used facts do not
decay), except for ``as_of`` queries, which only look at the past.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from memo_core.errors import InvalidInputError
from memo_core.memory.base import HoodPart
from memo_core.memory.config import MemoryConfig
from memo_core.memory.decay import refreshed_strength
from memo_core.memory.extract import content_stems
from memo_core.memory.gate import RecallGate
from memo_core.memory.intents import Intent, intents_of
from memo_core.memory.namespace import NamespaceLike, ancestors, encode_namespace
from memo_core.memory.ranking import (
    Candidate,
    QueryInfo,
    analyse_query,
    coverage,
    names_party,
    render_block,
)
from memo_core.memory.records import FactRow, turn_from_row
from memo_core.memory.store import FactStore
from memo_core.memory.timeutil import as_utc, from_iso, to_iso
from memo_core.memory.types import Fact, GateDecision, Recall, Turn
from memo_core.search.rrf import rrf as fuse

__all__ = ["Recaller"]


def _slot_of(key: str) -> str | None:
    owner, dot, slot = key.rpartition(".")
    return slot if dot and owner else None


def _drop_confusable(
    picked: dict[str, Candidate], query: QueryInfo, *more: dict[str, Candidate]
) -> None:
    """When the message is about someone named (their birthday), drop the user's own
    value of the same attribute (from ``picked`` and ``more``), unless the message also
    says "my <attribute>"."""
    if query.self_reference:
        return
    named_slots = {
        _slot_of(c.fact.key)
        for c in picked.values()
        if "people" in c.sources and c.fact.subject_kind == "person"
    }
    named_slots.discard(None)
    for pool in (picked, *more):
        for chain_id, cand in list(pool.items()):
            key = cand.fact.key
            if key.startswith("self.") and _slot_of(key) in named_slots:
                del pool[chain_id]


class Recaller(HoodPart):
    """``recall``: the gate (``gate`` gives it, loaded on first use), then ranked facts."""

    def __init__(
        self, store: FactStore, config: MemoryConfig, *, gate: Callable[[], RecallGate]
    ) -> None:
        super().__init__(store, config)
        self._gate = gate

    def recall(
        self,
        message: str,
        *,
        namespace: NamespaceLike | None,
        k: int | None = None,
        as_of: datetime | None = None,
        token_budget: int | None = None,
        use_gate: bool = True,
        at: datetime | None = None,
    ) -> Recall:
        """What memory knows that matters for ``message``, gated, ranked and budgeted."""
        ns, _ = self._ns(namespace)
        if not isinstance(message, str):
            raise InvalidInputError("message must be a string")
        now = as_utc(at)
        when = as_utc(as_of) if as_of is not None else None
        if use_gate:
            gate = self._gate().decide(message)
        else:
            gate = GateDecision("recall", 0.0, method="forced")
        if not gate.recall:
            return Recall(gate=gate, as_of=when)
        cfg = self.config
        limit = cfg.recall_k if k is None else max(0, int(k))
        budget = cfg.token_budget if token_budget is None else max(0, int(token_budget))
        read = [encode_namespace(a) for a in ancestors(ns)]
        query = analyse_query(message, cfg)
        view = when or now
        qvec = self._store.embed_query(message) if self._store.vectors is not None else None

        # One consistent view for every read (and one connection on PostgreSQL).
        with self.db.snapshot():
            chosen, rest = self._select_facts(
                message, query, read, qvec, view, when, limit, fill=k is None and cfg.recall_fill
            )
            by_chain = {c.fact.chain_id: c.fact for c in (*chosen, *rest)}
            history: dict[str, list[Fact]] = {}
            for raw in self._store.chains(list(by_chain)):
                row = FactRow(raw)
                if row.version < by_chain[row.chain_id].version:
                    history.setdefault(row.chain_id, []).append(self._fact(row, view))
            turns = self._select_turns(message, query, read, qvec, view)
        block, facts, old, kept_turns = render_block(
            [c.fact for c in chosen], history, turns, budget, [c.fact for c in rest]
        )
        ranked = {c.fact.chain_id for c in chosen}
        used = [f for f in facts if f.chain_id in ranked]
        if when is None and used:
            self._touch(used, now)  # a fill fact is shown, not used: it keeps decaying
        return Recall(
            gate=gate,
            facts=tuple(used),
            unmatched=tuple(f for f in facts if f.chain_id not in ranked),
            turns=tuple(kept_turns),
            history=tuple(old),
            block=block,
            as_of=when,
        )

    # -- facts ------------------------------------------------------------------------

    def _visible(self, row: FactRow, view: datetime, as_of: datetime | None) -> bool:
        if as_of is not None:
            iso = to_iso(as_of)
            return row.valid_from <= iso and (row.valid_to is None or row.valid_to > iso)
        return row.valid_to is None and not row.archived

    def _select_facts(
        self,
        message: str,
        query: QueryInfo,
        read: list[str],
        qvec: list[float] | None,
        view: datetime,
        as_of: datetime | None,
        limit: int,
        *,
        fill: bool = False,
    ) -> tuple[list[Candidate], list[Candidate]]:
        """(the ranked facts, the rest of a small namespace for ``fill``, best first)."""
        cfg = self.config
        # A namespace's facts are few: rank all of its current facts (no similarity
        # floor) when they fit in recall_scan_limit; a larger pool is searched.
        as_of_iso = to_iso(as_of) if as_of is not None else None
        count = self._store.count_visible(read, as_of_iso, cfg.recall_scan_limit + 1)
        small = count <= cfg.recall_scan_limit
        # Intent routing reads every fact of a small namespace, the newest of a large one.
        # (Newest by rowid: the (ns, valid_to) index yields that order without a sort.)
        every = self._rows(
            read, as_of, "", order="rowid DESC", limit=count if small else cfg.candidate_pool * 2
        )
        pool = max(cfg.candidate_pool, count) if small else cfg.candidate_pool
        fts = self._store.search_keyword("facts", message, read, pool)
        vec = self._store.search_vectors("facts", qvec, read, pool) if qvec else []
        cosines = dict(vec)
        hit_rows = {
            row.rowid: row
            for row in map(
                FactRow, self._store.facts_by_rowids([r for r, _ in fts] + [r for r, _ in vec])
            )
        }
        if small:
            for row in every:
                hit_rows.setdefault(row.rowid, row)
        rrf = dict(fuse([[r for r, _ in fts], [r for r, _ in vec]]))
        chains: dict[str, Candidate] = {}
        by_chain_rows = self._versions_at([row.chain_id for row in hit_rows.values()], view, as_of)
        unnamed: set[str] = set()  # someone else's facts the message does not name
        for rowid, row in hit_rows.items():
            shown = by_chain_rows.get(row.chain_id)
            if shown is None:
                continue
            cand = chains.get(row.chain_id)
            if cand is None:
                cand = Candidate(self._fact(shown, view))
                chains[row.chain_id] = cand
            share, weight = coverage(query, row.stems)
            cand.lexical = max(cand.lexical, share)
            cand.matched_weight = max(cand.matched_weight, weight)
            cand.cosine = max(cand.cosine, cosines.get(rowid, 0.0))
            cand.rrf = max(cand.rrf, rrf.get(rowid, 0.0))
            if shown.subject_kind == "person" and not names_party(query, shown.terms):
                unnamed.add(row.chain_id)
                continue
            if (
                (small and (cand.matched_weight > 0 or cand.cosine > 0))
                or cand.matched_weight >= 1.0
                or cand.cosine >= cfg.vector_floor
            ):
                cand.sources.add("search")
        searched = [c for c in chains.values() if "search" in c.sources]
        if searched:
            best = max(c.relevance for c in searched)
            for c in searched:
                if c.relevance < cfg.relative_floor * best:
                    c.sources.discard("search")
        selected = sorted(
            (c for c in chains.values() if "search" in c.sources), key=lambda c: -c.score(cfg)
        )[:limit]
        picked = {c.fact.chain_id: c for c in selected}

        def add(rows: Sequence[FactRow], source: str, cap: int, *, ranked: bool = True) -> None:
            # Rank on the rows (cheap), build facts only for the few that are kept; ties
            # keep the SQL order (newest first, or soonest first for upcoming plans).
            scored: list[tuple[float, int, FactRow, Candidate | None]] = []
            for position, row in enumerate(rows):
                known = picked.get(row.chain_id) or chains.get(row.chain_id)
                relevance = known.relevance if known else coverage(query, row.stems)[0]
                scored.append((-relevance, position, row, known))
            if ranked:
                scored.sort(key=lambda item: (item[0], item[1]))
            for negative, _, row, known in scored[:cap]:
                cand = known
                if cand is None:
                    cand = Candidate(self._fact(row, view))
                    cand.lexical = -negative
                cand.sources.add(source)
                picked.setdefault(cand.fact.chain_id, cand)

        add(self._profile_rows(read, view, as_of), "profile", cfg.profile_k)
        party = self._party_rows(query, read, view, as_of)
        add(party, "people", max(limit, 1))
        if query.advice:
            add(self._habit_rows(read, view, as_of), "habits", cfg.habits_k)
        if query.time_intent:
            add(self._upcoming_rows(read, view, as_of), "upcoming", cfg.upcoming_k)
        for found in intents_of(message):
            add(self._intent_rows(found, query, every), "intent", cfg.intent_k, ranked=False)
        rest: dict[str, Candidate] = {}
        if small and fill:
            # A small namespace's other current facts, after everything the sources offer:
            # someone else's only when the message names them, as for search.
            rest = {
                chain_id: c
                for chain_id, c in chains.items()
                if chain_id not in picked and chain_id not in unnamed
            }
        _drop_confusable(picked, query, rest)
        order = sorted(picked.values(), key=lambda c: -c.score(cfg))
        others = sorted(
            rest.values(),
            key=lambda c: (-c.score(cfg), not c.fact.pinned, -c.fact.valid_from.timestamp()),
        )
        return order, others

    def _versions_at(
        self, chain_ids: list[str], view: datetime, as_of: datetime | None
    ) -> dict[str, FactRow]:
        out: dict[str, FactRow] = {}
        for raw in self._store.chains(chain_ids):
            row = FactRow(raw)
            if self._visible(row, view, as_of):
                out[row.chain_id] = row
        return out

    def _rows(
        self,
        read: list[str],
        as_of: datetime | None,
        where: str,
        params: Sequence[object] = (),
        order: str = "valid_from DESC, rowid DESC",
        limit: int = 200,
    ) -> list[FactRow]:
        rows = self._store.facts_in(
            read,
            as_of=to_iso(as_of) if as_of is not None else None,
            include_archived=as_of is not None,
            where=where,
            params=params,
            order=order,
            limit=limit,
        )
        return [FactRow(r) for r in rows]

    def _profile_rows(
        self, read: list[str], view: datetime, as_of: datetime | None
    ) -> list[FactRow]:
        pinned = self._rows(read, as_of, "pinned = 1 AND subject_kind IN ('self', 'pet')")
        standing = self._rows(read, as_of, "category = 'instruction' AND subject_kind = 'self'")
        merged = {row.rowid: row for row in pinned + standing}
        return sorted(merged.values(), key=lambda r: (r.valid_from, r.rowid), reverse=True)

    def _habit_rows(self, read: list[str], view: datetime, as_of: datetime | None) -> list[FactRow]:
        rows: list[FactRow] = []
        for category in ("preference", "routine"):  # one indexed lookup each
            rows += self._rows(
                read, as_of, "category = ? AND subject_kind IN ('self', 'pet')", [category]
            )
        return sorted(rows, key=lambda r: (r.valid_from, r.rowid), reverse=True)

    def _party_rows(
        self, query: QueryInfo, read: list[str], view: datetime, as_of: datetime | None
    ) -> list[FactRow]:
        terms = set(query.relations) | set(query.stems)
        if not terms:
            return []
        rows = self._rows(read, as_of, "party_terms != ''", limit=2000)
        return [r for r in rows if names_party(query, r.terms)]

    @staticmethod
    def _intent_rows(found: Intent, query: QueryInfo, rows: Sequence[FactRow]) -> list[FactRow]:
        """Current facts in the topic of ``found``, pinned first, then the newest.

        Someone else's fact is routed only when the message names them, or asks about
        the intent's people without naming anyone (relatives for family, colleagues for
        work), so it never passes for the user's own and "my daughter" never brings a
        friend's baby. A fact
        sharing words with the message competes in the search ranking instead: routing
        is for the facts a paraphrase cannot reach.
        """
        out = [
            row
            for row in rows
            if coverage(query, row.stems)[1] == 0
            and found.holds(row.statement, row.category, row.subject_kind)
            and (
                row.subject_kind != "person"
                or names_party(query, row.terms)
                or (not query.relations and bool(row.terms & found.relations))
            )
        ]
        out.sort(key=lambda r: (r.valid_from, r.rowid), reverse=True)
        return sorted(out, key=lambda r: not r.pinned)  # stable: pinned first, then newest

    def _upcoming_rows(
        self, read: list[str], view: datetime, as_of: datetime | None
    ) -> list[FactRow]:
        today = view.date().isoformat()
        return self._rows(
            read,
            as_of,
            "event_end IS NOT NULL AND event_end >= ? AND category != 'identity' "
            "AND subject_kind IN ('self', 'pet')",
            [today],
            order="event_start, rowid",
        )

    # -- turns ------------------------------------------------------------------------

    def _select_turns(
        self,
        message: str,
        query: QueryInfo,
        read: list[str],
        qvec: list[float] | None,
        view: datetime,
    ) -> list[Turn]:
        cfg = self.config
        if cfg.turns_k <= 0:
            return []
        fts = self._store.search_keyword("turns", message, read, cfg.candidate_pool)
        vec = self._store.search_vectors("turns", qvec, read, cfg.candidate_pool) if qvec else []
        cosines = dict(vec)
        rows = self._store.turns_by_rowids([r for r, _ in fts] + [r for r, _ in vec])
        view_iso = to_iso(view)
        roles = {"user", "assistant"} if cfg.recall_assistant_turns else {"user"}
        rows = [r for r in rows if r[7] <= view_iso and r[5] in roles]
        with_facts = self._store.turn_ids_with_facts([r[1] for r in rows])
        scored: list[tuple[float, Turn]] = []
        for row in rows:
            if row[1] in with_facts:
                continue  # its content is recalled as facts (current or superseded)
            share, weight = coverage(query, content_stems(row[6]))
            cos = cosines.get(int(row[0]), 0.0)
            if weight < 1.0 and cos < cfg.vector_floor:
                continue
            relevance = max(share, cos)
            scored.append((relevance, turn_from_row(row, relevance=round(relevance, 4))))
        if not scored:
            return []
        best = max(s for s, _ in scored)
        scored = [(s, t) for s, t in scored if s >= cfg.relative_floor * best]
        scored.sort(key=lambda pair: (-pair[0], -pair[1].at.timestamp()))
        return [t for _, t in scored[: cfg.turns_k]]

    # -- use ----------------------------------------------------------------------------

    def _touch(self, facts: Sequence[Fact], now: datetime) -> None:
        """Recall is a use: restart the decay clock of non-pinned facts with a small boost."""
        with self.db.transaction():
            for fact in facts:
                if fact.pinned:
                    continue
                row = self._row(fact.id)
                last = from_iso(row.last_used)
                if now <= last:
                    continue
                strength = refreshed_strength(
                    row.strength,
                    last,
                    now,
                    self.config.half_life(row.category),
                    self.config.use_boost,
                )
                self._store.update_strength(row.id, strength, to_iso(now))
