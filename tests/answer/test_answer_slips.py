"""The shape of a misspelling: slips OCR or typing make, and edits they do not."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memo_core.answer.slips import _neighbours, slip_distance


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
        ("convecting", "converting"),  # "r" dropped, "c" (like the "e" beside it) added
        ("seperate", "separate"),  # "a" dropped, "e" (a key beside the "r") added
    ],
)
def test_a_replacement_that_no_scanner_or_finger_makes_is_no_single_slip(
    quote: str, source: str
) -> None:
    # Never one slip, and never the price of a drop plus an unrelated addition.
    assert slip_distance(quote, source) > 2 or math.isinf(slip_distance(quote, source))


# Long words (nine letters and more) may carry two slips, so a replacement priced as
# a drop plus an addition would pass there unless the two may not sit side by side.
_distinct_words = st.lists(
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=9, max_size=14, unique=True
).map("".join)


@settings(max_examples=300, deadline=None)
@given(word=_distinct_words, data=st.data())
def test_a_letter_replaced_by_a_look_alike_of_its_neighbour_is_no_pair_of_slips(
    word: str, data: st.DataObject
) -> None:
    near = _neighbours()
    k = data.draw(st.integers(1, len(word) - 2))
    # The new letter looks like (or sits on a key beside) a letter next to it, so it
    # passes as a stray added letter; it is neither the old letter nor like it.
    beside = {word[k - 1], word[k + 1]}
    options = sorted(
        c
        for c in "abcdefghijklmnopqrstuvwxyz"
        if c not in word and (word[k], c) not in near and any((n, c) in near for n in beside)
    )
    assume(options)
    replaced = word[:k] + data.draw(st.sampled_from(options)) + word[k + 1 :]
    assert slip_distance(replaced, word) > 2, (replaced, word)


@settings(max_examples=300, deadline=None)
@given(word=_distinct_words, data=st.data())
def test_a_dropped_letter_and_a_doubled_one_elsewhere_stay_two_slips(
    word: str, data: st.DataObject
) -> None:
    """The ban is on a drop and an addition side by side, not on two slips in a long word."""
    i = data.draw(st.integers(1, len(word) - 4))
    j = data.draw(st.integers(i + 2, len(word) - 2))
    slipped = word[:i] + word[i + 1 : j] + word[j] + word[j:]  # drop word[i], double word[j]
    assert slip_distance(slipped, word) == 2, (slipped, word)
