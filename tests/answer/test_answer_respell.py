"""A question read in the spelling of the passages found (``answer/respell.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memo_core.answer.engine import Explanation, GuardedAnswerer
from memo_core.answer.respell import respelled, spellings_available
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase

pytestmark = pytest.mark.skipif(
    not spellings_available(), reason="breame comes with memo[local], which CI installs"
)

KILN = (
    "The kiln club's License lets members fire their own glazes on Tuesdays. "
    "The favorite glaze color of the club is a pale green, from the center shelf."
)


def test_a_word_the_passages_spell_the_other_regional_way_is_read_as_they_do() -> None:
    asked = "What does the licence of the kiln club let members do?"
    assert respelled(asked, [KILN]) == "What does the license of the kiln club let members do?"
    assert respelled("Colour of the favourite glaze?", [KILN]) == "Color of the favorite glaze?"
    assert respelled("Which shelf is the centre one?", [KILN]) == "Which shelf is the center one?"
    # And back: an American question of a British text.
    assert respelled("What color?", ["The colour is green."]) == "What colour?"


def test_a_word_held_as_asked_or_one_letter_off_another_is_left_alone() -> None:
    # Held by a passage as asked (or in another form of it): nothing to respell.
    both = KILN + " A licence costs ten euros."
    assert respelled("What does the licence cost?", [both]) == "What does the licence cost?"
    # One letter off is another word, not another spelling of the same one.
    assert respelled("Is it storing glazes?", ["A string of glazes."]) == "Is it storing glazes?"
    assert respelled("What does --remote do?", ["--remove deletes it."]) == (
        "What does --remote do?"
    )
    # A variant no passage holds changes nothing; nor does a question in Russian.
    assert respelled("What colour?", ["The glaze is green."]) == "What colour?"
    assert respelled("Какой цвет?", [KILN]) == "Какой цвет?"


def test_in_a_base_that_mixes_spellings_the_best_passage_using_the_word_decides() -> None:
    # A copyright file's fields say "License", the club's own terms say "licence": the
    # question is read as the passage found first writes it.
    stanza = "Files: kiln/*\nCopyright: 2020 Ada Potts\nLicense: Clay-Open"
    terms = "This licence lets members fire their own glazes."
    asked = "Which licence covers kiln/*?"
    assert respelled(asked, [stanza, terms]) == "Which license covers kiln/*?"
    assert respelled(asked, [terms, stanza]) == asked
    # A passage that does not use the word either way does not decide.
    assert respelled(asked, ["Kiln rules.", stanza, terms]) == "Which license covers kiln/*?"


@pytest.fixture
def kiln_base(tmp_path: Path) -> Iterator[MemoBase]:
    """A base of the kiln club's texts, in American spelling."""
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_texts(
        [
            KILN,
            "Under the Kiln Club License, members may sell the pots they fire.",
            "The pottery shop sells clay by the kilogram and closes on Mondays.",
            "Members of the kiln club pay a yearly fee of forty euros.",
        ]
    )
    yield base
    base.close()


def test_the_engine_answers_a_question_spelled_otherwise_and_says_how_it_read_it(
    kiln_base: MemoBase,
) -> None:
    asked = "What colour is the favourite glaze of the kiln club?"
    explanation = Explanation(asked)
    answer = GuardedAnswerer(kiln_base).ask(asked, explanation=explanation)
    assert explanation.respelled == "What color is the favorite glaze of the kiln club?"
    assert explanation.to_dict()["respelled"] == explanation.respelled
    assert not answer.refused
    assert "pale green" in answer.citations[0].quote  # type: ignore[union-attr]


def test_a_capitalised_word_spelled_otherwise_is_no_name_the_passages_lack(
    kiln_base: MemoBase,
) -> None:
    # "Licence" in the middle of a question reads as a name, which the quoted passages
    # must mention; in their spelling they do.
    answer = GuardedAnswerer(kiln_base).ask("What does the Kiln Club Licence let members sell?")
    assert not answer.refused, answer
    assert "sell the pots" in answer.citations[0].quote  # type: ignore[union-attr]
