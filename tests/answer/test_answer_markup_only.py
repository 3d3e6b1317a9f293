"""Struck-through text and badge rows are never the answer sentence."""

from __future__ import annotations

import pytest

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.sentences import is_markup_only
from memo_core.answer.windows import rank_windows
from memo_core.types import Hit


@pytest.mark.parametrize(
    "sentence",
    [
        "<s>[Twice as quick as print](#quick)</s>",
        "~~Runs on a toaster~~.",
        "<del>Free forever</del>",
        "[![Build](https://ci.example/badge.svg)](https://ci.example) "
        "[![PyPI](https://img.example/v.svg)](https://pypi.example)",
        ".. image:: https://img.example/badge.svg\n   :target: https://ci.example",
        "|build| |coverage|",
        '<p align="center"><img src="logo.png" alt="Logo"></p>',
    ],
)
def test_withdrawn_or_markup_only_sentences_say_nothing(sentence: str) -> None:
    assert is_markup_only(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The parser is <s>slow</s> fast now.",
        "<s>Old claim</s> and a sentence that stands <s>other</s>",
        "Uses ~~two~~ three threads.",
        "Version 2 adds ![icon](x.png) icons.",
        "See https://example.org for details.",
        "Heimes",
        "",
    ],
)
def test_a_sentence_with_words_of_its_own_is_kept(sentence: str) -> None:
    assert not is_markup_only(sentence)


PAGE = (
    "Tortoise writes logs.\n\n"
    "[![Speed](https://img.example/speed-3x.svg)](https://bench.example)\n\n"
    "- <s>Three times faster than the standard logger.</s>\n"
    "- Colours in every terminal.\n\n"
    "Tortoise was rewritten in its second major release."
)


def test_a_struck_claim_or_a_badge_is_never_picked() -> None:
    question = "How much faster than the standard logger is Tortoise?"
    picks = extractive_answer(question, [("c", PAGE)])
    assert all("faster" not in PAGE[a:b] and "svg" not in PAGE[a:b] for _, a, b in picks)
    # The same claim, not struck through, is what the picker quotes.
    kept = PAGE.replace("<s>", "").replace("</s>", "")
    first = extractive_answer(question, [("c", kept)])[0]
    assert "Three times faster" in kept[first[1] : first[2]]


def test_a_struck_claim_is_no_evidence_window() -> None:
    windows = rank_windows(
        "How much faster than the standard logger is it?",
        [Hit("c", "d", PAGE, 1.0)],
        {"faster": 3.0, "standard": 1.0, "logger": 1.0},
    )
    assert windows and all("<s>" not in w.sentence and "svg" not in w.sentence for w in windows)
    kept = PAGE.replace("<s>", "").replace("</s>", "")
    best = rank_windows(
        "How much faster than the standard logger is it?",
        [Hit("c", "d", kept, 1.0)],
        {"faster": 3.0, "standard": 1.0, "logger": 1.0},
    )[0]
    assert "Three times faster" in best.sentence
