"""The answerability gate: refuse before any LLM call when the base holds no answer.

The original plugin gated on a rank-based RRF number, which is always above a
small threshold and so never refused. This gate reads *absolute* evidence from
the question and the best hits, as a feature vector (:data:`FEATURES`):

* ``coverage`` - the IDF-weighted share of the question's content terms (stems of
  their dictionary forms, :mod:`~memo_core.answer.lemmas`: "wrote" is held by
  "written") in the best hit; rare terms weigh most;
* ``window_coverage`` - the same over the best *evidence window* (a sentence with
  its neighbours; a heading is never the window's centre) of the top hits, so a
  chunk that only mentions the terms far apart does not count as an answer;
* ``hard_missing`` - 1 when one of the question's numbers, versions, capitalised
  names or code identifiers (:func:`~memo_core.answer.salience.hard_terms`), or a
  literal it names verbatim (:mod:`~memo_core.answer.literals`), is absent from the passage of the best window, else 0: a question about "version
  3.14" is not answered by the text about 3.12, nor one about ``header_row`` by
  the text about ``csv.reader``'s other parameters. The passage is read with
  the document text around it (:data:`NEIGHBOURHOOD`, when the base keeps its
  documents): a chunk cut from the middle of a function's or a class's section
  does not repeat its name, which stands a chunk above. A term the asker took
  back ("in 1907 no 1911", :mod:`~memo_core.answer.repairs`) is not needed;
* ``rare_missing`` - the IDF of the rarest question term absent from the best hit,
  relative to the rarest possible;
* ``unseen_terms`` - the IDF-weighted share of the question's terms that no chunk
  of the base holds at all;
* ``type_match`` - 0 when the question asks for a date, a number, a name, a place
  or an option (when / how many / who / where / which option...) and the best
  window holds none, else 1;
* ``agreement`` - 1 when the keyword and the vector legs both rank the best hit first;
* ``similarity`` - the cosine similarity of the best hit (when the base has vectors);
* ``sentence_similarity`` - the best cosine similarity between the question and the
  centre sentence of a candidate window, with the base's own embedder
  (:class:`~memo_core.answer.semantic.SentenceSimilarity`);
* ``window_margin`` - how much the best window (by :func:`window_score`) beats the
  best window of another document;
* ``window_missing`` - how many of the question's terms the best window lacks (up
  to five, as a share of five): coverage weighs terms by rarity, this counts them,
  so a window holding the one rare term but none of the others does not pass;
* ``phrase_overlap`` - the share of the question's adjacent content-term pairs
  ("dominant position", "retry limit") that stand adjacent in the best window too:
  a window that answers usually restates a phrase, one about the same topic only
  shares words;
* ``rarest_term`` - the IDF of the question's rarest term, relative to the rarest
  possible: a question naming something specific is answered or not, one of
  common words is matched by many windows that do not answer it;
* ``keyword_rank`` - ``1/rank`` of the best window's chunk in the keyword leg
  (0 when that leg did not find it);
* ``similarity_coverage`` - ``sentence_similarity × window_coverage``: a window
  must be close in meaning *and* hold the terms, one of the two is not enough;
* ``term_order`` - of the pairs of question terms the best window's sentence holds,
  the share that stand in the question's order (0.5 when it holds fewer than two):
  the sentence that answers tends to say the question's words in the question's
  order, one that only shares its topic mixes them;
* ``answer_slot`` - whether the best window's sentence holds a thing of the type the
  question asks for that the question does not already name
  (:func:`~memo_core.answer.windows.answer_slot`: +1, -1 when it holds none, 0 for
  an untyped question): a sentence that restates "When did Alice sign the lease?"
  without a new date does not answer it;
* ``reader`` - the best probability, by the passage reader
  (:class:`~memo_core.answer.reader.PassageReader`: MiniLM fine-tuned as a
  cross-encoder, shipped inside the package), that one of the centre sentences of the
  best :data:`READER_WINDOWS` windows answers the question, read *with* it: a
  question put in other words than its passage's, or one about a neighbouring thing,
  is what the features above, which compare the two from outside, cannot tell. It is
  computed only for a calibration that weighs it (the local embedder's).

Only the best windows by term weight (:data:`SENTENCE_CANDIDATES`) have their
sentence embedded: that is the gate's cost (the base keeps the vectors, so a
sentence is embedded once). 16 rather than 4 found the answering sentence more
often on the reference sets, whose chunks hold many short lines (train halves,
refitted: answerable passed pydoc 0.835 -> 0.859, Language Reference 0.688 ->
0.729, SQuAD 0.731 -> 0.747 at the same false answers; 8 helped SQuAD only).

A question that corrects itself on the way ("Which port no sorry which protocol
...") is read as :func:`~memo_core.answer.repairs.corrected` says where it
matters: its retracted names and numbers are not needed, and its answer type is
that of the question it ends with.

They combine in a logistic model ``score = σ(Σ w_f·f + b)`` whose weights and
threshold are calibrated per embedder on the team's two dev sets (SQuAD and the
pydoc set, fitted on one half of each, reported on the other) by
``python bench/calibrate_gate.py --write`` and shipped in
``memo_core/data/gate_calibration.json``; the threshold answers at most 5% of each
dev set's not-answerable questions. The extractive picker ranks sentences with
the same similarity, so the gate and the answer read the same windows.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from memo_core.answer.lemmas import term_of
from memo_core.answer.passages import DocumentReader
from memo_core.answer.reader import PassageReader
from memo_core.answer.repairs import corrected
from memo_core.answer.salience import hit_evidence, missing_terms
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.types import GateDecision
from memo_core.answer.windows import (
    Window,
    answer_slot,
    answer_type_match,
    implied_terms,
    rank_windows,
    without_type_cue,
)
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
    "unseen_terms",
    "type_match",
    "agreement",
    "similarity",
    "sentence_similarity",
    "window_margin",
    "window_missing",
    "phrase_overlap",
    "rarest_term",
    "keyword_rank",
    "similarity_coverage",
    "term_order",
    "answer_slot",
    "reader",
)

#: The windows the gate reads come from this many of the best hits.
WINDOW_HITS = 3
#: How many of the best windows (by term weight) get their sentence embedded.
SENTENCE_CANDIDATES = 16
#: How many of the best windows (by :func:`window_score`) the passage reader reads.
READER_WINDOWS = 4
#: ``window_missing`` counts absent question terms up to this many.
MISSING_CAP = 5
#: How far around the best window's chunk (in characters, about two chunks each side)
#: a question's hard terms are looked for: a chunk cut from its section does not
#: repeat the function or class it documents ("parse_qs(" ends the chunk before).
NEIGHBOURHOOD = 2000


@dataclass(frozen=True)
class GateCalibration:
    """Logistic weights (by feature name) and the decision threshold for one embedder."""

    embedder: str
    weights: Mapping[str, float]
    bias: float
    threshold: float
    #: What the calibration measured (per dev set: ROC AUC, precision, recall...).
    metrics: Mapping[str, Any] = field(default_factory=dict)
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
            metrics=dict(c.get("metrics", {})),
            context=build(name, c["context"]) if "context" in c else None,
        )

    return {name: build(name, c) for name, c in data["calibrations"].items()}


@functools.cache
def _shipped_calibrations() -> Mapping[str, GateCalibration]:
    """The shipped calibrations, read once per process: the gate asks for them on every
    question, and the file only changes with the package."""
    return load_calibrations()


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


def _content_terms(question: str) -> dict[str, set[str]]:
    """The question's content terms (:func:`~memo_core.answer.lemmas.term_of`), each
    with the stems the keyword index counts it by (its own, and its words' stems:
    "wrote" is term "write", counted as "write" or "wrote")."""
    lang = detect_language(question)
    terms: dict[str, set[str]] = {}
    for t in tokenize(without_type_cue(question)):
        if t not in STOPWORDS:
            term = term_of(t, lang)
            terms.setdefault(term, {term}).add(stem_token(t, lang))
    return terms


@dataclass(frozen=True)
class _Terms:
    """The question's stemmed content terms, their IDF in the base, and the unseen ones."""

    idf: Mapping[str, float]
    unseen: frozenset[str]
    total: int


def _terms(question: str, frequencies: _DocumentFrequencies) -> _Terms:
    total = frequencies.total()
    # A term is as frequent as the commoner of its stems: "wrote" is no unseen term of a
    # base that says "written" (term "write") but never "write" itself.
    df = {t: max(map(frequencies.df, stems)) for t, stems in _content_terms(question).items()}
    idf = {t: math.log((total + 1) / (n + 0.5)) for t, n in df.items()}
    return _Terms(idf, frozenset(t for t, n in df.items() if n == 0), total)


def gate_features(
    question: str,
    hits: Sequence[Hit],
    frequencies: _DocumentFrequencies,
    similarity: SentenceSimilarity | None = None,
    read: DocumentReader | None = None,
    reader: PassageReader | None = None,
) -> dict[str, Any]:
    """The gate's evidence for ``question`` given the ranked ``hits`` (see the module doc).

    ``similarity`` (the base's embedder) gives the sentence-level features; without
    it they are ``None`` and contribute nothing to a score. ``read`` (the base's
    documents) lets ``hard_missing`` find a term in the text around the best
    window's chunk (:func:`neighbourhood`). ``reader`` reads the question with the
    sentences of the best :data:`READER_WINDOWS` windows (``reader``: the best
    probability that one answers it; ``None`` without a reader).
    """
    out = _features(question, hits, _terms(question, frequencies), similarity, read)
    sentences = out["reader_sentences"]
    if reader is not None and sentences:
        out["reader"] = max(reader.probabilities(question, sentences, out["reader_contexts"]))
    return out


def neighbourhood(hit: Hit, read: DocumentReader | None) -> str:
    """The document text around ``hit``: :data:`NEIGHBOURHOOD` characters on each side
    (about a chunk), "" when the document cannot be read."""
    if read is None:
        return ""
    return read(hit.document_id, max(0, hit.start - NEIGHBOURHOOD), hit.end + NEIGHBOURHOOD) or ""


def _features(
    question: str,
    hits: Sequence[Hit],
    terms: _Terms,
    similarity: SentenceSimilarity | None = None,
    read: DocumentReader | None = None,
) -> dict[str, Any]:
    # A question that corrects itself ("in 1907 no 1911", ``repairs.py``): its hard terms
    # are those it ends up with (``missing_terms`` reads them from the question as
    # asked) and its answer type is that of the question it restarted as. Its content
    # terms stay those of the words as asked: a retracted phrase is usually a neighbour
    # of what is meant in the same text, and leaving it out (or only the fillers) did
    # not answer more at the same false answers on the train halves.
    meant = corrected(question)
    idf = terms.idf
    weight = sum(idf.values())
    out: dict[str, Any] = {
        "coverage": 0.0,
        "window_coverage": 0.0,
        "hard_missing": 0.0,
        "rare_missing": 1.0 if idf else 0.0,
        "unseen_terms": sum(idf[t] for t in terms.unseen) / weight if weight > 0 else 0.0,
        "type_match": 1.0,
        "agreement": 0.0,
        "similarity": hits[0].vector_similarity if hits else None,
        "sentence_similarity": None,
        "window_margin": None,
        "window_missing": 1.0 if idf else 0.0,
        "phrase_overlap": 0.0,
        "rarest_term": max(idf.values(), default=0.0) / math.log(terms.total + 2),
        "keyword_rank": 0.0,
        "similarity_coverage": 0.0,
        "term_order": 0.5,
        "answer_slot": 0.0,
        "reader": None,
        "reader_sentences": [],
        "reader_contexts": [],
        "terms": list(idf),
        "hits": len(hits),
        "rerank_score": hits[0].rerank_score if hits else None,
    }
    if not hits:
        return out
    top = hits[0]
    lang = detect_language(top.text)
    present = {term_of(t, lang) for t in tokenize(f"{top.title} {top.text}")}
    present |= implied_terms(top.text, lang, idf)
    if weight > 0:
        out["coverage"] = sum(v for t, v in idf.items() if t in present) / weight
        absent = [v for t, v in idf.items() if t not in present]
        out["rare_missing"] = max(absent, default=0.0) / math.log(terms.total + 2)
    out["agreement"] = 1.0 if top.keyword_rank == 1 and top.vector_rank == 1 else 0.0
    windows = rank_windows(
        question,
        hits[:WINDOW_HITS],
        idf,
        similarity=similarity,
        candidates=SENTENCE_CANDIDATES,
    )
    if not windows:
        return out
    out["window_coverage"] = windows[0].weight / weight if weight > 0 else 0.0
    best = windows[0]
    scored = [w for w in windows if w.similarity is not None]
    # The reader reads the best windows: by window_score when their sentences were
    # embedded, else by term weight.
    ranked = sorted(scored, key=lambda w: -window_score(w, weight)) if scored else windows
    out["reader_sentences"] = [w.sentence for w in ranked[:READER_WINDOWS]]
    out["reader_contexts"] = [w.context for w in ranked[:READER_WINDOWS]]
    if scored:
        out["sentence_similarity"] = max(w.similarity or 0.0 for w in scored)
        best = ranked[0]
        others = [w for w in ranked if hits[w.rank].document_id != hits[best.rank].document_id]
        out["window_margin"] = window_score(best, weight) - (
            window_score(others[0], weight) if others else 0.0
        )
    # One absent version, number, name or identifier is enough: a question about
    # release 4.7 and its scheduler is not half answered by the text about 4.2.
    best_hit = hits[best.rank]
    out["window_hit"] = best.rank
    if missing_terms(question, [hit_evidence(best_hit), neighbourhood(best_hit, read)]):
        out["hard_missing"] = 1.0
    out["type_match"] = answer_type_match(meant, best.text)
    lang = detect_language(best.text)
    held = [term_of(t, lang) for t in tokenize(best.text) if t not in STOPWORDS]
    # The title of the window's document is what the window is about (``rank_windows``).
    titled = {term_of(t, lang) for t in tokenize(best_hit.title)}
    lacking = set(idf) - set(held) - implied_terms(best.text, lang, idf) - titled
    out["window_lacking"] = sorted(lacking)
    out["window_sentence"] = best.sentence
    out["window_missing"] = min(len(lacking), MISSING_CAP) / MISSING_CAP
    out["phrase_overlap"] = _phrase_overlap(question, held, lang)
    out["keyword_rank"] = 1.0 / best_hit.keyword_rank if best_hit.keyword_rank else 0.0
    out["similarity_coverage"] = (out["sentence_similarity"] or 0.0) * out["window_coverage"]
    out["term_order"] = _term_order(list(idf), best.sentence)
    out["answer_slot"] = answer_slot(meant, best.sentence)
    return out


def _term_order(terms: Sequence[str], sentence: str) -> float:
    """Of the pairs of ``terms`` (the question's stemmed content terms, in order) that
    ``sentence`` holds, the share it holds in the same order; 0.5 for fewer than two."""
    lang = detect_language(sentence)
    place = {t: i for i, t in enumerate(terms)}
    held = [
        place[t] for t in dict.fromkeys(term_of(w, lang) for w in tokenize(sentence)) if t in place
    ]
    pairs = [(a, b) for i, a in enumerate(held) for b in held[i + 1 :]]
    if not pairs:
        return 0.5
    return sum(a < b for a, b in pairs) / len(pairs)


def _phrase_overlap(question: str, held: Sequence[str], language: str) -> float:
    """The share of the question's adjacent content-term pairs adjacent in ``held`` too
    (the window's stemmed content terms, in order)."""
    asked = [
        term_of(t, language) for t in tokenize(without_type_cue(question)) if t not in STOPWORDS
    ]
    pairs = set(pairwise(asked))
    if not pairs:
        return 0.0
    return len(pairs & set(pairwise(held))) / len(pairs)


def window_score(window: Window, weight: float) -> float:
    """How well a window answers: its share of the question's term weight plus its
    sentence's similarity to the question (what the gate and the picker rank by)."""
    share = window.weight / weight if weight > 0 else 0.0
    return share + (window.similarity or 0.0)


class SufficiencyGate:
    """Decides from retrieval evidence alone whether the base plausibly holds an answer."""

    def __init__(
        self,
        calibration: GateCalibration | None = None,
        *,
        threshold: float | None = None,
        reader: PassageReader | None = None,
    ) -> None:
        self.calibration = calibration
        self.threshold_override = threshold
        self._reader = reader

    def reader_for(self, calibration: GateCalibration) -> PassageReader | None:
        """The passage reader when ``calibration`` weighs it (the shipped one unless
        another was given), else ``None``: its cost is paid only where it counts."""
        if "reader" not in calibration.weights:
            return None
        return self._reader or PassageReader.shipped()

    def passage_reader(self, store: KnowledgeStore) -> PassageReader | None:
        """The passage reader the gate reads ``store``'s passages with (``None`` when the
        calibration of its embedder weighs none): the extractive picker reads with it too."""
        fp = store.fingerprint
        return self.reader_for(self.calibration_for(fp.model if fp else None))

    def calibration_for(self, embedder_model: str | None) -> GateCalibration:
        if self.calibration is not None:
            return self.calibration
        shipped = _shipped_calibrations()
        if embedder_model and embedder_model in shipped:
            return shipped[embedder_model]
        return shipped[KEYWORD_ONLY]

    def decide(
        self,
        question: str,
        hits: Sequence[Hit],
        store: KnowledgeStore,
        similarity: SentenceSimilarity | None = None,
        read: DocumentReader | None = None,
    ) -> GateDecision:
        """Whether ``hits`` plausibly answer ``question``; ``similarity`` (the base's
        embedder) adds the sentence-level features a calibration may weigh."""
        fp = store.fingerprint
        calibration = self.calibration_for(fp.model if fp else None)
        if calibration.embedder == KEYWORD_ONLY:
            similarity = None
        signals = gate_features(
            question,
            hits,
            _DocumentFrequencies(store),
            similarity,
            read,
            self.reader_for(calibration),
        )
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
        terms = _terms(question, _DocumentFrequencies(store))
        kept = []
        for hit in hits:
            features = _features(question, [hit], terms)
            if calibration.embedder == KEYWORD_ONLY:
                features["similarity"] = None
            if calibration.score(features) >= threshold:
                kept.append(hit)
        return kept
