"""A keyed-item view of memory, for key-value stores (LangGraph ``BaseStore``).

Facts *are* items: an item is the current version of the fact with that ``key``
in that namespace. Putting a new value on an existing key supersedes it (the
old value stays in ``history``); deleting an item deletes every version.
Captured facts appear as items too (their key is their slot, such as
``self.residence``, or their chain id), so a store adapter sees what capture
learned. Searches read current versions only, under a namespace *prefix*.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.memory.base import HoodBase
from memo_core.memory.config import CATEGORIES
from memo_core.memory.namespace import (
    Namespace,
    NamespaceLike,
    decode_namespace,
    encode_namespace,
)
from memo_core.memory.records import FactRow
from memo_core.memory.timeutil import as_utc
from memo_core.memory.types import Fact
from memo_core.search.rrf import rrf

__all__ = ["ItemsMixin", "matches_filter", "render_value"]

_TEXT_FIELDS = ("text", "content", "statement", "memory", "fact", "value", "data")
_OPS = {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"}


def render_value(value: Mapping[str, Any]) -> str:
    """The searchable text of an item: its text-like field, else its string values."""
    for name in _TEXT_FIELDS:
        field = value.get(name)
        if isinstance(field, str) and field.strip():
            return field.strip()
    parts: list[str] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, str):
            parts.append(obj)
        elif isinstance(obj, Mapping):
            for item in obj.values():
                walk(item)
        elif isinstance(obj, (list, tuple)):
            for item in obj:
                walk(item)
        elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
            parts.append(str(obj))

    walk(value)
    return " ".join(p.strip() for p in parts if p.strip())


def _compare(actual: Any, op: str, expected: Any) -> bool:
    try:
        if op == "$eq":
            return bool(actual == expected)
        if op == "$ne":
            return bool(actual != expected)
        if op == "$in":
            return actual in expected
        if op == "$nin":
            return actual not in expected
        if actual is None:
            return False
        if op == "$gt":
            return bool(actual > expected)
        if op == "$gte":
            return bool(actual >= expected)
        if op == "$lt":
            return bool(actual < expected)
        if op == "$lte":
            return bool(actual <= expected)
    except TypeError:
        return False
    raise InvalidInputError(f"unknown filter operator {op!r}")


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """LangGraph-style filter: ``{"field": value}`` or ``{"field": {"$gte": 3}}``."""
    if not filter:
        return True
    for name, condition in filter.items():
        actual: Any = value
        for part in str(name).split("."):
            actual = actual.get(part) if isinstance(actual, Mapping) else None
        if isinstance(condition, Mapping) and condition and set(condition) <= _OPS:
            if not all(_compare(actual, op, exp) for op, exp in condition.items()):
                return False
        elif actual != condition:
            return False
    return True


def _check_item_key(key: object) -> None:
    """A key is a non-empty string without NUL (no backend could have stored one)."""
    if not isinstance(key, str) or not key:
        raise InvalidInputError("key must be a non-empty string")
    if "\x00" in key:
        raise InvalidInputError("key contains a NUL character")


def _match_pattern(ns: Namespace, pattern: Sequence[str], *, from_end: bool) -> bool:
    if len(pattern) > len(ns):
        return False
    part = ns[len(ns) - len(pattern) :] if from_end else ns[: len(pattern)]
    return all(p == "*" or p == n for p, n in zip(pattern, part, strict=True))


class ItemsMixin(HoodBase):
    """``put_item``, ``get_item``, ``delete_item``, ``search_items``, ``list_namespaces``."""

    def put_item(
        self,
        namespace: NamespaceLike | None,
        key: str,
        value: Mapping[str, Any],
        *,
        index_text: str | None = None,
        at: datetime | None = None,
    ) -> Fact:
        """Store ``value`` under ``key``; an existing key is superseded (history kept).

        ``index_text`` is what search matches (default: the value's text field or its
        string values); ``""`` stores the item without indexing it for search.
        """
        _, enc = self._ns(namespace)
        _check_item_key(key)
        if not isinstance(value, Mapping):
            raise InvalidInputError("value must be a dict")
        try:
            payload = json.loads(json.dumps(dict(value), ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"value must be JSON-serialisable: {exc}") from exc
        text = render_value(payload) if index_text is None else index_text.strip()
        category = payload.get("category")
        values = self._values(
            enc=enc,
            statement=text,
            key=key,
            category=category if category in CATEGORIES else "fact",
            pinned=payload.get("pinned") is True,
            when=as_utc(at),
            value=payload,
            origin="item",
            indexed=bool(text),
        )
        vector = None
        if text:
            vectors = self._store.embed_documents([text])
            vector = vectors[0] if vectors else None
        with self.db.transaction():
            existing = self._store.current_by_key(enc, key)
            if existing is None:
                return self._fact(self._insert(values, vector), at)
            old = FactRow(existing)
            if old.statement == text and (old.value or None) == values["value"]:
                return self._fact(old, at)
            return self._fact(self._supersede(old, values, vector), at)

    def get_item(self, namespace: NamespaceLike | None, key: str) -> Fact | None:
        """The current version stored under ``key`` at exactly ``namespace``, or None."""
        _, enc = self._ns(namespace)
        _check_item_key(key)
        row = self._store.current_by_key(enc, key)
        return self._fact(row) if row is not None else None

    def delete_item(self, namespace: NamespaceLike | None, key: str) -> bool:
        """Delete every version of the item (FTS and vector rows too)."""
        _, enc = self._ns(namespace)
        _check_item_key(key)
        with self.db.transaction():  # no version can be added between the read and the delete
            row = self._store.current_by_key(enc, key)
            if row is None:
                return False
            chain = [FactRow(r) for r in self._store.chain(FactRow(row).chain_id)]
            return self._store.delete_facts([r.rowid for r in chain]) > 0

    def search_items(
        self,
        namespace_prefix: NamespaceLike | None,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[Fact]:
        """Current items under ``namespace_prefix``, by hybrid relevance when ``query`` is set.

        With a query, an item must match a query word or be within ``vector_floor``
        cosine of it. Without a query, the most recently written come first.
        ``Fact.score`` is the RRF score (None without a query); ``Fact.item_value`` is
        the item's value.
        """
        _, enc = self._ns(namespace_prefix)
        if limit < 0 or offset < 0:
            raise InvalidInputError("limit and offset must not be negative")
        if not (query and query.strip()):
            out: list[Fact] = []
            skipped = 0
            for raw in self._store.facts_in([], prefix=enc, order="valid_from DESC, rowid DESC"):
                fact = self._fact(raw)
                if not matches_filter(fact.item_value, filter):
                    continue
                if skipped < offset:
                    skipped += 1
                    continue
                out.append(fact)
                if len(out) >= limit:
                    break
            return out
        namespaces = self._store.namespaces_with_prefix(enc)
        pool = max(50, (offset + limit) * 5)
        fts = self._store.search_fts("mem_facts_fts", "mem_facts", query, namespaces, pool)
        vec: list[tuple[int, float]] = []
        qvec = self._store.embed_query(query) if self._store.vectors is not None else None
        if qvec is not None:
            vec = self._store.search_vec("mem_facts_vec", qvec, namespaces, pool)
        # A vector-only neighbour must be similar enough: KNN always returns k rows.
        vec = [(r, cos) for r, cos in vec if cos >= self.config.vector_floor]
        fused = rrf([[r for r, _ in fts], [r for r, _ in vec]])
        rows = {
            FactRow(r).rowid: FactRow(r) for r in self._store.facts_by_rowids(r for r, _ in fused)
        }
        results: list[Fact] = []
        for rowid, score in fused:
            row = rows.get(rowid)
            if row is None or row.valid_to is not None:
                continue
            fact = self._fact(row, score=round(score, 6))
            if matches_filter(fact.item_value, filter):
                results.append(fact)
        return results[offset : offset + limit]

    def list_namespaces(
        self,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Namespace]:
        """Namespaces holding current facts; ``"*"`` in prefix/suffix matches any component."""
        fixed: str | None = None
        if prefix and "*" not in prefix:
            fixed = encode_namespace(tuple(prefix))
        found: list[Namespace] = []
        seen: set[Namespace] = set()
        for enc in self._store.namespaces_with_prefix(fixed):
            ns = decode_namespace(enc)
            if prefix and not _match_pattern(ns, prefix, from_end=False):
                continue
            if suffix and not _match_pattern(ns, suffix, from_end=True):
                continue
            if max_depth is not None:
                ns = ns[:max_depth]
            if ns not in seen:
                seen.add(ns)
                found.append(ns)
        found.sort()
        return found[offset : offset + limit]
