"""Timestamps: every stored time is UTC ISO 8601 with microseconds, so strings sort as times."""

from __future__ import annotations

from datetime import UTC, date, datetime

from memo_core.errors import InvalidInputError

__all__ = ["as_utc", "days_between", "from_iso", "parse_when", "to_iso", "utcnow"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime:
    """``value`` in UTC (naive datetimes are taken as UTC); ``None`` means now."""
    if value is None:
        return utcnow()
    if not isinstance(value, datetime):
        raise InvalidInputError(f"expected a datetime, got {type(value).__name__}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def to_iso(value: datetime) -> str:
    """Fixed-width UTC ISO text: lexicographic order equals time order."""
    return as_utc(value).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    return as_utc(datetime.fromisoformat(text))


def parse_when(value: str | datetime | date | None) -> datetime:
    """Accept a datetime, a date, or ISO text (a trailing ``Z`` included)."""
    if value is None:
        return utcnow()
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    text = str(value).strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        return as_utc(datetime.fromisoformat(text))
    except ValueError as exc:
        raise InvalidInputError(f"not an ISO 8601 timestamp: {value!r}") from exc


def days_between(earlier: datetime, later: datetime) -> float:
    """Days from ``earlier`` to ``later`` (never negative)."""
    return max(0.0, (as_utc(later) - as_utc(earlier)).total_seconds() / 86400.0)
