"""A question asking what is not so is answered only by a quote that negates, or names
an exception or a lack; the texts are made up for these tests."""

from __future__ import annotations

from typing import Any

from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_negated, states_negation


def test_a_negated_predicate_asks_what_is_not_so() -> None:
    assert asks_negated("Which harbour town is not on the ferry line?")
    assert asks_negated("What can't the Wren daemon rotate?")
    assert asks_negated("Which ports does the pier never open?")
    # A repair's "not" says what the asker did not mean, and asks nothing negated.
    assert not asks_negated("Which harbour no not that, which town has a ferry?")
    assert not asks_negated("Which pier, sorry, which dock that is not right, opens first?")
    assert not asks_negated("Which dock, the eastern not the western one, opens first?")
    # A condition asks what holds then; a why-question asks for a reason.
    assert not asks_negated("Which port does the daemon bind if I do not pass one?")
    assert not asks_negated("Why is the ferry not running on Sundays?")


def test_a_negation_an_exception_or_a_lack_can_answer() -> None:
    assert states_negation("Saltby is the only town the ferry does not reach.")
    assert states_negation("Every town but Saltby lies on the line.")
    assert states_negation("Saltby lacks a pier.")
    assert states_negation("The pier is unreachable at low tide.")
    assert not states_negation("The ferry calls at Saltby and Marrow twice a day.")


def test_a_quote_stating_what_is_so_is_no_answer_to_what_is_not(ungated: Any) -> None:
    engine = ungated({"ferry": "The Tallis ferry calls at Saltby, Marrow and Keld every morning."})
    refused = engine.ask("Which town does the Tallis ferry not call at?")
    assert isinstance(refused, Refusal)
    assert "state no negation" in refused.reason
    # Asked what is so, the same passage answers.
    assert isinstance(engine.ask("Which towns does the Tallis ferry call at?"), Answer)
    engine.kb.add_document(
        "In winter the Tallis ferry does not call at Keld.", document_id="winter"
    )
    answer = engine.ask("Which town does the Tallis ferry not call at in winter?")
    assert isinstance(answer, Answer)
    assert "does not call at Keld" in answer.text
