"""A question's own corrections: what the asker took back is no term of the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.repairs import corrected
from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.answer.types import Answer
from memo_core.kb import MemoBase


@pytest.mark.parametrize(
    ("asked", "meant"),
    [
        # A number or a name replaced by one of its kind.
        ("Which ferry left Bergen in 1907 no 1911?", "Which ferry left Bergen in 1911?"),
        ("When did Carol, sorry, I mean Dana join the board?", "When did Dana join the board?"),
        # A restart: everything before the new question word goes.
        ("How many seats er what is the fare to Oslo?", "What is the fare to Oslo?"),
        ("Which port or rather what protocol does the relay use?",
         "What protocol does the relay use?"),
        # A repair that brings its own article or preposition replaces its twin.
        ("Which depot serves the north line no no the harbour line?",
         "Which depot serves the harbour line?"),
        ("Where did the choir sing in Leeds or rather in York?", "Where did the choir sing in York?"),
        # A common word replaced by a common word.
        ("What colour were the doors I meant shutters of the mill?",
         "What colour were the shutters of the mill?"),
        # A marker that is also a plain word corrects a name or a number, or after
        # a hesitation.
        ("Which tram reached Kelso in 1931 actually 1934?", "Which tram reached Kelso in 1934?"),
        ("Who painted the lighthouse uhm rather the boathouse?", "Who painted the boathouse?"),
        # Fillers alone are dropped; the rest is kept as written.
        ("What does `pack_frames()` uh return?", "What does `pack_frames()` return?"),
        # A filler drawn out is a filler still.
        ("Which gauge uhh which valve sets the boiler pressure?",
         "Which valve sets the boiler pressure?"),
        # "no" before an article, after a hesitation, or restating a word, corrects.
        ("What are the outer walls no the inner walls of the keep made of?",
         "What are the inner walls of the keep made of?"),
        ("Where do the herons oh no the egrets nest?", "Where do the egrets nest?"),
        ("What is another word for tide no sorry another word used for the neap tide?",
         "What is another word used for the neap tide?"),
        # Any preposition opens a parallel repair, five words back too.
        ("How many ferries sail within the bay no sorry within the harbour?",
         "How many ferries sail within the harbour?"),
        ("What did the council say in 1871 about the old harbour, sorry, in 1872?",
         "What did the council say about the old harbour in 1872?"),
        # "wait" after a noun, not after "should I" or "does the worker".
        ("What is the name of the bridge wait the tunnel under the estuary?",
         "What is the name of the tunnel under the estuary?"),
        # An opening of a few words dropped at "or" before a new question word.
        ("What did or why did the guild close its hall?", "Why did the guild close its hall?"),
        # A question word with nothing after it repairs the one before it.
        ("Shipwrights often used which, I mean what?", "Shipwrights often used what?"),
        ("In 1840 no I think 1841, who rebuilt the mill?", "In 1841, who rebuilt the mill?"),
        # A restart that did not open the question replaces its last question word; a
        # pronoun of the restart keeps what it points back to.
        ("The ferry sails in what month no rather what season?",
         "The ferry sails in what season?"),
        ("What did Acme make, no wait, when was it founded?", "Acme make, when was it founded?"),
    ],
)  # fmt: skip
def test_corrected_keeps_what_the_asker_meant(asked: str, meant: str) -> None:
    assert corrected(asked) == meant


@pytest.mark.parametrize(
    "question",
    [
        "What does the parser return if no match is found?",
        "Which method should be used instead of the old loader?",
        "How long does the client wait before it gives up?",
        "Is the value an int or a float?",
        "Does the cache have no upper bound?",
        # Plain words that can also mark a correction, used as plain words.
        "What does version 4.2 actually change in the scheduler?",
        "Why is the Brenner loader rather slow on large archives?",
        "Does the tokenizer disregard blank lines?",
        "How do I make that archive executable?",
        "How long should I wait for the lock?",
        "Why does the worker wait when the queue is empty?",
        "What happens when no handler is registered?",
        "Does the parser still run with no config file?",
        "Which option makes the cache no longer expire?",
        "Is it a list or what?",
        "What does the tool do if there is no cache, or what does it print?",
        # Capitals make a name of what would be a filler.
        "When does the ER open on Sundays?",
    ],
)
def test_a_question_without_a_correction_comes_back_unchanged(question: str) -> None:
    assert corrected(question) == question


def test_a_retracted_name_or_number_is_no_hard_term() -> None:
    question = "What did the Velmar no sorry the Orsk expedition find in 1820 er 1822?"
    assert hard_terms(question) == ["orsk", "1822"]
    evidence = ["In 1822 the Orsk expedition found a second pass through the range."]
    assert missing_terms(question, evidence) == []
    # What it asks for after the correction must still be there.
    assert missing_terms(question, ["In 1820 the Velmar expedition found a pass."]) == [
        "orsk",
        "1822",
    ]


def test_a_version_before_a_plain_word_stays_a_hard_term() -> None:
    question = "What does version 4.2 actually change in the scheduler?"
    assert "4.2" in hard_terms(question)
    assert missing_terms(question, ["Version 3.9 changes how the scheduler picks a queue."])


def test_a_number_repair_retracts_the_number_of_its_form() -> None:
    question = "What did the 14th century masons call the vault no 15th?"
    assert "14th" not in corrected(question)
    assert hard_terms(question) == ["15th"]
    # A number of another form stays: "in 1880" is no ordinal.
    assert "1880" in corrected("Who in 1880 carved the 3rd arch no sorry the 4th?")


def test_the_quote_answers_the_question_as_meant(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "The Tarn mill grinds oats and barley for the farms of the upper valley. "
        "It was rebuilt in stone by Ada Kerr after the spring flood.",
        document_id="tarn",
    )
    base.add_document("The Wenning ferry crosses the river twice a day.", document_id="ferry")
    engine = GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0), max_sentences=1)
    # The retracted half shares more words with the first sentence than the question
    # as meant does with the second: the pick reads the question as meant.
    answer = engine.ask("What does the Tarn mill grind no sorry who rebuilt the Tarn mill?")
    base.close()
    assert isinstance(answer, Answer)
    assert "Ada Kerr" in answer.text
