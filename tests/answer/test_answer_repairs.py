"""A question's own corrections: what the asker took back is no term of the question."""

from __future__ import annotations

import pytest

from memo_core.answer.repairs import corrected
from memo_core.answer.salience import hard_terms, missing_terms


@pytest.mark.parametrize(
    ("asked", "meant"),
    [
        # A number or a name replaced by one of its kind.
        ("Which ferry left Bergen in 1907 no 1911?", "Which ferry left Bergen in 1911?"),
        ("When did Carol, sorry, I mean Dana join the board?", "When did Dana join the board?"),
        # A restart: everything before the new question word goes.
        ("How many seats er what is the fare to Oslo?", "What is the fare to Oslo?"),
        ("Which port or rather what protocol does the relay use?",
         "What protocol does the relay use?"),
        # A repair that brings its own article or preposition replaces its twin.
        ("Which depot serves the north line no no the harbour line?",
         "Which depot serves the harbour line?"),
        ("Where did the choir sing in Leeds or rather in York?", "Where did the choir sing in York?"),
        # A common word replaced by a common word.
        ("What colour were the doors I meant shutters of the mill?",
         "What colour were the shutters of the mill?"),
        # A marker that is also a plain word corrects a name or a number, or after
        # a hesitation.
        ("Which tram reached Kelso in 1931 actually 1934?", "Which tram reached Kelso in 1934?"),
        ("Who painted the lighthouse uhm rather the boathouse?", "Who painted the boathouse?"),
        # Fillers alone are dropped; the rest is kept as written.
        ("What does `pack_frames()` uh return?", "What does `pack_frames()` return?"),
    ],
)  # fmt: skip
def test_corrected_keeps_what_the_asker_meant(asked: str, meant: str) -> None:
    assert corrected(asked) == meant


@pytest.mark.parametrize(
    "question",
    [
        "What does the parser return if no match is found?",
        "Which method should be used instead of the old loader?",
        "How long does the client wait before it gives up?",
        "Is the value an int or a float?",
        "Does the cache have no upper bound?",
        # Plain words that can also mark a correction, used as plain words.
        "What does version 4.2 actually change in the scheduler?",
        "Why is the Brenner loader rather slow on large archives?",
        "Does the tokenizer disregard blank lines?",
        "How do I make that archive executable?",
    ],
)
def test_a_question_without_a_correction_comes_back_unchanged(question: str) -> None:
    assert corrected(question) == question


def test_a_retracted_name_or_number_is_no_hard_term() -> None:
    question = "What did the Velmar no sorry the Orsk expedition find in 1820 er 1822?"
    assert hard_terms(question) == ["orsk", "1822"]
    evidence = ["In 1822 the Orsk expedition found a second pass through the range."]
    assert missing_terms(question, evidence) == []
    # What it asks for after the correction must still be there.
    assert missing_terms(question, ["In 1820 the Velmar expedition found a pass."]) == [
        "orsk",
        "1822",
    ]


def test_a_version_before_a_plain_word_stays_a_hard_term() -> None:
    question = "What does version 4.2 actually change in the scheduler?"
    assert "4.2" in hard_terms(question)
    assert missing_terms(question, ["Version 3.9 changes how the scheduler picks a queue."])
