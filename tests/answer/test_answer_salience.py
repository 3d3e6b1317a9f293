"""Coined words (ones no word list knows) are terms an answer cannot do without."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.lexicon import dictionary_available
from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.answer.types import Answer, Refusal
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase

pytestmark = pytest.mark.skipif(not dictionary_available(), reason="needs the wordfreq lists")


def test_a_coined_word_is_a_hard_term_and_a_common_one_is_not() -> None:
    assert "spoolctl" in hard_terms("Does spoolctl retry a failed upload?")
    assert "upload" not in hard_terms("Does spoolctl retry a failed upload?")
    assert "respooled" in hard_terms("Which files are respooled first?")
    # Short unknown spellings are fragments and abbreviations as often as names.
    assert hard_terms("What does kwd mean here?") == []


@pytest.mark.parametrize(
    ("question", "evidence", "missing"),
    [
        # The page about a sibling tool, which does not name the one asked about.
        (
            "Does spoolctl retry a failed upload?",
            "The uploader retries a failed upload three times.",
            ["spoolctl"],
        ),
        ("Does spoolctl retry a failed upload?", "spoolctl retries each upload once.", []),
        # By stem: the question's inflection of the coined word is the evidence's.
        ("Which files are respooled first?", "Respooling starts with the oldest files.", []),
        # A typo of an evidence word is that word, from six letters on.
        ("What do innnate cells do?", "Innate cells respond first.", []),
        # Two letters swapped are one slip; a possessive does not hide the typo.
        ("What sets off an exlposion in the mill?", "Dust can cause an explosion.", []),
        ("Where does the Tarnwick's ferry stop?", "The Tarnwich ferry stops at Ely.", []),
        # An acronym stands for the capitalised name it abbreviates, small words skipped.
        ("Which rules did the NHA publish?", "The Northern Harbour Authority published rules.", []),
        ("What did the CHS fund?", "The Council of Harbour Safety funded two buoys.", []),
        ("Which rules did the NHA publish?", "The council published new berth rules.", ["nha"]),
        # A name without its accents, or written as one word, is the name.
        ("Where did Joaquin Sorolla paint?", "Joaquín Sorolla painted on the beach.", []),
        ("What did the firm rename Cloud Vault to?", "It renamed CloudVault to Keepsafe.", []),
        # A short coined name one letter from a real word is still its own name.
        ("What does wbits set?", "The bits of the window size.", ["wbits"]),
    ],
)
def test_a_coined_word_is_missing_when_the_evidence_does_not_name_it(
    question: str, evidence: str, missing: list[str]
) -> None:
    assert missing_terms(question, [evidence]) == missing


def test_a_question_naming_one_tool_is_not_answered_from_its_siblings_page(
    tmp_path: Path,
) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_document(
        "The uploader tool. A failed upload is retried three times before the uploader "
        "gives up and reports the error.",
        document_id="uploader",
        source="uploader.txt",
    )
    base.add_document("The harbour bakery opens at six and sells rye bread.", document_id="bakery")
    try:
        engine = GuardedAnswerer(base)
        assert isinstance(engine.ask("Does spoolctl retry a failed upload?"), Refusal)
        answered = engine.ask("Does the uploader retry a failed upload?")
        assert isinstance(answered, Answer)
        assert "retried three times" in answered.text
    finally:
        base.close()


def test_a_name_is_found_in_its_derived_form_and_its_possessive() -> None:
    # A people or an adjective of a place, either way round.
    assert missing_terms("Which Cuban port ships the most sugar?", ["Cuba ships sugar."]) == []
    assert missing_terms("Which ports does Chile run?", ["The Chilean ports are run..."]) == []
    assert missing_terms("What do the Tongans grow?", ["Tonga grows squash."]) == []
    assert missing_terms("How wide are Jupiter's belts?", ["The belts of Jupiter are wide."]) == []
    # Another ending makes another name.
    assert missing_terms("Who governs Austria?", ["The Australian governor."]) == ["austria"]
    assert missing_terms("What does Mars export?", ["Marseille exports soap."]) == ["mars"]


def test_a_name_written_as_code_is_matched_as_written() -> None:
    # "wrenlib.pack" and "wrenlib.packs" are two functions, not two forms of one word.
    packs = ["wrenlib.packs() turns a record into bytes."]
    assert missing_terms("What does wrenlib.pack return?", packs) == ["pack"]
    assert missing_terms("What does wrenlib.packs return?", packs) == []
    # In prose a word still matches its other forms.
    assert missing_terms("How does Wrenlib pack records?", ["Wrenlib packs records."]) == []


def test_a_quote_from_a_page_that_does_not_name_the_thing_asked_about_is_dropped(
    tmp_path: Path,
) -> None:
    # Two ferry lines' pages state a fare each; asked about one line, the other line's
    # fare is a true quote about something else, never part of the answer.
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_document(
        "The Skerrow ferry line. A single Skerrow ferry ticket costs 12 euros for adults.",
        document_id="skerrow",
    )
    base.add_document(
        "The Valby ferry line. A single ticket costs 9 euros for adults, bought on board.",
        document_id="valby",
    )
    try:
        engine = GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0))
        answered = engine.ask("How much does a single Skerrow ferry ticket cost for adults?")
        assert isinstance(answered, Answer)
        assert [c.document_id for c in answered.citations] == ["skerrow"]
        assert "12 euros" in answered.text and "9 euros" not in answered.text
    finally:
        base.close()
