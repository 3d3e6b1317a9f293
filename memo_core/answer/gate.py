"""The sufficiency gate: refuse before any LLM call when the base holds no answer.

The original plugin gated on a rank-based RRF number, which is always above a
small threshold and so never refused. This gate uses *absolute* signals of the
best hit instead:

* ``coverage`` — the IDF-weighted share of the question's content terms (stemmed)
  that occur in the best hit. Rare terms weigh most: a question about "Afranji"
  is not answered by a paragraph that only shares "Normans".
* ``similarity`` — the cosine similarity of the best hit to the question (when the
  base has vectors).

They combine in a logistic model ``score = σ(w_c·coverage + w_s·similarity + b)``
whose weights and threshold are calibrated per embedder on ../shared/eval/qa by
``python bench/calibrate_gate.py`` and shipped in ``memo_core/data/gate_calibration.json``.
The threshold is the score that keeps 95% of answerable questions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from memo_core.answer.types import GateDecision
from memo_core.errors import ConfigError
from memo_core.search.text import STOPWORDS, detect_language, stem_token, tokenize
from memo_core.types import Hit

if TYPE_CHECKING:
    from memo_core.kb.pg_store import PostgresKnowledgeStore
    from memo_core.kb.store import KnowledgeStore

__all__ = ["GateCalibration", "SufficiencyGate", "gate_features", "load_calibrations"]

#: The calibration used when an embedder has none of its own: vectors are ignored.
KEYWORD_ONLY = "keyword-only"


@dataclass(frozen=True)
class GateCalibration:
    """Logistic weights and the decision threshold for one embedder."""

    embedder: str
    coverage_weight: float
    similarity_weight: float
    bias: float
    threshold: float
    metrics: Mapping[str, float] = field(default_factory=dict)

    def score(self, coverage: float, similarity: float | None) -> float:
        z = self.coverage_weight * coverage + self.bias
        if similarity is not None:
            z += self.similarity_weight * similarity
        return 1.0 / (1.0 + math.exp(-z))


def load_calibrations() -> dict[str, GateCalibration]:
    """The shipped calibrations, by embedder model name (plus ``keyword-only``)."""
    text = resources.files("memo_core").joinpath("data/gate_calibration.json").read_text("utf-8")
    data = json.loads(text)
    return {
        name: GateCalibration(
            embedder=name,
            coverage_weight=float(c["coverage_weight"]),
            similarity_weight=float(c["similarity_weight"]),
            bias=float(c["bias"]),
            threshold=float(c["threshold"]),
            metrics={k: float(v) for k, v in c.get("metrics", {}).items()},
        )
        for name, c in data["calibrations"].items()
    }


class _DocumentFrequencies:
    """Document frequencies of stemmed/raw terms, read from the keyword index itself.

    SQLite reads FTS5's own vocabulary (an ``fts5vocab`` table); PostgreSQL counts
    the chunks whose raw or stemmed ``tsvector`` holds the term, through the store,
    which caches the counts until the next write.
    """

    def __init__(self, store: KnowledgeStore) -> None:
        self.db = store.db
        self._postgres: PostgresKnowledgeStore | None = None
        if self.db.dialect == "postgres":
            from memo_core.kb.pg_store import PostgresKnowledgeStore

            if not isinstance(store, PostgresKnowledgeStore):
                raise ConfigError(f"{self.db.path}: open PostgreSQL bases with MemoBase")
            self._postgres = store
            return
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memo_chunks_vocab "
            "USING fts5vocab(main, 'chunks_fts', 'row')"
        )

    def total(self) -> int:
        return int(self.db.query_one("SELECT count(*) FROM chunks")[0])

    def df(self, term: str) -> int:
        if self._postgres is not None:
            return self._postgres.document_frequencies([term])[term]
        row = self.db.query_one("SELECT doc FROM temp.memo_chunks_vocab WHERE term = ?", [term])
        return 0 if row is None else int(row[0])


def _content_terms(question: str) -> list[str]:
    lang = detect_language(question)
    terms = [stem_token(t, lang) for t in tokenize(question) if t not in STOPWORDS]
    return list(dict.fromkeys(terms))


def gate_features(
    question: str, hits: Sequence[Hit], frequencies: _DocumentFrequencies
) -> dict[str, Any]:
    """The gate's raw evidence for ``question`` given the ranked ``hits``."""
    terms = _content_terms(question)
    idf = _idf(terms, frequencies)
    coverage = _coverage(idf, hits[0]) if hits else 0.0
    similarity = hits[0].vector_similarity if hits else None
    return {
        "coverage": coverage,
        "similarity": similarity,
        "terms": terms,
        "hits": len(hits),
        "rerank_score": hits[0].rerank_score if hits else None,
    }


def _idf(terms: Sequence[str], frequencies: _DocumentFrequencies) -> dict[str, float]:
    total = frequencies.total()
    return {t: math.log((total + 1) / (frequencies.df(t) + 0.5)) for t in terms}


def _coverage(idf: Mapping[str, float], hit: Hit) -> float:
    """The IDF-weighted share of the question's content terms present in ``hit``."""
    weight = sum(idf.values())
    if weight <= 0:
        return 0.0
    lang = detect_language(hit.text)
    present = {stem_token(t, lang) for t in tokenize(hit.text)}
    return sum(v for t, v in idf.items() if t in present) / weight


class SufficiencyGate:
    """Decides from retrieval evidence alone whether the base plausibly holds an answer."""

    def __init__(
        self,
        calibration: GateCalibration | None = None,
        *,
        threshold: float | None = None,
    ) -> None:
        self.calibration = calibration
        self.threshold_override = threshold

    def calibration_for(self, embedder_model: str | None) -> GateCalibration:
        if self.calibration is not None:
            return self.calibration
        shipped = load_calibrations()
        if embedder_model and embedder_model in shipped:
            return shipped[embedder_model]
        return shipped[KEYWORD_ONLY]

    def decide(self, question: str, hits: Sequence[Hit], store: KnowledgeStore) -> GateDecision:
        fp = store.fingerprint
        calibration = self.calibration_for(fp.model if fp else None)
        signals = gate_features(question, hits, _DocumentFrequencies(store))
        if not hits:
            threshold = self.threshold_override or calibration.threshold
            return GateDecision(
                False, 0.0, threshold, {**signals, "calibration": calibration.embedder}
            )
        similarity = signals["similarity"] if calibration.embedder != KEYWORD_ONLY else None
        score = calibration.score(signals["coverage"], similarity)
        threshold = (
            calibration.threshold if self.threshold_override is None else self.threshold_override
        )
        return GateDecision(
            passed=score >= threshold,
            score=score,
            threshold=threshold,
            signals={**signals, "calibration": calibration.embedder},
        )

    def relevant_hits(self, question: str, hits: Sequence[Hit], store: KnowledgeStore) -> list[Hit]:
        """The ``hits`` that clear the base's relevance floor, in their order.

        Each hit is scored as the gate scores the best one (its own coverage of the
        question's terms, its own cosine) against the same calibrated threshold, so a
        chunk that would not be enough to answer from is not offered as context
        either: a search always returns neighbours, relevant or not.
        """
        if not hits:
            return []
        fp = store.fingerprint
        calibration = self.calibration_for(fp.model if fp else None)
        threshold = (
            calibration.threshold if self.threshold_override is None else self.threshold_override
        )
        idf = _idf(_content_terms(question), _DocumentFrequencies(store))
        use_vectors = calibration.embedder != KEYWORD_ONLY
        return [
            hit
            for hit in hits
            if calibration.score(
                _coverage(idf, hit), hit.vector_similarity if use_vectors else None
            )
            >= threshold
        ]
