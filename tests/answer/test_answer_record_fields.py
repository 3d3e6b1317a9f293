"""A quote made only of record fields answers a question only when a field is one the
question names or a value holds more of it than the subject's name
(``answer/fields.py``). The records are made up for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memo_core.answer import Answer, GuardedAnswerer, Refusal
from memo_core.answer.fields import fields_off_question
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.types import Citation
from memo_core.kb import MemoBase


def _quoting(
    sentence: str, *, title: str = "heronlog 2.4", source: str = "heronlog.txt"
) -> Citation:
    return Citation(
        quote=sentence,
        chunk_id="c1",
        document_id="d1",
        source=source,
        start=0,
        end=len(sentence),
        title=title,
        sentence=sentence,
    )


def test_a_field_holding_only_the_subject_s_name_answers_nothing_else() -> None:
    name = [_quoting("Name: heronlog\\\nVersion: 2.4.0\\")]
    assert fields_off_question("Who maintains heronlog?", name)
    assert fields_off_question("Where is the documentation of heronlog?", name)
    # A field the question names, or a value holding what it asks about, answers.
    assert not fields_off_question("Which version of heronlog is this?", name)
    maintainer = [_quoting("Maintainer: Odile Brandt <odile@heron.example>")]
    assert not fields_off_question("Who is the maintainer of heronlog?", maintainer)
    urls = [_quoting("Project-URL: Bug Reports, https://heron.example/issues")]
    assert not fields_off_question("Where do I report bugs in heronlog?", urls)


def test_a_question_naming_only_the_subject_or_a_prose_quote_is_left_to_other_checks() -> None:
    summary = [_quoting("Summary: Structured logs for small daemons")]
    assert not fields_off_question("What is heronlog?", summary)
    assert not fields_off_question("What does heronlog provide?", summary)
    prose = [_quoting("Heronlog is maintained by the heron team.")]
    assert not fields_off_question("Who maintains heronlog?", prose)


def test_a_field_named_like_its_file_still_answers_the_question_naming_it() -> None:
    # A Debian copyright file is named "copyright"; its "Copyright:" fields answer.
    held = [_quoting("Files: src/*\nCopyright: 2019 Odile Brandt", title="", source="copyright")]
    assert not fields_off_question("Who holds the copyright?", held)
    assert fields_off_question("Who maintains the parser?", held)


@pytest.fixture
def heronlog(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "Name: heronlog\nVersion: 2.4.0\nSummary: Structured logs for small daemons\n"
        "Author: Odile Brandt\nRequires-Python: >=3.9\n",
        document_id="heronlog",
        title="heronlog 2.4.0",
    )
    yield base
    base.close()


def test_the_engine_refuses_a_record_that_lacks_the_field_asked_for(heronlog: MemoBase) -> None:
    engine = GuardedAnswerer(heronlog, gate=SufficiencyGate(threshold=0.0))
    refused = engine.ask("Who maintains heronlog?")
    assert isinstance(refused, Refusal)
    assert "record fields" in refused.reason
    answer = engine.ask("Who is the author of heronlog?")
    assert isinstance(answer, Answer)
    assert "Odile Brandt" in answer.text
