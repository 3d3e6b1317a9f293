"""The shape of a misspelling: slips OCR or typing make, and edits they do not."""

from __future__ import annotations

import math

import pytest

from memo_core.answer.slips import slip_distance


@pytest.mark.parametrize(
    ("quote", "source", "slips"),
    [
        ("cabin", "cabin", 0),
        ("cabn", "cabin", 1),  # dropped letter
        ("cabbin", "cabin", 1),  # doubled letter
        ("cbain", "cabin", 1),  # swapped neighbours
        ("cahin", "cabin", 1),  # look-alike h/b
        ("cabun", "cabin", 1),  # keyboard neighbour u/i
        ("modem", "modern", 1),  # "rn" read as "m"
        ("rnodern", "modern", 1),
        ("cabiin", "cabin", 1),
        ("пaроль", "пaроль", 0),
        ("парлоь", "пароль", 1),
        ("пароль", "паролъ", 1),  # look-alike ь/ъ
    ],
)
def test_slips_are_counted(quote: str, source: str, slips: int) -> None:
    assert slip_distance(quote, source) == slips


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        ("convecting", "connecting"),  # v for n: neither look-alike nor neighbour
        ("cabzn", "cabin"),
        ("cabinz", "cabin"),  # a stray letter far from its neighbours on the keyboard
    ],
)
def test_a_replacement_that_no_scanner_or_finger_makes_is_no_single_slip(
    quote: str, source: str
) -> None:
    # Never one slip, and never the price of a drop plus an unrelated addition.
    assert slip_distance(quote, source) > 2 or math.isinf(slip_distance(quote, source))
