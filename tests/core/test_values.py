"""The one value extractor shared by memory SUPERSEDE and unified-recall conflicts."""

from __future__ import annotations

from datetime import date

from memo_core.unified import extract_values as conflict_values
from memo_core.values import extract_values, find_date_range, polarity


def _keys(text: str, **kw: object) -> list[tuple[str, tuple[object, ...], str | None]]:
    return [(v.kind, v.key, v.attribute) for v in extract_values(text, **kw)]  # type: ignore[arg-type]


def test_dates_times_amounts_names_places() -> None:
    assert _keys("Her viva was pushed to the 17th at 2pm.") == [
        ("date", (None, None, 17), None),
        ("time", ("clock", 14, 0), None),
    ]
    assert _keys("the parking permit fee is £30 a month") == [
        ("number", ("GBP/month", 30.0), "fee")
    ]
    assert _keys("Нашу кошку зовут Муся, мы живём в Самаре") == [
        ("name", ("муся",), "name"),
        ("place", ("самар",), "place"),
    ]
    # the most precise date wins over a month alone; a year left out stays None
    assert _keys("renewal moved to October 8") == [("date", (None, 10, 8), None)]
    assert _keys("I may 3 times a week") == []  # "may" the verb


def test_memory_resolves_years_and_month_parts() -> None:
    ref = date(2026, 11, 20)
    assert find_date_range("the lease ends 3 January", ref) == (date(2027, 1, 3),) * 2
    assert find_date_range("в конце февраля", ref) == (date(2027, 2, 21), date(2027, 2, 28))
    assert find_date_range("on the 9th", ref) is None  # a day alone is no calendar date


def test_conflicts_read_the_same_values_restricted_to_their_kinds() -> None:
    text = "The audit is on 2026-05-04 at 09:30 and costs 1,200 EUR; the accountant is Lena Park."
    shared = [(v.kind, v.key) for v in extract_values(text) if v.kind in ("date", "number", "name")]
    assert [(v.kind, v.key) for v in conflict_values(text)] == shared
    assert {v.kind for v in extract_values(text)} == {"date", "time", "number", "name"}


def test_polarity() -> None:
    assert polarity("I adore oat milk") == 1
    assert polarity("oat milk upsets my stomach, I avoid it") == -1
    assert polarity("Я больше не ем мясо") == -1
    assert polarity("The train leaves at noon") == 0
