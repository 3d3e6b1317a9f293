"""prefetched(): work done ahead in a thread, in order, bounded, stopped with its caller."""

from __future__ import annotations

import threading

import pytest

from memo_core.errors import InvalidInputError
from memo_core.ingest.prefetch import prefetched


def test_results_and_errors_come_back_in_order() -> None:
    def work(n: int) -> int:
        if n == 2:
            raise KeyError(n)
        return n * 10

    out = list(prefetched([0, 1, 2, 3], work))
    assert [item for item, _ in out] == [0, 1, 2, 3]
    assert [r for _, r in out if not isinstance(r, BaseException)] == [0, 10, 30]
    assert isinstance(out[2][1], KeyError)


def test_the_next_item_is_worked_on_while_the_caller_holds_this_one() -> None:
    second_started = threading.Event()

    def work(n: int) -> int:
        if n == 1:
            second_started.set()
        return n

    for item, _ in prefetched([0, 1], work):
        if item == 0:
            # Sequential work would never start item 1 while item 0 is being handled.
            assert second_started.wait(timeout=30)


def test_work_stays_a_bounded_distance_ahead_and_stops_with_the_caller() -> None:
    started: list[int] = []
    ahead = prefetched(list(range(50)), lambda n: started.append(n) or n, depth=1)
    assert next(ahead)[0] == 0
    ahead.close()  # the caller stops: no further item starts, the thread is joined
    assert started == list(range(len(started)))
    assert len(started) <= 3  # the one handed over, one queued, one waiting to be queued
    assert not any(t.name == "memo-prefetch" and t.is_alive() for t in threading.enumerate())


def test_depth_must_be_positive() -> None:
    with pytest.raises(InvalidInputError, match="depth"):
        next(prefetched([1], lambda n: n, depth=0))
