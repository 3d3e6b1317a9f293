"""``MemoHoodStore``: memo's long-term memory as a LangGraph ``BaseStore``.

LangGraph agents read and write long-term memory through ``store.put/get/search``
(``store=`` at compile time, ``runtime.store`` or ``get_store()`` in a node). Here
the store is a MemoHood file: an item is the current version of the fact stored
under ``(namespace, key)``; putting a new value on an existing key SUPERSEDES the
old one (kept in the fact's history, never overwritten); ``search`` runs memo's
hybrid search (FTS5 and vectors fused by RRF) over current versions only; facts
that ``capture`` learned from conversation turns show up as items too.

Namespaces fail closed: an empty namespace (LangGraph's "everything") is refused
with :class:`~memo_core.errors.NamespaceRequiredError`, as everywhere in memo.

``list_namespaces()`` lists the namespaces of **every** user of the file, as
LangGraph's own stores do; pass its ``prefix=`` to narrow it, or open the store with
``namespace_prefix=("users", user_id)`` so that every operation (get, put, search,
list) is confined to that subtree and a namespace outside it is refused.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from langchain_core.runnables.config import run_in_executor

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
    )
    from langgraph.store.base.embed import ensure_embeddings
except ImportError as exc:  # pragma: no cover - exercised only without langgraph
    from memo_core.errors import MissingDependencyError

    raise MissingDependencyError("langgraph", "langchain", "MemoHoodStore") from exc

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.llm.base import LLM
from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.namespace import NamespaceLike, normalize_namespace
from memo_core.memory.types import Fact
from memo_integrations.langchain._memory import open_memory

__all__ = ["MemoHoodStore", "remember_and_recall"]


def _index_text(value: dict[str, Any], index: Any, fields: Sequence[str] | None) -> str | None:
    """What memo indexes for search: ``index=False`` nothing, a field list those
    fields' text (LangGraph path syntax; the store's ``fields`` when the put names
    none), the whole value (``["$"]`` or no fields) memo's default rendering."""
    if index is False:
        return ""
    paths = fields if index is None else index
    if paths is None or list(paths) == ["$"]:
        return None
    parts = [text for path in paths for text in get_text_at_path(value, path)]
    return " ".join(p for p in parts if p.strip())


def _index_embedder(index: Mapping[str, Any]) -> Embedder | None:
    """The memo embedder for a LangGraph ``IndexConfig``'s ``embed`` (and ``dims``)."""
    embed = index.get("embed")
    if embed is None:
        return None
    if isinstance(embed, Embedder):
        return embed
    from memo_integrations.langchain.embeddings import LangChainEmbedder

    dims = index.get("dims")
    return LangChainEmbedder(ensure_embeddings(embed), dimensions=dims)


def _check_index(index: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if index is None:
        return None
    if not isinstance(index, Mapping):
        raise InvalidInputError(
            'index must be a dict like {"dims": 384, "embed": ..., "fields": [...]}'
        )
    unknown = set(index) - {
        "dims",
        "embed",
        "fields",
        "text_fields",
        "ann_index_config",
        "distance_type",
    }
    if unknown:
        raise InvalidInputError(f"unknown index options: {sorted(unknown)}")
    # Scores are cosine similarities; another metric would change what they mean.
    distance = index.get("distance_type", "cosine")
    if distance != "cosine":
        raise InvalidInputError(
            f"MemoHoodStore scores by cosine similarity; distance_type {distance!r}"
            " is not supported"
        )
    if "fields" in index and "text_fields" in index:
        raise InvalidInputError("pass fields= or text_fields= (SqliteStore's name), not both")
    dims = index.get("dims")
    if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
        raise InvalidInputError("index dims must be a positive integer")
    fields = index.get("fields", index.get("text_fields"))
    if fields is not None and (
        isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields)
    ):
        raise InvalidInputError("index fields must be a list of field paths")
    return dict(index)


def _check_ttl_config(ttl: Mapping[str, Any] | None) -> TTLConfig | None:
    if ttl is None:
        return None
    if not isinstance(ttl, Mapping):
        raise InvalidInputError(
            'ttl must be a dict like {"default_ttl": 60, "refresh_on_read": True}'
        )
    unknown = set(ttl) - {
        "default_ttl",
        "refresh_on_read",
        "sweep_interval_minutes",
        "omit_expired",
    }
    if unknown:
        raise InvalidInputError(f"unknown ttl options: {sorted(unknown)}")
    return cast(TTLConfig, dict(ttl))


class MemoHoodStore(BaseStore):
    """A LangGraph ``BaseStore`` backed by a MemoHood memory file.

    ``memory``: an open :class:`~memo_core.memory.MemoHood`, or a path (or database
    URL) to open one with ``embedder`` (default: the local MiniLM embedder when
    ``memo[local]`` is installed, else keyword-only), ``llm``, ``gate`` and ``config``.

    ``index`` takes LangGraph's ``IndexConfig``: ``embed`` (a LangChain
    ``Embeddings``, an embedding function, or a memo embedder) with its ``dims``, and
    ``fields``, the value paths indexed by default (``["$"]``, the whole value, when
    absent); a put's own ``index=[...]`` overrides them and ``index=False`` stores an
    item that a query search still returns, after the ranked ones, with
    ``score=None``.

    Query search ranks every item under the prefix that passes the filter (the
    filter and the TTL are applied before ``offset``/``limit``); the order comes
    from memo's fusion of keyword and vector matches, and ``SearchItem.score`` is the
    item's cosine similarity to the query in [0, 1]. There is no relevance floor
    unless ``min_score`` sets one.

    ``ttl`` takes LangGraph's ``TTLConfig`` (``default_ttl`` minutes,
    ``refresh_on_read``); ``put(..., ttl=minutes)`` sets one item's. Expired items
    are never returned (LangGraph's ``omit_expired``, always on);
    :meth:`sweep_ttl` deletes them.

    ``namespace_prefix`` scopes the store to one subtree (one tenant): reads and writes
    outside it raise :class:`~memo_core.errors.InvalidInputError`, and searches and
    ``list_namespaces`` never see past it. Without it the store sees the whole file:
    ``list_namespaces()`` then lists every user's namespaces. The store is
    thread-safe (one connection behind a lock), so ``abatch`` runs the same code in
    an executor.

    Async writes apply in the order they were issued, as in LangGraph's batched
    stores. ``index`` also takes SqliteStore's ``text_fields`` (as ``fields``) and
    ``distance_type="cosine"``; other metrics are refused.

    Deliberate differences from LangGraph's stores: an empty namespace prefix (search
    "everything") fails closed with :class:`~memo_core.errors.NamespaceRequiredError`;
    the whole value is indexed as memo's readable rendering, not its JSON text;
    an item with several indexed fields has one vector, of those fields' text
    together (LangGraph keeps one per field and scores by the best); a new value on
    an existing key supersedes the old one, which stays in the fact's history.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: MemoHood | str | Path,
        *,
        index: Mapping[str, Any] | None = None,
        ttl: Mapping[str, Any] | None = None,
        min_score: float | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        gate: RecallGate | None = None,
        config: MemoryConfig | None = None,
        namespace_prefix: Sequence[str] | None = None,
    ) -> None:
        self.index_config = _check_index(index)
        self.ttl_config = _check_ttl_config(ttl)
        if min_score is not None and not 0.0 <= float(min_score) <= 1.0:
            raise InvalidInputError("min_score must be between 0 and 1")
        self.min_score = min_score
        self.scope: tuple[str, ...] = (
            normalize_namespace(namespace_prefix) if namespace_prefix is not None else ()
        )
        from_index = _index_embedder(self.index_config) if self.index_config else None
        if from_index is not None and embedder is not None:
            raise InvalidInputError("pass the embedder in index={'embed': ...} or embedder=")
        # Neither given: MemoHood's default, the offline local embedder.
        embedder = from_index or embedder
        self.memory, self._owns_memory = open_memory(
            memory, embedder=embedder, llm=llm, gate=gate, config=config
        )
        chosen = self.index_config or {}
        fields = chosen.get("fields", chosen.get("text_fields"))
        self._fields: list[str] | None = list(fields) if fields is not None else None
        self._write_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def close(self) -> None:
        """Close the memory file (only when this store opened it from a path)."""
        if self._owns_memory:
            self.memory.close()

    def sweep_ttl(self) -> int:
        """Delete every expired item now; returns how many were deleted."""
        return self.memory.sweep_expired_items()

    async def asweep_ttl(self) -> int:
        return await run_in_executor(None, self.sweep_ttl)

    # -- conversion ---------------------------------------------------------

    def _created_at(self, fact: Fact) -> datetime:
        """When the item was first put: the first version's ``valid_from``."""
        if fact.version <= 1:
            return fact.valid_from
        try:
            return self.memory.history(fact.id, namespace=fact.namespace)[0].valid_from
        except NotFoundError:  # deleted between the read and this call
            return fact.valid_from

    def _item(self, fact: Fact) -> Item:
        return Item(
            value=fact.item_value,
            key=fact.key,
            namespace=tuple(fact.namespace),
            created_at=self._created_at(fact),
            updated_at=fact.valid_from,
        )

    def _search_item(self, fact: Fact) -> SearchItem:
        return SearchItem(
            namespace=tuple(fact.namespace),
            key=fact.key,
            value=fact.item_value,
            created_at=self._created_at(fact),
            updated_at=fact.valid_from,
            score=fact.score,
        )

    # -- scope --------------------------------------------------------------

    def _overlaps_scope(self, namespace: Sequence[str]) -> bool:
        """``namespace`` is inside the scope, or a wider prefix of it."""
        n = min(len(namespace), len(self.scope))
        return tuple(namespace[:n]) == self.scope[:n]

    def _inside(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        """``namespace`` if it lies inside the scope, else refused (fail closed)."""
        if tuple(namespace[: len(self.scope)]) != self.scope:
            raise InvalidInputError(f"namespace {namespace!r} is outside this store's scope")
        return namespace

    def _narrowed(self, prefix: tuple[str, ...]) -> tuple[str, ...]:
        """A search prefix: a wider prefix of the scope reads only the scope."""
        if self.scope and len(prefix) < len(self.scope) and self._overlaps_scope(prefix):
            return self.scope
        return self._inside(prefix)

    # -- operations ---------------------------------------------------------

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            fact = self.memory.get_item(
                self._inside(op.namespace), op.key, refresh_ttl=op.refresh_ttl
            )
            return None if fact is None else self._item(fact)
        if isinstance(op, PutOp):
            namespace = self._inside(op.namespace)
            if op.value is None:
                self.memory.delete_item(namespace, op.key)
            else:
                value = dict(op.value)
                self.memory.put_item(
                    namespace,
                    op.key,
                    value,
                    index_text=_index_text(value, op.index, self._fields),
                    ttl_minutes=op.ttl,
                )
            return None
        if isinstance(op, SearchOp):
            facts = self.memory.search_items(
                self._narrowed(op.namespace_prefix),
                query=op.query,
                filter=op.filter,
                limit=op.limit,
                offset=op.offset,
                min_score=self.min_score,
                refresh_ttl=op.refresh_ttl,
            )
            return [self._search_item(f) for f in facts]
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise InvalidInputError(f"unknown store operation: {type(op).__name__}")

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix: Sequence[str] | None = None
        suffix: Sequence[str] | None = None
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix" and prefix is None:
                prefix = tuple(cond.path)
            elif cond.match_type == "suffix" and suffix is None:
                suffix = tuple(cond.path)
            else:
                raise InvalidInputError(
                    f"at most one prefix and one suffix condition (got {cond.match_type!r} twice)"
                )
        if not self.scope:
            return self.memory.list_namespaces(
                prefix=prefix,
                suffix=suffix,
                max_depth=op.max_depth,
                limit=op.limit,
                offset=op.offset,
            )
        if prefix is None or ("*" not in prefix and self._overlaps_scope(prefix)):
            prefix = self._narrowed(tuple(prefix or ()))
        found = self.memory.list_namespaces(
            prefix=prefix, suffix=suffix, max_depth=op.max_depth, limit=1_000_000
        )
        # Wildcard prefixes are matched first, then confined; max_depth may cut a
        # namespace to a prefix of the scope, which reveals nothing outside it.
        inside = [ns for ns in found if self._overlaps_scope(ns)]
        return inside[op.offset : op.offset + op.limit]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order (a put is visible to a later get in the batch)."""
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` in an executor. Batches that write run one at a time, in the
        order they were issued (``asyncio.gather(aput(k, 1), aput(k, 2))`` leaves 2,
        as LangGraph's batched stores do); reads run concurrently."""
        items = list(ops)
        if not any(isinstance(op, PutOp) for op in items):
            return await run_in_executor(None, self.batch, items)
        async with self._write_turn():
            return await run_in_executor(None, self.batch, items)

    def _write_turn(self) -> asyncio.Lock:
        """The running loop's FIFO lock for writing batches (an asyncio lock belongs
        to one loop, and a store may serve several over its life)."""
        loop = asyncio.get_running_loop()
        lock = self._write_locks.get(loop)
        if lock is None:
            lock = self._write_locks[loop] = asyncio.Lock()
        return lock


def remember_and_recall(
    store_or_memory: MemoHoodStore | MemoHood,
    namespace: NamespaceLike,
    user_message: str,
    *,
    session_id: str | None = None,
    k: int | None = None,
    token_budget: int | None = None,
) -> str:
    """Capture ``user_message`` as a turn and return the memory block for the prompt.

    The block is recalled *before* the turn is captured, so it holds what memory
    knew until now (the message itself is already in the prompt); it is ``""``
    when the gate judges the message small talk or nothing relevant is known.
    """
    memory = (
        store_or_memory.memory if isinstance(store_or_memory, MemoHoodStore) else store_or_memory
    )
    recalled = memory.recall(user_message, namespace=namespace, k=k, token_budget=token_budget)
    memory.capture(user_message, namespace=namespace, role="user", session_id=session_id)
    return recalled.block
