"""A CamelCase identifier in a passage holds the words it joins: "Which executor ..." is
answered by a sentence naming ``ShuttlePoolExecutor``. The texts are made up for these
tests."""

from __future__ import annotations

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.lemmas import identifier_terms, term_of
from memo_core.answer.windows import rank_windows
from memo_core.types import Hit

PASSAGES = [
    ("a", "Executors differ in how they treat the batch size setting of a queue."),
    ("b", "The batch size is honoured only by ShuttlePoolExecutor; it is ignored elsewhere."),
]


def _terms(*words: str) -> set[str]:
    return {term_of(w, "english") for w in words}


def test_an_identifier_holds_the_terms_of_its_words() -> None:
    assert identifier_terms("used by ShuttlePoolExecutor", "english") == _terms(
        "shuttle", "pool", "executor"
    )
    # A run of capitals is a word of its own; parts of fewer than three letters are not.
    assert identifier_terms("raises HTTPTimeoutError", "english") == _terms(
        "http", "timeout", "error"
    )
    assert identifier_terms("an IPv4Mask", "english") == _terms("mask")
    # Plain words, capitalised or not, join nothing.
    assert identifier_terms("The Executor runs. HTTP works.", "english") == frozenset()
    # An identifier the question names whole is matched whole.
    asked = _terms("shuttlepoolexecutor", "pool")
    assert identifier_terms("ShuttlePoolExecutor", "english", asked) == frozenset()


def test_the_window_naming_the_identifier_holds_the_asked_word() -> None:
    idf = {t: 1.0 for t in _terms("executor", "honour", "batch", "size")}
    hit = Hit(chunk_id="b", document_id="d", text=PASSAGES[1][1], score=1.0)
    (window,) = rank_windows("Which executor honours the batch size?", [hit], idf)
    assert window.weight == len(idf)


def test_the_pick_quotes_the_sentence_naming_the_identifier() -> None:
    picked = extractive_answer("Which executor honours the batch size?", PASSAGES, max_sentences=1)
    assert [chunk for chunk, _, _ in picked] == ["b"]
