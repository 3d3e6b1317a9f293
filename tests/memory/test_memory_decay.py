"""Pinning and decay: computed from timestamps, never compounded, schedule-independent."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.decay import decayed_strength, refreshed_strength

from .conftest import MONDAY, day


def test_pinned_fact_survives_a_year_of_nightly_consolidation(memory: MemoHood) -> None:
    fact = memory.capture("I'm allergic to penicillin.", namespace="u1", at=MONDAY).added[0]
    assert fact.pinned
    for night in range(1, 366):
        report = memory.consolidate(day(night, 3))
        assert fact.id not in report.archived
    [still] = memory.list_facts("u1", at=day(365))
    assert still.id == fact.id and still.strength == 1.0 and not still.archived
    recall = memory.recall("Suggest an antibiotic", namespace="u1", at=day(366))
    assert "penicillin" in recall.block


def test_365_day_half_life_fact_is_not_archived_after_60_nightly_runs(backend_url: str) -> None:
    cfg = MemoryConfig(half_lives={"fact": 365.0})
    with MemoHood(backend_url, embedder=None, config=cfg, gate=RecallGate()) as memory:
        fact = memory.remember(
            "Our payment service runs on Java 17.", namespace="u1", category="fact", at=MONDAY
        )
        assert not fact.pinned
        for night in range(1, 61):
            report = memory.consolidate(day(night, 3))
        assert report.archived == ()
        expected = 2 ** (-(60 - 6 / 24) / 365)  # consolidations run at 03:00, written at 09:00
        assert report.strengths[fact.id] == pytest.approx(expected, rel=1e-6)
        assert report.strengths[fact.id] > 0.88  # the compounding bug gave ~0.1 by day 47


def test_daily_and_hourly_consolidation_give_the_same_strengths(
    base_url: Callable[[str], str],
) -> None:
    facts = [
        ("We played board games at Anna's yesterday.", "event"),
        ("I prefer window seats on flights.", "preference"),
        ("We decided to use Flyway for migrations.", "decision"),
        ("The grant report is due on April 20.", "plan"),
    ]
    reports = []
    for schedule, step in (("daily", timedelta(days=1)), ("hourly", timedelta(hours=1))):
        with MemoHood(base_url(f"{schedule}.db"), embedder=None, gate=RecallGate()) as memory:
            for text, category in facts:
                memory.remember(text, namespace="u1", category=category, at=MONDAY)
            when = MONDAY
            end = MONDAY + timedelta(days=30)
            while when < end:
                when += step
                memory.consolidate(when)
            reports.append(memory.consolidate(end))
            again = memory.consolidate(end)
            assert again.strengths == reports[-1].strengths  # idempotent
    daily, hourly = reports
    assert sorted(daily.strengths.values()) == pytest.approx(sorted(hourly.strengths.values()))
    assert len(daily.archived) == len(hourly.archived)


def test_weak_facts_are_archived_not_deleted_and_restating_revives(memory: MemoHood) -> None:
    fact = memory.remember(
        "We played board games at Anna's yesterday.", namespace="u1", category="event", at=MONDAY
    )
    report = memory.consolidate(day(60))  # 14-day half-life: 2^(-60/14) < 0.1
    assert report.archived == (fact.id,)
    assert memory.list_facts("u1") == []
    [archived] = memory.list_facts("u1", include_archived=True)
    assert archived.archived and archived.id == fact.id
    recall = memory.recall("board games at Anna's", namespace="u1", at=day(61), use_gate=False)
    assert fact.id not in [f.id for f in recall.facts]
    memory.remember(
        "We played board games at Anna's yesterday.", namespace="u1", category="event", at=day(62)
    )
    [back] = memory.list_facts("u1")
    assert back.id == fact.id and not back.archived


def test_recall_refreshes_last_use_so_used_facts_do_not_fade(memory: MemoHood) -> None:
    used = memory.remember(
        "We decided to use Flyway for migrations.", namespace="u1", category="event", at=MONDAY
    )
    idle = memory.remember(
        "We played board games at Anna's.", namespace="u1", category="event", at=MONDAY
    )
    for week in range(1, 9):
        memory.recall("which tool for migrations, Flyway?", namespace="u1", at=day(7 * week))
    report = memory.consolidate(day(60))
    assert idle.id in report.archived
    assert used.id not in report.archived
    assert memory.get(used.id, namespace="u1").last_used == day(56)


def test_pin_and_unpin(memory: MemoHood) -> None:
    fact = memory.remember(
        "We played board games at Anna's.", namespace="u1", category="event", at=MONDAY
    )
    memory.pin(fact.id, namespace="u1", at=MONDAY)
    assert memory.consolidate(day(400)).archived == ()
    unpinned = memory.unpin(fact.id, namespace="u1", at=day(400))
    assert not unpinned.pinned and unpinned.strength == 1.0
    assert memory.consolidate(day(460)).archived == (fact.id,)


@settings(max_examples=200, deadline=None)
@given(
    strength=st.floats(0.01, 1.0),
    half_life=st.floats(1.0, 1000.0),
    a=st.floats(0.0, 500.0),
    b=st.floats(0.0, 500.0),
)
def test_decay_composes_so_no_schedule_compounds(strength, half_life, a, b) -> None:
    start = MONDAY
    mid = start + timedelta(days=a)
    end = mid + timedelta(days=b)
    direct = decayed_strength(strength, start, end, half_life)
    stepwise = decayed_strength(
        decayed_strength(strength, start, mid, half_life), mid, end, half_life
    )
    assert direct == pytest.approx(stepwise, rel=1e-9, abs=1e-12)
    assert 0.0 <= direct <= strength
    assert decayed_strength(strength, start, end, half_life, pinned=True) == 1.0
    assert refreshed_strength(strength, start, end, half_life, 0.3) <= 1.0
