"""The passage reader: a cross-encoder that reads the question with each candidate sentence."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.extractive import (
    READER_WEIGHTS,
    ExtractiveConfig,
    PickWeights,
    extractive_answer,
    pick_candidates,
)
from memo_core.answer.gate import (
    READER_WINDOWS,
    GateCalibration,
    SufficiencyGate,
    gate_features,
)
from memo_core.answer.gate import _DocumentFrequencies as Frequencies
from memo_core.answer.reader import DEFAULT_READER, PassageReader
from memo_core.answer.types import Answer
from memo_core.kb import MemoBase

pytest.importorskip("onnxruntime")


@pytest.fixture(scope="module")
def reader() -> PassageReader:
    return PassageReader.shipped()


def test_the_reader_ships_whole_with_the_package() -> None:
    head = json.loads((DEFAULT_READER / "reader.json").read_text("utf-8"))
    assert len(head["weights"]) == 384 and head["max_length"] > 32
    assert (DEFAULT_READER / "model.onnx").stat().st_size > 1_000_000
    assert (DEFAULT_READER / "tokenizer.json").exists()
    assert (DEFAULT_READER / "NOTICE").exists()


def test_the_sentence_that_answers_reads_as_more_likely_than_one_on_its_topic(
    reader: PassageReader,
) -> None:
    cases = [
        (
            "In which year did the tidelib project move to its new host?",
            "The tidelib project moved its repository to a new host in 2019.",
            "Tidelib parses the tide tables published by coastal stations.",
        ),
        (
            "How many retries does wrenlog make before it gives up?",
            "Wrenlog tries a failed upload five more times, then gives up and logs an error.",
            "Wrenlog writes its log files to the folder named in its settings.",
        ),
        (
            "Who designed the heron's nest box?",
            "The nest box was designed by Mira Okafor, a carpenter from the coast.",
            "Herons nest in tall trees near the water, often in colonies.",
        ),
    ]
    for question, answering, on_topic in cases:
        yes, no = reader.probabilities(question, [answering, on_topic])
        assert yes > no, question


def test_a_sentence_reads_the_same_alone_and_beside_longer_ones(reader: PassageReader) -> None:
    question = "What does kiln do with a stale cache?"
    short = "Kiln deletes it."
    longer = "Kiln keeps a cache of compiled pages and rebuilds any page whose sources changed."
    (alone,) = reader.probabilities(question, [short])
    padded = reader.probabilities(question, [longer, short])[1]
    assert padded == pytest.approx(alone, abs=1e-4)  # padding is masked out


def test_no_sentences_no_reading(reader: PassageReader) -> None:
    assert reader.probabilities("Anything?", []) == []


class CountingReader(PassageReader):
    """The shipped reader, recording what it was asked to read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[tuple[str, list[str]]] = []

    def probabilities(
        self, question: str, sentences: Sequence[str], contexts: Sequence[str] | None = None
    ) -> list[float]:
        self.read.append((question, list(sentences)))
        return [0.1 * (i + 1) for i in range(len(sentences))]


TEXTS = [
    "The tide table for the north pier lists high water at dawn. It is printed weekly.",
    "Tide tables for the south pier are kept by the harbour office. They list low water.",
    "Herons wade at low tide. They hunt fish in the shallows.",
    "The harbour office opens at nine.",
]


def test_the_gate_reads_its_best_windows_when_its_calibration_weighs_the_reader(
    tmp_path: pytest.TempPathFactory,
) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)  # type: ignore[operator]
    try:
        base.add_texts(TEXTS)
        question = "When does the tide table of the north pier list high water?"
        hits = base.search(question, k=3)
        counting = CountingReader()
        features = gate_features(question, hits, Frequencies(base.store), reader=counting)
        ((asked, sentences),) = counting.read
        assert asked == question and 0 < len(sentences) <= READER_WINDOWS
        assert sentences == features["reader_sentences"]
        assert features["reader"] == pytest.approx(0.1 * len(sentences))  # the best of them

        weighs = GateCalibration("test", {"coverage": 1.0, "reader": 2.0}, 0.0, 0.5)
        ignores = GateCalibration("test", {"coverage": 1.0}, 0.0, 0.5)
        SufficiencyGate(ignores, reader=counting).decide(question, hits, base.store)
        assert len(counting.read) == 1  # not read again: that calibration does not weigh it
        decision = SufficiencyGate(weighs, reader=counting).decide(question, hits, base.store)
        assert len(counting.read) == 2 and decision.signals["reader"] is not None
    finally:
        base.close()


class EncoderCalls:
    """Stands in for the reader's cross-encoder, recording the sentences it reads."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def rerank(self, question: str, sentences: Sequence[str]) -> list[float]:
        self.calls.append(list(sentences))
        return [len(s) / 100 for s in sentences]


def test_a_sentence_is_read_once_per_question() -> None:
    reader = PassageReader(cache_size=3)
    calls = EncoderCalls()
    reader._encoder = calls  # type: ignore[assignment]
    first = reader.probabilities("Where is kiln's cache?", ["In the home folder.", "Nowhere."])
    again = reader.probabilities("Where is kiln's cache?", ["Nowhere.", "In the home folder."])
    assert again == first[::-1]
    assert calls.calls == [["In the home folder.", "Nowhere."]]
    # Another question reads the same sentence afresh; a repeated sentence is read once.
    reader.probabilities("What is kiln?", ["Nowhere.", "Nowhere."])
    assert calls.calls[-1] == ["Nowhere."]
    # The cache is bounded: the oldest reading goes first.
    reader.probabilities("What is kiln?", ["A tool.", "A builder."])
    reader.probabilities("Where is kiln's cache?", ["In the home folder."])
    assert calls.calls[-1] == ["In the home folder."]


PIER = [
    "The north pier's tide table is printed by the harbour office every week.",
    "High water at the north pier comes about an hour after dawn in spring.",
]


def test_the_picker_weighs_what_the_reader_reads() -> None:
    question = "When is high water at the north pier?"
    counting = CountingReader()
    passages = [("c1", " ".join(PIER))]
    pool = pick_candidates(question, passages, reader=counting)
    ((asked, sentences),) = counting.read
    assert asked == question and sentences == [c.text for c in pool if c.scored]
    assert [c.features["reader"] for c in pool] == pytest.approx([0.1, 0.2])
    unread = pick_candidates(question, passages)
    assert [c.features["reader"] for c in unread] == [0.0, 0.0]
    # Candidates read are weighed by the weights fitted with the reader, others without.
    assert ExtractiveConfig().weights_for(counting) == READER_WEIGHTS
    assert READER_WEIGHTS.reader > 0 and ExtractiveConfig().weights_for(None) == PickWeights()
    # With all the weight on the reader, the sentence it reads as answering is picked.
    only_reader = PickWeights(**{f.name: 0.0 for f in fields(PickWeights)} | {"reader": 1.0})
    config = ExtractiveConfig(weights=only_reader)
    for favoured in (0, 1):
        leaning = FixedReader({PIER[favoured]: 0.9})
        ((_, start, end),) = extractive_answer(
            question, passages, max_sentences=1, config=config, reader=leaning
        )
        assert passages[0][1][start:end] == PIER[favoured]


class FixedReader(PassageReader):
    """Reads each sentence as ``known`` says (0.1 for any other)."""

    def __init__(self, known: dict[str, float]) -> None:
        self.known = known

    def probabilities(
        self, question: str, sentences: Sequence[str], contexts: Sequence[str] | None = None
    ) -> list[float]:
        return [self.known.get(s, 0.1) for s in sentences]


def test_the_engine_picks_with_the_reader_its_gate_reads_with(
    tmp_path: pytest.TempPathFactory,
) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)  # type: ignore[operator]
    try:
        base.add_texts([" ".join(PIER), *TEXTS])
        question = "When is high water at the north pier?"
        weighs = GateCalibration("test", {"coverage": 1.0, "reader": 2.0}, 0.0, 0.01)
        counting = CountingReader()
        gate = SufficiencyGate(weighs, reader=counting)
        assert gate.passage_reader(base.store) is counting
        answer = GuardedAnswerer(base, gate=gate).ask(question)
        assert isinstance(answer, Answer)
        picked = [s for q, sentences in counting.read[1:] for s in sentences]
        assert PIER[1] in picked  # the picker's candidates were read, after the gate's windows
        ignores = GateCalibration("test", {"coverage": 1.0}, 0.0, 0.01)
        assert SufficiencyGate(ignores, reader=counting).passage_reader(base.store) is None
    finally:
        base.close()


def test_the_reader_reads_as_many_word_pieces_as_it_was_trained_on(
    reader: PassageReader,
) -> None:
    # Two sentences the same up to past word piece 100 of the pair: a runtime that cut
    # pairs shorter than the training did would read them as one.
    from tokenizers import Tokenizer

    trained = json.loads((DEFAULT_READER / "reader.json").read_text("utf-8"))["max_length"]
    question = "Which port does the pier relay listen on?"
    lead = "The pier relay, " + "which the harbour crew restarts each morning and " * 10
    answering, other = lead + "listens on port 7042.", lead + "is painted green."
    tokenizer = Tokenizer.from_file(str(DEFAULT_READER / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    shared = len(tokenizer.encode(question, lead).ids) - 1  # without the final [SEP]
    assert shared > 100 and len(tokenizer.encode(question, answering).ids) <= trained
    read = reader.probabilities(question, [answering, other])
    assert read[0] != pytest.approx(read[1], abs=1e-4)
