"""Metadata filters compiled to SQL with bound parameters (never string-built values).

A filter is a Mongo-style dict, the lingua franca of LangChain vector stores::

    {"source": "a.pdf"}                               # equality
    {"page": {"$gte": 2, "$lte": 5}}                  # several operators: AND
    {"$or": [{"lang": "en"}, {"tags": {"$contains": "legal"}}]}
    {"$and": [...], "$not": {...}}

Operators: ``$eq $ne $gt $gte $lt $lte $in $nin`` (scalars), ``$contains`` (array
holds the value, or string contains it), ``$any`` / ``$all`` (array holds any /
all of the values), ``$text_match`` / ``$text_match_insensitive`` (substring),
``$exists`` (bool), ``$is_empty`` (missing, null, "" or []).

``$not`` selects every row its filter does not select, so a row without the field
is kept, as ``$ne`` and ``$nin`` keep it ("everything except news" keeps the
untagged rows).

Field names become JSON paths passed as parameters; a name containing a quote or
control character is rejected, so no input can alter the SQL text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from memo_core.errors import ConfigError, InvalidInputError

__all__ = ["compile_filter"]

_FIELD = re.compile(r'^[^"\x00-\x1f\\]{1,200}$')
#: Deeper nesting than any real filter; bounds the recursion a hostile filter could cause.
_MAX_DEPTH = 32
_SCALAR_OPS = {"$eq": "=", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def _path(field: str) -> str:
    if not isinstance(field, str) or not _FIELD.match(field):
        raise InvalidInputError(f"invalid metadata field name: {field!r}")
    return f'$."{field}"'


def _value(value: Any) -> Any:
    """A Python value as SQLite compares it with json_extract's result."""
    if isinstance(value, bool):
        return int(value)
    if value is None or isinstance(value, int | float | str):
        return value
    raise InvalidInputError(f"unsupported filter value type: {type(value).__name__}")


def _values(value: Any, op: str) -> list[Any]:
    if not isinstance(value, list | tuple | set | frozenset):
        raise InvalidInputError(f"{op} takes a list of values")
    return [_value(v) for v in value]


def _field_condition(column: str, field: str, op: str, value: Any, params: list[Any]) -> str:
    extract = f"json_extract({column}, ?)"
    path = _path(field)
    if op in _SCALAR_OPS:
        if value is None:
            params.append(path)
            return f"{extract} IS {'NOT ' if op == '$ne' else ''}NULL"
        params.extend([path, _value(value)])
        if op == "$ne":  # a missing field is "not equal" too
            return f"({extract} IS NOT ?)"
        return f"{extract} {_SCALAR_OPS[op]} ?"
    if op in ("$in", "$nin"):
        items = _values(value, op)
        if not items:
            return "0" if op == "$in" else "1"
        params.append(path)
        params.extend(items)
        marks = ", ".join("?" for _ in items)
        if op == "$in":
            return f"{extract} IN ({marks})"
        return f"coalesce({extract} NOT IN ({marks}), 1)"
    if op == "$contains":
        params.extend([path, path, _value(value), path, _value(value)])
        return (
            f"(CASE json_type({column}, ?) WHEN 'array' THEN "
            f"EXISTS (SELECT 1 FROM json_each({column}, ?) WHERE value = ?) "
            f"ELSE instr({extract}, ?) > 0 END)"
        )
    if op in ("$any", "$all"):
        items = _values(value, op)
        if not items:
            return "0" if op == "$any" else "1"
        marks = ", ".join("?" for _ in items)
        params.append(path)
        params.extend(items)
        count = (
            f"(SELECT count(DISTINCT value) FROM json_each({column}, ?) WHERE value IN ({marks}))"
        )
        if op == "$any":
            return f"{count} > 0"
        params.append(len(set(items)))
        return f"{count} = ?"
    if op in ("$text_match", "$text_match_insensitive"):
        if not isinstance(value, str):
            raise InvalidInputError(f"{op} takes a string")
        params.extend([path, value])
        if op == "$text_match":
            return f"instr({extract}, ?) > 0"
        return f"instr(lower({extract}), lower(?)) > 0"
    if op == "$exists":
        params.append(path)
        return f"json_type({column}, ?) IS {'NOT ' if value else ''}NULL"
    if op == "$is_empty":
        params.extend([path, path, path, path])
        empty = (
            f"(coalesce(json_type({column}, ?), 'null') = 'null' "
            f"OR json_extract({column}, ?) = '' "
            f"OR (json_type({column}, ?) = 'array' AND json_array_length({column}, ?) = 0))"
        )
        return empty if value else f"NOT {empty}"
    raise InvalidInputError(f"unknown filter operator: {op}")


def compile_filter(
    spec: Mapping[str, Any] | None,
    params: list[Any],
    *,
    column: str = "c.metadata",
    dialect: str = "sqlite",
    _depth: int = 0,
) -> str:
    """Compile ``spec`` to a SQL boolean expression, appending its parameters to ``params``.

    ``column`` is a trusted identifier chosen by the caller, never user input.
    An empty or ``None`` filter is ``1`` (true). ``dialect="postgres"`` (a store's
    ``db.dialect``) compiles for a JSONB column with the same results
    (:func:`memo_core.search.pg_filters.compile_filter_pg`).
    """
    if dialect == "postgres":
        from memo_core.search.pg_filters import compile_filter_pg  # imports this module

        return compile_filter_pg(spec, params, column=column)
    if dialect != "sqlite":
        raise ConfigError(f"no metadata filter compiler for SQL dialect {dialect!r}")
    if not spec:
        return "1"
    if not isinstance(spec, Mapping):
        raise InvalidInputError("a metadata filter must be a dict")
    if _depth > _MAX_DEPTH:
        raise InvalidInputError(f"a metadata filter nests deeper than {_MAX_DEPTH} levels")
    parts: list[str] = []
    for key, value in spec.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"invalid metadata field name: {key!r}")
        if key in ("$and", "$or"):
            if not isinstance(value, list | tuple) or not value:
                raise InvalidInputError(f"{key} takes a non-empty list of filters")
            joiner = " AND " if key == "$and" else " OR "
            parts.append(
                "("
                + joiner.join(
                    compile_filter(v, params, column=column, _depth=_depth + 1) for v in value
                )
                + ")"
            )
        elif key == "$not":
            # Two-valued: "not true". A comparison with a missing field is NULL, and a
            # bare NOT(NULL) would drop the row, where $ne and $nin keep it.
            inner = compile_filter(value, params, column=column, _depth=_depth + 1)
            parts.append(f"NOT coalesce({inner}, 0)")
        elif key.startswith("$"):
            raise InvalidInputError(f"unknown filter operator: {key}")
        elif isinstance(value, Mapping):
            if not value:
                raise InvalidInputError(f"empty condition for field {key!r}")
            for op, operand in value.items():
                parts.append(_field_condition(column, key, op, operand, params))
        else:
            parts.append(_field_condition(column, key, "$eq", value, params))
    return "(" + " AND ".join(parts) + ")"


def describe(spec: Mapping[str, Any] | None) -> str:
    """A stable text form of a filter, for logs and --explain output."""
    return json.dumps(spec or {}, sort_keys=True, default=str)
