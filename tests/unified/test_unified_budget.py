"""One token budget: the rendered block never exceeds it, and items are never cut."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memo_core.kb import MemoBase
from memo_core.memory import MemoHood
from memo_core.unified import (
    UnifiedItem,
    detect_conflicts,
    estimate_tokens,
    fit_budget,
    recall_all,
)
from memo_core.unified.render import render_context

from .conftest import USER, add_contract, add_grant, day, tell_hollis


def _ranked(memory: MemoHood, kb: MemoBase) -> list[UnifiedItem]:
    tell_hollis(memory)
    memory.capture("By the way, I'm allergic to penicillin.", namespace=USER, at=day(1))
    add_grant(kb)
    add_contract(kb)
    for i in range(6):
        kb.add_texts([f"Hollis archive note {i}: report formats, margins and fonts. " * 3])
    result = recall_all(
        "When is the Hollis report due?",
        memory=memory,
        kb=kb,
        namespace=USER,
        k=12,
        token_budget=100_000,
        at=day(7),
        kb_floor=False,  # the archive notes are padding for the budget, relevant or not
    )
    assert len(result.items) >= 6 and not result.dropped
    return list(result.items)


_RANKED: dict[int, list[UnifiedItem]] = {}


def test_estimate_is_a_quarter_of_the_characters() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(budget=st.integers(min_value=0, max_value=1500))
def test_budget_is_respected_and_items_are_whole(
    memory: MemoHood, kb: MemoBase, budget: int
) -> None:
    # The fixtures live across examples; build the ranked list once for them.
    ranked = _RANKED.get(id(memory))
    if ranked is None:
        ranked = _RANKED[id(memory)] = _ranked(memory, kb)
    kept, conflicts, text = fit_budget(ranked, budget)
    assert estimate_tokens(text) <= budget
    assert kept == ranked[: len(kept)]  # the lowest-ranked are dropped first
    for item in kept:  # never cut mid-way
        assert " ".join(item.text.split()) in text
    if not kept:
        assert text == ""
    elif len(kept) < len(ranked):  # the next item (with any conflict it brings) did not fit
        more = [*kept, ranked[len(kept)]]
        assert estimate_tokens(render_context(more, detect_conflicts(more))) > budget
    assert conflicts == detect_conflicts(kept)


def test_recall_all_reports_tokens_and_drops(memory: MemoHood, kb: MemoBase) -> None:
    ranked = _ranked(memory, kb)
    small = recall_all(
        "When is the Hollis report due?",
        memory=memory,
        kb=kb,
        namespace=USER,
        k=12,
        token_budget=250,
        at=day(7),
        kb_floor=False,
    )
    assert small.tokens == estimate_tokens(small.render()) <= 250
    assert 0 < len(small.items) < len(ranked)
    assert list(small.dropped) == [i.ref for i in ranked[len(small.items) :]]
    nothing = recall_all(
        "When is the Hollis report due?", memory=memory, kb=kb, namespace=USER, token_budget=10
    )
    assert nothing.items == () and nothing.render() == "" and nothing.tokens == 0
