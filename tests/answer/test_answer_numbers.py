"""Numbers read the same in a question and its evidence: thousands separators, words, ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.faithfulness import unfaithful
from memo_core.answer.numbers import StatedNumbers, canonical_number
from memo_core.answer.salience import hard_terms, hit_evidence, missing_terms
from memo_core.answer.types import Answer, Refusal
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.kb.records import ChunkInput
from memo_core.types import Hit


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("1,000,000", "1000000"),
        ("1'000'000", "1000000"),  # Swiss
        ("1\u2019000\u2019000", "1000000"),  # a typographic apostrophe
        ("1\u00a0000\u00a0000", "1000000"),  # no-break space
        ("1\u2009000", "1000"),  # thin space
        ("1\u202f000\u202f000", "1000000"),  # narrow no-break space
        ("1_000_000", "1000000"),  # a Python literal
        ("10_00", "1000"),  # Python groups freely
        ("1,234.5", "1234.5"),
        # Not grouping: a decimal comma, a leading zero, a list, a version, a time, a date.
        ("3,5", "3,5"),
        ("0,001", "0,001"),
        ("1,2,3", "1,2,3"),
        ("12,34", "12,34"),
        ("1,0000", "1,0000"),
        ("3.12.1", "3.12.1"),
        ("1.000.000", "1.000.000"),  # a point would read versions as numbers
        ("10:30", "10:30"),
        ("2024-01-05", "2024-01-05"),
        ("1'000,000", "1'000,000"),  # one separator per number
    ],
)
def test_canonical_number_drops_only_thousands_grouping(written: str, read: str) -> None:
    assert canonical_number(written) == read


def test_a_question_number_is_one_term_whatever_its_separators() -> None:
    assert hard_terms("Which plan allows 1'000'000 requests?") == ["1000000"]
    assert hard_terms("Is 1_000_000 the limit in version 3.12?") == ["1000000", "3.12"]
    assert hard_terms("Does it cost 3,5 or 1\u202f200 euros?") == ["3,5", "1200"]


_SEPARATORS = st.sampled_from([",", "'", "\u2019", "\u00a0", "\u2009", "\u202f", "_"])


def _written(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


# No deadline: a loaded machine is no failure.
@settings(deadline=None)
@given(
    n=st.integers(1000, 10**12),
    other=st.integers(1000, 10**12),
    asked=_SEPARATORS,
    written=_SEPARATORS,
)
def test_a_number_is_missing_exactly_when_the_evidence_lacks_it(
    n: int, other: int, asked: str, written: str
) -> None:
    question = f"Which plan allows {_written(n, asked)} requests per day?"
    assert missing_terms(question, [f"The plan allows {_written(n, written)} requests."]) == []
    if other != n:
        evidence = [f"The plan allows {_written(other, written)} requests."]
        assert missing_terms(question, evidence) == [str(n)]


def test_a_question_about_a_number_the_base_lacks_is_refused(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_document(
        "Plans and quotas. The basic plan allows 1'000 requests per day. "
        "The large plan allows 100'000 requests per day. Quotas reset at midnight.",
        document_id="plans",
    )
    base.add_document("The harbour bakery opens at six and sells rye bread.", document_id="bakery")
    try:
        engine = GuardedAnswerer(base)
        # 1, 000 and 000 are all in the passage, 1'000'000 is not.
        refused = engine.ask("Which plan allows 1'000'000 requests per day?")
        assert isinstance(refused, Refusal)
        assert "1000000" in refused.reason
        # The same number written the English way is the passage's 100'000.
        answered = engine.ask("Which plan allows 100,000 requests per day?")
        assert isinstance(answered, Answer)
        assert "The large plan allows 100'000 requests per day." in answered.text
    finally:
        base.close()


def test_a_claim_may_regroup_its_quotes_number_but_not_change_it() -> None:
    quote = ["The large plan allows 1'000'000 requests per day."]
    assert unfaithful("The large plan allows 1,000,000 requests per day.", quote) is None
    assert unfaithful("The large plan allows 1\u202f000\u202f000 requests per day.", quote) is None
    assert unfaithful("The large plan allows 100,000 requests per day.", quote) is not None
    assert unfaithful("The large plan allows 1,000 requests per day.", quote) is not None


# A number the evidence states in another form is not missing; one it does not
# state is, whatever other numbers of the question it holds.
@pytest.mark.parametrize(
    ("question", "evidence", "missing"),
    [
        # A closed range holds every integer between its ends, and only those.
        ("Can the spool depth be 4?", "The spool depth is an integer in 0-9.", []),
        ("Can the spool depth be 12?", "The spool depth is an integer in 0-9.", ["12"]),
        ("Is depth 9 allowed?", "Depths 1\u20139 are allowed (0 disables it).", []),
        ("Does mode 28 add a footer?", "Modes +25 to +31: add a footer.", []),
        ("Does mode 33 add a footer?", "Modes +25 to +31: add a footer.", ["33"]),
        ("Is port 8080 open?", "Ports between 1024 and 65,535 are open.", []),
        ("Is port 80 open?", "Ports between 1024 and 65,535 are open.", ["80"]),
        ("What does tier 6 cost?", "Tiers 2 through 8 cost the same.", []),
        ("Сколько стоит тариф 7?", "Тарифы от 1 до 9 стоят одинаково.", []),
        # An upper bound has 0 for its other end.
        ("What does format 3 store?", "The writer supports formats up to 5.", []),
        ("What does format 3 store?", "It reads at most 5 formats.", []),
        ("Can a queue hold 4 jobs?", "A queue holds 5 jobs or fewer.", []),
        # The question's other number is there, the one it asks about is not.
        (
            "What does format 7 add over format 5?",
            "The writer supports formats up to 5; format 5 adds out-of-band buffers.",
            ["7"],
        ),
        ("What does format 4 add?", "At most 3 formats are kept.", ["4"]),
        # An open range names no number: every one past its end would be "stated".
        ("What does format 7 add?", "Format 2 or higher is required.", ["7"]),
        ("What does format 7 add?", "Formats from 2 onwards are supported.", ["7"]),
        # A hyphen from a larger to a smaller number is a name, a date is a date.
        ("Is charset 5 supported?", "Only ISO 8859-1 is supported.", ["5"]),
        ("What changed in 2024?", "Released on 2023-01-05.", ["2024"]),
        ("Which build runs on core 70?", "It runs on x86-64 machines.", ["70"]),
        # A decimal or a version is stated as written only.
        ("Is ratio 0.5 allowed?", "The ratio is a value in 0-1.", ["0.5"]),
        ("Does it run on 3.10?", "Supported: versions 3.8-3.12.", ["3.10"]),
        # Words, cardinal and ordinal, in English and Russian (declined).
        ("Does the loader keep 7 buffers?", "The loader keeps seven buffers.", []),
        ("Does the loader keep 8 buffers?", "The loader keeps seven buffers.", ["8"]),
        ("Does the loader keep 21 buffers?", "It keeps twenty-one buffers.", []),
        ("Is the 3rd field the key?", "The third field is the key.", []),
        ("Хранит ли загрузчик 5 буферов?", "Загрузчик хранит не больше пяти буферов.", []),
        # "One" is a pronoun as often as a number.
        ("Does it take 1 argument?", "Pass the one that matches.", ["1"]),
    ],
)
def test_a_number_is_stated_by_digits_words_or_a_range_holding_it(
    question: str, evidence: str, missing: list[str]
) -> None:
    assert missing_terms(question, [evidence]) == missing


@settings(deadline=None)
@given(low=st.integers(0, 5000), width=st.integers(1, 5000), asked=st.integers(0, 20000))
def test_a_range_states_exactly_the_integers_between_its_ends(
    low: int, width: int, asked: int
) -> None:
    high = low + width
    for written in (f"{low}-{high}", f"{low} to {high}", f"between {low} and {high}"):
        stated = StatedNumbers.read(f"Any level in {written} is accepted.", "english")
        assert stated.states(str(asked)) == (low <= asked <= high), written


def test_a_locator_position_states_no_number() -> None:
    on_page_7 = Hit(
        "c1",
        "d1",
        "Format 5 adds out-of-band buffers.",
        1.0,
        source="formats.pdf",
        locator={"page": 7},
    )
    assert missing_terms("What does format 7 add?", [hit_evidence(on_page_7)]) == ["7"]
    lines = Hit("c2", "d1", "Format 5 adds buffers.", 1.0, locator={"line_start": 7, "line_end": 9})
    assert missing_terms("What does format 7 add?", [hit_evidence(lines)]) == ["7"]
    # A heading is what the text is about: its names and numbers count.
    headed = Hit("c3", "d1", "It adds buffers.", 1.0, locator={"heading": "Formats > Format 7"})
    assert missing_terms("What does format 7 add?", [hit_evidence(headed)]) == []


def test_a_question_about_a_number_only_its_page_holds_is_refused(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    text = "Wire formats. Format 5 of the archive writer adds out-of-band buffers."
    base.add_document(
        text,
        document_id="formats",
        source="formats.pdf",
        chunks=[ChunkInput(text, 0, len(text), locator={"page": 7})],
    )
    base.add_document("The harbour bakery opens at six and sells rye bread.", document_id="bakery")
    try:
        engine = GuardedAnswerer(base)
        refused = engine.ask("What does format 7 of the archive writer add?")
        assert isinstance(refused, Refusal)
        answered = engine.ask("What does format 5 of the archive writer add?")
        assert isinstance(answered, Answer)
        assert "out-of-band buffers" in answered.text
    finally:
        base.close()
