"""Values said in a sentence, found by rules: the one extractor memory and unified recall share.

Both MemoHood (does a new fact change an old one?) and unified recall (do a
memory and a document disagree?) need the same thing from a sentence: the
values it gives and what each value is about. Keeping one extractor here means
that the two can never drift apart on what "March 23" or "45 EUR" is.

Kinds of value (:data:`ValueKind`):

* **date** — ISO ``2026-03-23``; ``23 March 2026``, ``March 23rd``, ``23 марта``;
  a month alone after a preposition (``in April``, ``end of July``, ``в мае``,
  ``в конце июля``); a day of the month (``moved to the 9th``, ``на 9-е``). The
  key is ``(year | None, month | None, day | None)``: a part left out agrees with
  anything. :func:`find_date_range` resolves the first date to calendar dates.
* **time** — a clock time (``09:30``, ``7pm``) or a weekday (``Thursdays``, ``по вторникам``).
* **number** — an amount with a unit (``2,500 EUR``, ``€2.5m``, ``24 months``,
  ``15%``, ``45 a month``). With ``bare_numbers=True`` (memory: the subject check
  is done elsewhere) a number without a unit is a value too.
* **name** — a name given to a role or a relation (``the project lead is Maria
  Lopez``, ``called Rex``, ``зовут Тимофей``).
* **place** — where someone lives, moved or is based (``moved to Lisbon``, ``живу в Казани``).

Each value carries the **attribute** of the cue word nearest to it (``due`` ->
``deadline``, ``fee`` -> ``fee``) or ``None``. :func:`polarity` tells a liking
from a dislike or a stop ("I've stopped", "больше не").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal, Protocol, TypeVar

from memo_core.errors import InvalidInputError
from memo_core.search.text import stem_token

__all__ = [
    "ATTRIBUTE_CUES",
    "CLOCK",
    "DATE_CUES",
    "MONTH_WORDS",
    "NUMBER_CUES",
    "WEEKDAYS",
    "DateRange",
    "Value",
    "ValueKind",
    "clock_parts",
    "entity_words",
    "extract_values",
    "find_date_range",
    "has_time_value",
    "polarity",
]

ValueKind = Literal["date", "time", "number", "name", "place"]
DateRange = tuple[date, date]

# -- attribute cues ---------------------------------------------------------------------

#: Cue words (lower case) -> the attribute a nearby **date** belongs to.
DATE_CUES: dict[str, str] = {}
#: Cue words (lower case) -> the attribute a nearby **number** belongs to.
NUMBER_CUES: dict[str, str] = {}
for _table, _classes in (
    (
        DATE_CUES,
        {
            "deadline": "due deadline deadlines submit submission submissions срок сроки "
            "дедлайн сдать сдача",
            "start": "start starts starting started begin begins beginning kickoff kick launch "
            "launches opens opening commence commences commencement effective начало "
            "начинается старт",
            "end": "end ends ending expire expires expiry expiration closes closing finish "
            "finishes termination окончание заканчивается",
            "meeting": "meeting meetings call appointment appointments interview session "
            "sessions встреча созвон приём прием запись",
            "birthday": "birthday birthdays born birth рождения",
            "travel": "flight flights fly flying trip travel travelling traveling arrive arrives "
            "arrival depart departs departure рейс поездка вылет",
        },
    ),
    (
        NUMBER_CUES,
        {
            "budget": "budget budgets бюджет",
            "price": "price prices cost costs priced tariff tariffs стоимость стоимости цена "
            "цены цену стоит стоят стоил стоила стоило обходится обходятся обошёлся обошлась "
            "обошлось тариф тарифа тарифу тарифы",
            "fee": "fee fees membership subscription комиссия абонемент абонемента абонементу "
            "подписка подписку подписки",
            "salary": "salary wage wages raise зарплата зарплату зарплаты оклад оклада",
            "rent": "rent аренда аренду аренды",
            "deposit": "deposit залог",
            "payment": "pay payment payments paid invoice invoices amount bill bills оплата "
            "оплату платеж платёж плачу платим",
            "rate": "rate discount interest tax vat ставка скидка",
            "term": "term duration period lasts length длительность",
            "notice": "notice уведомление",
            "warranty": "warranty гарантия",
            "trial": "trial",
            "quantity": "capacity seats headcount attendees participants size",
            "dose": "dose dosage mg доза",
        },
    ),
):
    for _cls, _words in _classes.items():
        for _word in _words.split():
            _table[_word] = _cls

#: Every cue word with its attribute (dates and numbers).
ATTRIBUTE_CUES: dict[str, str] = {**NUMBER_CUES, **DATE_CUES}

# -- dates ------------------------------------------------------------------------------

_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
_RU_MONTHS = (
    ("январ", 1), ("феврал", 2), ("март", 3), ("апрел", 4), ("ма", 5), ("июн", 6),
    ("июл", 7), ("август", 8), ("сентябр", 9), ("октябр", 10), ("ноябр", 11), ("декабр", 12),
)  # fmt: skip
#: Month names and abbreviations in English (lower case).
MONTH_WORDS: frozenset[str] = frozenset(_MONTHS)
#: English weekday names, Monday first.
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RU_WEEKDAYS = ("понедельник", "вторник", "сред", "четверг", "пятниц", "суббот", "воскресень")

_EN_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_RU_MONTH = (
    r"январ[ьяе]|феврал[ьяе]|март[ае]?|апрел[ьяе]|ма[йяе]|июн[ьяе]|июл[ьяе]|август[ае]?|"
    r"сентябр[ьяе]|октябр[ьяе]|ноябр[ьяе]|декабр[ьяе]"
)
_ORD = r"(?:st|nd|rd|th)?"
_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_EN_MONTH})\b\.?(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE
)
_MONTH_DAY = re.compile(
    rf"\b({_EN_MONTH})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE
)
_MONTH_ONLY = re.compile(
    rf"\b(in|by|until|till|during|early|late|mid|end of|beginning of|start of|to|for|from)\s+"
    rf"(?:-\s*)?({_EN_MONTH})\b(?:\s+(\d{{4}}))?",
    re.IGNORECASE,
)
_RU_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:-?го)?\s+({_RU_MONTH})\b(?:\s+(\d{{4}}))?", re.I)
_RU_PART_MONTH = re.compile(rf"\bв\s+(начале|середине|конце)\s+({_RU_MONTH})\b", re.IGNORECASE)
_RU_MONTH_ONLY = re.compile(rf"\b(?:в|к|до|на)\s+({_RU_MONTH})\b(?:\s+(\d{{4}}))?", re.I)
#: A day of the month with no month: "moved to the 9th", "на 9-е", "12-го числа".
_DAY_ONLY = re.compile(
    r"\b(?:on|to|for|until|till|by|from)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b|"
    r"(?<![\w-])(\d{1,2})-?(?:е|го)\b(?:\s+числа)?",
    re.IGNORECASE,
)
_PARTS = {
    "early": "start",
    "beginning of": "start",
    "start of": "start",
    "mid": "middle",
    "late": "end",
    "end of": "end",
    "начале": "start",
    "середине": "middle",
    "конце": "end",
}
#: A lower-case "may" after one of these is the verb ("I may 5 times..."), not the month.
_MAY_VERB = re.compile(r"\b(?:i|you|we|they|he|she|it|this|that|which|who)\s+$", re.IGNORECASE)

# -- times ------------------------------------------------------------------------------

#: "10:30", "7.30 pm", "at 9.15", "в 10.30"; a bare "3.12" is a version or an amount.
CLOCK = re.compile(
    r"\b(\d{1,2}):(\d{2})\b(?:\s?([ap])\.?m\b\.?)?|"
    r"\b(?:at|from|until|till|by|to|в|до|с|к)\s(\d{1,2})\.(\d{2})\b(?:\s?([ap])\.?m\b\.?)?|"
    r"\b(\d{1,2})\.(\d{2})\s?([ap])\.?m\b\.?",
    re.IGNORECASE,
)
_AMPM = re.compile(r"\b(\d{1,2})\s?([ap])\.?m\b\.?", re.IGNORECASE)
_WEEKDAY = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\b(понедельник|вторник|сред|четверг|пятниц|суббот|воскресень)\w*",
    re.IGNORECASE,
)

# -- numbers with units -----------------------------------------------------------------

_UNITS: dict[str, str] = {}
for _unit, _spellings in {
    "EUR": "€ eur euro euros евро",
    "USD": "$ usd dollar dollars долларов доллара доллар",
    "GBP": "£ gbp pound pounds",
    "RUB": "₽ rub ruble rubles rouble roubles руб рублей рубля рубль",
    "%": "% percent per cent процентов процента процент",
    "day": "day days дней дня день",
    "week": "week weeks недель недели неделя",
    "month": "month months mo месяцев месяца месяц",
    "year": "year years yr yrs лет года год",
    "hour": "hour hours hr hrs h часов часа час",
    "minute": "minute minutes min mins минут минуты минута",
    "km": "km kilometer kilometers kilometre kilometres км",
    "mile": "mile miles mi",
    "kg": "kg kilogram kilograms kilo kilos кг",
    "mg": "mg milligram milligrams мг",
    "g": "g gram grams",
    "lb": "lb lbs",
    "m": "m meter meters metre metres",
    "cm": "cm centimeter centimeters см",
    "person": "people persons person guests attendees participants человек",
    "seat": "seat seats",
    "user": "user users",
    "page": "page pages",
}.items():
    for _spelling in _spellings.split():
        _UNITS.setdefault(_spelling, _unit)

_AMOUNT = r"\d{1,3}(?:[,\u00a0 ]\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_SCALE = r"(?:k|m|bn|thousand|million|billion|тыс\.?|млн)"
_CURRENCY_FIRST = re.compile(rf"([€$£₽])\s?({_AMOUNT})\s?({_SCALE})?\b", re.IGNORECASE)
_UNIT_WORDS = "|".join(
    re.escape(u) for u in sorted((u for u in _UNITS if u not in "€$£₽"), key=len, reverse=True)
)
_NUMBER_UNIT = re.compile(
    rf"(?<![\w.,])({_AMOUNT})\s?(?:({_SCALE})\s)?({_UNIT_WORDS})(?![\w])", re.IGNORECASE
)
#: "45 a month", "300 в месяц": an amount per period (the period is the unit).
_PERIOD = r"(?:a|an|per|/|в|за)\s?(month|week|year|day|hour|месяц|неделю|год|день|час)\b"
_PER_PERIOD = re.compile(rf"(?<![\w.,])({_AMOUNT})\s?(?:({_SCALE})\s)?{_PERIOD}", re.IGNORECASE)
_PERIOD_AFTER = re.compile(rf"\s?{_PERIOD}", re.IGNORECASE)
_BARE_NUMBER = re.compile(rf"(?<![\w.,:/-])({_AMOUNT})(?![\w:/-]|[.,]\d)")
_SCALES = {"k": 1e3, "thousand": 1e3, "тыс": 1e3, "тыс.": 1e3, "m": 1e6, "million": 1e6,
           "млн": 1e6, "bn": 1e9, "billion": 1e9}  # fmt: skip
_PERIODS = {"месяц": "month", "неделю": "week", "год": "year", "день": "day", "час": "hour"}

# -- names and places -------------------------------------------------------------------

_ROLE_WORDS = (
    "lead|manager|owner|contact|director|ceo|cto|cfo|coo|head|chair|chairman|chairwoman|"
    "coordinator|supervisor|doctor|dentist|therapist|physio|lawyer|attorney|accountant|"
    "assignee|reviewer|approver|sponsor|author|landlord|vendor|supplier|contractor|partner|"
    "counsel|officer|advisor|adviser|mentor|tutor|teacher|coach|trainer|boss|editor|"
    "signatory|representative"
)
_NAME = r"[A-ZА-ЯЁ][\w'’-]*(?:\s+[A-ZА-ЯЁ][\w'’-]*){0,2}"
_ROLE_IS_NAME = re.compile(
    rf"\b(?P<role>(?i:{_ROLE_WORDS}))\s*(?i:is|was|will be|:|-|–|—|=)\s*(?i:now\s+)?"
    rf"(?P<name>{_NAME})"
)
_NAME_IS_ROLE = re.compile(
    rf"(?P<name>{_NAME})\s+(?:is|was|will be)\s+(?:now\s+)?(?:the|our|my|their|his|her)\s+"
    rf"(?:new\s+)?(?:[a-z]+\s+)?(?P<role>{_ROLE_WORDS})\b"
)
_CALLED = re.compile(
    rf"\b(?i:called|named|name is|name's|зовут|по имени|звать)\s+(?P<name>{_NAME})"
)
_NOT_NAMES = frozenset(
    {"the", "this", "that", "it", "he", "she", "they", "we", "i", "a", "an", "our", "my", "no"}
    | set(_MONTHS)
    | set(WEEKDAYS)
)
_PLACE = re.compile(
    r"\b(?i:live|lives|living|lived|moved|moving|move|relocated|relocating|based|settled|"
    r"живу|живём|живем|живёт|живет|переехал\w*|переезжа\w*|перебрал\w*)\s+"
    r"(?:(?i:back|again|now|обратно|теперь|уже)\s+)?(?i:in|to|near|into|в|во|на)\s+"
    r"(?:(?i:the)\s+)?(?P<name>[A-ZА-ЯЁ][\w'’-]*(?:[\s-][A-ZА-ЯЁ][\w'’-]*){0,2})"
)

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Value:
    """One value found in a sentence.

    ``key`` is what equality is judged on: ``(year, month, day)`` for a date (a
    part may be ``None``), ``("clock", hh, mm)`` or ``("weekday", n)`` for a time,
    ``(unit, amount)`` for a number (unit ``""`` for a bare one), the case-folded
    words (stems, for a place) for a name or a place. ``attribute`` is the class
    of the nearest cue word (``None`` without one).
    """

    kind: ValueKind
    text: str
    key: tuple[object, ...]
    start: int
    end: int
    attribute: str | None = None

    def agrees(self, other: Value) -> bool:
        """Whether two values of one kind say the same thing (lenient, never strict)."""
        if self.kind != other.kind:
            return False
        if self.kind == "date":
            pairs = zip(self.key, other.key, strict=True)
            return all(a is None or b is None or a == b for a, b in pairs)
        if self.kind == "time":
            return self.key == other.key
        if self.kind == "number":
            a1, a2 = self.amount, other.amount
            return self.comparable(other) and abs(a1 - a2) <= 1e-9 * max(1.0, abs(a1))
        mine = [str(w) for w in self.key]
        theirs = [str(w) for w in other.key]
        short, long_ = sorted((mine, theirs), key=len)
        return all(w in long_ for w in short)  # "Maria" agrees with "Maria Lopez"

    @property
    def amount(self) -> float:
        """The amount of a number (0.0 for other kinds)."""
        raw = self.key[1] if self.kind == "number" else 0.0
        return float(raw) if isinstance(raw, int | float) else 0.0

    def comparable(self, other: Value) -> bool:
        """Numbers compare in the same unit (a bare one with any); times clock with clock."""
        if self.kind != other.kind:
            return False
        if self.kind == "number":
            mine, theirs = str(self.key[0]), str(other.key[0])
            if mine == theirs or "" in (mine, theirs):
                return True
            # "45 a month" (unit "/month") compares with "£40 a month" ("GBP/month")
            return "/" in mine + theirs and (mine.endswith(theirs) or theirs.endswith(mine))
        if self.kind == "time":
            return self.key[0] == other.key[0]
        return True

    @property
    def display(self) -> str:
        """The value as written, with the ISO date when the whole date is known."""
        if self.kind == "date" and None not in self.key:
            y, m, d = (int(str(part)) for part in self.key)
            iso = f"{y:04d}-{m:02d}-{d:02d}"
            return self.text if self.text == iso else f"{self.text} ({iso})"
        return self.text


# -- dates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _DateMention:
    start: int
    end: int
    text: str
    year: int | None
    month: int | None
    day: int | None
    part: str = ""  # "start" | "middle" | "end" of a month named alone


def _ru_month(word: str) -> int:
    lowered = word.lower()
    for stem, month in _RU_MONTHS:
        if lowered.startswith(stem) and not (stem == "ма" and lowered.startswith("мар")):
            return month
    raise InvalidInputError(f"not a Russian month name: {word!r}")


def _valid(year: int | None, month: int | None, day: int | None) -> bool:
    if month is not None and not 1 <= month <= 12:
        return False
    if day is not None and not 1 <= day <= 31:
        return False
    return year is None or 1900 <= year <= 2200


def _date_mentions(text: str) -> list[_DateMention]:
    found: list[_DateMention] = []

    def add(
        m: re.Match[str], year: int | None, month: int | None, day: int | None, part: str = ""
    ) -> None:
        if _valid(year, month, day):
            text_ = m.group(0).strip()
            found.append(_DateMention(m.start(), m.end(), text_, year, month, day, part))

    for m in _ISO.finditer(text):
        add(m, int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for pattern, day_first in ((_DAY_MONTH, True), (_MONTH_DAY, False)):
        for m in pattern.finditer(text):
            day_s, month_s = (m.group(1), m.group(2)) if day_first else (m.group(2), m.group(1))
            if month_s == "may" and _MAY_VERB.search(text[: m.start(2 if day_first else 1)]):
                continue
            add(m, int(m.group(3)) if m.group(3) else None, _MONTHS[month_s.lower()], int(day_s))
    for m in _MONTH_ONLY.finditer(text):
        part = _PARTS.get(m.group(1).lower(), "")
        year = int(m.group(3)) if m.group(3) else None
        add(m, year, _MONTHS[m.group(2).lower()], None, part)
    for m in _RU_DAY_MONTH.finditer(text):
        add(m, int(m.group(3)) if m.group(3) else None, _ru_month(m.group(2)), int(m.group(1)))
    for m in _RU_PART_MONTH.finditer(text):
        add(m, None, _ru_month(m.group(2)), None, _PARTS[m.group(1).lower()])
    for m in _RU_MONTH_ONLY.finditer(text):
        add(m, int(m.group(2)) if m.group(2) else None, _ru_month(m.group(1)), None)
    for m in _DAY_ONLY.finditer(text):
        add(m, None, None, int(m.group(1) or m.group(2)))
    # The most precise mention claims its characters first: "to March 27" is March 27,
    # not the month "to March"; then the longest.
    kept: list[_DateMention] = []
    for mention in sorted(found, key=_precision):
        if not any(mention.start < k.end and k.start < mention.end for k in kept):
            kept.append(mention)
    return sorted(kept, key=lambda d: d.start)


def _precision(d: _DateMention) -> tuple[int, int]:
    missing = sum(part is None for part in (d.year, d.month, d.day))
    return (0 if d.day is not None and d.month is not None else 1 + missing, d.start - d.end)


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
        candidate = date(year, month, min(day, calendar.monthrange(year, month)[1]))
        if candidate >= ref - timedelta(days=62):
            return year
    return ref.year + 1


def _resolve(mention: _DateMention, ref: date) -> DateRange | None:
    if mention.month is None:
        return None  # "the 9th" alone compares as a value but is no calendar date
    if mention.day is None:
        year = mention.year or _resolve_year(mention.month, 28, ref)
        return _month_range(year, mention.month, mention.part)
    year = mention.year or _resolve_year(mention.month, mention.day, ref)
    try:
        d = date(year, mention.month, mention.day)
    except ValueError:
        return None
    return d, d


def find_date_range(text: str, ref: date) -> DateRange | None:
    """The first calendar date or month ``text`` mentions, as an inclusive range.

    A year left out resolves to the first occurrence not long before ``ref``.
    """
    for mention in _date_mentions(text):
        found = _resolve(mention, ref)
        if found is not None:
            return found
    return None


def has_time_value(text: str) -> bool:
    """A clock time or weekday ("Thursday 09:30", "по вторникам")."""
    return bool(CLOCK.search(text) or _AMPM.search(text) or _WEEKDAY.search(text))


# -- values -----------------------------------------------------------------------------


def _dates(text: str) -> list[Value]:
    return [
        Value("date", d.text, (d.year, d.month, d.day), d.start, d.end)
        for d in _date_mentions(text)
    ]


def clock_parts(m: re.Match[str]) -> tuple[str, str, str | None]:
    """(hours, minutes, "a"/"p" or None) of a :data:`CLOCK` match, whichever branch matched."""
    groups = m.groups()
    for i in (0, 3, 6):
        if groups[i] is not None:
            return groups[i], groups[i + 1], groups[i + 2]
    raise InvalidInputError(f"not a clock time: {m.group(0)!r}")  # every CLOCK branch sets hours


def _times(text: str) -> list[Value]:
    found: list[Value] = []
    for m in CLOCK.finditer(text):
        hh, mm, ampm = clock_parts(m)
        hour, minute = int(hh), int(mm)
        if ampm and ampm.lower() == "p" and hour < 12:
            hour += 12
        if hour < 24 and minute < 60:
            found.append(Value("time", m.group(0), ("clock", hour, minute), *m.span()))
    for m in _AMPM.finditer(text):
        hour = int(m.group(1)) % 12 + (12 if m.group(2).lower() == "p" else 0)
        if hour < 24:
            found.append(Value("time", m.group(0), ("clock", hour, 0), *m.span()))
    for m in _WEEKDAY.finditer(text):
        if m.group(1):
            day = WEEKDAYS.index(m.group(1).lower())
        else:
            day = _RU_WEEKDAYS.index(m.group(2).lower())
        found.append(Value("time", m.group(0), ("weekday", day), *m.span()))
    return _non_overlapping(found)


def _amount(text: str, scale: str | None) -> float:
    raw = text.replace("\u00a0", " ")
    if re.fullmatch(r"\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?", raw):
        raw = raw.replace(",", "").replace(" ", "")
    else:
        raw = raw.replace(",", ".")
    value = float(raw)
    if scale:
        value *= _SCALES.get(scale.lower(), 1.0)
    return value


def _numbers(text: str, taken: list[tuple[int, int]], *, bare: bool) -> list[Value]:
    found: list[Value] = []
    for m in _CURRENCY_FIRST.finditer(text):
        unit = _UNITS[m.group(1)]
        amount = _amount(m.group(2), m.group(3))
        end = m.end()
        per = _PERIOD_AFTER.match(text, end)
        if per:  # "£40 a month" is an amount per month
            unit += "/" + _PERIODS.get(per.group(1).lower(), per.group(1).lower())
            end = per.end()
        found.append(Value("number", text[m.start() : end].strip(), (unit, amount), m.start(), end))
    for m in _NUMBER_UNIT.finditer(text):
        spelled = _UNITS.get(m.group(3).lower())
        if spelled is not None:
            amount = _amount(m.group(1), m.group(2))
            found.append(Value("number", m.group(0).strip(), (spelled, amount), *m.span()))
    for m in _PER_PERIOD.finditer(text):
        period = m.group(3).lower()
        unit = "/" + _PERIODS.get(period, period)
        found.append(
            Value("number", m.group(0), (unit, _amount(m.group(1), m.group(2))), *m.span())
        )
    if bare:
        for m in _BARE_NUMBER.finditer(text):
            found.append(Value("number", m.group(0), ("", _amount(m.group(1), None)), *m.span()))
    outside = [v for v in found if not any(v.start < b and a < v.end for a, b in taken)]
    return _non_overlapping(outside)


def _names(text: str) -> list[Value]:
    found: list[Value] = []
    for pattern in (_ROLE_IS_NAME, _NAME_IS_ROLE, _CALLED):
        for m in pattern.finditer(text):
            name = m.group("name").strip()
            words = [w for w in name.split() if w.lower() not in _NOT_NAMES]
            if not words or name.split()[0].lower() in _NOT_NAMES:
                continue
            role = m.groupdict().get("role") or "name"
            start = m.start("name")
            key = tuple(w.casefold() for w in words)
            found.append(
                Value("name", " ".join(words), key, start, start + len(name), role.lower())
            )
    return _non_overlapping(found)


def _places(text: str) -> list[Value]:
    found: list[Value] = []
    for m in _PLACE.finditer(text):
        name = m.group("name")
        words = [w for w in re.split(r"[\s-]+", name) if w.lower() not in _NOT_NAMES]
        if not words:
            continue
        lang = "russian" if re.search(r"[а-яё]", name, re.I) else "english"
        key = tuple(stem_token(w.casefold(), lang) for w in words)
        found.append(Value("place", name, key, m.start("name"), m.end("name"), "place"))
    return found


class _Span(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


_S = TypeVar("_S", bound=_Span)


def _non_overlapping(values: Iterable[_S]) -> list[_S]:
    """Keep the longest match where matches overlap (``23 March 2026`` over ``March 2026``)."""
    kept: list[_S] = []
    for value in sorted(values, key=lambda v: (v.start, -(v.end - v.start))):
        if kept and value.start < kept[-1].end:
            continue
        kept.append(value)
    return kept


#: Units that say what an amount is about on their own ("100 mg" is a dose).
_UNIT_ATTRIBUTES = {"mg": "dose"}

#: A cue farther than this (in characters) from a value does not name its attribute.
CUE_REACH = 60


def _with_attributes(text: str, values: list[Value]) -> list[Value]:
    """Give each date (number) the attribute of the date (number) cue word nearest to it.

    A cue reaches a value only within :data:`CUE_REACH` characters, with no other
    value and no ``;`` between them (so "trip budget: 2,500 EUR; deposit by
    2026-04-01" does not make the date a trip date).
    """
    tokens = [(m.start(), m.end(), m.group(0).lower()) for m in _TOKEN.finditer(text)]
    out: list[Value] = []
    for value in values:
        table = DATE_CUES if value.kind == "date" else NUMBER_CUES if value.kind == "number" else {}
        best: tuple[int, str] | None = None
        for a, b, word in tokens:
            if word not in table:
                continue
            lo, hi = (b, value.start) if b <= value.start else (value.end, a)
            if lo > hi or hi - lo > CUE_REACH or ";" in text[lo:hi]:
                continue
            if any(lo <= other.start < hi for other in values if other is not value):
                continue
            distance = 2 * (hi - lo) + (1 if a >= value.end else 0)  # ties: the cue before
            if best is None or distance < best[0]:
                best = (distance, table[word])
        attribute = best[1] if best is not None else value.attribute
        if attribute is None and value.kind == "number":
            attribute = _UNIT_ATTRIBUTES.get(str(value.key[0]))
        out.append(Value(value.kind, value.text, value.key, value.start, value.end, attribute))
    return out


_ALL_KINDS: frozenset[ValueKind] = frozenset({"date", "time", "number", "name", "place"})


def extract_values(
    text: str,
    *,
    kinds: Iterable[ValueKind] = _ALL_KINDS,
    bare_numbers: bool = False,
) -> list[Value]:
    """Every value of ``kinds`` in ``text``, in order, with attributes.

    Earlier kinds claim their characters first (a date's digits are not also a
    number, a clock time's are not an amount).
    """
    wanted = frozenset(kinds)
    taken: list[tuple[int, int]] = []
    values: list[Value] = []

    def claim(found: list[Value]) -> None:
        fresh = [v for v in found if not any(v.start < b and a < v.end for a, b in taken)]
        taken.extend((v.start, v.end) for v in fresh)
        values.extend(fresh)

    dates = _dates(text)
    if "date" in wanted:
        claim(dates)
    else:
        taken.extend((v.start, v.end) for v in dates)  # a date's digits are never a number
    if "time" in wanted:
        claim(_times(text))
    else:
        taken.extend((v.start, v.end) for v in _times(text) if v.key[0] == "clock")
    if "number" in wanted:
        claim(_numbers(text, taken, bare=bare_numbers))
    if "place" in wanted:
        claim(_places(text))
    if "name" in wanted:
        claim(_names(text))
    return _with_attributes(text, sorted(values, key=lambda v: v.start))


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-ZА-ЯЁ][\w'’-]+)")
_NOT_ENTITIES = _NOT_NAMES | {"i'm", "i've", "i'd", "i'll", "dr", "mr", "mrs", "ms"}


def entity_words(text: str) -> frozenset[str]:
    """Capitalised words inside a sentence (people, places, products), case-folded.

    Two facts naming different entities ("meeting with Tom" / "meeting with Ana")
    are about different things even when every other word is shared.
    """
    out = set()
    for m in _CAPITALISED.finditer(text.strip()):
        word = m.group(1).casefold().rstrip("'’s")
        if word and word not in _NOT_ENTITIES and word not in _RU_NOT_ENTITIES:
            out.add(word)
    return frozenset(out)


_RU_NOT_ENTITIES = frozenset({"я", "мы", "мне", "он", "она"})


# -- polarity ---------------------------------------------------------------------------

_NEGATIVE = re.compile(
    r"\b(?:hate|hates|dislike|dislikes|can'?t stand|cannot stand|don'?t (?:like|want|eat|drink|"
    r"enjoy|use)|do not (?:like|want|eat|drink|enjoy|use)|never (?:eat|drink|use|take|have)|"
    r"no longer|no more|not \w+ anymore|anymore|any more|stopped|quit|gave up|given up|avoid|avoiding|"
    r"off (?:meat|alcohol|sugar|coffee|dairy)|gives? me (?:a )?(?:headaches?|migraines?|"
    r"heartburn|hives|a rash|nausea)|upsets? my|makes? me (?:sick|ill)|can'?t (?:have|eat|drink|"
    r"take) (?:it|that|them|any)?|not allowed|allergic|sick of|tired of|went off|gone off)\b|"
    r"не люблю|не нравит\w*|ненавижу|терпеть не могу|больше не\b|уже не\b|бросил\w*|"
    r"отказал\w*|нельзя|не ем\b|не пью\b|перестал\w*|надоел\w*|избегаю|аллерги\w*",
    re.IGNORECASE,
)
_POSITIVE = re.compile(
    r"\b(?:love|loves|like|likes|prefer|prefers|enjoy|enjoys|adore|adores|favou?rite|fan of|"
    r"into|can'?t live without|obsessed with|always (?:eat|drink|have|order|take))\b|"
    r"люблю|нравит\w*|обожаю|предпочита\w*|любим\w*|фанат|\bмо[яй] любовь",
    re.IGNORECASE,
)


def polarity(text: str) -> int:
    """``-1`` for a dislike, a stop or a restriction ("I've stopped", "больше не"),
    ``+1`` for a liking, ``0`` for neither. A negative cue wins over a positive one
    ("I don't like it anymore")."""
    if _NEGATIVE.search(text):
        return -1
    if _POSITIVE.search(text):
        return 1
    return 0
