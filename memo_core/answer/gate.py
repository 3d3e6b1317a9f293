"""The answerability gate: refuse before any LLM call when the base holds no answer.

The original plugin gated on a rank-based RRF number, which is always above a
small threshold and so never refused. This gate reads *absolute* evidence from
the question and the best hits, as a feature vector (:data:`FEATURES`):

* ``coverage`` - the IDF-weighted share of the question's content terms (stemmed)
  in the best hit; rare terms weigh most;
* ``window_coverage`` - the same over the best *evidence window* (a sentence with
  its neighbours; a heading is never the window's centre) of the top hits, so a
  chunk that only mentions the terms far apart does not count as an answer;
* ``hard_missing`` - the share of the question's numbers, versions and capitalised
  names (:func:`~memo_core.answer.salience.hard_terms`) absent from the best hit:
  a question about "version 3.14" is not answered by the text about 3.12;
* ``rare_missing`` - the IDF of the rarest question term absent from the best hit,
  relative to the rarest possible;
* ``type_match`` - 0 when the question asks for a date, a number or a name
  (when / how many / who...) and the best window holds none, else 1;
* ``agreement`` - 1 when the keyword and the vector legs both rank the best hit first;
* ``similarity`` - the cosine similarity of the best hit (when the base has vectors).

They combine in a logistic model ``score = σ(Σ w_f·f + b)`` whose weights and
threshold are calibrated per embedder on the team's dev sets by
``python bench/calibrate_gate.py --write`` and shipped in
``memo_core/data/gate_calibration.json``. Any subset of the features may carry
weights: the file shipped today keeps the earlier two-feature model (coverage,
similarity; 95% of answerable kept) as the default, and records the fitted
seven-feature model under ``answerability`` (held-out ROC AUC 0.925 with MiniLM),
because at its threshold for at most 5% out-of-base answers it also refuses a
third of the answerable questions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.answer.types import GateDecision
from memo_core.answer.windows import answer_type_match, best_window
from memo_core.search.text import STOPWORDS, detect_language, stem_token, tokenize
from memo_core.types import Hit

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = [
    "FEATURES",
    "GateCalibration",
    "SufficiencyGate",
    "gate_features",
    "load_calibrations",
]

#: The calibration used when an embedder has none of its own: vectors are ignored.
KEYWORD_ONLY = "keyword-only"


#: The gate's features, in the order of a calibration's weight vector.
FEATURES: tuple[str, ...] = (
    "coverage",
    "window_coverage",
    "hard_missing",
    "rare_missing",
    "type_match",
    "agreement",
    "similarity",
)


@dataclass(frozen=True)
class GateCalibration:
    """Logistic weights (by feature name) and the decision threshold for one embedder."""

    embedder: str
    weights: Mapping[str, float]
    bias: float
    threshold: float
    metrics: Mapping[str, float] = field(default_factory=dict)
    #: The looser floor for offering a hit as *context* (not an answer), if it has its own.
    context: GateCalibration | None = None

    def score(self, features: Mapping[str, float | None]) -> float:
        """The probability that the base answers, from :func:`gate_features` values.

        A missing (``None``) feature contributes nothing: ``similarity`` on a
        keyword-only base.
        """
        z = self.bias
        for name, weight in self.weights.items():
            value = features.get(name)
            if value is not None:
                z += weight * float(value)
        return 1.0 / (1.0 + math.exp(-z))


def load_calibrations() -> dict[str, GateCalibration]:
    """The shipped calibrations, by embedder model name (plus ``keyword-only``)."""
    text = resources.files("memo_core").joinpath("data/gate_calibration.json").read_text("utf-8")
    data = json.loads(text)

    def build(name: str, c: Mapping[str, Any]) -> GateCalibration:
        return GateCalibration(
            embedder=name,
            weights={k: float(v) for k, v in c["weights"].items()},
            bias=float(c["bias"]),
            threshold=float(c["threshold"]),
            metrics={k: float(v) for k, v in c.get("metrics", {}).items()},
            context=build(name, c["context"]) if "context" in c else None,
        )

    return {name: build(name, c) for name, c in data["calibrations"].items()}


class _DocumentFrequencies:
    """Document frequencies of stemmed/raw terms and the corpus size, as the base's
    keyword index counts them (:meth:`KnowledgeStore.document_frequencies`, alike
    on every backend)."""

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store

    def total(self) -> int:
        return self.store.chunk_total()

    def df(self, term: str) -> int:
        return self.store.document_frequencies([term])[term]


def _content_terms(question: str) -> list[str]:
    lang = detect_language(question)
    terms = [stem_token(t, lang) for t in tokenize(question) if t not in STOPWORDS]
    return list(dict.fromkeys(terms))


def gate_features(
    question: str, hits: Sequence[Hit], frequencies: _DocumentFrequencies
) -> dict[str, Any]:
    """The gate's evidence for ``question`` given the ranked ``hits`` (see the module doc)."""
    total = frequencies.total()
    return _features(question, hits, _idf(_content_terms(question), frequencies), total)


def _idf(terms: Sequence[str], frequencies: _DocumentFrequencies) -> dict[str, float]:
    total = frequencies.total()
    return {t: math.log((total + 1) / (frequencies.df(t) + 0.5)) for t in terms}


def _features(
    question: str, hits: Sequence[Hit], idf: Mapping[str, float], total: int
) -> dict[str, Any]:
    terms = list(idf)
    weight = sum(idf.values())
    out: dict[str, Any] = {
        "coverage": 0.0,
        "window_coverage": 0.0,
        "hard_missing": 0.0,
        "rare_missing": 1.0 if terms else 0.0,
        "type_match": 1.0,
        "agreement": 0.0,
        "similarity": hits[0].vector_similarity if hits else None,
        "terms": terms,
        "hits": len(hits),
        "rerank_score": hits[0].rerank_score if hits else None,
    }
    if not hits:
        return out
    top = hits[0]
    lang = detect_language(top.text)
    present = {stem_token(t, lang) for t in tokenize(f"{top.title} {top.text}")}
    if weight > 0:
        out["coverage"] = sum(v for t, v in idf.items() if t in present) / weight
        absent = [v for t, v in idf.items() if t not in present]
        out["rare_missing"] = max(absent, default=0.0) / math.log(total + 2)
    hard = hard_terms(question)
    if hard:
        missing = missing_terms(question, [f"{top.title} {top.source} {top.text}"])
        out["hard_missing"] = len(missing) / len(hard)
    window, window_score = best_window(question, hits[:3], idf)
    out["window_coverage"] = window_score / weight if weight > 0 else 0.0
    out["type_match"] = answer_type_match(question, window)
    out["agreement"] = 1.0 if top.keyword_rank == 1 and top.vector_rank == 1 else 0.0
    return out


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
        features = dict(signals)
        if calibration.embedder == KEYWORD_ONLY:
            features["similarity"] = None
        score = calibration.score(features)
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

        Each hit is scored as if it were the best one, by the calibration's
        ``context`` model (a looser floor than an answer needs) when it has one, so a
        chunk with too little of the question is not offered as context: a search
        always returns neighbours, relevant or not.
        """
        if not hits:
            return []
        fp = store.fingerprint
        answer_calibration = self.calibration_for(fp.model if fp else None)
        # Context may be looser than an answer: its own floor when the calibration has one.
        calibration = answer_calibration.context or answer_calibration
        threshold = (
            calibration.threshold if self.threshold_override is None else self.threshold_override
        )
        frequencies = _DocumentFrequencies(store)
        idf = _idf(_content_terms(question), frequencies)
        total = frequencies.total()
        kept = []
        for hit in hits:
            features = _features(question, [hit], idf, total)
            if calibration.embedder == KEYWORD_ONLY:
                features["similarity"] = None
            if calibration.score(features) >= threshold:
                kept.append(hit)
        return kept
