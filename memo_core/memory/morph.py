"""Russian verbs in the first person: the user speaking of themselves without "я".

Russian drops the subject pronoun whenever the verb's ending already names it:
"Пью варфарин" (I take warfarin), "Учу японский", "Откладываем на машину". A
capture that looks for "я"/"мой" misses these, so a sentence whose verb is in the
first person counts as said about the user (or about "us").

The verb forms come from ``pymorphy3``'s OpenCorpora dictionary (the ``local``
extra; loaded once, on first use). Without it, only pronouns and possessives
say who a sentence is about, and :func:`morphology_available` is False.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["first_person_verb", "morphology_available"]

_WORD = re.compile(r"[а-яё]+(?:-[а-яё]+)?", re.IGNORECASE)

#: Share of a word's dictionary readings that must be a first-person verb: "плачу" (I pay;
#: also "плач", a cry, in the dative) passes, "воду" (water) has no verb reading at all.
_VERB_SHARE = 0.3


@functools.cache
def _analyzer() -> Any | None:
    try:
        import pymorphy3
    except ImportError:  # the optional "local" extra is not installed
        return None
    return pymorphy3.MorphAnalyzer()


def morphology_available() -> bool:
    """Whether ``pymorphy3`` is installed (``pip install 'memo[local]'``)."""
    return _analyzer() is not None


@functools.lru_cache(maxsize=65536)
def _is_first_person(word: str) -> bool:
    analyzer = _analyzer()
    if analyzer is None:
        return False
    share = sum(
        p.score
        for p in analyzer.parse(word)
        if p.tag.POS == "VERB" and p.tag.person == "1per" and p.tag.mood == "indc"
    )
    return bool(share >= _VERB_SHARE)


def first_person_verb(text: str) -> bool:
    """Whether ``text`` holds a Russian verb in the first person ("пью", "копим")."""
    return any(_is_first_person(m.group(0).lower()) for m in _WORD.finditer(text))
