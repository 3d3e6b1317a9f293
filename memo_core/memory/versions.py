"""SUPERSEDE decisions: is a new fact new, a restatement, or a change of an older one?

Pure functions over small views of stored facts, so the rules are testable
without a database. In order:

1. **Same key** (a one-value slot such as ``self.residence``, or an item key):
   a restatement reinforces, anything else supersedes.
2. **Near-duplicate** (content-stem Jaccard >= ``duplicate_lexical`` or embedding
   cosine >= ``duplicate_cosine``, and the same numbers): reinforce, no new version.
3. **Explicit correction** ("actually", "moved to", "перенесли"...): supersede the
   best-matching current fact about the same subject, scored by shared content
   words, same category and both carrying a date/time; at least one shared
   content word is required so a correction never lands on an unrelated fact.
4. Similarity inside ``contradiction_band`` with no explicit signal: ``ask`` (the
   caller asks the LLM when one is configured, otherwise adds a new fact).
5. Otherwise: a new fact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from memo_core.memory.config import MemoryConfig

__all__ = ["Existing", "Match", "NewFact", "cosine", "jaccard", "match_fact"]

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


def _related(a: str, b: str) -> bool:
    """Same stem, or one root (a shared beginning: 5 letters, 4 in Cyrillic, where
    derivation moves the ending more: "тренер" / "тренировки")."""
    if a == b:
        return True
    cyrillic = "а" <= a[:1].lower() <= "я"
    size = 4 if cyrillic else 5
    if len(a) < size or len(b) < size or a[:size] != b[:size]:
        return False
    return not (cyrillic and a.startswith(_RU_PREFIXES))


def _shares_a_word(a: frozenset[str], b: frozenset[str]) -> bool:
    """A shared word or root (clock times are single tokens, see ``content_stems``)."""
    return bool(a & b) or any(
        _related(x, y) for x in a if not x.isdigit() for y in b if not y.isdigit()
    )


_FAMILIES = {"routine": "plan"}


def _fuzzy_jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    shared = sum(1 for x in a if any(_related(x, y) for y in b))
    return shared / (len(a) + len(b) - shared) if shared else 0.0


def _correction_score(new: NewFact, old: Existing) -> float:
    if not _shares_a_word(new.stems, old.stems):
        return 0.0
    score = _fuzzy_jaccard(new.stems, old.stems)
    # A bare correction ("I've switched to trail running") names no category of its own.
    same_family = _FAMILIES.get(new.category, new.category) == _FAMILIES.get(
        old.category, old.category
    )
    if same_family or new.category == "fact":
        score += 0.25
    if new.dated and old.dated:
        score += 0.25
    cos = cosine(new.vector, old.vector)
    if cos > 0.5:
        score += cos - 0.5
    # "Scratch that" usually corrects something said moments or days ago.
    if old.age_days < 1 / 24:
        score += 0.2
    elif old.age_days < 7:
        score += 0.1
    return score


def match_fact(new: NewFact, existing: Sequence[Existing], config: MemoryConfig) -> Match:
    """Decide what ``new`` does to the current facts ``existing`` (same namespace)."""
    same_subject = [e for e in existing if e.subject == new.subject]
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
        scored = sorted(
            ((_correction_score(new, old), old) for old in same_subject),
            key=lambda pair: pair[0],
            reverse=True,
        )
        if scored and scored[0][0] >= config.correction_min_score:
            return Match("supersede", scored[0][1], scored[0][0])
    low, high = config.contradiction_band
    best: tuple[float, Existing] | None = None
    for old in same_subject:
        sim = max(jaccard(new.stems, old.stems), cosine(new.vector, old.vector))
        if best is None or sim > best[0]:
            best = (sim, old)
    if best is not None and low <= best[0] < high:
        return Match("ask", best[1], best[0])
    return Match("new", None, best[0] if best else 0.0)
