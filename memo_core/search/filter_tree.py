"""The metadata filter language: a Mongo-style dict parsed and validated once into a tree.

A filter is the lingua franca of LangChain vector stores::

    {"source": "a.pdf"}                               # equality
    {"page": {"$gte": 2, "$lte": 5}}                  # several operators: AND
    {"$or": [{"lang": "en"}, {"tags": {"$contains": "legal"}}]}
    {"$and": [...], "$not": {...}}

Operators: ``$eq $ne $gt $gte $lt $lte $in $nin`` (scalars), ``$contains`` (array
holds the value, or string contains it), ``$any`` / ``$all`` (array holds any /
all of the values), ``$text_match`` / ``$text_match_insensitive`` (substring),
``$exists`` (bool), ``$is_empty`` (missing, null, "" or []).

What the filter means is the same on every backend (SQLite's reading of its JSON
functions; the renderers, ``search/sqlite_filters.py`` and ``search/pg_filters.py``,
each spell it out for their engine):

* ``true``/``false`` are the integers 1/0 (``{"draft": 1}`` matches ``"draft": true``).
* A comparison with a missing field or a JSON ``null`` is unknown, not false;
  ``$not`` selects every row its filter does not select, so a row without the field
  is kept, as ``$ne`` and ``$nin`` keep it ("everything except news" keeps the
  untagged rows).

Parsing checks everything a backend would otherwise refuse late (or differently):
field names (no quote, backslash or control character; at most 200 characters),
operators, operand types, 64-bit integers, valid Unicode, nesting depth. The tree
holds only field names and values; a renderer binds both as parameters, so no
input can alter the SQL text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from memo_core.errors import InvalidInputError

__all__ = [
    "COMPARISONS",
    "LIST_OPERATORS",
    "OPERATORS",
    "And",
    "Condition",
    "Filter",
    "Not",
    "Or",
    "Scalar",
    "parse_filter",
]

#: A value as the filter compares it: booleans are already 1/0.
Scalar: TypeAlias = int | float | str | None

#: ``$eq``... as SQL comparison operators (``$ne`` is "IS NOT": a missing field differs).
COMPARISONS: Mapping[str, str] = {
    "$eq": "=",
    "$ne": "!=",
    "$gt": ">",
    "$gte": ">=",
    "$lt": "<",
    "$lte": "<=",
}
#: Operators whose operand is a list of scalars.
LIST_OPERATORS = frozenset({"$in", "$nin", "$any", "$all"})
_TEXT_OPERATORS = frozenset({"$text_match", "$text_match_insensitive"})
_FLAG_OPERATORS = frozenset({"$exists", "$is_empty"})
OPERATORS = frozenset(
    {*COMPARISONS, *LIST_OPERATORS, "$contains", *_TEXT_OPERATORS, *_FLAG_OPERATORS}
)

_FIELD = re.compile(r'^[^"\x00-\x1f\\]{1,200}$')
#: Deeper nesting than any real filter; bounds the recursion a hostile filter could cause.
MAX_DEPTH = 32
_INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class Condition:
    """``{field: {op: value}}``, checked and normalised when it is made.

    ``value`` is a :data:`Scalar` for the comparisons and ``$contains``, a tuple of
    scalars for :data:`LIST_OPERATORS`, a ``str`` for ``$text_match*``, a ``bool``
    for ``$exists`` and ``$is_empty``. A condition built by hand is checked as a
    parsed one is, so a renderer can trust every tree it gets.
    """

    field: str
    op: str
    value: Any

    def __post_init__(self) -> None:
        _check_field(self.field)
        object.__setattr__(self, "value", _operand(self.op, self.value))


@dataclass(frozen=True)
class And:
    """Every part holds; no parts is the filter that selects every row."""

    parts: tuple[Filter, ...] = ()


@dataclass(frozen=True)
class Or:
    """At least one part holds (never empty: ``$or: []`` is refused)."""

    parts: tuple[Filter, ...]


@dataclass(frozen=True)
class Not:
    """Two-valued negation: selects exactly the rows ``part`` does not select."""

    part: Filter


Filter: TypeAlias = Condition | And | Or | Not


def parse_filter(spec: Mapping[str, Any] | Filter | None) -> Filter:
    """The tree of ``spec``; an empty or ``None`` filter is ``And()`` (every row).

    A tree passes through unchanged, so a caller may parse once and hand the tree on.
    Raises :class:`~memo_core.errors.InvalidInputError` for anything the language
    does not define.
    """
    if isinstance(spec, Condition | And | Or | Not):
        return spec
    return _parse(spec, 0)


def _parse(spec: Any, depth: int) -> Filter:
    if depth > MAX_DEPTH:
        raise InvalidInputError(f"a metadata filter nests deeper than {MAX_DEPTH} levels")
    if spec is None or (isinstance(spec, Mapping) and not spec):
        return And()
    if not isinstance(spec, Mapping):
        raise InvalidInputError("a metadata filter must be a dict")
    parts: list[Filter] = []
    for key, value in spec.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"invalid metadata field name: {key!r}")
        if key in ("$and", "$or"):
            if not isinstance(value, list | tuple) or not value:
                raise InvalidInputError(f"{key} takes a non-empty list of filters")
            subs = tuple(_parse(sub, depth + 1) for sub in value)
            parts.append(And(subs) if key == "$and" else Or(subs))
        elif key == "$not":
            parts.append(Not(_parse(value, depth + 1)))
        elif key.startswith("$"):
            raise InvalidInputError(f"unknown filter operator: {key}")
        elif isinstance(value, Mapping):
            if not value:
                raise InvalidInputError(f"empty condition for field {key!r}")
            parts.extend(Condition(key, op, operand) for op, operand in value.items())
        else:
            parts.append(Condition(key, "$eq", value))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _check_field(field: Any) -> None:
    if not isinstance(field, str) or not _FIELD.match(field):
        raise InvalidInputError(f"invalid metadata field name: {field!r}")
    _check_text(field, "a metadata field name")


def _operand(op: Any, operand: Any) -> Any:
    if op in COMPARISONS or op == "$contains":
        return _scalar(operand)
    if op in LIST_OPERATORS:
        if not isinstance(operand, list | tuple | set | frozenset):
            raise InvalidInputError(f"{op} takes a list of values")
        return tuple(_scalar(v) for v in operand)
    if op in _TEXT_OPERATORS:
        if not isinstance(operand, str):
            raise InvalidInputError(f"{op} takes a string")
        _check_text(operand, "a filter value")
        return operand
    if op in _FLAG_OPERATORS:
        return bool(operand)
    raise InvalidInputError(f"unknown filter operator: {op}")


def _scalar(value: Any) -> Scalar:
    """A value as the filter compares it; what no backend can bind is refused here."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            raise InvalidInputError(f"a filter value does not fit in 64 bits: {value}")
        return value
    if isinstance(value, str):
        _check_text(value, "a filter value")
        return value
    if value is None or isinstance(value, float):
        return value
    raise InvalidInputError(f"unsupported filter value type: {type(value).__name__}")


def _check_text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(f"{what} is not valid Unicode: {exc}") from exc
