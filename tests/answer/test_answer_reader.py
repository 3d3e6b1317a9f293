"""The passage reader: a cross-encoder that reads the question with each candidate sentence."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from memo_core.answer.gate import (
    READER_WINDOWS,
    GateCalibration,
    SufficiencyGate,
    gate_features,
)
from memo_core.answer.gate import _DocumentFrequencies as Frequencies
from memo_core.answer.reader import DEFAULT_READER, PassageReader
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

    def probabilities(self, question: str, sentences: Sequence[str]) -> list[float]:
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
