"""Typographic normalisation and its offset map."""

from __future__ import annotations

import pytest

from memo_core.answer.normalize import normalize, normalize_quote, normalize_text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello   \n\t World", "hello world"),
        ("“Quoted” «text» ‘here’", '"quoted" "text" \'here\''),
        ("a–b — c−d", "a-b-c-d"),
        ("soft\u00adhyphen and zero\u200bwidth", "softhyphen and zerowidth"),
        ("ﬁne ＡＢＣ", "fine abc"),  # NFKC: ligature, full-width letters
        ("wait…", "wait..."),
        ("it ’ s and aren ’ t", "it's and aren't"),
        ("Italo - Normans", "italo-normans"),
        ("word , next ( 1990 )", "word, next (1990)"),
        ("value 3 .5", "value 3 .5"),  # a space before a decimal part is kept
        ("  padded  ", "padded"),
        ("cafe\u0301", "café"),  # combining accent composes
    ],
)
def test_normal_forms(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_case_is_kept_in_text_and_folded_has_the_same_length() -> None:
    norm = normalize_text("Straße İstanbul ÉTÉ")
    assert norm.text == "Straße İstanbul ÉTÉ"
    assert len(norm.folded) == len(norm.text)
    assert norm.folded.startswith("straße")


def test_offset_map_points_into_the_original() -> None:
    raw = "The  “term”\u00ad is\n24 months"
    norm = normalize_text(raw)
    i = norm.folded.index('"term"')
    a, b = norm.original_span(i, i + len('"term"'))
    assert raw[a:b] == "“term”"
    j = norm.folded.index("24 months")
    a, b = norm.original_span(j, j + len("24 months"))
    assert raw[a:b] == "24 months"


def test_a_whitespace_run_maps_to_its_whole_span() -> None:
    norm = normalize_text("a \n\t b")
    assert norm.text == "a b"
    assert (norm.starts[1], norm.ends[1]) == (1, 5)


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        ("“the term is 24 months.”", "the term is 24 months"),
        ("...the term is 24 months...", "the term is 24 months"),
        ("'the term'", "the term"),
        ("the term?!", "the term"),
        ("   ", ""),
    ],
)
def test_quote_trimming(quote: str, expected: str) -> None:
    assert normalize_quote(quote).folded == expected
