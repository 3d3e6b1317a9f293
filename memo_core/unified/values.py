"""Rule-based values and subjects of a sentence, for conflict detection.

Conflict flags (:mod:`memo_core.unified.conflicts`) compare what two sources say
about the same thing, so they need three things from each sentence, all found by
rules (no model, no network), deliberately conservative:

* **values** — dates (ISO ``2026-03-23``, ``23 March 2026``, ``March 23rd, 2026``,
  ``23 марта``; a date without a year compares on month and day only), numbers
  *with a unit* (``2,500 EUR``, ``€2.5m``, ``24 months``, ``15%``; a bare number is
  never a value: it may be a year, a section or a room), and names given to a
  role (``the project lead is Maria Lopez``, ``Tom Baker is our new contact``,
  ``called Rex``);
* the **attribute** of each value — the class of the cue word nearest to it in
  the sentence (``due``/``deadline`` -> ``deadline``, ``budget``/``price`` ->
  ``money``, ``lead``/``contact`` -> the role itself), or ``None`` when the
  sentence has no cue;
* the **subject** — the stems of the sentence's content words outside the
  values (no stopwords, fillers or change verbs such as "moved"), with the
  surface form of each, so a conflict can name what it is about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memo_core.memory import lexicon as lx
from memo_core.search.text import STOPWORDS, detect_language, stem_token

__all__ = [
    "ATTRIBUTE_CUES",
    "DATE_CUES",
    "NUMBER_CUES",
    "Sentence",
    "Value",
    "ValueKind",
    "analyse_sentence",
    "extract_values",
]

ValueKind = Literal["date", "number", "name"]

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
            "meeting": "meeting meetings call appointment appointments interview встреча созвон",
            "birthday": "birthday birthdays born birth рождения",
            "travel": "flight flights fly flying trip travel travelling traveling arrive arrives "
            "arrival depart departs departure рейс поездка вылет",
        },
    ),
    (
        NUMBER_CUES,
        {
            "budget": "budget budgets бюджет",
            "price": "price prices cost costs priced стоимость цена",
            "fee": "fee fees комиссия",
            "salary": "salary wage wages зарплата оклад",
            "rent": "rent аренда",
            "deposit": "deposit залог",
            "payment": "pay payment payments paid invoice invoices amount оплата платеж",
            "rate": "rate discount interest tax vat ставка скидка",
            "term": "term duration period lasts length длительность",
            "notice": "notice уведомление",
            "warranty": "warranty гарантия",
            "trial": "trial",
            "quantity": "capacity seats headcount attendees participants size",
        },
    ),
):
    for _cls, _words in _classes.items():
        for _word in _words.split():
            _table[_word] = _cls

#: Every cue word with its attribute (dates and numbers).
ATTRIBUTE_CUES: dict[str, str] = {**NUMBER_CUES, **DATE_CUES}

#: Role words a name can be given to ("the project lead is Maria").
_ROLE_WORDS = (
    "lead|manager|owner|contact|director|ceo|cto|cfo|coo|head|chair|chairman|chairwoman|"
    "coordinator|supervisor|doctor|dentist|therapist|lawyer|attorney|accountant|assignee|"
    "reviewer|approver|sponsor|author|landlord|vendor|supplier|contractor|partner|counsel|"
    "officer|advisor|adviser|mentor|tutor|teacher|boss|editor|signatory|representative"
)

#: Words that say a value changed; they are framing, not part of the subject.
_CHANGE_WORDS = frozenset(
    ("actually", "update", "updated", "updates", "changed", "change", "changes", "moved", "move",
     "moves", "now", "new", "instead", "still", "currently", "correction", "corrected",
     "postponed", "rescheduled", "pushed", "back", "set", "is", "are", "was", "were", "be",
     "will", "says", "said", "told", "note", "remember", "reminder")
)  # fmt: skip

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
_NOT_SUBJECT = frozenset(
    set(_MONTHS)
    | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    | {"st", "nd", "rd", "th", "of", "on", "by", "to", "at", "in"}
)

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
_RU_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:-?го)?\s+({_RU_MONTH})\b(?:\s+(\d{{4}}))?", re.I)

# -- numbers with units -------------------------------------------------------------------

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
_SCALES = {"k": 1e3, "thousand": 1e3, "тыс": 1e3, "тыс.": 1e3, "m": 1e6, "million": 1e6,
           "млн": 1e6, "bn": 1e9, "billion": 1e9}  # fmt: skip

# -- names given to a role ----------------------------------------------------------------

_NAME = r"[A-ZА-ЯЁ][\w'’-]*(?:\s+[A-ZА-ЯЁ][\w'’-]*){0,2}"
_ROLE_IS_NAME = re.compile(
    rf"\b(?P<role>(?i:{_ROLE_WORDS}))\s*(?i:is|was|will be|:|-|–|—|=)\s*(?i:now\s+)?"
    rf"(?P<name>{_NAME})"
)
_NAME_IS_ROLE = re.compile(
    rf"(?P<name>{_NAME})\s+(?:is|was|will be)\s+(?:now\s+)?(?:the|our|my|their|his|her)\s+"
    rf"(?:new\s+)?(?:[a-z]+\s+)?(?P<role>{_ROLE_WORDS})\b"
)
_CALLED = re.compile(rf"\b(?:called|named)\s+(?P<name>{_NAME})")
_NOT_NAMES = frozenset(
    {"the", "this", "that", "it", "he", "she", "they", "we", "i", "a", "an", "our", "my", "no"}
    | set(_MONTHS)
    | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Value:
    """One value found in a sentence.

    ``key`` is what equality is judged on: ``(year or None, month, day)`` for a
    date, ``(unit, amount)`` for a number, the case-folded words for a name.
    ``attribute`` is the class of the nearest cue word (``None`` without one).
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
            y1, m1, d1 = self.key
            y2, m2, d2 = other.key
            return (m1, d1) == (m2, d2) and (y1 is None or y2 is None or y1 == y2)
        if self.kind == "number":
            a1, a2 = self.amount, other.amount
            return self.key[0] == other.key[0] and abs(a1 - a2) <= 1e-9 * max(1.0, abs(a1))
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
        """Numbers compare only in the same unit; dates and names always compare."""
        if self.kind != other.kind:
            return False
        return self.kind != "number" or self.key[0] == other.key[0]

    @property
    def display(self) -> str:
        """The value as written, with the ISO date when the year is known."""
        if self.kind == "date" and self.key[0] is not None:
            iso = f"{self.key[0]:04d}-{self.key[1]:02d}-{self.key[2]:02d}"
            return self.text if self.text == iso else f"{self.text} ({iso})"
        return self.text


@dataclass(frozen=True)
class Sentence:
    """A sentence's values and subject: stems -> surface words (first seen)."""

    text: str
    values: tuple[Value, ...]
    subject: dict[str, str]

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(self.subject)


def _valid_date(year: int | None, month: int, day: int) -> bool:
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return False
    return not (year is not None and not 1900 <= year <= 2200)


def _ru_month(word: str) -> int:
    lowered = word.lower()
    for stem, month in _RU_MONTHS:
        if lowered.startswith(stem) and not (stem == "ма" and lowered.startswith("мар")):
            return month
    raise ValueError(word)


def _dates(text: str) -> list[Value]:
    found: list[Value] = []
    for m in _ISO.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if _valid_date(y, mo, d):
            found.append(Value("date", m.group(0), (y, mo, d), m.start(), m.end()))
    for pattern, day_first in ((_DAY_MONTH, True), (_MONTH_DAY, False)):
        for m in pattern.finditer(text):
            day_s, month_s = (m.group(1), m.group(2)) if day_first else (m.group(2), m.group(1))
            if month_s == "may":
                continue  # a lower-case "may 5" is a verb more often than a date
            year = int(m.group(3)) if m.group(3) else None
            month, day = _MONTHS[month_s.lower()], int(day_s)
            if _valid_date(year, month, day):
                found.append(Value("date", m.group(0).strip(), (year, month, day), *m.span()))
    for m in _RU_DAY_MONTH.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        month, day = _ru_month(m.group(2)), int(m.group(1))
        if _valid_date(year, month, day):
            found.append(Value("date", m.group(0).strip(), (year, month, day), *m.span()))
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


def _numbers(text: str, taken: list[tuple[int, int]]) -> list[Value]:
    found: list[Value] = []
    for m in _CURRENCY_FIRST.finditer(text):
        unit = _UNITS[m.group(1)]
        amount = _amount(m.group(2), m.group(3))
        found.append(Value("number", m.group(0).strip(), (unit, amount), *m.span()))
    for m in _NUMBER_UNIT.finditer(text):
        spelled = _UNITS.get(m.group(3).lower())
        if spelled is None:
            continue
        amount = _amount(m.group(1), m.group(2))
        found.append(Value("number", m.group(0).strip(), (spelled, amount), *m.span()))
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
            found.append(
                Value(
                    "name",
                    " ".join(words),
                    tuple(w.casefold() for w in words),
                    start,
                    start + len(name),
                    attribute=role.lower(),
                )
            )
    return _non_overlapping(found)


def _non_overlapping(values: Iterable[Value]) -> list[Value]:
    """Keep the longest value where matches overlap (``23 March 2026`` over ``March 2026``)."""
    kept: list[Value] = []
    for value in sorted(values, key=lambda v: (v.start, -(v.end - v.start))):
        if kept and value.start < kept[-1].end:
            continue
        kept.append(value)
    return kept


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
        out.append(Value(value.kind, value.text, value.key, value.start, value.end, attribute))
    return out


def extract_values(text: str) -> list[Value]:
    """Every date, number with a unit and role name in ``text``, in order, with attributes."""
    dates = _dates(text)
    taken = [(v.start, v.end) for v in dates]
    numbers = _numbers(text, taken)
    taken += [(v.start, v.end) for v in numbers]
    names = [v for v in _names(text) if not any(v.start < b and a < v.end for a, b in taken)]
    values = sorted(dates + numbers + names, key=lambda v: v.start)
    return _with_attributes(text, values)


_NOISE = frozenset(STOPWORDS | lx.FILLER_WORDS | lx.GENERIC_WORDS | _CHANGE_WORDS | _NOT_SUBJECT)


def subject_words(text: str, spans: Iterable[tuple[int, int]] = ()) -> dict[str, str]:
    """Content stems of ``text`` outside ``spans`` -> their surface form (first seen)."""
    lang = detect_language(text)
    blocked = list(spans)
    out: dict[str, str] = {}
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in blocked):
            continue
        word = m.group(0)
        token = word.lower()
        if token in _NOISE or len(token) < 2 or token.isdigit() or "_" in token:
            continue
        out.setdefault(stem_token(token, lang), word)
    return out


def analyse_sentence(text: str, context: str = "") -> Sentence:
    """Values and subject of one sentence; ``context`` (a title, a heading) adds subject words."""
    values = extract_values(text)
    subject = subject_words(text, [(v.start, v.end) for v in values])
    for stem, word in subject_words(context).items():
        subject.setdefault(stem, word)
    return Sentence(text, tuple(values), subject)
