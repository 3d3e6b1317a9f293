"""Irregular forms as one term: the answer engine compares a question and a passage
by the stems of their words' dictionary forms (``answer/lemmas.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memo_core.answer import lemmas
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.gate import _DocumentFrequencies as Frequencies
from memo_core.answer.gate import gate_features
from memo_core.answer.lemmas import lemmas_available, term_of
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.search.text import stem_token

pytestmark = pytest.mark.skipif(
    not lemmas_available(), reason="simplemma comes with memo[local], which CI installs"
)


def test_an_irregular_verb_s_forms_are_one_term() -> None:
    for forms in (("wrote", "written", "write", "writes"), ("began", "begun", "begin")):
        assert len({term_of(w, "english") for w in forms}) == 1, forms
    assert term_of("held", "english") == term_of("holding", "english")
    # Regular forms keep their shared stem; so do words the list does not know.
    assert term_of("signed", "english") == stem_token("signed", "english")
    assert term_of("quillwort", "english") == stem_token("quillwort", "english")


def test_forms_from_another_root_digits_and_other_languages_stay_apart() -> None:
    # "better" is a form of "good", "went" of "go": joining them would match words the
    # question does not say.
    assert term_of("better", "english") != term_of("good", "english")
    assert term_of("went", "english") != term_of("go", "english")
    assert term_of("1990s", "english") == stem_token("1990s", "english")
    assert term_of("написал", "russian") == stem_token("написал", "russian")


def test_without_the_lemma_list_a_term_is_its_stem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lemmas, "_lemmatizer", lambda: None)
    term_of.cache_clear()
    try:
        assert term_of("wrote", "english") == stem_token("wrote", "english")
    finally:
        term_of.cache_clear()


@contextmanager
def _base(tmp_path: Path, texts: list[str]) -> Iterator[MemoBase]:
    """A base holding ``texts``, closed after the block."""
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    try:
        base.add_texts(texts)
        yield base
    finally:
        base.close()


def test_the_gate_and_the_picker_read_the_question_s_verb_in_the_passage(
    tmp_path: Path,
) -> None:
    texts = [
        "The Lower Valley Almanac\n\nWritten by Maren Holt in the winter of 1911."
        " It lists the tides and the feast days.",
        "Ferry timetables of the lower valley are posted at the pier.",
    ]
    with _base(tmp_path, texts) as base:
        asked = "Who wrote the lower valley almanac?"
        hits = base.search(asked, k=2)
        features = gate_features(asked, hits, Frequencies(base.store))
        assert features["window_lacking"] == []  # "wrote" is held by "Written"
        assert features["window_sentence"].startswith("Written by Maren Holt")
        _, start, end = extractive_answer(asked, [(h.chunk_id, h.text) for h in hits])[0]
        assert hits[0].text[start:end].startswith("Written by Maren Holt")


def test_a_question_s_verb_is_seen_when_the_base_holds_another_form_of_it(
    tmp_path: Path,
) -> None:
    # The keyword index counts plain stems: "wrote" is counted as its dictionary form's
    # stem too, which "writes" has, so it is no term the base never holds.
    with _base(tmp_path, ["Maren Holt writes the almanac every winter."]) as base:
        asked = "Who wrote the almanac?"
        features = gate_features(asked, base.search(asked, k=1), Frequencies(base.store))
        assert features["unseen_terms"] == 0.0
