"""Every MemoHood knob in one place: decay half-lives, archive threshold, supersede weights,
gate margin, recall sizes and ranking weights.

A reader looking for "the decay half-life" or "the gate threshold" finds it here.
:class:`MemoryConfig` is a frozen dataclass passed explicitly to
:class:`~memo_core.memory.hood.MemoHood`; :meth:`MemoryConfig.from_dict` reads the
``memohood:`` section of ``config.yaml``. The environment is read in one place
only, :func:`resolve_gate_model`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memo_core.errors import ConfigError

__all__ = [
    "CATEGORIES",
    "DEFAULT_GATE_MODEL",
    "DEFAULT_HALF_LIVES",
    "DEFAULT_SOURCE_FLOORS",
    "GATE_MODEL_ENV",
    "PINNED_BY_DEFAULT",
    "SUPERSEDE_WEIGHTS",
    "MemoryConfig",
    "resolve_gate_model",
]

#: The fact categories capture assigns (an LLM or ``remember`` may use the same names).
CATEGORIES: tuple[str, ...] = (
    "identity",  # name, birthday, home, family, pets, sizes
    "health",  # allergies, conditions, medication, diet
    "instruction",  # how the assistant should reply (format, tone, length)
    "preference",  # likes, dislikes, habits
    "decision",  # choices made ("we're going with PostgreSQL")
    "routine",  # recurring schedules ("1:1 every Tuesday")
    "plan",  # plans, deadlines, appointments, trips
    "fact",  # other stable facts ("our service runs on Java 17")
    "event",  # things that happened, fleeting
)

#: Categories whose facts are pinned (never decay, never archive) unless said otherwise.
PINNED_BY_DEFAULT: frozenset[str] = frozenset({"identity", "health"})

#: Days for strength to halve without use. Events fade fast, preferences and
#: decisions slowly, stable facts slower; identity/health are pinned anyway.
DEFAULT_HALF_LIVES: Mapping[str, float] = MappingProxyType(
    {
        "identity": 730.0,
        "health": 730.0,
        "instruction": 365.0,
        "preference": 180.0,
        "decision": 180.0,
        "routine": 120.0,
        "plan": 45.0,
        "fact": 365.0,
        "event": 14.0,
    }
)

#: Score floors per recall source (see :mod:`~memo_core.memory.ranking`), so a fact a
#: source always offers (a pinned allergy, a named person's fact) is not squeezed out of
#: the budget by search hits that merely share words with the message.
DEFAULT_SOURCE_FLOORS: Mapping[str, float] = MappingProxyType(
    {
        "search": 0.0,
        "people": 0.4,
        "intent": 0.35,
        "upcoming": 0.3,
        "habits": 0.2,
        "profile": 0.25,
    }
)

#: The recall gate's Model2Vec model, shipped inside the package (``data/gate-model``,
#: 15 MB, Apache-2.0, see its NOTICE): no download, the same model in a checkout and in
#: an installed wheel.
DEFAULT_GATE_MODEL = str(Path(__file__).resolve().parents[1] / "data" / "gate-model")
#: Environment variable naming a local Model2Vec folder (tests, CI, offline replays).
GATE_MODEL_ENV = "MEMO_GATE_MODEL"


#: The supersede weights and cosines of :class:`MemoryConfig`, each in [0, 1].
SUPERSEDE_WEIGHTS: tuple[str, ...] = (
    "correction_topic_cosine",
    "correction_value_cosine",
    "correction_category_bonus",
    "correction_reversal_bonus",
    "correction_dated_bonus",
    "correction_topic_bonus",
    "correction_value_bonus",
    "correction_named_value_bonus",
    "correction_again_bonus",
    "similarity_bonus_from",
    "topic_only_score",
    "topic_close_cosine",
    "implicit_named_bonus",
)


@dataclass(frozen=True)
class MemoryConfig:
    """Tunable behaviour of MemoHood. All fields have calibrated defaults."""

    # -- decay and archiving (consolidate) ----------------------------------
    #: Half-life in days per category: strength x 2^(-days_since_last_use / half_life).
    half_lives: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))
    #: Half-life for a category missing from ``half_lives``.
    default_half_life: float = 180.0
    #: A non-pinned fact whose decayed strength falls below this is archived (kept, not recalled).
    archive_threshold: float = 0.1
    #: Strength a new fact starts with (rules), and one kept by the LLM judge.
    initial_strength: float = 1.0
    llm_initial_strength: float = 0.7
    #: Added to the decayed strength when a fact is restated (reinforced) or recalled (used).
    reinforce_boost: float = 0.3
    use_boost: float = 0.1

    # -- capture ------------------------------------------------------------
    #: Turn score at or above which rules extract facts without asking anyone.
    keep_threshold: float = 0.55
    #: Scores in [borderline_threshold, keep_threshold) are borderline: one LLM call
    #: when an LLM is configured, otherwise the conservative rule (episodic turn only).
    borderline_threshold: float = 0.3
    #: Whether capture's learned classifier decides keep or drop (else rules alone).
    use_classifier: bool = True
    #: A sentence the rules keep is dropped when the classifier's probability is lower.
    classifier_drop_below: float = 0.15
    #: From this probability the classifier alone says a sentence is the user's when it
    #: names nobody else ("Living on the 7th floor now", "Старшего зовут Егор"), and keeps
    #: the statement before a question ("I just started at X, so what should I ...?").
    classifier_sure_above: float = 0.5
    #: Lexical (content-stem Jaccard) similarity at which a restatement reinforces.
    duplicate_lexical: float = 0.7
    #: Embedding cosine at which a restatement reinforces (when an embedder is set).
    duplicate_cosine: float = 0.92
    #: Minimum match score for an explicit correction to supersede an older fact.
    correction_min_score: float = 0.3
    #: A new value supersedes an old one without a change cue when this share of the
    #: smaller side's topic words (content words that are not values) is shared.
    value_change_min_share: float = 0.5
    #: Similarity band in which an LLM (when configured) decides "update or new fact".
    contradiction_band: tuple[float, float] = (0.35, 0.7)

    # -- supersede (memo_core.memory.versions) --------------------------------
    # An explicit correction ("moved to", "no longer", "перенесли") supersedes the current
    # fact with the best score, if it reaches ``correction_min_score``; the score is the
    # fuzzy share of content words plus the bonuses below, each for one sign of "the same
    # thing, changed". A new value said without a cue supersedes on the topic score.
    #: A shared intent topic ("rent" / "landlord": home) links a correction to a fact whose
    #: embedding is at least this close (when no value changed and no preference reversed).
    correction_topic_cosine: float = 0.45
    #: A changed value of one kind links a correction to a fact of a compatible category
    #: whose embedding is at least this close (when the attribute is not named).
    correction_value_cosine: float = 0.5
    #: Bonus when both facts are of one category family (a routine is a kind of plan).
    correction_category_bonus: float = 0.25
    #: Bonus for a reversed preference across categories ("gives me migraines now").
    correction_reversal_bonus: float = 0.2
    #: Bonus when both facts carry a date or time (a moved appointment).
    correction_dated_bonus: float = 0.25
    #: Bonus when both facts fall in one intent topic besides money.
    correction_topic_bonus: float = 0.1
    #: Bonus for a changed value, and for one whose attribute both facts name ("fee").
    correction_value_bonus: float = 0.1
    correction_named_value_bonus: float = 0.15
    #: Bonus for a repeated change ("slipped again") of a fact already changed before.
    correction_again_bonus: float = 0.15
    #: (age in days, bonus): a correction usually fixes something said moments or days ago;
    #: the first band the older fact's age falls under gives its bonus.
    correction_recency_bonuses: tuple[tuple[float, float], ...] = ((1 / 24, 0.2), (7.0, 0.1))
    #: Embedding cosine above which the excess (cosine - this) is added to a correction's
    #: and a new value's topic score.
    similarity_bonus_from: float = 0.5
    #: Topic score of a change cue ("now", "raised it") whose facts share an intent topic but
    #: no word ("the landlord raised it to 1,240" after "my rent is 1,150").
    topic_only_score: float = 0.3
    #: Facts whose embeddings are this close share a topic on one shared word (without a cue).
    topic_close_cosine: float = 0.72
    #: Bonus to a new value's topic score when both facts name its attribute ("price", "fee"),
    #: so the fact naming the attribute wins over one that merely shares a word.
    implicit_named_bonus: float = 0.2
    #: After a change word, a bare number counts as a value from this amount on ("1,240
    #: now"); below it a bare number is an identifier ("milestone 3").
    cued_bare_amount_min: float = 10.0
    #: Letters two words must share at their beginning to count as one root ("tutor" /
    #: "tutoring"), Latin and Cyrillic (Russian derivation moves the ending more).
    root_prefix_latin: int = 5
    root_prefix_cyrillic: int = 4
    #: A turn longer than this (characters) is stored and analysed truncated, with a note.
    max_turn_chars: int = 20_000
    #: At most this many facts are taken from one turn (a pasted document is no profile).
    max_facts_per_turn: int = 25
    #: Credentials in captured turns and remembered facts (the ingest scanner):
    #: ``"redact"`` replaces them with ``[REDACTED:kind]``, ``"block"`` refuses the
    #: turn with ``SecretFoundError``, ``"allow"`` stores them as said.
    secrets: str = "redact"
    #: Minutes during which "she"/"он" in a new turn still refers to the last person named.
    pronoun_window_minutes: float = 60.0
    #: Current facts each candidate is compared with for SUPERSEDE: this many of the
    #: newest, plus three times as many from each search leg.
    match_pool: int = 20
    #: ``forget(query=...)`` deletes a fact (or a turn) holding at least this share of
    #: the query's weighted words.
    forget_min_coverage: float = 0.5

    # -- gate ---------------------------------------------------------------
    #: Skip recall only when small-talk similarity beats memory similarity by this much.
    gate_margin: float = 0.03
    #: Nearest labelled examples averaged per class by the Model2Vec gate.
    gate_neighbours: int = 3

    # -- recall -------------------------------------------------------------
    #: Facts returned from search (besides the always-present profile facts).
    recall_k: int = 8
    #: Pinned facts about the user (and standing reply instructions) always offered.
    profile_k: int = 10
    #: Relevant past turns (with no fact extracted from them) added to the block.
    turns_k: int = 3
    #: The user's preferences and routines added when the message asks for advice.
    habits_k: int = 5
    #: Upcoming dated plans added when the message asks about time ("when", "срок").
    upcoming_k: int = 3
    #: Token budget of the memory block (about 4 characters per token).
    token_budget: int = 600
    #: A vector-only candidate needs at least this cosine (calibrated on MiniLM-L6).
    vector_floor: float = 0.35
    #: A search candidate needs this share of the best candidate's relevance.
    relative_floor: float = 0.6
    #: Candidates fetched from each retrieval leg before filtering.
    candidate_pool: int = 40
    #: A namespace with at most this many current facts has them all ranked (no
    #: similarity floor); a larger one is searched, with ``vector_floor`` and
    #: ``relative_floor``. Intent routing reads this many of the newest facts.
    recall_scan_limit: int = 400
    #: In a namespace of at most ``recall_scan_limit`` current facts, the facts no source
    #: offers fill what the token budget leaves after the ranked facts, their history and
    #: the turns, best score first (then pinned, then newest): a pool this small needs no
    #: similarity floor, and a paraphrase sharing no word still reaches the model. Fill
    #: facts are shown, not used (their decay clock keeps running). Off with an explicit
    #: ``recall(k=...)``, which caps the facts at k plus the sources.
    recall_fill: bool = True
    #: Facts each intent of a message (health, food, family, ...) brings in.
    intent_k: int = 6
    #: Whether assistant turns may appear among recalled turns (they never become facts).
    recall_assistant_turns: bool = False

    # -- ranking (memo_core.memory.ranking) -----------------------------------
    #: Weight of a generic query word ("want", "help", "хочу") in lexical coverage;
    #: a content word weighs 1. A candidate needs a matched weight of 1 (one
    #: content word) to count as a search hit in a large namespace.
    generic_weight: float = 0.3
    #: Score floor per recall source (``search``, ``profile``, ``people``, ``habits``,
    #: ``upcoming``, ``intent``); a fact offered by several takes the highest floor.
    source_floors: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SOURCE_FLOORS))
    #: Share of a fact's score that follows its decayed strength:
    #: score = max(relevance, floor) x (1 - w + w x strength) + fused rank (RRF).
    strength_weight: float = 0.4

    def __post_init__(self) -> None:
        for name, days in self.half_lives.items():
            if days <= 0:
                raise ConfigError(f"half-life for {name!r} must be positive, got {days}")
        if self.default_half_life <= 0:
            raise ConfigError("default_half_life must be positive")
        if not 0.0 <= self.archive_threshold < 1.0:
            raise ConfigError("archive_threshold must be in [0, 1)")
        if not 0.0 <= self.borderline_threshold <= self.keep_threshold <= 1.0:
            raise ConfigError("need 0 <= borderline_threshold <= keep_threshold <= 1")
        if not 0.0 < self.value_change_min_share <= 1.0:
            raise ConfigError("value_change_min_share must be in (0, 1]")
        low, high = self.contradiction_band
        if not 0.0 <= low <= high <= 1.0:
            raise ConfigError("contradiction_band must be (low, high) within [0, 1]")
        bands = [float(days) for days, _ in self.correction_recency_bonuses]
        if bands != sorted(bands) or any(days <= 0 for days in bands):
            raise ConfigError("correction_recency_bonuses: ages must be positive and increasing")
        if self.root_prefix_latin < 2 or self.root_prefix_cyrillic < 2:
            raise ConfigError("root_prefix_latin and root_prefix_cyrillic must be at least 2")
        if self.cued_bare_amount_min < 0:
            raise ConfigError("cued_bare_amount_min must not be negative")
        if self.secrets not in ("redact", "block", "allow"):
            raise ConfigError(f"secrets must be redact, block or allow, not {self.secrets!r}")
        unknown_sources = set(self.source_floors) - set(DEFAULT_SOURCE_FLOORS)
        if unknown_sources:
            raise ConfigError(f"unknown recall sources: {', '.join(sorted(unknown_sources))}")
        for name, value in (
            ("generic_weight", self.generic_weight),
            ("strength_weight", self.strength_weight),
            ("forget_min_coverage", self.forget_min_coverage),
            *((name, getattr(self, name)) for name in SUPERSEDE_WEIGHTS),
            *((f"correction_recency_bonuses[{d}]", b) for d, b in self.correction_recency_bonuses),
            *((f"source_floors[{k}]", v) for k, v in self.source_floors.items()),
        ):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {value}")
        if self.max_turn_chars < 1 or self.max_facts_per_turn < 0:
            raise ConfigError("max_turn_chars must be positive, max_facts_per_turn not negative")
        for name in (
            "recall_k",
            "profile_k",
            "turns_k",
            "upcoming_k",
            "habits_k",
            "token_budget",
            "intent_k",
            "recall_scan_limit",
            "match_pool",
        ):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must not be negative")
        object.__setattr__(self, "half_lives", MappingProxyType(dict(self.half_lives)))
        floors = {**DEFAULT_SOURCE_FLOORS, **self.source_floors}
        object.__setattr__(self, "source_floors", MappingProxyType(floors))

    def half_life(self, category: str) -> float:
        """Half-life in days for ``category``."""
        return float(self.half_lives.get(category, self.default_half_life))

    def with_(self, **changes: Any) -> MemoryConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> MemoryConfig:
        """Build from the ``memohood:`` section of ``config.yaml`` (unknown keys are errors).

        Keys that configure other things (``embedder``, ``llm``, ``gate_model``, ``path``)
        are ignored here; the caller builds those objects.
        """
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        ignored = {"embedder", "llm", "gate_model", "path", "db"}
        unknown = set(data) - known - ignored
        if unknown:
            raise ConfigError(f"unknown memohood settings: {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        if "half_lives" in values:
            merged = dict(DEFAULT_HALF_LIVES)
            merged.update({str(k): float(v) for k, v in dict(values["half_lives"]).items()})
            values["half_lives"] = merged
        if "source_floors" in values:
            values["source_floors"] = {
                str(k): float(v) for k, v in dict(values["source_floors"]).items()
            }
        if "contradiction_band" in values:
            low, high = values["contradiction_band"]
            values["contradiction_band"] = (float(low), float(high))
        if "correction_recency_bonuses" in values:
            values["correction_recency_bonuses"] = tuple(
                (float(days), float(bonus)) for days, bonus in values["correction_recency_bonuses"]
            )
        return cls(**values)


def resolve_gate_model(explicit: str | Path | None = None) -> str:
    """Where the recall gate's Model2Vec model comes from, in order of precedence.

    1. ``explicit`` (a folder or a model-hub name);
    2. the ``MEMO_GATE_MODEL`` environment variable;
    3. :data:`DEFAULT_GATE_MODEL`, the model shipped inside the package.

    Nothing outside the installed package is probed, so a checkout and a wheel
    choose the same model, and only an explicit hub name can cause a download.
    """
    if explicit:
        return str(explicit)
    env = os.environ.get(GATE_MODEL_ENV)
    if env:
        return env
    return DEFAULT_GATE_MODEL
