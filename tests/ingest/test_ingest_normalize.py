"""normalize_text, DocumentBuilder and the ExtractedDocument contract."""

from __future__ import annotations

import hashlib
import importlib.util
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core import frequencies
from memo_core.errors import InvalidInputError
from memo_core.ingest import DocumentBuilder, ExtractedDocument, Section, normalize_text
from memo_core.ingest import normalize as normalize_module
from memo_core.ingest.normalize import joins_across_line


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a\r\nb\rc", "a\nb\nc"),
        ("nul\x00 and bell\x07 gone", "nul and bell gone"),
        ("\ufeffbom at start", "bom at start"),
        ("trailing   \nspaces\t\n", "trailing\nspaces"),
        ("one\n\n\n\n\ntwo", "one\n\ntwo"),
        ("blank\n   \n \t\n\nlines", "blank\n\nlines"),
        ("the infor-\nmation is here", "the information is here"),
        ("Jean-\nPierre keeps his hyphen", "Jean-\nPierre keeps his hyphen"),
        ("page 12-\n13 keeps digits", "page 12-\n13 keeps digits"),
        ("e\u0301 composed", "\u00e9 composed"),
        ("soft\u00adhyphen", "softhyphen"),
        ("page one\x0cpage two", "page one\n\npage two"),
        ("  \n  padded  \n  ", "padded"),
        ("кон-\nтракт", "контракт"),
    ],
)
def test_normalize_text_cases(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


needs_wordfreq = pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None, reason="wordfreq (the local extra) is missing"
)


@needs_wordfreq
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # A compound whose own hyphen fell at the line end keeps it.
        ("a well-\nknown trick", "a well-\nknown trick"),
        ("the long-\nterm plan", "the long-\nterm plan"),
        ("a self-\nevident claim", "a self-\nevident claim"),
        ("как-\nнибудь потом", "как-\nнибудь потом"),
        ("что-\nто случилось", "что-\nто случилось"),  # "чтото" is a web misspelling
        # A word the line broke is joined, also when both halves are words.
        ("the docu-\nment says", "the document says"),
        ("some-\nthing else", "something else"),
        ("every-\none agreed", "everyone agreed"),
        ("подпи-\nсание договора", "подписание договора"),
        # Three lines: each break is read with the whole words on its two sides.
        ("an unbe-\nliev-\nable day", "an unbelievable day"),
        ("a com-\npre-\nhensive list", "a comprehensive list"),  # "com", "pre": words
        ("под-\nпи-\nсание договора", "подписание договора"),
        ("it is self-\nevi-\ndent", "it is self-\nevident"),  # a compound, one part broken
        ("a docu-\nment-\nbased store", "a document-\nbased store"),
        ("Jean-\nPier-\nre", "Jean-\nPierre"),
    ],
)
def test_line_end_hyphen_joins_broken_words_and_keeps_compounds(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected
    assert normalize_text(expected) == expected


@needs_wordfreq
def test_joins_across_line_reads_word_frequencies() -> None:
    assert not joins_across_line("short", "lived")  # "shortlived" is no word
    assert joins_across_line("pro", "gramming")  # "gramming" is none
    assert joins_across_line("with", "out")  # "without" is far more frequent


def test_without_wordfreq_every_line_end_hyphen_is_joined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(frequencies, "_package_dir", lambda: None)
    joins_across_line.cache_clear()
    frequencies.word_frequency.cache_clear()
    try:
        assert normalize_text("a well-\nknown trick") == "a wellknown trick"
        assert normalize_text("it is self-\nevi-\ndent") == "it is selfevident"
    finally:
        joins_across_line.cache_clear()
        frequencies.word_frequency.cache_clear()


@needs_wordfreq
def test_a_long_chain_of_line_end_hyphens_is_read_break_by_break() -> None:
    # Weighing every reading of a chain costs 2**breaks: past MAX_CHAIN_BREAKS each
    # break is judged on its own two fragments (30 breaks would never finish).
    fragments = ["zq"] * 31
    assert len(fragments) - 1 > normalize_module.MAX_CHAIN_BREAKS
    assert normalize_text("a " + "-\n".join(fragments)) == "a " + "zq" * 31


@settings(deadline=None)
@given(st.text())
def test_normalize_is_idempotent_and_clean(raw: str) -> None:
    once = normalize_text(raw)
    assert normalize_text(once) == once
    assert unicodedata.is_normalized("NFC", once)
    assert "\r" not in once and "\x00" not in once and "\n\n\n" not in once
    assert once == once.strip()


def test_builder_sections_point_at_their_text() -> None:
    builder = DocumentBuilder()
    assert builder.add("first  piece\r\n", {"page": 1})
    assert not builder.add("   \n ", {"page": 2})  # nothing left after normalising
    assert builder.add("third", {"page": 3})
    doc = builder.build(source="/x", title="t", kind="pdf")
    assert doc.text == "first  piece\n\nthird"
    assert [doc.text[s.start : s.end] for s in doc.sections] == ["first  piece", "third"]
    assert [s.locator for s in doc.sections] == [{"page": 1}, {"page": 3}]
    assert normalize_text(doc.text) == doc.text


def test_content_hash_is_sha256_of_text() -> None:
    doc = ExtractedDocument(text="héllo", source="/x", title="x", kind="text")
    assert doc.content_hash == hashlib.sha256("héllo".encode()).hexdigest()
    assert (
        doc.content_hash
        != ExtractedDocument(text="hello", source="/x", title="x", kind="text").content_hash
    )


@pytest.mark.parametrize(
    "sections",
    [
        [Section(0, 10, {})],  # past the end
        [Section(3, 2, {})],  # reversed
        [Section(0, 3, {}), Section(2, 4, {})],  # overlapping
    ],
)
def test_document_rejects_bad_sections(sections: list[Section]) -> None:
    with pytest.raises(InvalidInputError):
        ExtractedDocument(text="abcd", source="/x", title="x", kind="text", sections=sections)


def test_document_rejects_unknown_kind_and_trust() -> None:
    with pytest.raises(InvalidInputError):
        ExtractedDocument(text="a", source="/x", title="x", kind="spreadsheet")
    with pytest.raises(InvalidInputError):
        ExtractedDocument(text="a", source="/x", title="x", kind="text", trust="high")
