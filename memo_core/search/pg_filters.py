"""A metadata filter tree rendered as PostgreSQL SQL over a JSONB column, selecting what SQLite selects.

The same filter (see :mod:`memo_core.search.filter_tree`) must select the same rows
whichever backend holds a base. The SQLite renderer's results follow SQLite's rules
for ``json_extract`` values, so this module spells those rules out over
``jsonb_typeof`` instead of relying on PostgreSQL's own jsonb semantics:

* ``true``/``false`` are the integers 1/0 (``{"draft": 1}`` matches ``"draft": true``);
  numbers compare by value (``1 == 1.0``), strings by their UTF-8 bytes (``COLLATE "C"``).
* Every number (and boolean) orders before every string; an array or object compares
  as its JSON text, which is a string.
* A comparison with a missing field or a JSON ``null`` is SQL ``NULL``, not false;
  ``$not`` reads it as false (``NOT COALESCE(..., FALSE)``), so ``{"$not": {"k": 1}}``
  keeps rows without ``k``, as ``$ne`` and ``$nin`` do.
* ``$contains`` on a non-array and ``$text_match`` look for a substring of the value's
  text (a number's digits, ``1``/``0`` for booleans, an array's compact JSON).
* ``lower()`` folds ASCII only, as SQLite's built-in ``lower`` does.

Values, field names and lists are always bound parameters (``?`` placeholders that
:class:`~memo_core.storage.postgres.PostgresDatabase` translates); the jsonb ``?|``
and ``?&`` operators are never used because their ``?`` would read as a placeholder.

Where the backends can still differ (not reachable with ordinary metadata):

* A float shown as text: SQLite prints 15 significant digits with an exponent from
  1e15 (``1.0e+15``), PostgreSQL keeps the stored digits. They agree for numbers
  in [1e-4, 1e15) with at most 15 significant digits.
* Integers and floats beyond 2**53 in magnitude compared with each other; a float
  filter value with more than 15 significant digits in ``$contains`` on text.
* The JSON text of objects and of arrays nested in arrays: PostgreSQL sorts object
  keys and puts a space after ``,`` and ``:`` inside them.
* PostgreSQL text cannot hold U+0000: a filter value containing it is an
  :class:`~memo_core.errors.InvalidInputError` here, and such metadata cannot be stored.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.search.filter_tree import COMPARISONS, And, Condition, Filter, Not

__all__ = ["render_postgres", "sqlite_text"]

_COLUMN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
_JSON_TYPES = ("number", "boolean", "string", "array", "object")
#: The largest finite double: a jsonb number above it would make ``::float8`` fail.
_MAX_DOUBLE = "1.7976931348623157e308"


@dataclass(frozen=True)
class _Sql:
    """A SQL fragment and the parameters of its ``?`` placeholders, in order."""

    text: str
    params: tuple[Any, ...] = ()


_TRUE = _Sql("TRUE")
_FALSE = _Sql("FALSE")
_NULL = _Sql("CAST(NULL AS boolean)")


def _cat(*parts: str | _Sql) -> _Sql:
    """Concatenate fragments; keeping text and parameters together keeps them in order."""
    text: list[str] = []
    params: list[Any] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        else:
            text.append(part.text)
            params.extend(part.params)
    return _Sql("".join(text), tuple(params))


def _bind(value: Any, cast: str) -> _Sql:
    return _Sql(f"?::{cast}", (value,))


def _const(value: bool) -> _Sql:
    return _TRUE if value else _FALSE


# -- the one value PostgreSQL refuses that SQLite takes (the parser checked the rest) ------


def _checked(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise InvalidInputError(
            "a filter value contains a NUL character, which PostgreSQL cannot hold"
        )
    return value


def _is_null(value: Any) -> bool:
    """SQLite binds ``None`` and NaN both as NULL."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def sqlite_text(value: int | float | str) -> str:
    """``value`` as SQLite converts it to text (``CAST(? AS TEXT)``, ``instr``'s operands).

    Floats use SQLite's ``%!.15g``: 15 significant digits, always a ``.0`` in
    the mantissa, ``Inf`` for infinity. (SQLite's own digit generation can round
    the 15th digit differently for floats that need more digits, and subnormals.)
    """
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0.0"
    text = format(value, ".15g")
    mantissa, sep, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + sep + exponent


# -- views of one jsonb value as SQLite's json_extract would return it ---------------------


@dataclass(frozen=True)
class _Ref:
    """A jsonb value (``json``, SQL NULL when missing) and its scalar text (``text``).

    ``text`` is a string unescaped, a number's digits, ``true``/``false``, an array's
    or object's JSON, NULL for JSON null: ``->>`` for a field, ``#>> '{}'`` for an
    element. It is the cheap view, so the common comparisons use it.
    """

    json: _Sql
    text: _Sql


def _field_ref(column: str, field: str) -> _Ref:
    return _Ref(_Sql(f"({column} -> ?::text)", (field,)), _Sql(f"({column} ->> ?::text)", (field,)))


_ELEMENT = _Ref(_Sql("_mf_e._mf_v"), _Sql("(_mf_e._mf_v #>> '{}')"))
#: ``E op value`` where E is a string can only be decided by the string's text when the
#: value is none of what a number, boolean, array or object prints as under ``->>``.
_NOT_A_STRING_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?|true|false|[\[{].*", re.DOTALL)


def _by_type(ref: _Ref, branches: Mapping[str, _Sql]) -> _Sql:
    """``CASE`` over the JSON type: a JSON null or a missing field is NULL, as in SQLite.

    Types without a branch (or with a ``FALSE`` one) are false.
    """
    parts: list[str | _Sql] = ["(CASE COALESCE(jsonb_typeof(", ref.json, "), 'null')"]
    for kind in _JSON_TYPES:
        branch = branches.get(kind, _FALSE)
        if branch != _FALSE:
            parts += [f" WHEN '{kind}' THEN ", branch]
    parts.append(" WHEN 'null' THEN NULL ELSE FALSE END)")
    return _cat(*parts)


def _as_int_bool(ref: _Ref) -> _Sql:
    return _cat("((", ref.json, ")::boolean)::int")


def _as_numeric(ref: _Ref) -> _Sql:
    return _cat("(", ref.json, ")::numeric")


def _as_float(ref: _Ref) -> _Sql:
    """A jsonb number as a double, saturating where ``::float8`` would overflow."""
    x = ref.json
    return _cat(
        f"(CASE WHEN abs(({x.text})::numeric) <= {_MAX_DOUBLE} THEN ({x.text})::float8 "
        f"ELSE sign(({x.text})::numeric) * 'Infinity'::float8 END)",
        _Sql("", x.params * 3),
    )


def _array_text(ref: _Ref) -> _Sql:
    """An array's compact JSON text, as SQLite renders it (``["a",1]``, no spaces)."""
    return _cat(
        "(SELECT '[' || COALESCE(string_agg(_mf_a._mf_v::text, ',' ORDER BY _mf_a._mf_o), '')"
        " || ']' FROM jsonb_array_elements(",
        ref.json,
        ") WITH ORDINALITY AS _mf_a(_mf_v, _mf_o))",
    )


def _text_view(ref: _Ref) -> _Sql:
    """The value as text, the way SQLite's ``instr`` sees it (NULL when absent)."""
    return _cat(
        "(CASE jsonb_typeof(",
        ref.json,
        ") WHEN 'boolean' THEN ",
        _as_int_bool(ref),
        "::text WHEN 'array' THEN ",
        _array_text(ref),
        " ELSE ",
        ref.text,
        " END)",
    )


def _equals_any(ref: _Ref, items: Sequence[Any]) -> _Sql:
    """``E IN (items)`` under SQLite's rules; ``items`` are non-null.

    NULL when the field is missing or JSON null, else true or false.
    """
    ints = [v for v in items if isinstance(v, int)]
    floats = [v for v in items if isinstance(v, float)]
    texts = [v for v in items if isinstance(v, str)]
    if texts and not ints and not floats and not any(map(_NOT_A_STRING_TEXT.fullmatch, texts)):
        # Only a string can print as one of these: its text decides (NULL when absent).
        return _member(ref.text, texts, "text")

    def numeric(number: _Sql, as_float: _Sql, ints: list[int], floats: list[float]) -> _Sql:
        tests: list[_Sql] = []
        if ints:
            tests.append(_member(number, ints, "numeric"))
        if floats:
            tests.append(_member(as_float, floats, "float8"))
        return tests[0] if len(tests) == 1 else _join(tests, "OR", _FALSE)

    def textual(text: _Sql, first: str) -> _Sql:
        candidates = [t for t in texts if t[:1] == first] if first else texts
        return _member(text, candidates, "text") if candidates else _FALSE

    as_bool = _as_int_bool(ref)
    return _by_type(
        ref,
        {
            "string": textual(ref.text, ""),
            "number": numeric(_as_numeric(ref), _as_float(ref), ints, floats),
            "boolean": numeric(  # true and false are 1 and 0: only those items can match
                as_bool,
                _cat(as_bool, "::float8"),
                [v for v in ints if v in (0, 1)],
                [v for v in floats if v in (0.0, 1.0)],
            ),
            "array": textual(_array_text(ref), "["),
            "object": textual(_cat("(", ref.json, ")::text"), "{"),
        },
    )


def _member(expr: _Sql, values: Sequence[Any], cast: str) -> _Sql:
    """``expr = value`` for one value, ``expr = ANY(array)`` for several (one parameter)."""
    if len(values) == 1:
        return _cat(expr, " = ", _bind(values[0], cast))
    return _cat(expr, " = ANY(", _bind(list(values), f"{cast}[]"), ")")


def _join(parts: Sequence[_Sql], joiner: str, empty: _Sql) -> _Sql:
    """``(a AND b ...)`` / ``(a OR b ...)``; ``empty`` when there is nothing to join."""
    if not parts:
        return empty
    pieces: list[str | _Sql] = ["("]
    for i, part in enumerate(parts):
        pieces += [f" {joiner} " if i else "", part]
    pieces.append(")")
    return _cat(*pieces)


def _compare(ref: _Ref, op: str, value: int | float | str) -> _Sql:
    """``E op value`` for ``< <= > >=`` under SQLite's rules (numbers before strings)."""
    sql_op = COMPARISONS[op]
    if isinstance(value, str):
        number_vs_text = _const(sql_op in ("<", "<="))  # a number is less than any string
        bound = _bind(value, "text")
        return _by_type(
            ref,
            {
                "string": _cat(ref.text, f' COLLATE "C" {sql_op} ', bound),
                "number": number_vs_text,
                "boolean": number_vs_text,
                "array": _cat(_array_text(ref), f' COLLATE "C" {sql_op} ', bound),
                "object": _cat(ref.text, f' COLLATE "C" {sql_op} ', bound),
            },
        )
    text_vs_number = _const(sql_op in (">", ">="))  # any string is greater than a number
    if isinstance(value, int):
        number: _Sql = _cat(_as_numeric(ref), f" {sql_op} ", _bind(value, "numeric"))
        boolean = _cat(_as_int_bool(ref), f" {sql_op} ", _bind(value, "numeric"))
    else:
        number = _cat(_as_float(ref), f" {sql_op} ", _bind(value, "float8"))
        boolean = _cat(_as_int_bool(ref), f"::float8 {sql_op} ", _bind(value, "float8"))
    return _by_type(
        ref,
        {
            "number": number,
            "boolean": boolean,
            "string": text_vs_number,
            "array": text_vs_number,
            "object": text_vs_number,
        },
    )


def _absent(ref: _Ref) -> _Sql:
    """SQLite's ``json_extract(...) IS NULL``: missing, JSON null, or no metadata at all."""
    return _cat("(", ref.text, " IS NULL)")


def _elements(ref: _Ref) -> _Sql:
    """What SQLite's ``json_each`` yields: an array's items, an object's values, a scalar."""
    return _cat(
        "jsonb_path_query(",
        ref.json,
        ", (CASE WHEN jsonb_typeof(",
        ref.json,
        ") = 'object' THEN '$.*' ELSE 'lax $[*]' END)::jsonpath) AS _mf_e(_mf_v)",
    )


def _field_condition(column: str, cond: Condition) -> _Sql:
    """One condition, with the SQLite renderer's NULL behaviour."""
    x = _field_ref(column, cond.field)
    op, value = cond.op, cond.value
    if op in COMPARISONS:
        return _scalar_condition(x, op, value)
    if op in ("$in", "$nin", "$any", "$all"):
        return _list_condition(x, op, [_checked(v) for v in value])
    if op == "$contains":
        return _contains(x, _checked(value))
    if op == "$text_match":
        return _cat("(strpos(", _text_view(x), ", ", _bind(_checked(value), "text"), ") > 0)")
    if op == "$text_match_insensitive":
        folded = _cat("lower(", _text_view(x), ' COLLATE "C")')  # ASCII only, like SQLite
        bound = _bind(_checked(value), "text")
        return _cat("(strpos(", folded, ", lower(", bound, ' COLLATE "C")) > 0)')
    if op == "$exists":
        return _cat("(jsonb_typeof(", x.json, f") IS {'NOT ' if value else ''}NULL)")
    if op == "$is_empty":
        empty = _cat("(", _absent(x), " OR ", x.text, " = '' OR ", x.json, " = '[]'::jsonb)")
        return empty if value else _cat("(NOT ", empty, ")")
    raise InvalidInputError(f"unknown filter operator: {op}")  # Condition refuses it first


def _scalar_condition(x: _Ref, op: str, value: Any) -> _Sql:
    if value is None:  # every operator but $ne means "IS NULL" here
        return _cat("NOT ", _absent(x)) if op == "$ne" else _absent(x)
    value = _checked(value)
    if _is_null(value):  # NaN binds as NULL: "= NULL" is NULL, "IS NOT NULL" is not
        return _cat("NOT ", _absent(x)) if op == "$ne" else _NULL
    if op == "$eq":
        return _equals_any(x, [value])
    if op == "$ne":  # "IS NOT": a missing field is "not equal" too
        return _cat("(NOT COALESCE(", _equals_any(x, [value]), ", FALSE))")
    return _compare(x, op, value)


def _list_condition(x: _Ref, op: str, items: list[Any]) -> _Sql:
    """``$in``/``$nin`` (SQL IN with its NULL rules), ``$any``/``$all`` (json_each members)."""
    if not items:
        return _FALSE if op in ("$in", "$any") else _TRUE
    known = [v for v in items if not _is_null(v)]
    if op == "$nin":  # coalesce(E NOT IN (...), 1)
        return _cat("(NOT COALESCE(", _equals_any(x, known), ", FALSE))") if known else _TRUE
    if op == "$in":  # a NULL in the list turns "no match" into NULL
        if not known:
            return _NULL
        found = _equals_any(x, known)
        return _cat("(", found, " OR NULL)") if len(known) < len(items) else found
    if op == "$any":
        return _members(x, [known], "OR") if known else _FALSE
    if len(known) < len(items):  # $all: a NULL item is never counted, so never "all"
        return _FALSE
    distinct: list[Any] = []
    for item in known:  # Python's == is SQLite's here: 1 == 1.0 == True, "1" != 1
        if not any(item == seen for seen in distinct):
            distinct.append(item)
    return _members(x, [[item] for item in distinct], "AND")


def _members(x: _Ref, groups: list[list[Any]], joiner: str) -> _Sql:
    """Whether what ``json_each`` yields holds a member of each group (joined by ``joiner``).

    An array is tested with ``@>`` where that means SQLite's equality, a string,
    number or boolean is its own only member, an object's values are scanned.
    """
    on_array = [_array_holds(x, group) for group in groups]
    if any(test is None for test in on_array):  # e.g. floats: compare each element
        return _join([_has_member(x, group) for group in groups], joiner, _TRUE)
    # A string, number or boolean is its own only member: it cannot be several at once.
    scalar = (
        _cat("COALESCE(", _equals_any(x, groups[0]), ", FALSE)") if len(groups) == 1 else _FALSE
    )
    return _cat(
        "(CASE COALESCE(jsonb_typeof(",
        x.json,
        "), 'null') WHEN 'array' THEN ",
        _join([t for t in on_array if t is not None], joiner, _TRUE),
        " WHEN 'object' THEN ",
        _join([_has_member(x, group) for group in groups], joiner, _TRUE),
        " WHEN 'null' THEN FALSE ELSE ",
        scalar,
        " END)",
    )


def _array_holds(x: _Ref, items: Sequence[Any]) -> _Sql | None:
    """An array holding one of ``items`` by jsonb containment (no element scan).

    ``@>`` matches an element of the same JSON type and value, which is SQLite's
    equality for strings and integers, once ``true``/``false`` are added for 1/0.
    None when it is not (a float; text that a nested array or object prints as).
    """
    candidates: list[str] = []
    for item in items:
        if isinstance(item, float) or (isinstance(item, str) and item[:1] in ("[", "{")):
            return None
        candidates.append(json.dumps([item], ensure_ascii=False))
        if isinstance(item, int) and item in (0, 1):
            candidates.append("[true]" if item else "[false]")
    if len(candidates) == 1:
        return _cat("(", x.json, " @> ", _bind(candidates[0], "jsonb"), ")")
    return _cat("(", x.json, " @> ANY(", _bind(candidates, "jsonb[]"), "))")


def _contains(x: _Ref, value: Any) -> _Sql:
    """An array holding ``value``; otherwise ``value``'s text inside the field's text."""
    if _is_null(value):
        return _cat("(CASE WHEN jsonb_typeof(", x.json, ") = 'array' THEN FALSE END)")
    on_array = _array_holds(x, [value])
    if on_array is None:
        on_array = _cat(
            "EXISTS (SELECT 1 FROM jsonb_array_elements(",
            x.json,
            ") AS _mf_e(_mf_v) WHERE ",
            _equals_any(_ELEMENT, [value]),
            ")",
        )
    return _cat(
        "(CASE WHEN jsonb_typeof(",
        x.json,
        ") = 'array' THEN ",
        on_array,
        " ELSE strpos(",
        _text_view(x),
        ", ",
        _bind(sqlite_text(value), "text"),
        ") > 0 END)",
    )


def _has_member(x: _Ref, items: Sequence[Any]) -> _Sql:
    """Scan what ``json_each`` yields for an element equal to one of ``items``."""
    return _cat(
        "EXISTS (SELECT 1 FROM ", _elements(x), " WHERE ", _equals_any(_ELEMENT, items), ")"
    )


def _render(node: Filter, column: str) -> _Sql:
    if isinstance(node, Condition):
        return _field_condition(column, node)
    if isinstance(node, Not):
        # Two-valued, as in SQLite: NOT (NULL) would drop rows without the field.
        return _cat("(NOT COALESCE(", _render(node.part, column), ", FALSE))")
    parts = [_render(part, column) for part in node.parts]
    return _join(parts, "AND" if isinstance(node, And) else "OR", _TRUE)


def render_postgres(node: Filter, params: list[Any], *, column: str = "metadata") -> str:
    """``node`` as a PostgreSQL boolean expression over the JSONB ``column``.

    Parameters are appended to ``params`` in placeholder order. ``column`` is a
    trusted identifier chosen by the caller (``metadata`` or ``alias.metadata``).
    The filter that selects every row (``And()``) is ``TRUE``. Rows match exactly
    when the SQLite renderer's expression would match them (see the module docstring).
    """
    if not _COLUMN.match(column):
        raise InvalidInputError(f"invalid metadata column: {column!r}")
    rendered = _render(node, column)
    params.extend(rendered.params)
    return rendered.text
