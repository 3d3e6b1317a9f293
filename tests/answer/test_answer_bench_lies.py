"""bench/lies.py: a scripted lying model, and no lie of any kind reaches the user."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from memo_core.answer.faithfulness import unfaithful

KINDS = {
    "dropped_not",
    "swapped_parties",
    "number_recombined",
    "modal_changed",
    "date_changed",
    "cut_before_not",
    "other_document",
    "planted_relayed",
}


@pytest.fixture(scope="module")
def bench(
    load_bench: Callable[[str], contextlib.AbstractContextManager[ModuleType]],
) -> Iterator[ModuleType]:
    with load_bench("lies") as module:
        yield module


@pytest.fixture(scope="module")
def report(bench: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    with bench.build_base(tmp_path_factory.mktemp("lies") / "kb.db") as base:
        return dict(bench.run(base))


def test_every_kind_of_lie_is_scripted(bench: ModuleType) -> None:
    assert {lie.kind for lie in bench.LIES} == KINDS
    assert len(bench.LIES) >= 14


def test_the_liar_was_shown_the_passage_it_misquotes(report: dict[str, Any]) -> None:
    # Otherwise a lie would be stopped by retrieval, not by the checks under test.
    missed = [r["claim"] for r in report["records"] if not r["quoted_passage_sent"]]
    assert missed == []


def test_no_lie_reaches_the_user(report: dict[str, Any]) -> None:
    reached = [(r["kind"], r["claim"], r["shown"]) for r in report["records"] if r["reached_user"]]
    assert reached == []
    assert report["lies"] >= 14 and report["reached_user"] == 0


def test_the_check_sees_the_lie_the_bench_plants(bench: ModuleType) -> None:
    """The bench's own judge is not blind: the lie text is in the claim it scripts."""
    for lie in bench.LIES:
        assert lie.lie.lower() in lie.claim.lower(), lie


@pytest.mark.parametrize(
    ("claim", "quotes"),
    [
        ("The pass costs 12 dollars.", ["The pass costs 480 dollars and includes 12 sessions"]),
        ("Shipping takes 3 weeks.", ["Shipping takes 3 days; returns take 2 weeks"]),
        ("The van seats two adults.", ["The van seats five adults and two children"]),
    ],
)
def test_a_number_moved_onto_another_unit_is_unfaithful(claim: str, quotes: list[str]) -> None:
    reason = unfaithful(claim, quotes)
    assert reason is not None and "said of" in reason
