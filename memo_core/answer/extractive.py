"""Extractive mode: answer with the best-matching sentences, no LLM at all.

A pure function over ranked passages. Each candidate sentence (a span found by
:func:`~memo_core.answer.sentences.split_sentences`) scores the inverse
sentence frequency of the question's stemmed content words it contains, so a
rare term ("Bevington") outweighs a common one ("university"); long sentences
pay a mild length penalty and sentences of lower-ranked passages a rank
discount; headings (:func:`~memo_core.answer.windows.is_heading`) are never
picked. With a :class:`~memo_core.answer.semantic.SentenceSimilarity` (the base's
embedder, the one the gate reads too), the best-scoring candidates are re-ranked
by their embedding similarity to the question as well: the words a question
shares with a sentence do not tell alone which of several sentences about the
same thing answers it. Because answers are spans of the passages, each picked
sentence is verbatim by construction; the engine still runs the citation check
on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.sentences import split_sentences
from memo_core.answer.windows import is_heading, without_type_cue
from memo_core.search.text import STOPWORDS, detect_language, stem_token, tokenize

__all__ = ["ExtractiveConfig", "extractive_answer"]


@dataclass(frozen=True)
class ExtractiveConfig:
    """Scoring knobs: ``rank_decay`` discounts passage rank r by ``1/(1 + rank_decay*r)``;
    sentences longer than ``long_sentence`` tokens are divided by ``(len/long_sentence)**
    length_penalty``; a sentence needs at least ``min_coverage`` of the question's term
    weight to be picked at all. With sentence similarity, the best ``candidates`` by
    that score are re-ranked by ``score/best + similarity_weight * similarity``
    (tuned on the dev sets: answerable questions whose gold answer is among the
    picked sentences, pydoc 0.707 -> 0.714, SQuAD 0.856 -> 0.862).
    """

    rank_decay: float = 0.5
    long_sentence: int = 25
    length_penalty: float = 0.25
    min_coverage: float = 0.15
    candidates: int = 8
    similarity_weight: float = 0.5


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
    config: ExtractiveConfig | None = None,
    similarity: SentenceSimilarity | None = None,
) -> list[tuple[str, int, int]]:
    """Pick up to ``max_sentences`` sentences answering ``question``.

    ``passages`` are ``(chunk_id, text)`` in retrieval order (best first). Returns
    ``(chunk_id, start, end)`` spans into each passage's text, best first; an
    empty list when no sentence shares enough of the question's content words.
    """
    cfg = config or ExtractiveConfig()
    language = detect_language(question)
    # "long" in "how long" names the answer's type; the gate does not weigh it either.
    qterms = set(_terms(without_type_cue(question), language))
    if not qterms or max_sentences <= 0:
        return []
    sentences: list[_Sentence] = []
    for rank, (chunk_id, text) in enumerate(passages):
        for start, end in split_sentences(text):
            if is_heading(text, start, end):
                continue  # a heading is context for its section, never the answer
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
    if similarity is not None and scored and cfg.similarity_weight:
        head = scored[: cfg.candidates]
        sims = similarity.similarities(
            question, [passages[s.rank][1][s.start : s.end] for _, _, s in head]
        )
        best = head[0][0]
        head = [
            (score / best + cfg.similarity_weight * sim, order, s)
            for (score, order, s), sim in zip(head, sims, strict=True)
        ]
        head.sort(key=lambda x: (-x[0], x[1]))
        scored = head + scored[cfg.candidates :]
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
