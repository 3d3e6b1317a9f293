"""A question read in the words the passages use for the same thing ("exit code" asked
of a manual page that says "exit status"). The texts are made up for these tests."""

from __future__ import annotations

from pathlib import Path

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.respell import respelled
from memo_core.answer.types import Answer, Refusal
from memo_core.kb import MemoBase

PAGE = """BAYCTL(1)

NAME
       bayctl - reserve loading bays at the depot

EXIT STATUS
       0      The bay was reserved.

       3      No bay was free and --no-wait was given.

       4      The depot daemon could not be reached.
"""
GUIDE = (
    "Every code change needs a review. Code style follows the project guide, and code "
    "that fails the checks is sent back. Read the code of conduct before you open an issue."
)


def test_a_phrase_is_read_in_the_passages_word_for_it() -> None:
    assert respelled("What does exit code 3 mean?", [PAGE]) == "What does exit status 3 mean?"
    assert respelled("Which exit codes are there?", [PAGE]) == "Which exit statuses are there?"
    record = "Name: baylog\nAuthor: Ines Valdivia\nSummary: Logs which bay was reserved."
    assert respelled("Who wrote baylog?", [record]) == "Who author baylog?"
    urls = "Project-URL: Changelog, https://bays.example/changes\nHome-page: https://bays.example"
    assert respelled("Where are the release notes of baylog?", [urls]) == (
        "Where are the changelog of baylog?"
    )
    assert respelled("What is the website of baylog?", [urls]) == "What is the home page of baylog?"
    tracker = "Project-URL: Issues, https://bays.example/issues"
    assert respelled("Where can I file bugs against baylog?", [tracker]) == (
        "Where can I file issues against baylog?"
    )
    settings = "The configuration directory is read at start."
    assert respelled("Where is the config folder?", [settings]) == (
        "Where is the configuration directory?"
    )
    bays = "Multiple bays can be booked in one request."
    assert respelled("Can I book several bays at once?", [bays]) == (
        "Can I book multiple bays at once?"
    )
    needs = record + "\nRequires-Dist: wrenkit>=2.0"
    assert respelled("Which package does baylog depend on?", [needs]) == (
        "Which package does baylog require on?"
    )
    assert respelled("Does baylog require wrenkit?", ["baylog depends on wrenkit."]) == (
        "Does baylog depend wrenkit?"
    )


def test_two_words_the_passages_write_as_one_are_read_as_one() -> None:
    listing = "-t, --test  Test if a baypack is complete. Baypacks hold one timetable each."
    assert respelled("How do I check that a bay pack is complete?", [listing]) == (
        "How do I check that a baypack is complete?"
    )
    assert respelled("Does a bay-pack hold a time table?", [listing]) == (
        "Does a baypack hold a timetable?"
    )
    # The best passage holding either form decides: written apart there, kept apart.
    apart = "A bay pack is a folder of bays."
    assert respelled("What is a bay pack?", [apart, listing]) == "What is a bay pack?"
    # In any of its forms: "bay packs" writes "bay pack" apart.
    plural = "Bay packs are folders of bays."
    assert respelled("What is a bay pack?", [plural, listing]) == "What is a bay pack?"
    # Nor is a word that only ends another as a suffix would ("Wren er" is no "wrener"),
    # and the first word keeps its capital.
    assert respelled("Where is Wren er the bay?", ["Wrens nest by a bay."]) == (
        "Where is Wren er the bay?"
    )
    assert respelled("Where is the Bay pack?", [listing]) == "Where is the Baypack?"
    # A function word is no part of a compound ("a" + "bay" is no "abay").
    assert respelled("Is there a bay?", ["Abay is a name."]) == "Is there a bay?"


def test_the_best_passage_saying_any_of_them_decides() -> None:
    # The first passage that says one of the phrases at all says it as asked.
    said = ["The exit code 3 means the bay is busy.", PAGE]
    assert respelled("What does exit code 3 mean?", said) == "What does exit code 3 mean?"
    # A passage saying none of them decides nothing.
    assert respelled("What does exit code 3 mean?", [GUIDE, PAGE]) == (
        "What does exit status 3 mean?"
    )
    # Only listed words: "maximum" is not read as the "max" of another name.
    asked = "What is the maximum load of a bay?"
    assert respelled(asked, ["Set max-load in bay.toml."]) == asked


def _answer(folder: Path, documents: dict[str, str], question: str) -> Answer | Refusal:
    base = MemoBase(folder / "kb.db", embedder=None)
    for document_id, text in documents.items():
        base.add_document(text, document_id=document_id)
    try:
        return GuardedAnswerer(base).ask(question)
    finally:
        base.close()


def test_the_base_is_searched_again_in_the_passages_words(tmp_path: Path) -> None:
    answer = _answer(tmp_path, {"bayctl": PAGE, "guide": GUIDE}, "What does exit code 3 mean?")
    assert isinstance(answer, Answer)
    assert "No bay was free" in answer.text


def test_who_wrote_a_package_is_answered_by_its_author_field(tmp_path: Path) -> None:
    record = (
        "Metadata-Version: 2.1\nName: baylog\nVersion: 1.4.0\n"
        "Summary: Logs which loading bay was reserved, and when.\n"
        "Author: Ines Valdivia\nRequires-Python: >=3.9\n"
    )
    answer = _answer(tmp_path, {"baylog": record, "guide": GUIDE}, "Who wrote baylog?")
    assert isinstance(answer, Answer)
    assert "Ines Valdivia" in answer.text
