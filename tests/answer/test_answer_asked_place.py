"""A question asking where is answered only by a quote naming a place."""

from __future__ import annotations

from typing import Any

from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_for_place, names_place


def test_where_questions_ask_for_a_place() -> None:
    assert asks_for_place("Where does the Wren daemon keep its journal?")
    assert asks_for_place("Где хранится журнал?")
    assert not asks_for_place("What does the Wren daemon keep in its journal?")


def test_a_place_is_a_place_phrase_a_url_a_path_a_file_or_a_name() -> None:
    assert names_place("The journal is kept under the state directory.")
    assert names_place("Journals go to stderr.")
    assert names_place("Docs: https://wren.example/docs")
    assert names_place("It reads ~/.wrenrc first.")
    assert names_place("Settings live in wren.toml.")
    assert names_place("The mirror run by Tallis hosts it.")
    # A record's name or summary says what a thing is, not where it is.
    assert not names_place("Name: wrenlog")
    assert not names_place("Structured logs made simple")
    assert not names_place("Version: 2.4.0")


def test_a_quote_naming_no_place_is_no_answer_to_where(ungated: Any) -> None:
    engine = ungated(
        {
            "wrenlog": "Name: wrenlog\nVersion: 2.4.0\nSummary: Structured logs for small daemons.\n",
            # Another project's documentation address is a place, but not wrenlog's.
            "heronkit": "Name: heronkit\nProject-URL: documentation, https://heronkit.example/docs\n",
            "wrend": "The wrend daemon writes its journal to the state directory of the user.",
        }
    )
    refused = engine.ask("Where is the documentation of wrenlog?")
    assert isinstance(refused, Refusal)
    assert "name no place" in refused.reason
    answer = engine.ask("Where does the wrend daemon write its journal?")
    assert isinstance(answer, Answer)
    assert "state directory" in answer.text
