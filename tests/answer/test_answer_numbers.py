"""Numbers with thousands separators read the same in a question and its evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.faithfulness import unfaithful
from memo_core.answer.numbers import canonical_number
from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.answer.types import Answer, Refusal
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase


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
