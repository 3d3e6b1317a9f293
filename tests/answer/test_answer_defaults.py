"""A question about a default is answered only by a passage that states one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.types import Answer, Refusal
from memo_core.kb import MemoBase


@pytest.fixture
def kiln(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "The Marlow kiln fires stoneware and porcelain. "
        "The glaze temperature of the Marlow kiln is set on its front panel.",
        document_id="marlow",
    )
    base.add_document(
        "The Quill kiln fires earthenware. The glaze temperature of the Quill kiln "
        "defaults to 1040 degrees.",
        document_id="quill",
    )
    yield base
    base.close()


def test_a_default_the_passages_do_not_state_is_refused(kiln: MemoBase) -> None:
    engine = GuardedAnswerer(kiln, gate=SufficiencyGate(threshold=0.0))
    # The one default stated is the other kiln's: its quote does not name the Marlow kiln.
    refused = engine.ask("What is the default glaze temperature of the Marlow kiln?")
    assert isinstance(refused, Refusal)
    assert "do not mention marlow" in refused.reason
    # No passage states a default at all.
    refused = engine.ask("What is the default porcelain glaze of the Marlow kiln?")
    assert isinstance(refused, Refusal)
    assert "state no default" in refused.reason
    answer = engine.ask("What is the default glaze temperature of the Quill kiln?")
    assert isinstance(answer, Answer)
    assert "1040 degrees" in answer.text
    # Asked without the default, the same passage answers.
    assert isinstance(engine.ask("Where is the glaze temperature of the Marlow kiln set?"), Answer)


def test_a_manual_page_states_a_default_by_what_holds_without_the_option() -> None:
    from memo_core.answer.windows import states_asked_default

    asked = "How many kiln logs does rotate keep by default?"
    for stated in (
        "Without --keep, rotate keeps 9 logs.",
        "If omitted, nine logs are kept.",
        "When the count is not given, nine logs are kept.",
        "Если не указано, хранится девять журналов.",
    ):
        assert states_asked_default(asked, stated), stated
    for silent in ("Rotate keeps the newest logs.", "It rotates logs without asking."):
        assert not states_asked_default(asked, silent), silent


def test_a_call_with_a_placeholder_states_no_default() -> None:
    from memo_core.answer.windows import states_asked_default

    asked = "What glaze temperature does fire() use by default?"
    # A signature's value is a default; a one-letter placeholder in a call shows usage.
    assert states_asked_default(asked, "fire(glaze, temperature=1040)")
    assert states_asked_default(asked, "Kiln(mode='bisque', temperature=None)")
    assert not states_asked_default(asked, "Hot(t) is the same as fire(temperature=t).")
    assert not states_asked_default(asked, "It equals `fire(temperature=x)`")


def test_an_assignment_of_what_a_call_returns_states_no_default() -> None:
    from memo_core.answer.windows import states_asked_default

    asked = "What is the default value of strict in kiln.fire?"
    # A name given a value alone states it; a line of an example keeping a call's result
    # (with another argument's value in the call) states no default.
    assert states_asked_default(asked, "strict=False")
    assert not states_asked_default(asked, 'run = kiln.fire("bisque", glaze=True)')
    assert not states_asked_default(asked, "run = fire_all()")


def test_a_question_about_what_holds_when_a_setting_is_left_out_asks_for_a_default() -> None:
    from memo_core.answer.windows import states_asked_default

    silent = "The loom in this example weaves with a tension of 7."
    for asked in (
        "Which tension does the loom use if I don't pass one?",
        "Which tension does the loom use when --tension is not given?",
        "Which tension does the loom use when none is given?",
        "What does the loom weave when called with no arguments?",
        "Which tension does the loom use unless told otherwise?",
    ):
        assert not states_asked_default(asked, silent), asked
        assert states_asked_default(asked, "The tension defaults to 4."), asked
    # Not a question about what holds without a setting.
    assert states_asked_default("How do I weave without any knots?", silent)
    for stated in (
        "If no tension is provided, the loom uses 4.",
        "If a tension is given it is used; otherwise the loom picks 4.",
        "Failing to provide a tension makes the loom use 4.",
        "Otherwise, the loom picks a tension of 4.",
    ):
        assert states_asked_default("Which tension does the loom use when none is given?", stated)


def test_a_call_with_no_arguments_is_answered_only_where_a_default_is_stated(
    ungated: Any,
) -> None:
    engine = ungated(
        {
            "meter": "Sampling the loom meter:\n>>> meter.sample(interval=2)\n12.5\n"
            "The meter reports the loom's thread count per minute.",
        }
    )
    refused = engine.ask("Which interval does meter.sample use if I call it with no arguments?")
    assert isinstance(refused, Refusal)
    assert "state no default" in refused.reason
