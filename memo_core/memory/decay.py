"""Decay maths, as pure functions of timestamps (never compounded per run).

A fact stores the strength it had at ``last_used``. Its strength at any later
moment is::

    strength(now) = stored_strength x 2 ^ (-(now - last_used) / half_life)

Nothing is multiplied "per night": consolidating daily, hourly or once gives the
same number for the same ``now``, and a 365-day half-life fact keeps 89% of its
strength after 60 days. Only *use* (recall) and *restatement* (reinforcement)
write a new stored strength, and they restart the clock at that moment.
Pinned facts do not decay.
"""

from __future__ import annotations

import math
from datetime import datetime

from memo_core.errors import InvalidInputError
from memo_core.memory.timeutil import days_between

__all__ = ["decayed_strength", "refreshed_strength"]


def decayed_strength(
    strength: float,
    last_used: datetime,
    now: datetime,
    half_life_days: float,
    *,
    pinned: bool = False,
) -> float:
    """``strength`` after decaying from ``last_used`` to ``now`` (1.0 when pinned)."""
    if pinned:
        return 1.0
    if half_life_days <= 0:
        raise InvalidInputError("half_life_days must be positive")
    age = days_between(last_used, now)
    return float(strength) * math.pow(2.0, -age / half_life_days)


def refreshed_strength(
    strength: float,
    last_used: datetime,
    now: datetime,
    half_life_days: float,
    boost: float,
    *,
    pinned: bool = False,
) -> float:
    """The stored strength after a use or restatement at ``now``: decayed + ``boost``, at most 1."""
    if pinned:
        return 1.0
    return min(1.0, decayed_strength(strength, last_used, now, half_life_days) + boost)
