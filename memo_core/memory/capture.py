"""Capture: a turn in, facts stored (new, superseding, or reinforcing), the raw turn kept.

The order for a user turn: rules score it and extract candidate facts
(:mod:`~memo_core.memory.extract`); a borderline turn costs one LLM call when an
LLM is configured (:mod:`~memo_core.memory.judge`), and otherwise stays an
episodic turn only (the conservative rule); each candidate is matched against
current facts (:mod:`~memo_core.memory.versions`) and written. The raw turn is
always stored and searchable. Assistant and system turns are stored as episodic
turns and never become the user's facts.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memo_core.errors import InvalidInputError, SecretFoundError
from memo_core.ingest.secretscan import redact_text
from memo_core.llm.base import LLM
from memo_core.memory import lexicon as lx
from memo_core.memory.base import HoodPart, new_id
from memo_core.memory.classifier import CaptureClassifier, load_capture_classifier
from memo_core.memory.config import CATEGORIES, PINNED_BY_DEFAULT, MemoryConfig
from memo_core.memory.extract import (
    CandidateFact,
    Classify,
    Party,
    analyze_turn,
    content_stems,
    speaks_of_self,
)
from memo_core.memory.facts import FactWriter
from memo_core.memory.gate import RecallGate
from memo_core.memory.intents import INTENTS
from memo_core.memory.judge import JudgedFact, judge_turn, judge_update
from memo_core.memory.namespace import NamespaceLike
from memo_core.memory.records import FactRow
from memo_core.memory.store import FactStore
from memo_core.memory.timeutil import as_utc, days_between, from_iso, to_iso
from memo_core.memory.types import CaptureResult, Decision, Fact
from memo_core.memory.versions import Existing, NewFact, match_fact
from memo_core.values import (
    entity_words,
    extract_values,
    find_date_range,
    has_time_value,
    polarity,
)

__all__ = ["ROLES", "Capture", "bounded_turn", "screen_secrets"]

ROLES = frozenset({"user", "assistant", "system"})

#: How many of the most recent current facts name the user's people for a new turn: a
#: namespace's facts are few, and the people talked about lately are the ones named again.
_KNOWN_POOL = 200


@dataclass(frozen=True)
class _Outcome:
    kind: str  # "added" | "superseded" | "reinforced"
    fact: Fact
    old: Fact | None = None


_SELF_WORDS = frozenset({"self", "user", "me", "i", "я", "пользователь"})
_POSSESSIVES = frozenset({"my", "our", "мой", "моя", "моё", "мое", "мои", "наш", "наша"})


def _party_from_about(about: str) -> Party | None:
    """The subject an LLM named ("self", "sister Anna", "мама")."""
    text = about.strip()
    if not text or text.lower() in _SELF_WORDS:
        return None
    words = [w for w in text.split() if w.lower() not in _POSSESSIVES]
    if words:
        found = lx.relation_of(words[0].lower())
        if found is not None:
            return Party(found[0], found[1], " ".join(words[1:]))
    return Party("other", "person", text)


def _from_judged(judged: JudgedFact) -> CandidateFact:
    subject = _party_from_about(judged.about)
    return CandidateFact(
        statement=judged.statement,
        category=judged.category,
        pinned=judged.pinned or judged.category in PINNED_BY_DEFAULT,
        score=0.5,
        signals=("llm",),
        subject=subject,
        has_time=has_time_value(judged.statement),
    )


@functools.lru_cache(maxsize=4096)
def _signature(statement: str) -> dict[str, Any]:
    """What SUPERSEDE compares besides words: values, polarity, named entities (cached:
    the same current facts are matched against every candidate of a turn)."""
    return {
        "values": tuple(extract_values(statement, bare_numbers=True)),
        "polarity": polarity(statement),
        "entities": entity_words(statement),
        "topics": frozenset(i.name for i in INTENTS if i.topic.search(statement)),
    }


def screen_secrets(text: str, mode: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with credentials handled as ``mode`` says, and the kinds found.

    The ingest scanner (:func:`~memo_core.ingest.secretscan.redact_text`) finds them;
    ``"block"`` raises :class:`~memo_core.errors.SecretFoundError` before anything is
    stored, ``"allow"`` keeps the text as it is.
    """
    if mode == "allow":
        return text, ()
    redacted = redact_text(text)
    if not redacted.found:
        return text, ()
    if mode == "block":
        kinds = ", ".join(redacted.kinds)
        raise SecretFoundError(f"the text holds a credential ({kinds}); nothing was stored")
    return redacted.text, redacted.kinds


def bounded_turn(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters (at a space when one is near), with a note,
    and how many characters were left out (0 when it fits)."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind(" ", max(0, limit - 200), limit)
    kept = text[: cut if cut > 0 else limit].rstrip()
    omitted = len(text) - len(kept)
    return f"{kept}\n[truncated: {omitted} more characters were not stored]", omitted


class Capture(HoodPart):
    """``capture`` (a turn in, facts written) and ``remember`` (one explicit fact).

    ``llm`` judges borderline turns and ambiguous updates when set; ``gate`` gives
    the recall gate, whose static model the keep/drop classifier reads.
    """

    def __init__(
        self,
        store: FactStore,
        config: MemoryConfig,
        writer: FactWriter,
        *,
        llm: LLM | None,
        gate: Callable[[], RecallGate],
    ) -> None:
        super().__init__(store, config)
        self._writer = writer
        self.llm = llm
        self._gate = gate
        self._classifier: CaptureClassifier | None = None

    def capture(
        self,
        text: str,
        *,
        namespace: NamespaceLike | None,
        role: str = "user",
        at: datetime | None = None,
        session_id: str | None = None,
    ) -> CaptureResult:
        """Keep one conversation turn: the raw turn always, facts when it holds any."""
        _, enc = self._ns(namespace)
        if not isinstance(text, str):
            raise InvalidInputError("text must be a string")
        if "\x00" in text:
            raise InvalidInputError("text contains a NUL character")
        if role not in ROLES:
            raise InvalidInputError(f"role must be one of {sorted(ROLES)}, got {role!r}")
        when = as_utc(at)
        if not text.strip():
            return CaptureResult("", "drop", 0.0, reason="empty turn")
        text, omitted = bounded_turn(text, self.config.max_turn_chars)
        text, secret_kinds = screen_secrets(text, self.config.secrets)
        notes = []
        if omitted:
            notes.append(f"truncated: {omitted} characters over max_turn_chars were not stored")
        if secret_kinds:
            notes.append(f"redacted: {', '.join(secret_kinds)}")
        turn_id = new_id("turn")
        turn_values = {
            "id": turn_id,
            "ns": enc,
            "root": enc.split("/", 1)[0],
            "session_id": session_id,
            "role": role,
            "text": text,
            "at": to_iso(when),
            "decision": "drop",
            "score": 0.0,
            "focus": None,
            "created_at": to_iso(when),
        }
        if role != "user":
            vectors = self._store.embed_documents([text])
            self._store.insert_turn(turn_values, vectors[0] if vectors else None)
            why = f"{role} turns are episodic memory, never user facts"
            return CaptureResult(turn_id, "drop", 0.0, reason="; ".join([why, *notes]))
        focus = self._focus(enc, session_id, when)
        analysis = analyze_turn(
            text,
            ref=when.date(),
            focus=focus,
            config=self.config,
            classify=self._classify(),
            known=self._known_parties(enc),
        )
        candidates = list(analysis.facts)[: self.config.max_facts_per_turn]
        decision: Decision = analysis.decision
        reason = ""
        llm_called = False
        origin, strength = "rule", self.config.initial_strength
        if decision == "borderline" and not analysis.forget_requested:
            if self.llm is None:
                reason = "borderline and no LLM configured: kept as an episodic turn"
            else:
                llm_called = True
                judged = judge_turn(self.llm, text)
                if judged is None:
                    reason = "the LLM failed or replied unreadably: kept as an episodic turn"
                else:
                    candidates = [_from_judged(j) for j in judged]
                    decision = "keep" if candidates else "drop"
                    origin, strength = "llm", self.config.llm_initial_strength
                    reason = "borderline: decided by the LLM"
        elif analysis.forget_requested and not candidates:
            reason = "the user asked not to keep it"
        vectors = self._store.embed_documents([text, *(c.statement for c in candidates)])
        turn_vector = vectors[0] if vectors else None
        outcomes: list[_Outcome] = []
        with self.db.transaction():
            self._store.insert_turn(turn_values, turn_vector)
            for i, cand in enumerate(candidates):
                vector = vectors[i + 1] if vectors else None
                outcomes.append(
                    self._store_candidate(
                        cand,
                        vector,
                        enc=enc,
                        when=when,
                        turn_id=turn_id,
                        session_id=session_id,
                        origin=origin,
                        strength=strength,
                        key=cand.key,
                    )
                )
            focus_json = json.dumps(analysis.focus.to_json()) if analysis.focus else None
            self._store.update_turn(turn_id, decision, analysis.score, focus_json)
        return CaptureResult(
            turn_id=turn_id,
            decision=decision,
            score=analysis.score,
            signals=analysis.signals,
            added=tuple(o.fact for o in outcomes if o.kind in ("added", "superseded")),
            superseded=tuple(o.old for o in outcomes if o.kind == "superseded" and o.old),
            reinforced=tuple(o.fact for o in outcomes if o.kind == "reinforced"),
            llm_called=llm_called,
            reason="; ".join(filter(None, [reason, *notes])),
        )

    def remember(
        self,
        statement: str,
        *,
        namespace: NamespaceLike | None,
        key: str | None = None,
        category: str | None = None,
        pinned: bool = False,
        at: datetime | None = None,
        value: dict[str, object] | None = None,
    ) -> Fact:
        """Store ``statement`` as a fact, verbatim (an explicit write, no scoring)."""
        _, enc = self._ns(namespace)
        if not isinstance(statement, str) or not statement.strip():
            raise InvalidInputError("statement must be a non-empty string")
        if key is not None and (not isinstance(key, str) or not key.strip()):
            raise InvalidInputError("key must be a non-empty string")
        if "\x00" in statement or (key is not None and "\x00" in key):
            raise InvalidInputError("statement and key must not contain NUL characters")
        if category is not None and category not in CATEGORIES:
            raise InvalidInputError(f"category must be one of {', '.join(CATEGORIES)}")
        when = as_utc(at)
        text, _ = screen_secrets(statement.strip(), self.config.secrets)
        found = analyze_turn(text, ref=when.date(), config=self.config).facts
        base = found[0] if found else CandidateFact(text, "fact", False, 1.0, ())
        cat = category or base.category
        cand = CandidateFact(
            statement=text,
            category=cat,
            pinned=pinned or cat in PINNED_BY_DEFAULT,
            score=1.0,
            signals=("explicit",),
            slot=base.slot,
            subject=base.subject,
            mentions=base.mentions,
            event=base.event,
            has_time=base.has_time,
            correction=base.correction,
            explicit=True,
        )
        vectors = self._store.embed_documents([text])
        with self.db.transaction():
            outcome = self._store_candidate(
                cand,
                vectors[0] if vectors else None,
                enc=enc,
                when=when,
                turn_id=None,
                session_id=None,
                origin="explicit",
                strength=1.0,
                key=key or cand.key,
                value=value,
                by_key_only=key is not None,
            )
        return outcome.fact

    # -- internals --------------------------------------------------------------------

    def _classify(self) -> Classify | None:
        """The keep/drop classifier over the gate's static model (cues only without one)."""
        if not self.config.use_classifier:
            return None
        if self._classifier is None:
            gate = self._gate()
            encoder = gate.encode if gate.uses_model else None
            self._classifier = load_capture_classifier(encoder)
        return self._classifier.keeps

    def _known_parties(self, enc: str) -> list[Party]:
        """The named people and pets of the user's most recent current facts ("son Eliot"),
        so that a later sentence naming only "Eliot" is known to be about the son."""
        out: list[Party] = []
        for raw in self._store.facts_in(
            [enc], order="valid_from DESC, rowid DESC", limit=_KNOWN_POOL
        ):
            row = FactRow(raw)
            if row.subject_kind not in ("person", "pet") or not row.about:
                continue
            relation, _, name = row.about.partition(" ")
            found = lx.relation_of(relation)
            if found is None or not name:
                continue
            party = Party(found[0], found[1], name)
            if party not in out:
                out.append(party)
        return out

    def _focus(self, enc: str, session_id: str | None, when: datetime) -> Party | None:
        row = self._store.last_turn(enc, session_id, to_iso(when))
        if row is None or not row[10]:
            return None
        window = timedelta(minutes=self.config.pronoun_window_minutes)
        if as_utc(when) - from_iso(row[7]) > window:
            return None
        return Party.from_json(json.loads(row[10]))

    def _match_pool(
        self, enc: str, statement: str, key: str | None, vector: Sequence[float] | None
    ) -> list[FactRow]:
        rows: dict[int, FactRow] = {}
        if key is not None:
            same = self._store.current_by_key(enc, key)
            if same is not None:
                rows[int(same[0])] = FactRow(same)
        hits = [
            r
            for r, _ in self._store.search_keyword(
                "facts", statement, [enc], self.config.match_pool * 3
            )
        ]
        if vector is not None:
            hits += [
                r
                for r, _ in self._store.search_vectors(
                    "facts", vector, [enc], self.config.match_pool * 3
                )
            ]
        for raw in self._store.facts_by_rowids(hits):
            row = FactRow(raw)
            if row.valid_to is None:
                rows.setdefault(row.rowid, row)
        # Corrections usually refer to something said recently, in other words.
        for raw in self._store.facts_in(
            [enc], order="valid_from DESC, rowid DESC", limit=self.config.match_pool
        ):
            rows.setdefault(int(raw[0]), FactRow(raw))
        return list(rows.values())

    def _store_candidate(
        self,
        cand: CandidateFact,
        vector: Sequence[float] | None,
        *,
        enc: str,
        when: datetime,
        turn_id: str | None,
        session_id: str | None,
        origin: str,
        strength: float,
        key: str | None,
        value: dict[str, object] | None = None,
        by_key_only: bool = False,
    ) -> _Outcome:
        event = None
        if cand.event is not None:
            event = (cand.event[0].isoformat(), cand.event[1].isoformat())
        values = self._writer.draft(
            enc=enc,
            statement=cand.statement,
            key=key,
            category=cand.category,
            pinned=cand.pinned,
            when=when,
            subject=cand.subject_id,
            subject_kind=cand.subject_kind,
            about=cand.subject.about if cand.subject is not None else "",
            party_terms=cand.party_terms,
            event=event,
            value=dict(value) if value else None,
            source_turn=turn_id,
            session_id=session_id,
            origin=origin,
            strength=strength,
        )
        pool = self._match_pool(enc, cand.match_text or cand.statement, key, vector)
        if by_key_only:
            pool = [r for r in pool if r.key == key]
        stored_vectors = self._store.vectors_for("facts", [r.rowid for r in pool])
        existing = [
            Existing(
                id=r.id,
                key=r.key,
                subject=r.subject,
                category=r.category,
                stems=r.stems,
                dated=r.event_start is not None or has_time_value(r.statement),
                vector=stored_vectors.get(r.rowid),
                age_days=days_between(from_iso(r.valid_from), when),
                updated=int(r.version) > 1,
                **_signature(r.statement),
            )
            for r in pool
        ]
        said = cand.said or cand.match_text or cand.statement
        new = NewFact(
            key=key,
            subject=cand.subject_id,
            category=cand.category,
            stems=content_stems(cand.match_text or cand.statement),
            dated=cand.event is not None
            or cand.has_time
            or find_date_range(cand.statement, when.date()) is not None,
            correction=cand.correction,
            vector=vector,
            cued=bool(lx.CHANGE_CUE.search(said)),
            again=bool(lx.AGAIN.search(said)),
            impersonal=cand.subject is None and not cand.explicit and not speaks_of_self(said),
            **{
                **_signature(cand.statement),
                # "Had to quit coffee, decaf from now on": the whole sentence's polarity
                "polarity": polarity(said),
            },
        )
        match = match_fact(new, existing, self.config)
        action: str = match.action
        if by_key_only and action == "reinforce" and match.target is not None:
            old = next(r for r in pool if r.id == match.target.id)
            if (old.value or None) != values["value"] or old.statement != cand.statement:
                action = "supersede"
        if action == "ask":
            relation = None
            if self.llm is not None and match.target is not None:
                target = next(r for r in pool if r.id == match.target.id)
                relation = judge_update(self.llm, target.statement, cand.statement)
            action = {"supersedes": "supersede", "duplicate": "reinforce"}.get(
                relation or "", "new"
            )
        if action == "new" or match.target is None:
            return _Outcome("added", self._fact(self._writer.insert(values, vector), when))
        old_row = next(r for r in pool if r.id == match.target.id)
        if action == "reinforce":
            row = self._writer.reinforce(old_row, when)
            if cand.pinned and not row.pinned:
                self._store.set_pinned(row.id, True, 1.0, to_iso(when))
                row = self._row(row.id)
            return _Outcome("reinforced", self._fact(row, when))
        if old_row.subject != values["subject"]:
            # "Jasper quit football, he's doing judo now" continues the son's fact
            values.update(
                subject=old_row.subject,
                subject_kind=old_row.subject_kind,
                about=old_row.about,
                party_terms=old_row.party_terms,
            )
        new_row = self._writer.supersede(old_row, values, vector)
        closed = self._row(old_row.id)
        return _Outcome("superseded", self._fact(new_row, when), self._fact(closed, when))
