"""What every collaborator of :class:`~memo_core.memory.hood.MemoHood` shares.

MemoHood is a facade over a few collaborators, one responsibility each (capture,
recall, lifecycle, items, transcripts, transfer, and the fact writer they
share); each receives the same :class:`~memo_core.memory.store.FactStore` and
:class:`~memo_core.memory.config.MemoryConfig`. :class:`HoodPart` holds those two
and the reads every part needs: a fact row by id, the same row only if a
namespace may see it, and a row turned into a :class:`~memo_core.memory.types.Fact`.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.memory.config import MemoryConfig
from memo_core.memory.namespace import (
    Namespace,
    NamespaceLike,
    encode_namespace,
    normalize_namespace,
)
from memo_core.memory.records import FactRow, fact_from_row
from memo_core.memory.store import FactStore
from memo_core.memory.timeutil import as_utc
from memo_core.memory.types import Fact

__all__ = ["HoodPart", "new_id"]


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class HoodPart:
    """A MemoHood collaborator: the store (and its database), the configuration, shared reads."""

    def __init__(self, store: FactStore, config: MemoryConfig) -> None:
        self._store = store
        self.db = store.db
        self.config = config

    @staticmethod
    def _ns(namespace: NamespaceLike | None) -> tuple[Namespace, str]:
        ns = normalize_namespace(namespace)
        return ns, encode_namespace(ns)

    def _fact(self, row: Any, now: datetime | None = None, *, score: float | None = None) -> Fact:
        return fact_from_row(row, self.config, as_utc(now), score=score)

    def _row(self, fact_id: str) -> FactRow:
        if not isinstance(fact_id, str) or not fact_id:
            raise InvalidInputError("fact_id must be a non-empty string")
        if "\x00" in fact_id:
            raise InvalidInputError("fact_id contains a NUL character")
        row = self._store.fact_by_id(fact_id)
        if row is None:
            raise NotFoundError(f"no fact with id {fact_id!r}")
        return FactRow(row)

    def _owned_row(self, fact_id: str, namespace: NamespaceLike | None) -> FactRow:
        """The row ``fact_id`` if ``namespace`` (or an ancestor of its owner) may see it.

        Fails closed: no namespace raises ``NamespaceRequiredError`` before any read; a
        fact stored under another namespace raises the same ``NotFoundError`` as an
        unknown id, so an id reveals nothing across owners.
        """
        _, enc = self._ns(namespace)
        row = self._row(fact_id)
        if not row.ns.startswith(enc):
            raise NotFoundError(f"no fact with id {fact_id!r} in this namespace")
        return row
