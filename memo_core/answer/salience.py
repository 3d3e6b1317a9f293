"""The terms of a question that an answer cannot do without.

A question about "version 3.14", "Product B" or "the Zurich office" is not answered
by a passage about version 3.12, Product A or the Berlin office, however similar
the rest. :func:`hard_terms` picks out the question's numbers, versions and
capitalised names (not its first word, which is capitalised anyway);
:func:`missing_terms` lists those absent from the evidence (numbers exactly,
names by stem). The gate reads them as features; the engine refuses an answer
whose cited passages miss one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memo_core.search.text import STOPWORDS, detect_language, stem_token

__all__ = ["hard_terms", "missing_terms"]

# A version or number ("3.12", "v2", "1,200", "10th") or a word.
_TERM = re.compile(r"[vV]?\d+(?:[.,:/-]\d+)*[^\W_]*|[^\W\d_]+(?:['’][^\W_]+)*")
_DIGIT = re.compile(r"\d")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"'«“(]\s*)$")


def hard_terms(question: str) -> list[str]:
    """Numbers, versions and capitalised names of ``question``, lower-cased, in order."""
    out: list[str] = []
    for m in _TERM.finditer(question):
        word = m.group()
        folded = word.lower()
        if _DIGIT.search(word):
            out.append(
                folded.lstrip("v") if folded[:1] == "v" and folded[1:2].isdigit() else folded
            )
            continue
        at_start = bool(_SENTENCE_START.search(question[: m.start()]))
        if word[:1].isupper() and not at_start and folded not in STOPWORDS and len(word) > 1:
            out.append(folded)
    return list(dict.fromkeys(out))


def missing_terms(question: str, evidence: Iterable[str]) -> list[str]:
    """The :func:`hard_terms` of ``question`` that no text of ``evidence`` contains."""
    terms = hard_terms(question)
    if not terms:
        return []
    text = " ".join(evidence)
    language = detect_language(text)
    words = {m.group().lower() for m in _TERM.finditer(text)}
    numbers = {w.lstrip("v") for w in words if _DIGIT.search(w)}
    stems = {stem_token(w, language) for w in words if not _DIGIT.search(w)}
    missing = []
    for term in terms:
        if _DIGIT.search(term):
            if term not in numbers:
                missing.append(term)
        elif term not in words and stem_token(term, language) not in stems:
            missing.append(term)
    return missing
