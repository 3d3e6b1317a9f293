"""A question asking where is answered only by a quote naming a place."""

from __future__ import annotations

from pathlib import Path

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_for_place, names_place
from memo_core.kb import MemoBase


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


def test_a_quote_naming_no_place_is_no_answer_to_where(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "Name: wrenlog\nVersion: 2.4.0\nSummary: Structured logs for small daemons.\n",
        document_id="wrenlog",
    )
    # Another project's documentation address is a place, but not wrenlog's.
    base.add_document(
        "Name: heronkit\nProject-URL: documentation, https://heronkit.example/docs\n",
        document_id="heronkit",
    )
    base.add_document(
        "The wrend daemon writes its journal to the state directory of the user.",
        document_id="wrend",
    )
    engine = GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0))
    refused = engine.ask("Where is the documentation of wrenlog?")
    assert isinstance(refused, Refusal)
    assert "name no place" in refused.reason
    answer = engine.ask("Where does the wrend daemon write its journal?")
    assert isinstance(answer, Answer)
    assert "state directory" in answer.text
    base.close()
