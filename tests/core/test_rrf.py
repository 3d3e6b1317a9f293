"""RRF: hand-worked numbers and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memo_core.errors import InvalidInputError
from memo_core.search.rrf import rrf


def test_hand_worked_example_from_the_docstring() -> None:
    # d2 is #2 in list A and #5 in list B; d1 is #1 in A only.
    fused = dict(rrf([["d1", "d2", "x", "y", "z"], ["a", "b", "c", "e", "d2"]], k=60))
    assert fused["d2"] == pytest.approx(1 / 62 + 1 / 65)
    assert fused["d1"] == pytest.approx(1 / 61)
    assert fused["d2"] > fused["d1"]


def test_weights_scale_each_list() -> None:
    fused = dict(rrf([["a"], ["b"]], k=0, weights=[2.0, 0.5]))
    assert fused == {"a": 2.0, "b": 0.5}


def test_rank_counts_from_one_and_duplicates_count_once() -> None:
    assert rrf([["a", "a", "b"]], k=1) == [("a", 0.5), ("b", pytest.approx(1 / 3))]


def test_ties_keep_first_seen_order() -> None:
    assert [item for item, _ in rrf([["a", "b"], ["b", "a"]])] == ["a", "b"]


def test_bad_arguments() -> None:
    with pytest.raises(InvalidInputError, match="one weight per ranked list"):
        rrf([["a"]], weights=[1.0, 2.0])
    with pytest.raises(InvalidInputError, match="k must be non-negative"):
        rrf([["a"]], k=-1)


lists = st.lists(st.lists(st.integers(0, 30), max_size=15), max_size=4)


@given(lists)
def test_every_item_appears_once_sorted_by_score(ranked: list[list[int]]) -> None:
    fused = rrf(ranked)
    items = [i for i, _ in fused]
    assert len(items) == len(set(items))
    assert set(items) == {i for lst in ranked for i in lst}
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)


@given(lists, st.integers(0, 30))
def test_moving_an_item_up_never_lowers_its_score(ranked: list[list[int]], item: int) -> None:
    base = dict(rrf(ranked))
    boosted = [[item, *[x for x in lst if x != item]] for lst in ranked]
    after = dict(rrf(boosted))
    if item in base:
        assert after[item] >= base[item] - 1e-12


@given(lists)
def test_an_item_in_every_list_at_rank_one_wins(ranked: list[list[int]]) -> None:
    ranked = [[999, *lst] for lst in ranked] or [[999]]
    assert rrf(ranked)[0][0] == 999
