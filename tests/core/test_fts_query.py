"""User text reaches FTS5 only through fts_match_expression: no input breaks it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.search.text import detect_language, fts_match_expression, stem_text
from memo_core.storage.connection import Database


@pytest.fixture(scope="module")
def fts_db() -> Database:
    db = Database(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE f USING fts5(raw, stemmed, tokenize='unicode61 remove_diacritics 2')"
    )
    for text in [
        "The contract term is 24 months",
        "Order A-4471 shipped",
        "Срок договора два года",
    ]:
        db.execute("INSERT INTO f VALUES (?, ?)", [text, stem_text(text, detect_language(text))])
    return db


def _match(db: Database, query: str) -> list[str]:
    expression = fts_match_expression(query)
    if expression is None:
        return []
    return [r[0] for r in db.query("SELECT raw FROM f WHERE f MATCH ?", [expression])]


HOSTILE = [
    '"',
    '""',
    "*",
    "NEAR(a b)",
    "a -b",
    "col:term",
    "AND OR NOT",
    "^x",
    "(",
    ")",
    "{raw}:x",
    "\x00",
    "a\x00b",
    "'; DROP TABLE f; --",
    "x" * 100_000,
    "🙂",
    "   ",
    "",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(fts_db: Database, query: str) -> None:
    _match(fts_db, query)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_a_safe_query(fts_db: Database, query: str) -> None:
    _match(fts_db, query)


def test_codes_match_as_phrases(fts_db: Database) -> None:
    assert _match(fts_db, "A-4471") == ["Order A-4471 shipped"]


def test_stemming_finds_inflected_forms(fts_db: Database) -> None:
    assert _match(fts_db, "contracts") == ["The contract term is 24 months"]
    assert _match(fts_db, "договор") == ["Срок договора два года"]


def test_diacritics_are_folded(fts_db: Database) -> None:
    assert _match(fts_db, "cöntract") == ["The contract term is 24 months"]


def test_stopword_only_query_still_searches(fts_db: Database) -> None:
    assert fts_match_expression("the") is not None


def test_language_detection_by_script() -> None:
    assert detect_language("срок договора") == "russian"
    assert detect_language("term of the contract") == "english"
    assert detect_language("срок", ["english"]) == "english"


def test_dotted_names_are_searched_by_their_parts_too() -> None:
    """An API reference lists a member under its class ("flush(self)"), not as "Cache.flush"."""
    db = Database(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(raw, stemmed)")
    member = "class Cache\n  Methods defined here:\n  flush(self)\n    Write every pending entry."
    for text in [member, "Version 4.25 shipped"]:
        db.execute("INSERT INTO f VALUES (?, ?)", [text, stem_text(text, "english")])
    assert _match(db, "Cache.flush") == [member]
    # A decimal stays one phrase: "4.25" does not match a text holding only "4" or "25".
    assert '"4"' not in (fts_match_expression("Is 4.25 out?") or "")
    assert _match(db, "4.25") == ["Version 4.25 shipped"]
