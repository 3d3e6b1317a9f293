"""Dates said in passing ("due March 20", "в конце июля", "in April"), as date ranges.

Capture stores the range of the first date a fact mentions (``event_start`` /
``event_end``), so recall can offer upcoming plans when a message asks about
time ("when", "how long", "до какого числа"). A year left out is resolved to the
first occurrence not long before the moment the fact was said.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

__all__ = ["DateRange", "find_date_range", "has_time_value", "mentions_time_intent"]

DateRange = tuple[date, date]

_EN_MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
_RU_STEMS = (
    ("январ", 1),
    ("феврал", 2),
    ("март", 3),
    ("апрел", 4),
    ("ма", 5),
    ("июн", 6),
    ("июл", 7),
    ("август", 8),
    ("сентябр", 9),
    ("октябр", 10),
    ("ноябр", 11),
    ("декабр", 12),
)
_RU_MONTH = (
    r"январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?|"
    r"сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе]"
)
_EN_MONTH = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_EN_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_EN_MONTH})\b\.?(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
_EN_MONTH_DAY = re.compile(
    rf"\b({_EN_MONTH})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE
)
_EN_MONTH_ONLY = re.compile(
    rf"\b(?:in|by|until|till|during|early|late|mid|end of|beginning of|start of)\s+(?:-\s*)?"
    rf"({_EN_MONTH})\b(?:\s+(\d{{4}}))?",
    re.IGNORECASE,
)
_RU_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:-?го)?\s+({_RU_MONTH})\b(?:\s+(\d{{4}}))?", re.I)
_RU_PART_MONTH = re.compile(rf"\bв\s+(начале|середине|конце)\s+({_RU_MONTH})\b", re.IGNORECASE)
_RU_MONTH_ONLY = re.compile(rf"\b(?:в|к|до|на)\s+({_RU_MONTH})\b(?:\s+(\d{{4}}))?", re.I)
_EN_PART = {
    "early": "start",
    "beginning of": "start",
    "start of": "start",
    "mid": "middle",
    "late": "end",
    "end of": "end",
}
_RU_PART = {"начале": "start", "середине": "middle", "конце": "end"}

_TIME_VALUE = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)s?\b|\b(?:понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
    re.IGNORECASE,
)
_TIME_INTENT = re.compile(
    r"\b(?:when|when's|deadline|due|how long|how much time|how many days|left|until|till|"
    r"tomorrow|tonight|today|this (?:week|weekend|month)|next (?:week|month)|upcoming|coming up|"
    r"soon|schedule|what date|which date)\b|"
    r"когда|\bсрок\w*|дедлайн|до како\w+|сколько (?:у меня )?(?:осталось|времени|дней)|"
    r"осталось|\bзавтра\b|послезавтра|\bсегодня\b|на этой неделе|на выходных|\bскоро\b|"
    r"какого числа|расписани\w*",
    re.IGNORECASE,
)


def _ru_month(word: str) -> int:
    lowered = word.lower()
    for stem, month in _RU_STEMS:
        if lowered.startswith(stem) and not (stem == "ма" and lowered.startswith("мар")):
            return month
    raise ValueError(word)


def _month_range(year: int, month: int, part: str = "") -> DateRange:
    last = calendar.monthrange(year, month)[1]
    if part == "start":
        return date(year, month, 1), date(year, month, 10)
    if part == "middle":
        return date(year, month, 11), date(year, month, 20)
    if part == "end":
        return date(year, month, 21), date(year, month, last)
    return date(year, month, 1), date(year, month, last)


def _resolve_year(month: int, day: int, ref: date) -> int:
    """The year making (month, day) not more than ~2 months before ``ref``."""
    for year in (ref.year - 1, ref.year, ref.year + 1):
        try:
            candidate = date(year, month, min(day, calendar.monthrange(year, month)[1]))
        except ValueError:  # pragma: no cover - day clamped above
            continue
        if candidate >= ref - timedelta(days=62):
            return year
    return ref.year + 1


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def find_date_range(text: str, ref: date) -> DateRange | None:
    """The first calendar date or month ``text`` mentions, as an inclusive range."""
    found: list[tuple[int, DateRange]] = []

    for m in _ISO.finditer(text):
        d = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d:
            found.append((m.start(), (d, d)))
    for pattern, day_first in ((_EN_DAY_MONTH, True), (_EN_MONTH_DAY, False)):
        for m in pattern.finditer(text):
            day_s, month_s = (m.group(1), m.group(2)) if day_first else (m.group(2), m.group(1))
            month = _EN_MONTHS[month_s.lower()]
            day = int(day_s)
            year = int(m.group(3)) if m.group(3) else _resolve_year(month, day, ref)
            d = _safe_date(year, month, day)
            if d:
                found.append((m.start(), (d, d)))
    for m in _EN_MONTH_ONLY.finditer(text):
        month = _EN_MONTHS[m.group(1).lower()]
        prefix = m.group(0).lower().split(m.group(1).lower())[0].strip(" -")
        year = int(m.group(2)) if m.group(2) else _resolve_year(month, 28, ref)
        found.append((m.start(), _month_range(year, month, _EN_PART.get(prefix, ""))))
    for m in _RU_DAY_MONTH.finditer(text):
        month = _ru_month(m.group(2))
        day = int(m.group(1))
        year = int(m.group(3)) if m.group(3) else _resolve_year(month, day, ref)
        d = _safe_date(year, month, day)
        if d:
            found.append((m.start(), (d, d)))
    for m in _RU_PART_MONTH.finditer(text):
        month = _ru_month(m.group(2))
        year = _resolve_year(month, 28, ref)
        found.append((m.start(), _month_range(year, month, _RU_PART[m.group(1).lower()])))
    for m in _RU_MONTH_ONLY.finditer(text):
        month = _ru_month(m.group(1))
        year = int(m.group(2)) if m.group(2) else _resolve_year(month, 28, ref)
        found.append((m.start(), _month_range(year, month)))
    if not found:
        return None
    # The earliest mention wins; at the same position the most precise range wins.
    found.sort(key=lambda item: (item[0], (item[1][1] - item[1][0]).days))
    return found[0][1]


def has_time_value(text: str) -> bool:
    """A clock time or weekday ("Thursday 09:30", "по вторникам")."""
    return bool(_TIME_VALUE.search(text))


def mentions_time_intent(text: str) -> bool:
    """Whether a message asks about time: when, how long, deadline, tomorrow..."""
    return bool(_TIME_INTENT.search(text))
