"""The passage reader reads a sentence after what it is about: title, heading, record."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from memo_core.answer.extractive import pick_candidates
from memo_core.answer.reader import PassageReader, reader_text
from memo_core.answer.sentences import record_sentences, split_sentences
from memo_core.answer.windows import is_heading, rank_windows, sentence_contexts
from memo_core.types import Hit

GUIDE = """# Kiln guide

## Firing schedule

The kiln ramps to 900 degrees in four hours. It then holds for twenty minutes.

## Cooling

The lid stays shut until the kiln reads 80 degrees.
"""

RECORD = """Name: wrenlog
Version: 2.1
Author: Mira Holt
"""


def contexts_of(text: str, title: str = "", heading: str = "") -> dict[str, str]:
    spans = split_sentences(text)
    headings = [is_heading(text, a, b) for a, b in spans]
    found = sentence_contexts(text, spans, headings, record_sentences(text, spans), title, heading)
    return {text[a:b]: c for (a, b), c in zip(spans, found, strict=True)}


def test_a_sentence_is_about_its_title_and_the_last_heading_above_it() -> None:
    found = contexts_of(GUIDE, title="kiln.md")
    assert found["It then holds for twenty minutes."] == "kiln.md › Firing schedule"
    assert found["The lid stays shut until the kiln reads 80 degrees."] == "kiln.md › Cooling"


def test_before_any_heading_in_its_text_a_sentence_is_under_its_passages_heading() -> None:
    found = contexts_of("The glaze is fired twice.", title="Kiln guide", heading="Glazes > Firing")
    assert found["The glaze is fired twice."] == "Kiln guide › Glazes > Firing"


def test_a_records_field_is_read_with_the_field_that_names_the_record() -> None:
    found = contexts_of(RECORD, title="packages.txt")
    assert found["Author: Mira Holt"] == "packages.txt › Name: wrenlog"
    assert found["Name: wrenlog"] == "packages.txt"  # the first field names itself


def test_repeated_and_empty_parts_are_left_out_and_a_long_context_is_cut() -> None:
    found = contexts_of("Herons wade.", title="Herons", heading="Herons")
    assert found["Herons wade."] == "Herons"
    assert contexts_of("Herons wade.")["Herons wade."] == ""
    long = contexts_of("Herons wade.", title="heron " * 100)["Herons wade."]
    assert 0 < len(long) <= 160


def test_the_gates_windows_carry_the_context() -> None:
    hit = Hit("c1", "d1", GUIDE, 1.0, title="kiln.md")
    windows = rank_windows("How long does the kiln hold?", [hit], {"hold": 1.0, "kiln": 0.5})
    by_sentence = {w.sentence: w.context for w in windows}
    assert by_sentence["It then holds for twenty minutes."] == "kiln.md › Firing schedule"


class RecordingEncoder:
    def __init__(self) -> None:
        self.read: list[str] = []

    def rerank(self, question: str, texts: Sequence[str]) -> list[float]:
        self.read += texts
        return [0.5] * len(texts)


def reader_in(folder: Path, context: bool) -> tuple[PassageReader, RecordingEncoder]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reader.json").write_text(json.dumps({"context": context}), "utf-8")
    reader = PassageReader(folder)
    encoder = RecordingEncoder()
    reader._encoder = encoder  # type: ignore[assignment]
    return reader, encoder


def test_a_reader_trained_with_contexts_reads_them_and_one_trained_without_does_not(
    tmp_path: Path,
) -> None:
    with_context, read_with = reader_in(tmp_path / "with", context=True)
    without, read_without = reader_in(tmp_path / "without", context=False)
    for reader in (with_context, without):
        reader.probabilities("How long?", ["It holds."], ["kiln.md › Firing"])
    assert read_with.read == [reader_text("It holds.", "kiln.md › Firing")]
    assert read_with.read[0] != "It holds." and "kiln.md › Firing" in read_with.read[0]
    assert read_without.read == ["It holds."]


def test_the_picker_reads_each_candidate_after_its_passages_title_and_heading(
    tmp_path: Path,
) -> None:
    reader, encoder = reader_in(tmp_path / "reader", context=True)
    pick_candidates(
        "How long does the kiln hold at 900 degrees?",
        [("c1", GUIDE)],
        reader=reader,
        sections={"c1": ("kiln.md", "")},
    )
    assert reader_text("It then holds for twenty minutes.", "kiln.md › Firing schedule") in (
        encoder.read
    )


def test_the_shipped_reader_was_trained_to_read_contexts() -> None:
    assert PassageReader.shipped().reads_context
