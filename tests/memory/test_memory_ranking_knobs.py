"""The ranking knobs of MemoryConfig change recall and forget (each test fails if one is ignored)."""

from __future__ import annotations

import pytest

from memo_core.errors import ConfigError
from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.ranking import analyse_query, coverage

from .conftest import MONDAY, day


def _open(url: str, **knobs: object) -> MemoHood:
    # Keyword-only, so relevance is exactly lexical coverage and the numbers below hold.
    return MemoHood(url, embedder=None, gate=RecallGate(), config=MemoryConfig(**knobs))  # type: ignore[arg-type]


def _order(url: str, message: str, **knobs: object) -> list[str]:
    with _open(url, **knobs) as memory:
        # as_of: a read of the past, so recall does not refresh strengths between the runs.
        recall = memory.recall(message, namespace="u1", as_of=day(90), use_gate=False)
        return [f.statement for f in recall.facts]


def test_source_floors_decide_whether_a_profile_fact_outranks_a_partial_search_hit(
    backend_url: str,
) -> None:
    with _open(backend_url) as memory:
        memory.remember("I am allergic to latex.", namespace="u1", at=MONDAY)  # pinned profile
        memory.remember(
            "The garden shed key hangs by the back door.",
            namespace="u1",
            category="fact",
            at=MONDAY,
        )
    message = "where does the garden key hang, and what colour is the shed roof?"
    shed, latex = "The garden shed key hangs by the back door.", "I am allergic to latex."
    assert _order(backend_url, message)[:2] == [shed, latex]
    assert _order(backend_url, message, source_floors={"profile": 0.95})[:2] == [latex, shed]


def test_strength_weight_trades_relevance_for_freshness(backend_url: str) -> None:
    old = "The pottery class meets in the old mill on Fridays."
    fresh = "The pottery group also tours the mill museum."
    with _open(backend_url) as memory:
        memory.remember(old, namespace="u1", category="plan", at=MONDAY)  # two half-lives ago
        memory.remember(fresh, namespace="u1", category="plan", at=day(89))
    message = "pottery mill fridays"
    assert _order(backend_url, message, strength_weight=0.0) == [old, fresh]
    assert _order(backend_url, message, strength_weight=1.0) == [fresh, old]


def test_generic_weight_is_the_weight_of_a_generic_query_word() -> None:
    stems = analyse_query("kayak").stems
    for weight in (0.0, 0.3, 1.0):
        query = analyse_query("I want a kayak", MemoryConfig(generic_weight=weight))
        share, _ = coverage(query, stems)
        assert share == pytest.approx(1.0 / (1.0 + weight))


def test_forget_min_coverage_sets_how_much_of_a_query_a_fact_must_hold(backend_url: str) -> None:
    with _open(backend_url) as memory:
        memory.remember("My bicycle is a green Brompton.", namespace="u1", at=MONDAY)
    query = "green Brompton tandem tricycle"  # the fact holds half of the query's words
    with _open(backend_url, forget_min_coverage=0.75) as strict:
        assert strict.forget(namespace="u1", query=query) == 0
    with _open(backend_url, forget_min_coverage=0.5) as loose:
        assert loose.forget(namespace="u1", query=query) == 1


def test_source_floors_merge_with_the_defaults_and_refuse_unknown_sources() -> None:
    cfg = MemoryConfig.from_dict({"source_floors": {"profile": 0.5}})
    assert cfg.source_floors["profile"] == 0.5
    assert cfg.source_floors["people"] == MemoryConfig().source_floors["people"]
    with pytest.raises(ConfigError, match="unknown recall sources"):
        MemoryConfig(source_floors={"gossip": 0.1})
    with pytest.raises(ConfigError, match="strength_weight"):
        MemoryConfig(strength_weight=1.5)
