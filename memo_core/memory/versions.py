"""SUPERSEDE decisions: is a new fact new, a restatement, or a change of an older one?

Pure functions over small views of stored facts, so the rules are testable
without a database. In order:

1. **Same key** (a one-value slot such as ``self.residence``, or an item key):
   a restatement reinforces, anything else supersedes.
2. **Near-duplicate** (content-stem Jaccard >= ``duplicate_lexical`` or embedding
   cosine >= ``duplicate_cosine``, and the same numbers): reinforce, no new version.
3. **Explicit correction** ("actually", "moved to", "raised", "slipped again",
   "no longer", "instead", "перенесли", "теперь", "больше не", "вместо"...):
   supersede the best-matching current fact about the same subject, scored by
   shared content words, same category and both carrying a date/time. A link is
   required so a correction never lands on an unrelated fact: a shared word or root
   (a bare number is not one); a shared intent topic ("rent" / "landlord": home;
   money does not count, every amount is in it) with a changed value, a reversed
   preference or close embeddings; or a changed value of one kind and attribute
   ("manager" and "boss" are one) in a fact of a compatible category, or in one
   already changed before when the turn says "again" / "опять".
4. **A new value of the same attribute**, said without any cue ("my gym fee is 45
   a month" after "the gym membership is 40 a month"): same subject, a compatible
   category, the same topic (at least ``value_change_min_share`` of the smaller
   side's topic words shared, or one word, or one intent topic, after a change word
   such as "now" / "теперь"; no named entity contradicting unless a change word says
   the entity is the new value), and a value of the
   same kind and attribute (:func:`memo_core.values.extract_values`: date, time,
   amount, name, place) that differs, with none agreeing.
5. **A reversed preference** ("red wine gives me headaches now" after "red wine is
   my favourite"): same subject and topic, opposite :func:`~memo_core.values.polarity`.
6. Similarity inside ``contradiction_band`` with no explicit signal: ``ask`` (the
   caller asks the LLM when one is configured, otherwise adds a new fact).
7. Otherwise: a new fact.

Every threshold, weight and bonus of these rules is a field of
:class:`~memo_core.memory.config.MemoryConfig` (its "supersede" section), documented there.

Each rule supersedes the *current* version of a chain, so a chain of updates
always ends with exactly one current version. The rules compare facts about one
subject; a new fact that names nobody (``NewFact.impersonal``: "Ballet moved to
Thursdays" after "my daughter's ballet is on Tuesdays") is compared with every
subject's facts, and the caller keeps the target's subject on the new version.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from memo_core.memory.config import MemoryConfig
from memo_core.values import Value

__all__ = ["Existing", "Match", "NewFact", "cosine", "jaccard", "match_fact"]

_DEFAULTS = MemoryConfig()

Action = Literal["new", "reinforce", "supersede", "ask"]


@dataclass(frozen=True)
class Existing:
    """What matching needs to know about a stored current fact."""

    id: str
    key: str
    subject: str
    category: str
    stems: frozenset[str]
    dated: bool
    vector: Sequence[float] | None = None
    age_days: float = 0.0  # how long before the new fact this one was stated
    values: tuple[Value, ...] = ()
    polarity: int = 0
    entities: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()  # intent topics the statement falls in ("home")
    updated: bool = False  # its chain was superseded before (a version > 1)


@dataclass(frozen=True)
class NewFact:
    """What matching needs to know about an incoming fact."""

    key: str | None
    subject: str
    category: str
    stems: frozenset[str]
    dated: bool
    correction: bool
    vector: Sequence[float] | None = None
    values: tuple[Value, ...] = ()
    polarity: int = 0
    entities: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()
    cued: bool = False  # a change word ("now", "new", "again", "теперь") without a correction
    again: bool = False  # a repeated change ("slipped again", "опять")
    #: Names nobody: no "I"/"my" and no relation ("Ballet moved to Thursdays", "Jasper quit
    #: football"). It may change a fact about anyone; the new version keeps that subject.
    impersonal: bool = False


@dataclass(frozen=True)
class Match:
    action: Action
    target: Existing | None = None
    similarity: float = 0.0


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if a is None or b is None or len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _numbers(stems: frozenset[str]) -> frozenset[str]:
    return frozenset(s for s in stems if any(ch.isdigit() for ch in s))


def _is_duplicate(new: NewFact, old: Existing, cfg: MemoryConfig) -> tuple[bool, float]:
    if _numbers(new.stems) != _numbers(old.stems):
        return False, 0.0  # "due March 20" never restates "due March 23"
    if new.correction and not new.stems <= old.stems:
        return False, 0.0  # "actually, it's green" never restates "it's blue"
    lex = jaccard(new.stems, old.stems)
    cos = cosine(new.vector, old.vector)
    return (lex >= cfg.duplicate_lexical or cos >= cfg.duplicate_cosine), max(lex, cos)


_RU_PREFIXES = (
    "пере",
    "пред",
    "при",
    "про",
    "под",
    "над",
    "раз",
    "рас",
    "вы",
    "за",
    "на",
    "по",
    "до",
    "от",
    "об",
    "со",
    "вз",
    "из",
    "не",
)


def _related(a: str, b: str, cfg: MemoryConfig = _DEFAULTS) -> bool:
    """Same stem, or one root (a shared beginning of ``root_prefix_latin`` letters, or
    ``root_prefix_cyrillic`` in Cyrillic, where derivation moves the ending more:
    "тренер" / "тренировки")."""
    if a == b:
        return True
    cyrillic = "а" <= a[:1].lower() <= "я"
    size = cfg.root_prefix_cyrillic if cyrillic else cfg.root_prefix_latin
    if len(a) < size or len(b) < size or a[:size] != b[:size]:
        return False
    return not (cyrillic and a.startswith(_RU_PREFIXES))


def _shares_a_word(a: frozenset[str], b: frozenset[str], cfg: MemoryConfig = _DEFAULTS) -> bool:
    """A shared word or root (clock times are single tokens, see ``content_stems``); a bare
    number is a value, not a word ("1 June" and "1 September" share nothing)."""
    if any(not x.isdigit() for x in a & b):
        return True
    return any(_related(x, y, cfg) for x in a if not x.isdigit() for y in b if not y.isdigit())


#: Categories that change like one another: a routine or a decision is a kind of plan.
_FAMILIES = {"routine": "plan", "decision": "plan"}


def _fuzzy_jaccard(a: frozenset[str], b: frozenset[str], cfg: MemoryConfig) -> float:
    shared = sum(1 for x in a if any(_related(x, y, cfg) for y in b))
    return shared / (len(a) + len(b) - shared) if shared else 0.0


def _correction_score(new: NewFact, old: Existing, cfg: MemoryConfig) -> float:
    """How well a correction fits ``old`` (0 when nothing links them).

    A link is a shared word or root; or a shared intent topic ("rent" and "landlord"
    are both about home, "boss" and "manager" about work) together with a changed
    value, a reversed preference or close embeddings; or a changed value of the same
    attribute, or of a fact already changed before when the turn says "again". Every
    threshold and bonus is a ``correction_*`` knob of :class:`MemoryConfig`.
    """
    cos = cosine(new.vector, old.vector)
    changed, named = _value_change(new, old, cfg, cued=True)
    reversed_ = _reversed(new, old)
    repeat = new.again and old.updated
    shared_topic = bool(_subject_topics(new, old)) or (named and bool(new.topics & old.topics))
    linked = (
        _shares_a_word(new.stems, old.stems, cfg)
        or _names_an_entity_of(new, old, cfg)
        or (shared_topic and (changed or reversed_ or cos >= cfg.correction_topic_cosine))
        # a changed value alone links only facts of one kind: a moved deadline is not a
        # past operation's date
        or (
            changed
            and (named or repeat or cos >= cfg.correction_value_cosine)
            and _compatible(new, old)
        )
    )
    if not linked:
        return 0.0
    # names count in their written form as well: the stemmer cuts some ("Ефим" -> "еф")
    score = _fuzzy_jaccard(new.stems | new.entities, old.stems | old.entities, cfg)
    # A bare correction ("I've switched to trail running") names no category of its own.
    same_family = _FAMILIES.get(new.category, new.category) == _FAMILIES.get(
        old.category, old.category
    )
    if same_family or "fact" in (new.category, old.category):
        score += cfg.correction_category_bonus
    elif reversed_:
        # "gives me migraines now" (health) reverses "my favourite" (preference)
        score += cfg.correction_reversal_bonus
    if new.dated and old.dated:
        score += cfg.correction_dated_bonus
    if shared_topic:
        score += cfg.correction_topic_bonus
    if changed:
        score += cfg.correction_named_value_bonus if named else cfg.correction_value_bonus
    if repeat:
        score += cfg.correction_again_bonus
    score += max(0.0, cos - cfg.similarity_bonus_from)
    # "Scratch that" usually corrects something said moments or days ago.
    for days, bonus in cfg.correction_recency_bonuses:
        if old.age_days < days:
            score += bonus
            break
    return score


def _topic(stems: frozenset[str], values: Sequence[Value]) -> frozenset[str]:
    """Content stems that are not values: what a fact is about ("gym", "fee")."""
    spelled = {str(w) for v in values for w in v.key if isinstance(w, str)}
    return frozenset(
        s for s in stems if not any(ch.isdigit() for ch in s) and s not in spelled and len(s) > 1
    )


def _same_topic(new: NewFact, old: Existing, cfg: MemoryConfig, *, cued: bool = False) -> float:
    """How much the two facts are about the same thing (0 when they are not).

    ``cued``: both values name the same attribute ("fee", "dose", "deadline"), or the
    new fact says it is a change ("now", "again"), so one shared topic word is enough,
    a shared intent topic without a shared word will do, and a new named entity is the
    new value rather than another thing.
    """
    if new.entities and old.entities and not new.entities & old.entities and not cued:
        return 0.0  # "meeting with Tom" is not "meeting with Ana"
    a, b = _topic(new.stems, new.values), _topic(old.stems, old.values)
    if not a or not b:
        return 0.0
    shared = sum(1 for x in a if any(_related(x, y, cfg) for y in b))
    if not shared and cued and _subject_topics(new, old):
        return cfg.topic_only_score  # "the landlord raised it to 1,240" after "my rent is 1,150"
    share = shared / min(len(a), len(b))
    cos = cosine(new.vector, old.vector)
    close = cos >= cfg.topic_close_cosine
    if share >= cfg.value_change_min_share or (shared and (cued or close)):
        return share + max(0.0, cos - cfg.similarity_bonus_from)
    return 0.0


def _subject_topics(new: NewFact, old: Existing) -> frozenset[str]:
    """The intent topics both facts are about. Money is left out: any two amounts fall in
    it, so it says what kind a value is, not what a fact is about."""
    return (new.topics & old.topics) - {"money"}


def _compatible(new: NewFact, old: Existing) -> bool:
    a = _FAMILIES.get(new.category, new.category)
    b = _FAMILIES.get(old.category, old.category)
    return a == b or "fact" in (a, b) or {a, b} <= {"health", "plan", "preference"}


def _meaningful(value: Value, cfg: MemoryConfig, *, cued: bool = False) -> bool:
    """A bare number counts only beside a cue ("fee 45"); "milestone 3" is an identifier.
    After a change word ("raised it, 1,240 now") a bare amount from ``cued_bare_amount_min``
    on counts."""
    if not (value.kind == "number" and value.key[0] == "" and value.attribute is None):
        return True
    return cued and value.amount >= cfg.cued_bare_amount_min


#: Attributes that are one thing to a user: what something costs; who they report to.
_ATTRIBUTE_FAMILIES = {
    **dict.fromkeys(("budget", "price", "fee", "salary", "rent", "deposit", "payment"), "money"),
    **dict.fromkeys(("manager", "boss", "supervisor", "head", "lead", "director"), "boss"),
}


def _family(attribute: str | None) -> str | None:
    return _ATTRIBUTE_FAMILIES.get(attribute or "", attribute)


def _value_change(
    new: NewFact, old: Existing, cfg: MemoryConfig, *, cued: bool = False
) -> tuple[bool, bool]:
    """(a value of one kind and attribute differs with none agreeing, both name the attribute).

    ``cued``: the new fact says it is a change, so its bare amounts count."""
    changed = named = False
    for va in (v for v in new.values if _meaningful(v, cfg, cued=cued)):
        for vb in (v for v in old.values if _meaningful(v, cfg, cued=cued)):
            if not va.comparable(vb):
                continue
            a, b = _family(va.attribute), _family(vb.attribute)
            if a and b and a != b:
                continue
            if va.agrees(vb):
                return False, False
            changed = True
            # The same attribute, or the same specific unit ("a month", "EUR"), names
            # what the value is, so one shared topic word is enough.
            same_unit = va.kind == "number" and va.key[0] != "" and va.key[0] == vb.key[0]
            named = named or (a is not None and a == b) or same_unit
    return changed, named


_POLAR_CATEGORIES = frozenset({"preference", "health", "fact", "routine", "decision"})


def _reversed(new: NewFact, old: Existing) -> bool:
    return (
        new.polarity * old.polarity < 0
        and new.category in _POLAR_CATEGORIES
        and old.category in _POLAR_CATEGORIES
    )


def _implicit_change(new: NewFact, same_subject: Sequence[Existing], cfg: MemoryConfig) -> Match:
    """Rules 4 and 5: a new value, or a reversed preference, on the same topic."""
    best: tuple[float, Existing] | None = None
    for old in same_subject:
        if not _compatible(new, old) and not _reversed(new, old):
            continue
        changed, named = _value_change(new, old, cfg, cued=new.cued)
        if not (changed or _reversed(new, old)):
            continue
        topic = _same_topic(new, old, cfg, cued=named or new.cued)
        if topic <= 0:
            continue
        if named:  # "price" and "fee" name one attribute: the better target
            topic += cfg.implicit_named_bonus
        if best is None or topic > best[0]:
            best = (topic, old)
    if best is None:
        return Match("new")
    return Match("supersede", best[1], best[0])


def _names_their_person(new: NewFact, old: Existing, cfg: MemoryConfig) -> bool:
    """A correction about the user that names someone a stored fact about another person
    names ("Priya and I split up" after "my girlfriend is Priya"; "Мы с Ефимом расстались"
    after "мой парень — Ефим", one root): that fact is a candidate too."""
    if not (new.correction and new.subject == "self" and old.subject != "self"):
        return False
    return _names_an_entity_of(new, old, cfg)


def _names_an_entity_of(new: NewFact, old: Existing, cfg: MemoryConfig) -> bool:
    """``new`` names one of ``old``'s entities, in any form: its words are read too,
    since a sentence's first word is no entity ("Priya and I..."), and the stemmer may cut
    a name ("Ефим" -> "еф") where an inflected form keeps it ("Ефимом" -> "ефим")."""
    return any(_related(a, b, cfg) for a in new.entities | new.stems for b in old.entities)


def match_fact(new: NewFact, existing: Sequence[Existing], config: MemoryConfig) -> Match:
    """Decide what ``new`` does to the current facts ``existing`` (same namespace)."""
    same_subject = [
        e
        for e in existing
        if e.subject == new.subject or new.impersonal or _names_their_person(new, e, config)
    ]
    if new.key is not None:
        for old in existing:
            if old.key == new.key:
                dup, sim = _is_duplicate(new, old, config)
                return Match("reinforce" if dup else "supersede", old, sim)
    best_dup: tuple[float, Existing] | None = None
    for old in same_subject:
        dup, sim = _is_duplicate(new, old, config)
        if dup and (best_dup is None or sim > best_dup[0]):
            best_dup = (sim, old)
    if best_dup is not None:
        return Match("reinforce", best_dup[1], best_dup[0])
    if new.correction:
        # Equal rule scores go to the closer meaning ("nursery price" is nearer "daycare
        # fee" than "landlord raised the rent"), then to the fact said later.
        scored = sorted(
            ((_correction_score(new, old, config), old) for old in same_subject),
            key=lambda pair: (pair[0], cosine(new.vector, pair[1].vector), -pair[1].age_days),
            reverse=True,
        )
        if scored and scored[0][0] >= config.correction_min_score:
            return Match("supersede", scored[0][1], scored[0][0])
    implicit = _implicit_change(new, same_subject, config)
    if implicit.action == "supersede":
        return implicit
    low, high = config.contradiction_band
    best: tuple[float, Existing] | None = None
    for old in same_subject:
        sim = max(jaccard(new.stems, old.stems), cosine(new.vector, old.vector))
        if best is None or sim > best[0]:
            best = (sim, old)
    if best is not None and low <= best[0] < high:
        return Match("ask", best[1], best[0])
    return Match("new", None, best[0] if best else 0.0)
