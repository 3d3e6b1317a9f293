"""A metadata filter tree rendered as SQLite SQL over a TEXT JSON column.

This renderer is the reference reading of the filter language
(:mod:`memo_core.search.filter_tree`): SQLite's JSON functions decide what a value
is (``json_extract`` turns ``true`` into 1, a missing field into NULL), and the
PostgreSQL renderer reproduces their answers. Field names become JSON paths
(``$."name"``) and values are bound parameters, never SQL text.
"""

from __future__ import annotations

from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.search.filter_tree import COMPARISONS, And, Condition, Filter, Not

__all__ = ["render_sqlite"]


def render_sqlite(node: Filter, params: list[Any], *, column: str = "c.metadata") -> str:
    """``node`` as a SQLite boolean expression; its parameters are appended to ``params``.

    ``column`` is a trusted identifier chosen by the caller, never user input. The
    filter that selects every row (``And()``) is ``1``.
    """
    if isinstance(node, Condition):
        return f"({_condition(column, node, params)})"
    if isinstance(node, Not):
        # Two-valued: "not true". A comparison with a missing field is NULL, and a
        # bare NOT(NULL) would drop the row, where $ne and $nin keep it.
        return f"(NOT coalesce({render_sqlite(node.part, params, column=column)}, 0))"
    if not node.parts:
        return "1"
    joiner = " AND " if isinstance(node, And) else " OR "
    return "(" + joiner.join(render_sqlite(p, params, column=column) for p in node.parts) + ")"


def _condition(column: str, cond: Condition, params: list[Any]) -> str:
    op, value = cond.op, cond.value
    extract = f"json_extract({column}, ?)"
    path = f'$."{cond.field}"'  # the parser refused quotes and backslashes in names
    if op in COMPARISONS:
        if value is None:
            params.append(path)
            return f"{extract} IS {'NOT ' if op == '$ne' else ''}NULL"
        params.extend([path, value])
        if op == "$ne":  # a missing field is "not equal" too
            return f"{extract} IS NOT ?"
        return f"{extract} {COMPARISONS[op]} ?"
    if op in ("$in", "$nin"):
        if not value:
            return "0" if op == "$in" else "1"
        params.append(path)
        params.extend(value)
        marks = ", ".join("?" for _ in value)
        if op == "$in":
            return f"{extract} IN ({marks})"
        return f"coalesce({extract} NOT IN ({marks}), 1)"
    if op == "$contains":
        params.extend([path, path, value, path, value])
        return (
            f"CASE json_type({column}, ?) WHEN 'array' THEN "
            f"EXISTS (SELECT 1 FROM json_each({column}, ?) WHERE value = ?) "
            f"ELSE instr({extract}, ?) > 0 END"
        )
    if op in ("$any", "$all"):
        if not value:
            return "0" if op == "$any" else "1"
        marks = ", ".join("?" for _ in value)
        params.append(path)
        params.extend(value)
        count = (
            f"(SELECT count(DISTINCT value) FROM json_each({column}, ?) WHERE value IN ({marks}))"
        )
        if op == "$any":
            return f"{count} > 0"
        params.append(len(set(value)))
        return f"{count} = ?"
    if op == "$text_match":
        params.extend([path, value])
        return f"instr({extract}, ?) > 0"
    if op == "$text_match_insensitive":
        params.extend([path, value])
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
    raise InvalidInputError(f"unknown filter operator: {op}")  # Condition refuses it first
