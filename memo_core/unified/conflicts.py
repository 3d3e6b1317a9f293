"""Conflict flags: where memory and documents (or two memories) disagree.

A conflict is raised for a pair of items — a memory fact and a document chunk,
or two memory facts of different chains — when, in a pair of their sentences:

1. **the subject is the same**: the sentences share at least two content stems
   (see :func:`~memo_core.unified.values.subject_words`; a chunk's sentences also
   count its title and heading words), at least one of which is not an attribute
   cue word, and the shared stems make up at least half of the smaller side's;
   or the two facts have the same non-opaque memory key (``self.city``);
2. **the attribute is the same**: two values of one kind (dates; numbers in the
   same unit; names) whose attribute classes are equal (``due`` and ``deadline``
   are both ``deadline``), or, when a side has no cue word, each sentence holds
   exactly one value of that kind;
3. **the values differ**, and no other compared value of the same pair,
   kind and attribute agrees (a chunk saying "interim report due 15 January,
   final report due 27 March" does not conflict with "the report is due March 27").

A date without a year agrees with any year. Superseded memory versions never
take part (they are history, not a rival claim), nor do raw past messages.
Conflicts that share an item, a kind and an attribute are merged, so three
sources disagreeing give one conflict with three sides.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from memo_core.answer.sentences import split_sentences
from memo_core.search.text import stem_token
from memo_core.unified.types import Conflict, UnifiedItem
from memo_core.unified.values import (
    ATTRIBUTE_CUES,
    Sentence,
    Value,
    ValueKind,
    analyse_sentence,
)

__all__ = ["MIN_SHARED", "SHARED_SHARE", "detect_conflicts", "same_subject"]

#: Content stems two sentences must share to be about the same subject.
MIN_SHARED = 2
#: ... and the share of the smaller sentence's subject they must cover.
SHARED_SHARE = 0.5


@functools.lru_cache(maxsize=1)
def _cue_stems() -> frozenset[str]:
    stems = {stem_token(word, "english") for word in ATTRIBUTE_CUES}
    stems |= {"lead", "manag", "owner", "contact", "name", "head"}
    return frozenset(stems)


def same_subject(a: Sentence, b: Sentence) -> tuple[bool, list[str]]:
    """Whether two sentences are about the same thing, and the shared words (a's spelling)."""
    shared = a.stems & b.stems
    content = shared - _cue_stems()
    smaller = min(len(a.stems), len(b.stems))
    ok = len(shared) >= MIN_SHARED and bool(content) and len(shared) >= SHARED_SHARE * smaller
    words = [word for stem, word in a.subject.items() if stem in (content or shared)]
    return ok, words


def _opaque(key: str) -> bool:
    return not key or key.startswith("fact_")


def _key_words(key: str) -> str:
    """``self.allergy:penicillin`` -> ``allergy penicillin`` (opaque ids give nothing)."""
    if _opaque(key):
        return ""
    parts = [p for p in key.replace(":", ".").replace("_", " ").split(".") if p != "self"]
    return " ".join(parts)


def _sentences(item: UnifiedItem) -> list[Sentence]:
    if item.fact is not None:
        fact = item.fact
        context = " ".join(filter(None, [fact.about, _key_words(fact.key)]))
        text = fact.statement
    elif item.hit is not None:
        heading = item.hit.locator.get("heading") or ""
        if isinstance(heading, list | tuple):
            heading = " ".join(map(str, heading))
        context = f"{item.hit.title} {heading}"
        text = item.text
    else:
        return []
    out = []
    for start, end in split_sentences(text):
        sentence = analyse_sentence(text[start:end], context)
        if sentence.values:
            out.append(sentence)
    return out


def _attribute(va: Value, vb: Value, sa: Sentence, sb: Sentence) -> str | None:
    """The attribute two comparable values share, or ``None`` when they are about different ones."""
    if va.attribute and vb.attribute:
        return va.attribute if va.attribute == vb.attribute else None
    if va.kind == "name":
        return None
    one_each = (
        sum(1 for v in sa.values if v.comparable(va)) == 1
        and sum(1 for v in sb.values if v.comparable(vb)) == 1
    )
    if not one_each:
        return None
    return va.attribute or vb.attribute or va.kind


@dataclass
class _Comparison:
    subject: list[str]
    agree: bool = False
    mine: list[Value] = field(default_factory=list)
    theirs: list[Value] = field(default_factory=list)


def _distinct(values: list[Value]) -> str:
    seen: list[str] = []
    for value in values:
        if value.display not in seen:
            seen.append(value.display)
    return ", ".join(seen)


def _compare(
    a: UnifiedItem, sa_list: list[Sentence], b: UnifiedItem, sb_list: list[Sentence]
) -> list[Conflict]:
    same_key = (
        a.fact is not None
        and b.fact is not None
        and not _opaque(a.fact.key)
        and a.fact.key == b.fact.key
    )
    found: dict[tuple[ValueKind, str], _Comparison] = {}
    for sa in sa_list:
        for sb in sb_list:
            related, words = same_subject(sa, sb)
            if not (related or same_key):
                continue
            if same_key and not words:
                words = [_key_words(a.fact.key) if a.fact is not None else ""]
            for va in sa.values:
                for vb in sb.values:
                    if not va.comparable(vb):
                        continue
                    attribute = _attribute(va, vb, sa, sb)
                    if attribute is None:
                        continue
                    cmp = found.setdefault((va.kind, attribute), _Comparison(words))
                    if va.agrees(vb):
                        cmp.agree = True
                    else:
                        cmp.mine.append(va)
                        cmp.theirs.append(vb)
    return [
        Conflict(
            subject=" ".join(cmp.subject),
            attribute=attribute,
            sides=((a.ref, _distinct(cmp.mine)), (b.ref, _distinct(cmp.theirs))),
            kind=kind,
        )
        for (kind, attribute), cmp in found.items()
        if not cmp.agree and cmp.mine
    ]


def _merge(conflicts: list[Conflict]) -> list[Conflict]:
    merged: list[Conflict] = []
    for conflict in conflicts:
        for i, other in enumerate(merged):
            if (other.kind, other.attribute) == (conflict.kind, conflict.attribute) and set(
                other.refs
            ) & set(conflict.refs):
                sides = list(other.sides)
                sides += [s for s in conflict.sides if s[0] not in other.refs]
                merged[i] = Conflict(other.subject, other.attribute, tuple(sides), other.kind)
                break
        else:
            merged.append(conflict)
    return merged


def detect_conflicts(items: Sequence[UnifiedItem]) -> list[Conflict]:
    """Conflicts among ``items`` (memory fact vs chunk, memory fact vs memory fact)."""
    analysed = [(item, _sentences(item)) for item in items]
    analysed = [(item, sentences) for item, sentences in analysed if sentences]
    conflicts: list[Conflict] = []
    for i, (a, sa) in enumerate(analysed):
        for b, sb in analysed[i + 1 :]:
            if a.fact is None and b.fact is None:
                continue  # document vs document is not what this flags
            if a.fact is not None and b.fact is not None and a.fact.chain_id == b.fact.chain_id:
                continue  # versions of one fact supersede, they do not conflict
            first, second = (a, b) if a.fact is not None else (b, a)
            s_first, s_second = (sa, sb) if first is a else (sb, sa)
            conflicts += _compare(first, s_first, second, s_second)
    return _merge(conflicts)
