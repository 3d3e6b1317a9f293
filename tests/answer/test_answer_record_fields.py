"""A quote made only of record fields answers a question only when a field is one the
question names, or asks for in other words ("Who created it?" for "Author:", and only
words for that field: ``answer/field_words.py``), or a value holds more of it than the
subject's name (``answer/fields.py``). The records are made up for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memo_core.answer import Answer, GuardedAnswerer, Refusal
from memo_core.answer import engine as engine_module
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.field_words import field_terms
from memo_core.answer.fields import asked_subjects, document_names, fields_off_question
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.lemmas import term_of
from memo_core.answer.types import Citation
from memo_core.answer.windows import implied_terms
from memo_core.kb import MemoBase
from memo_core.types import Hit


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
    terms = [_quoting("Files: src/*\nLicense: Heron-Permissive-1", title="", source="copyright")]
    assert not fields_off_question("Under which licence may the sources be used?", terms)
    assert fields_off_question("Who maintains the parser?", held)


@pytest.fixture
def heronlog(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "Name: heronlog\nVersion: 2.4.0\nSummary: Structured logs for small daemons\n"
        "Author: Odile Brandt\nRequires-Python: >=3.9\nHome-page: https://heron.example\n"
        "Project-URL: Tracker, https://heron.example/tickets\n",
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


def test_a_question_about_one_document_s_subject_is_not_answered_by_another_record() -> None:
    hits = [_hit("heronlog 2.4.0", "heronlog.txt"), _hit("Tidelib", "tidelib.md")]
    assert document_names("heronlog 2.4.0", "docs/heronlog.txt") == {"heronlog"}
    assert document_names("Tidelib: tides for tests", "tidelib.md") == {"tidelib"}
    assert asked_subjects("Which Python does tidelib require?", hits) == {"tidelib"}
    # A name inside another one, or a common word that names a file, is no subject.
    assert asked_subjects("Which Python does tidelib-extras require?", hits) == set()
    assert asked_subjects("Which license?", [_hit("License", "license.txt")]) == set()
    # What needs it is asked of the records that name it.
    assert asked_subjects("Which packages depend on tidelib?", hits) == set()
    assert asked_subjects("What requires tidelib?", hits) == set()
    python = [_quoting("Requires-Python: >=3.9\nRequires-Dist: tidelib>=1.2")]
    question = "Which Python version does tidelib require?"
    assert not fields_off_question(question, python)
    assert fields_off_question(question, python, frozenset({"tidelib"}))
    assert not fields_off_question(question, python, frozenset({"tidelib", "heronlog"}))


def test_the_engine_refuses_another_record_s_field_for_the_subject_asked_about(
    heronlog: MemoBase,
) -> None:
    heronlog.add_document(
        "Name: tidelib\nVersion: 0.3\nSummary: Tide tables for test fixtures\n",
        document_id="tidelib",
        title="tidelib 0.3",
    )
    engine = GuardedAnswerer(heronlog, gate=SufficiencyGate(threshold=0.0))
    refused = engine.ask("Which Python version does tidelib require?")
    assert isinstance(refused, Refusal), refused
    answer = engine.ask("Which Python version does heronlog require?")
    assert isinstance(answer, Answer)
    assert ">=3.9" in answer.text


def _hit(title: str, source: str) -> Hit:
    return Hit(chunk_id=title, document_id=title, text="", score=1.0, title=title, source=source)


def _terms(*words: str) -> set[str]:
    return {term_of(w, "english") for w in words}


def test_a_field_holds_the_words_it_is_asked_for_by() -> None:
    assert _terms("write", "create") <= field_terms("Author: Odile Brandt", "english")
    assert _terms("contact") <= field_terms("Maintainer-email: odile@heron.example", "english")
    # A link's label and a classifier's first part name what the value is.
    tracker = field_terms("Project-URL: Tracker, https://heron.example/tickets", "english")
    assert _terms("report", "problem", "bug") <= tracker
    platforms = field_terms("Classifier: Operating System :: POSIX :: Linux", "english")
    assert _terms("support", "run") <= platforms
    assert _terms("depend", "need") <= field_terms("Requires-Dist: tidepool>=3.1", "english")
    # A licence field is asked for in either spelling, and a Files field by what it covers.
    assert _terms("licence", "terms") <= field_terms("License: Heron-Permissive-1", "english")
    assert _terms("cover") <= field_terms("Files: vendor/tide/*", "english")
    # A link to a code forge is where the code is kept, whatever its field.
    forge = field_terms("Home-page: https://codeberg.org/heron/heronlog", "english")
    assert _terms("code", "repository") <= forge
    # The gate's windows and the picker read them as the field's own terms.
    assert _terms("write") <= implied_terms("Author: Odile Brandt", "english")


def test_only_the_field_s_own_words_and_never_prose() -> None:
    home = field_terms("Home-page: https://heron.example", "english")
    assert not _terms("documentation", "code", "report") & home
    # "develop" is also the "development" of "What is the development status?"
    assert not _terms("maintain", "develop") & field_terms("Author: Odile Brandt", "english")
    assert field_terms("The author of heronlog wrote it in a weekend.", "english") == set()
    assert field_terms("Notes: runs nightly", "english") == set()
    # An extra's name is what is installed by it, which the question names: the field
    # itself implies nothing installed ("What does the gpu extra install?" of another).
    assert not _terms("install") & field_terms("Provides-Extra: tide", "english")
    # A field sharing a word with a known one says something else.
    assert field_terms("Description-Content-Type: text/markdown", "english") == set()
    assert field_terms("Metadata-Version: 2.4", "english") == set()


def test_a_field_answers_a_question_asking_for_it_in_other_words() -> None:
    author = [_quoting("Author: Odile Brandt")]
    assert not fields_off_question("Who created heronlog?", author)
    assert not fields_off_question("Who originally wrote heronlog?", author)
    assert fields_off_question("Who maintains heronlog?", author)
    tracker = [_quoting("Project-URL: Tracker, https://heron.example/tickets")]
    assert not fields_off_question("Where do I report a problem with heronlog?", tracker)
    # A field is named by most of its name, not by one word of a longer one.
    content = [_quoting("Description-Content-Type: text/markdown")]
    assert fields_off_question("Which content does heronlog log?", content)
    assert not fields_off_question("What is the description content type?", content)
    home = [_quoting("Home-page: https://heron.example")]
    assert fields_off_question("Where is the documentation of heronlog?", home)


def test_a_field_asked_for_by_its_own_name_is_not_stood_in_for_by_another() -> None:
    summary = [_quoting("Summary: Structured logs for small daemons")]
    # "describe" asks for a summary, but "keywords" names the field asked for.
    assert fields_off_question("Which keywords describe heronlog?", summary)
    assert not fields_off_question("How is heronlog described?", summary)
    keywords = [_quoting("Keywords: logs, daemons, journald")]
    assert not fields_off_question("Which keywords describe heronlog?", keywords)
    # Named by a link's label, or by a longer field name holding it.
    docs = [_quoting("Project-URL: Documentation, https://heron.example/docs")]
    assert not fields_off_question("Where is the documentation of heronlog?", docs)
    email = [_quoting("Author-email: Odile Brandt <odile@heron.example>")]
    assert not fields_off_question("How do I write to the author of heronlog?", email)


def test_a_classifier_answers_what_its_label_or_its_value_names_not_a_shared_stem() -> None:
    status = [_quoting("Classifier: Development Status :: 4 - Beta")]
    audience = [_quoting("Classifier: Intended Audience :: Developers")]
    solaris = [_quoting("Classifier: Operating System :: POSIX :: SunOS/Solaris")]
    # "develops" shares a stem with the label's "Development" and with "Developers".
    assert fields_off_question("Who develops heronlog?", status)
    assert fields_off_question("Who develops heronlog?", audience)
    # The label's last word, a word it is asked for by, or a value as written names it.
    assert not fields_off_question("What is the development status of heronlog?", status)
    assert not fields_off_question("Which operating systems does heronlog run on?", solaris)
    assert not fields_off_question("Does heronlog support Solaris?", solaris)
    assert not fields_off_question("Is heronlog used on Solaris machines?", solaris)
    # The subject's own name is no value the question asks about.
    python = [_quoting("Classifier: Programming Language :: Python :: 3", title="heron-python")]
    assert fields_off_question("Where is the documentation of heron-python?", python)


def test_the_engine_quotes_the_field_a_question_asks_for_in_other_words(
    heronlog: MemoBase,
) -> None:
    engine = GuardedAnswerer(heronlog, gate=SufficiencyGate(threshold=0.0))
    answer = engine.ask("Who created heronlog?")
    assert isinstance(answer, Answer)
    assert "Odile Brandt" in answer.citations[0].quote
    tracker = engine.ask("Where do I report a problem with heronlog?")
    assert isinstance(tracker, Answer)
    assert "tickets" in tracker.citations[0].quote


def test_the_picker_passes_over_what_the_caller_would_not_quote() -> None:
    text = "Name: heronlog\nAuthor: Odile Brandt\n"
    question = "Who is the author of heronlog?"
    said = {text[a:b] for _, a, b in extractive_answer(question, [("c1", text)])}
    assert said == {"Name: heronlog", "Author: Odile Brandt"}
    for line in said:
        at = text.index(line)
        kept = extractive_answer(question, [("c1", text)], keep=lambda _id, a, _b, at=at: a != at)
        assert [text[a:b] for _, a, b in kept] == list(said - {line})


def test_the_engine_has_the_picker_pass_over_fields_that_name_only_the_subject(
    heronlog: MemoBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered: list[tuple[str, bool]] = []
    real = engine_module.extractive_answer

    def spy(question: str, passages: Any, **options: Any) -> Any:
        keep = options["keep"]
        for chunk_id, text in passages:
            for line in ("Name: heronlog", "Author: Odile Brandt"):
                start = text.find(line)
                if start >= 0:
                    offered.append((line, keep(chunk_id, start, start + len(line))))
        return real(question, passages, **options)

    monkeypatch.setattr(engine_module, "extractive_answer", spy)
    GuardedAnswerer(heronlog, gate=SufficiencyGate(threshold=0.0)).ask("Who created heronlog?")
    assert ("Name: heronlog", False) in offered
    assert ("Author: Odile Brandt", True) in offered
