"""The answer path as it stood before issue 20, frozen so later runs can compare against it.

    from legacy_gate import LegacyAnswerer
    result = LegacyAnswerer(kb).ask("Which PEP ...?")   # LegacyResult: refused, score, quotes

What is frozen (copied from memo_core at commit f30329e, 2026-12-01, so that replacing
the engine's gate, picker or splitter does not move this baseline):

* the two-feature sufficiency gate: IDF-weighted coverage of the question's content
  terms by the best hit, and that hit's cosine similarity, combined by the logistic
  weights and threshold then shipped in ``memo_core/data/gate_calibration.json``
  (kept below as constants);
* the extractive sentence picker and the rule-based sentence splitter it used.

What it still shares with the live engine: retrieval (``MemoBase.search``, top 5,
hybrid), tokenising and stemming (``memo_core.search.text``) and the keyword index's
document frequencies (FTS5 vocabulary; SQLite bases only). Its quotes are spans of
the retrieved chunks, verbatim by construction, so they need no verifier: the
evaluator checks each one at its offsets.

This module is a baseline, not code to maintain: it changes only to keep running.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memo_core.search.text import STOPWORDS, detect_language, stem_token, tokenize
from memo_core.types import Hit

__all__ = ["LEGACY_CALIBRATIONS", "LegacyAnswerer", "LegacyQuote", "LegacyResult"]

#: (coverage weight, similarity weight, bias, threshold) per embedder model, as shipped.
LEGACY_CALIBRATIONS: dict[str, tuple[float, float, float, float]] = {
    "memo/all-MiniLM-L6-v2-int8": (
        6.331417715589833,
        3.516512130724314,
        -4.423558675350621,
        0.35128409579928965,
    ),
    "hash-v1-tri": (6.99592957619298, 1.2080007296045594, -3.472959856248745, 0.3159677736714296),
    "keyword-only": (7.2480371514184485, 0.0, -3.2005244292008106, 0.3295257355347229),
}


@dataclass(frozen=True)
class LegacyQuote:
    quote: str
    chunk_id: str
    start: int
    end: int
    source: str = ""
    locator: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LegacyResult:
    refused: bool
    score: float
    threshold: float
    quotes: tuple[LegacyQuote, ...] = ()

    @property
    def text(self) -> str:
        return " ".join(q.quote for q in self.quotes)


class LegacyAnswerer:
    """Gate, then up to two picked sentences; a refusal when the gate fails or nothing is picked."""

    def __init__(self, kb: Any, *, k: int = 5, max_sentences: int = 2) -> None:
        self.kb = kb
        self.k = k
        self.max_sentences = max_sentences
        fp = kb.store.fingerprint
        model = fp.model if fp else None
        self.keyword_only = model not in LEGACY_CALIBRATIONS
        self.calibration = LEGACY_CALIBRATIONS[model if not self.keyword_only else "keyword-only"]
        kb.store.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memo_chunks_vocab "
            "USING fts5vocab(main, 'chunks_fts', 'row')"
        )

    # -- the gate -----------------------------------------------------------

    def _df(self, term: str) -> int:
        row = self.kb.store.db.query_one(
            "SELECT doc FROM temp.memo_chunks_vocab WHERE term = ?", [term]
        )
        return 0 if row is None else int(row[0])

    def gate_score(self, question: str, hits: Sequence[Hit]) -> float:
        if not hits:
            return 0.0
        lang = detect_language(question)
        terms = list(
            dict.fromkeys(stem_token(t, lang) for t in tokenize(question) if t not in STOPWORDS)
        )
        total = int(self.kb.store.db.query_one("SELECT count(*) FROM chunks")[0])
        idf = {t: math.log((total + 1) / (self._df(t) + 0.5)) for t in terms}
        weight = sum(idf.values())
        coverage = 0.0
        if weight > 0:
            hit_lang = detect_language(hits[0].text)
            present = {stem_token(t, hit_lang) for t in tokenize(hits[0].text)}
            coverage = sum(v for t, v in idf.items() if t in present) / weight
        w_cov, w_sim, bias, _ = self.calibration
        z = w_cov * coverage + bias
        similarity = hits[0].vector_similarity
        if similarity is not None and not self.keyword_only:
            z += w_sim * similarity
        return 1.0 / (1.0 + math.exp(-z))

    def ask(self, question: str) -> LegacyResult:
        hits = self.kb.search(question, k=self.k)
        score = self.gate_score(question, hits)
        threshold = self.calibration[3]
        if score < threshold:
            return LegacyResult(True, score, threshold)
        by_id = {h.chunk_id: h for h in hits}
        picked = extractive_answer(
            question, [(h.chunk_id, h.text) for h in hits], max_sentences=self.max_sentences
        )
        quotes = tuple(
            LegacyQuote(
                by_id[c].text[s:e].strip(), c, s, e, by_id[c].source, dict(by_id[c].locator)
            )
            for c, s, e in picked
        )
        return LegacyResult(not quotes, score, threshold, quotes)


# -- the extractive picker (frozen) ---------------------------------------------


@dataclass(frozen=True)
class _PickerConfig:
    rank_decay: float = 0.5
    long_sentence: int = 25
    length_penalty: float = 0.25
    min_coverage: float = 0.15


def _terms(text: str, language: str) -> list[str]:
    return [stem_token(t, language) for t in tokenize(text) if t not in STOPWORDS]


@dataclass(frozen=True)
class _Sentence:
    chunk_id: str
    rank: int
    start: int
    end: int
    terms: frozenset[str]
    length: int


def extractive_answer(
    question: str,
    passages: Sequence[tuple[str, str]],
    *,
    max_sentences: int = 2,
) -> list[tuple[str, int, int]]:
    """Pick up to ``max_sentences`` sentences answering ``question``.

    ``passages`` are ``(chunk_id, text)`` in retrieval order (best first). Returns
    ``(chunk_id, start, end)`` spans into each passage's text, best first; an
    empty list when no sentence shares enough of the question's content words.
    """
    cfg = _PickerConfig()
    language = detect_language(question)
    qterms = set(_terms(question, language))
    if not qterms or max_sentences <= 0:
        return []
    sentences: list[_Sentence] = []
    for rank, (chunk_id, text) in enumerate(passages):
        for start, end in split_sentences(text):
            toks = _terms(text[start:end], language)
            sentences.append(_Sentence(chunk_id, rank, start, end, frozenset(toks), len(toks)))
    if not sentences:
        return []
    n = len(sentences)
    df = {t: sum(1 for s in sentences if t in s.terms) for t in qterms}
    idf = {t: math.log(1.0 + (n + 1) / (df[t] + 0.5)) for t in qterms}
    total = sum(idf.values())
    scored: list[tuple[float, int, _Sentence]] = []
    for order, s in enumerate(sentences):
        weight = sum(idf[t] for t in qterms & s.terms)
        if weight <= 0 or weight / total < cfg.min_coverage:
            continue
        score = weight / (1.0 + cfg.rank_decay * s.rank)
        if s.length > cfg.long_sentence:
            score /= (s.length / cfg.long_sentence) ** cfg.length_penalty
        scored.append((score, order, s))
    scored.sort(key=lambda x: (-x[0], x[1]))
    picked: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    for _, _, s in scored:
        # Overlapping chunks repeat sentences: pick each sentence text once.
        key = " ".join(passages[s.rank][1][s.start : s.end].split()).casefold()
        if key in seen:
            continue
        seen.add(key)
        picked.append((s.chunk_id, s.start, s.end))
        if len(picked) >= max_sentences:
            break
    return picked


# -- the sentence splitter (frozen) ---------------------------------------------

#: Lower-cased words that end with a period without ending a sentence.
ABBREVIATIONS: frozenset[str] = frozenset(
    str.split(
        """e.g i.e etc vs viz cf al approx dr mr mrs ms prof st jr sr inc ltd co corp no nos fig
    figs vol pp p ch sec art gen col lt capt sgt rev hon mt ft dept est ed eds univ jan feb
    mar apr jun jul aug sep sept oct nov dec u.s u.k u.n a.m p.m ph.d b.c a.d
    т.е т.д т.п т.к т.н др пр г гг см им ул д проф стр рис тыс млн млрд руб коп вв н.э
    акад доц св ср напр"""
    )
)

_TERMINAL = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s)|[.!?…]+[\"'”’»)\]]*$")
_WORD_BEFORE = re.compile(r"([\w.]+)\.$")
_BULLET = re.compile(r"(?:[-*•‣◦▪–—]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"#{1,6}\s")
_TITLE_MAX = 40


def _is_abbreviation(text: str, dot: int) -> bool:
    """Whether the period at ``text[dot]`` ends an abbreviation or an initial."""
    m = _WORD_BEFORE.search(text, 0, dot + 1)
    if not m:
        return False
    word = m.group(1).lower()
    if word in ABBREVIATIONS or word.strip(".") in ABBREVIATIONS:
        return True
    token = m.group(1)
    if len(token) == 1 and token.isalpha() and token.isupper():
        return True  # an initial: "J. K. Rowling"
    # dotted acronyms such as "U.S.A" or "т.е": single letters separated by periods
    return bool(re.fullmatch(r"(?:\w\.)+\w", token))


def _line_breaks(text: str) -> list[int]:
    """Positions where a line structure (not punctuation) ends a sentence."""
    cuts: list[int] = []
    lines = text.split("\n")
    pos = 0
    for k, line in enumerate(lines[:-1]):
        end = pos + len(line)
        nxt = lines[k + 1].strip()
        cur = line.strip()
        if (
            not cur
            or not nxt
            or _BULLET.match(nxt)
            or _HEADING.match(nxt)
            or _HEADING.match(cur)
            or (len(cur) <= _TITLE_MAX and cur[-1:].isalnum() and nxt[:1].isupper())
        ):
            cuts.append(end)
        pos = end + 1
    return cuts


def _punctuation_breaks(text: str) -> list[int]:
    cuts: list[int] = []
    for m in _TERMINAL.finditer(text):
        end = m.end()
        rest = text[end:].lstrip()
        if rest and rest[0].islower():
            continue
        punct = m.group().rstrip("\"'”’»)]")
        if punct == "." and _is_abbreviation(text, m.start()) and rest:
            continue
        cuts.append(end)
    return cuts


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    for rule in (_BULLET, _HEADING):
        m = rule.match(text, a, b)
        if m:
            a = m.end()
    while a < b and text[a].isspace():
        a += 1
    return a, b


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, in order.

    Spans exclude surrounding whitespace and leading bullet or heading markers;
    fragments without a letter or digit are dropped.
    """
    cuts = sorted(set(_punctuation_breaks(text)) | set(_line_breaks(text)))
    spans: list[tuple[int, int]] = []
    prev = 0
    for cut in [*cuts, len(text)]:
        if cut <= prev:
            continue
        a, b = _trim(text, prev, cut)
        if a < b and any(c.isalnum() for c in text[a:b]):
            spans.append((a, b))
        prev = cut
    return spans
