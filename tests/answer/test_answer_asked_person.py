"""A question asking who is answered only by a quote naming someone."""

from __future__ import annotations

from pathlib import Path

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_for_person, names_someone
from memo_core.kb import MemoBase


def test_who_questions_ask_for_a_person() -> None:
    assert asks_for_person("Who maintains heronlog?")
    assert asks_for_person("Whose patch made heronlog thread-safe?")
    assert asks_for_person("Кто сопровождает heronlog?")
    assert asks_for_person("Apart from its author, who maintains heronlog?")
    assert not asks_for_person("What does heronlog maintain?")


def test_someone_is_a_name_or_a_body_the_question_does_not_give() -> None:
    question = "Who maintains heronlog?"
    assert names_someone(question, "heronlog is maintained by Ada Quill.")
    assert names_someone(question, "The heronlog developer team keeps it.")
    assert names_someone(question, "Author: Tallis Works, Inc.")
    # An acronym names a thing as often as someone; the question's own name is no answer.
    assert not names_someone(question, "With release 3.0 heronlog changed its API.")
    assert not names_someone("Who maintains Heronlog?", "Heronlog keeps its journal small.")
    # A word for people the question itself says, beside a name it gives, is no answer.
    apart = "Apart from its author Ada Quill, who maintains heronlog?"
    assert not names_someone(apart, "Author: Ada Quill")
    assert names_someone(apart, "Author: Ada Quill Maintainer: Tallis Reed")
    # A function word after a line break, not a full stop, opens a sentence all the same.
    assert not names_someone(question, "heronlog.open()  The output lists the journals found.")


def test_a_quote_naming_no_one_is_no_answer_to_who(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "With release 3.0 heronlog no longer returned plain records, which changed its API.",
        document_id="heronlog",
    )
    base.add_document(
        "The tidelib package is maintained by Ada Quill since its second release.",
        document_id="tidelib",
    )
    engine = GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0))
    refused = engine.ask("Who maintains heronlog since release 3.0?")
    assert isinstance(refused, Refusal)
    assert "name no one" in refused.reason
    answer = engine.ask("Who maintains tidelib?")
    assert isinstance(answer, Answer)
    assert "Ada Quill" in answer.text
    base.close()
