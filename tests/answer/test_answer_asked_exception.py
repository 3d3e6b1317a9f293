"""A question asking which exception is raised is answered only by a quote naming one."""

from __future__ import annotations

from typing import Any

from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_for_exception, names_exception


def test_questions_asking_which_exception_or_error() -> None:
    assert asks_for_exception("Which exception does heron.open raise for a locked journal?")
    assert asks_for_exception("What error do I get when the spool is full?")
    assert asks_for_exception("With which error does the sync fail offline?")
    assert asks_for_exception("What kind of exception is raised on a bad header?")
    assert asks_for_exception("Какое исключение вызывает heron.open?")
    # An error's message, code or handler is not an exception's name.
    assert not asks_for_exception("What error message does heron print for a full spool?")
    assert not asks_for_exception("Which error code does the daemon exit with?")
    assert not asks_for_exception("What does heron.open do with a locked journal?")


def test_an_exception_is_named_as_code_names_one() -> None:
    assert names_exception("A locked journal raises JournalLocked.")
    assert names_exception("heron.Error is raised for a bad header.")
    assert names_exception("If the spool is full, ValueError is raised.")
    assert names_exception("Fails with HERON_BUSY while a sync runs.")
    assert names_exception("Raises one exception: 'spool_error'.")
    # Saying that something fails does not say with what.
    assert not names_exception("It may fail when no journal is configured, unlike heron.open().")
    assert not names_exception("It raises an exception if the header is bad.")


def test_a_quote_naming_no_exception_is_no_answer(ungated: Any) -> None:
    engine = ungated(
        {
            "heron-open": "heron.open() may fail if no journal is configured, "
            "where heron.peek() succeeds.",
            "heron-sync": "heron.sync() raises SpoolFullError when the spool holds no free page.",
        }
    )
    refused = engine.ask("Which exception does heron.open() raise when no journal is configured?")
    assert isinstance(refused, Refusal)
    assert "name no exception" in refused.reason
    answer = engine.ask("Which exception does heron.sync() raise when the spool is full?")
    assert isinstance(answer, Answer)
    assert "SpoolFullError" in answer.text
