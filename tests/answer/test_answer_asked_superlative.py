"""A question asking which is the fastest (largest, easiest...) is answered only by a
quote that speaks of that quality."""

from __future__ import annotations

from typing import Any

from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asked_superlatives, states_superlative


def test_the_superlatives_a_question_asks_by() -> None:
    assert asked_superlatives("Which heron sink is the fastest?") == ["fast"]
    assert asked_superlatives("What is the easiest way to rotate heron logs?") == ["eas"]
    assert asked_superlatives("Which is the biggest journal heron keeps?") == ["big"]
    assert asked_superlatives("Which is the smallest heron node?") == ["small"]
    # Words ending in "-est" that are no superlatives, and a date's or a version's.
    assert asked_superlatives("Which test covers the interest rate of the forest fund?") == []
    assert asked_superlatives("What is the latest heron release?") == []
    # A number asked for is stated as one ("up to 64 MB"), not by the superlative.
    assert asked_superlatives("How many journals can the largest heron node keep?") == []


def test_a_quality_is_spoken_of_in_any_degree() -> None:
    assert states_superlative(["fast"], "The mmap sink is faster than the file sink.")
    assert states_superlative(["fast"], "The mmap sink is the fastest one.")
    assert not states_superlative(["fast"], "Maintained sinks: mmap, file and socket.")
    # "The warmest, no, the coldest" asks about one of the two.
    assert states_superlative(["warm", "cold"], "The north is the coldest part.")


def test_a_quote_silent_on_the_quality_asked_is_no_answer(ungated: Any) -> None:
    engine = ungated(
        {
            "heron-sinks": "Heron ships three maintained sinks for its journal: mmap, file and socket.",
            "tidelib-codecs": "Of the tidelib codecs, the zstd codec is the fastest on large tide tables.",
        }
    )
    refused = engine.ask("Which of the maintained Heron sinks is the fastest?")
    assert isinstance(refused, Refusal)
    assert "quality asked for" in refused.reason
    answer = engine.ask("Which tidelib codec is the fastest?")
    assert isinstance(answer, Answer)
    assert "zstd" in answer.text
