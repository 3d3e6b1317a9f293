"""LlamaIndex ``MetadataFilters`` translated to memo's Mongo-style filter dict.

memo compiles that dict to SQL with bound parameters
(:func:`memo_core.search.filters.compile_filter`), so a LlamaIndex filter is
applied inside the query, never by post-filtering a short list. The mapping is
one-to-one:

==========================  ===========================
LlamaIndex ``FilterOperator``  memo operator
==========================  ===========================
``EQ NE GT GTE LT LTE``      ``$eq $ne $gt $gte $lt $lte``
``IN NIN``                   ``$in $nin``
``ANY ALL``                  ``$any $all``
``CONTAINS``                 ``$contains``
``TEXT_MATCH``               ``$text_match``
``TEXT_MATCH_INSENSITIVE``   ``$text_match_insensitive``
``IS_EMPTY``                 ``$is_empty: true``
==========================  ===========================

Conditions: ``AND`` -> ``$and``, ``OR`` -> ``$or``, ``NOT`` -> ``$not`` of the
``$or`` of the children ("none of them matches", as LlamaIndex's in-memory store
reads it). Nested ``MetadataFilters`` nest the same way; an empty group is no
restriction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from memo_core.errors import InvalidInputError

__all__ = ["scope_filter", "to_memo_filter"]

_OPERATORS: dict[FilterOperator, str] = {
    FilterOperator.EQ: "$eq",
    FilterOperator.NE: "$ne",
    FilterOperator.GT: "$gt",
    FilterOperator.GTE: "$gte",
    FilterOperator.LT: "$lt",
    FilterOperator.LTE: "$lte",
    FilterOperator.IN: "$in",
    FilterOperator.NIN: "$nin",
    FilterOperator.ANY: "$any",
    FilterOperator.ALL: "$all",
    FilterOperator.CONTAINS: "$contains",
    FilterOperator.TEXT_MATCH: "$text_match",
    FilterOperator.TEXT_MATCH_INSENSITIVE: "$text_match_insensitive",
}

_LIST_OPERATORS = frozenset(
    {FilterOperator.IN, FilterOperator.NIN, FilterOperator.ANY, FilterOperator.ALL}
)


def _condition(flt: MetadataFilter) -> dict[str, Any]:
    operator = FilterOperator(flt.operator)
    if operator is FilterOperator.IS_EMPTY:
        return {flt.key: {"$is_empty": True}}
    op = _OPERATORS.get(operator)
    if op is None:  # a FilterOperator added by a newer LlamaIndex
        raise InvalidInputError(f"unsupported LlamaIndex filter operator: {operator.value}")
    value: Any = flt.value
    if operator in _LIST_OPERATORS and not isinstance(value, list):
        value = [value]  # LlamaIndex accepts a scalar for IN; memo wants a list
    return {flt.key: {op: value}}


def to_memo_filter(filters: MetadataFilters | None) -> dict[str, Any] | None:
    """The memo filter dict for ``filters`` (``None`` when it restricts nothing)."""
    if filters is None:
        return None
    parts: list[dict[str, Any]] = []
    for item in filters.filters:
        if isinstance(item, MetadataFilters):
            nested = to_memo_filter(item)
            if nested is not None:
                parts.append(nested)
        else:
            parts.append(_condition(item))
    condition = FilterCondition(filters.condition or FilterCondition.AND)
    if not parts:
        return None
    if condition is FilterCondition.AND:
        return parts[0] if len(parts) == 1 else {"$and": parts}
    if condition is FilterCondition.OR:
        return parts[0] if len(parts) == 1 else {"$or": parts}
    if condition is FilterCondition.NOT:
        return {"$not": parts[0] if len(parts) == 1 else {"$or": parts}}
    raise InvalidInputError(f"unsupported LlamaIndex filter condition: {condition.value}")


def scope_filter(
    filters: MetadataFilters | None,
    *,
    node_ids: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    node_id_key: str,
    doc_id_key: str,
) -> dict[str, Any] | None:
    """``filters`` AND-ed with "node id in ..." / "ref doc id in ..." restrictions.

    An empty or ``None`` id list is no restriction (LlamaIndex's convention for
    ``VectorStoreQuery.doc_ids`` / ``node_ids``).
    """
    parts: list[dict[str, Any]] = []
    base = to_memo_filter(filters)
    if base is not None:
        parts.append(base)
    if node_ids:
        parts.append({node_id_key: {"$in": list(node_ids)}})
    if doc_ids:
        parts.append({doc_id_key: {"$in": list(doc_ids)}})
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}
