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
import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.memory.backend import MAX_LIMIT
from memo_core.memory.base import HoodPart
from memo_core.memory.config import CATEGORIES, MemoryConfig
from memo_core.memory.facts import FactWriter
from memo_core.memory.namespace import (
    Namespace,
    NamespaceLike,
    decode_namespace,
    encode_namespace,
)
from memo_core.memory.records import FactRow
from memo_core.memory.store import FactStore
from memo_core.memory.timeutil import as_utc, from_iso, to_iso
from memo_core.memory.types import Fact
from memo_core.search.rrf import rrf

__all__ = ["Items", "matches_filter", "render_value"]

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


def _check_ttl(ttl_minutes: float | None) -> float | None:
    if ttl_minutes is None:
        return None
    if isinstance(ttl_minutes, bool) or not isinstance(ttl_minutes, (int, float)):
        raise InvalidInputError("ttl must be a number of minutes")
    if not math.isfinite(ttl_minutes) or ttl_minutes <= 0:
        raise InvalidInputError("ttl must be a positive, finite number of minutes")
    return float(ttl_minutes)


def _plus(iso: str, minutes: float) -> str:
    return to_iso(from_iso(iso) + timedelta(minutes=minutes))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return round(dot / norm, 6) if norm else 0.0


def _score(cosine: float | None) -> float | None:
    """What a store's ``score`` reports: the cosine similarity clamped to [0, 1]."""
    return None if cosine is None else min(1.0, max(0.0, cosine))


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


class Items(HoodPart):
    """``put_item``, ``get_item``, ``delete_item``, ``search_items``, ``list_namespaces``."""

    def __init__(self, store: FactStore, config: MemoryConfig, writer: FactWriter) -> None:
        super().__init__(store, config)
        self._writer = writer

    def put_item(
        self,
        namespace: NamespaceLike | None,
        key: str,
        value: Mapping[str, Any],
        *,
        index_text: str | None = None,
        at: datetime | None = None,
        ttl_minutes: float | None = None,
    ) -> Fact:
        """Store ``value`` under ``key``; an existing key is superseded (history kept)."""
        _, enc = self._ns(namespace)
        _check_item_key(key)
        ttl = _check_ttl(ttl_minutes)
        if not isinstance(value, Mapping):
            raise InvalidInputError("value must be a dict")
        try:
            payload = json.loads(json.dumps(dict(value), ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"value must be JSON-serialisable: {exc}") from exc
        text = render_value(payload) if index_text is None else index_text.strip()
        category = payload.get("category")
        values = self._writer.draft(
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
            if ttl is None:
                self._store.clear_item_ttl(enc, key)
            else:
                self._store.set_item_ttl(enc, key, _plus(values["valid_from"], ttl), ttl)
            existing = self._store.current_by_key(enc, key)
            if existing is None:
                return self._fact(self._writer.insert(values, vector), at)
            old = FactRow(existing)
            if old.statement == text and (old.value or None) == values["value"]:
                return self._fact(old, at)
            return self._fact(self._writer.supersede(old, values, vector), at)

    def get_item(
        self,
        namespace: NamespaceLike | None,
        key: str,
        *,
        refresh_ttl: bool = False,
        at: datetime | None = None,
    ) -> Fact | None:
        """The current version stored under ``key`` at exactly ``namespace``, or None."""
        _, enc = self._ns(namespace)
        _check_item_key(key)
        now = to_iso(as_utc(at))
        row = self._store.current_by_key(enc, key)
        if row is None:
            return None
        expiry = self._store.item_ttls(enc).get((enc, key))
        if expiry is not None and expiry[0] <= now:
            return None
        if refresh_ttl and expiry is not None:
            self._store.refresh_item_ttls([(enc, key)], now)
        return self._fact(row)

    def delete_item(self, namespace: NamespaceLike | None, key: str) -> bool:
        """Delete every version of the item (FTS and vector rows too)."""
        _, enc = self._ns(namespace)
        _check_item_key(key)
        with self.db.transaction():  # no version can be added between the read and the delete
            row = self._store.current_by_key(enc, key)
            if row is None:
                return False
            chain = [FactRow(r) for r in self._store.chain(FactRow(row).chain_id)]
            self._store.clear_item_ttl(enc, key)
            return self._store.delete_facts([r.rowid for r in chain]) > 0

    def sweep_expired_items(self, at: datetime | None = None) -> int:
        """Delete every item whose TTL has passed (any namespace); returns how many."""
        now = to_iso(as_utc(at))
        swept = 0
        for enc, key in self._store.expired_items(now):
            with self.db.transaction():
                row = self._store.current_by_key(enc, key)
                self._store.clear_item_ttl(enc, key)
                if row is not None:
                    chain = [FactRow(r) for r in self._store.chain(FactRow(row).chain_id)]
                    swept += self._store.delete_facts([r.rowid for r in chain]) > 0
        return swept

    def search_items(
        self,
        namespace_prefix: NamespaceLike | None,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        *,
        min_score: float | None = None,
        refresh_ttl: bool = False,
        at: datetime | None = None,
    ) -> list[Fact]:
        """Current, unexpired items under ``namespace_prefix`` that pass ``filter``."""
        _, enc = self._ns(namespace_prefix)
        if limit < 0 or offset < 0:
            raise InvalidInputError("limit and offset must not be negative")
        if min_score is not None and not 0.0 <= float(min_score) <= 1.0:
            raise InvalidInputError("min_score must be between 0 and 1")
        now = to_iso(as_utc(at))
        with self.db.snapshot():
            expiry = self._store.item_ttls(enc)
            rows: list[FactRow] = []
            # Ties in time break on (namespace, key), never on rowids, which a copy renumbers.
            for raw in self._store.facts_in([], prefix=enc, order="valid_from DESC, ns, key"):
                row = FactRow(raw)
                ttl = expiry.get((row.ns, row.key))
                if ttl is not None and ttl[0] <= now:
                    continue
                if matches_filter(self._fact(row).item_value, filter):
                    rows.append(row)
            if query and query.strip():
                ranked = self._rank_items(rows, query)
            else:
                ranked = [(row, None) for row in rows]
        if min_score is not None:
            ranked = [(r, sc) for r, sc in ranked if sc is not None and sc >= min_score]
        page = ranked[offset : offset + limit]
        if refresh_ttl:
            live = [(r.ns, r.key) for r, _ in page if (r.ns, r.key) in expiry]
            if live:
                self._store.refresh_item_ttls(live, now)
        return [self._fact(row, score=score) for row, score in page]

    def _rank_items(
        self, rows: Sequence[FactRow], query: str
    ) -> list[tuple[FactRow, float | None]]:
        """Indexed rows in fused order with their similarity, then unindexed ones."""
        indexed = [r for r in rows if r.indexed]
        by_rowid = {r.rowid: r for r in indexed}
        namespaces = sorted({r.ns for r in indexed})
        keyword = [
            rowid
            for rowid, _ in self._store.search_keyword("facts", query, namespaces, MAX_LIMIT)
            if rowid in by_rowid
        ]
        similarity: dict[int, float] = {}
        qvec = self._store.embed_query(query) if indexed and self._store.vectors else None
        if qvec is not None:
            stored = self._store.vectors_for("facts", list(by_rowid))
            similarity = {rowid: _cosine(qvec, vec) for rowid, vec in stored.items()}
        # Ranked by the raw cosine (the reported score is clamped at 0); ties keep the
        # rows' own order, which a copy to another backend does not change.
        vector = sorted(
            (rowid for rowid in by_rowid if rowid in similarity),
            key=lambda rowid: -similarity[rowid],
        )
        fused = [rowid for rowid, _ in rrf([keyword, vector])]
        placed = set(fused)
        # Indexed items neither leg returned (no embedder and no keyword match) keep
        # their recency order after the ranked ones: no hidden floor.
        order = fused + [r.rowid for r in indexed if r.rowid not in placed]
        out: list[tuple[FactRow, float | None]] = [
            (by_rowid[rowid], _score(similarity.get(rowid))) for rowid in order
        ]
        out.extend((r, None) for r in rows if not r.indexed)
        return out

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
