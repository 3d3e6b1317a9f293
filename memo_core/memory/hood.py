"""MemoHood: long-term conversation memory in one SQLite file (or one PostgreSQL schema).

::

    with MemoHood("memory.db") as memory:  # the offline local embedder by default
        memory.capture("By the way, I'm allergic to penicillin.", namespace="u1")
        ...
        recall = memory.recall("Suggest an antibiotic for a sore throat", namespace="u1")
        prompt = recall.block + "\\n\\n" + user_message

What it does (each part in its own module):

* **capture** (:mod:`~memo_core.memory.capture`) — rules first, English and Russian,
  no LLM: corrections, decisions, preferences, health, identity, plans and explicit
  "remember this" become facts; borderline turns cost one LLM call when an LLM is
  configured; every raw turn is kept as searchable episodic memory; assistant turns
  never become the user's facts.
* **versions** (:mod:`~memo_core.memory.versions`) — a changed fact SUPERSEDES the
  old one (kept, with ``valid_to`` and ``superseded_by``); restatements reinforce.
* **decay** (:mod:`~memo_core.memory.decay`, run by :meth:`consolidate`) — computed
  from timestamps with per-category half-lives; pinned facts never decay.
* **recall** (:mod:`~memo_core.memory.recall`) — a Model2Vec gate skips small talk;
  hybrid search over current facts and turns, profile facts, people named, upcoming
  plans; a fenced block that marks memory as data, not instructions.
* **namespaces** (:mod:`~memo_core.memory.namespace`) — every call needs one (fail
  closed). Writes go to the namespace given; ``recall`` at N reads N and N's
  ancestors; prefix reads (``search_items``, ``list_facts(prefix=True)``) read N and
  its descendants. Nothing crosses to another root.
* **items, transcripts, export** (:mod:`~memo_core.memory.items`,
  :mod:`~memo_core.memory.transcript`, :mod:`~memo_core.memory.transfer`) — the
  surfaces the LangChain and LlamaIndex adapters build on.

:class:`MemoHood` is a facade: it opens the store and hands it, with the
:class:`~memo_core.memory.config.MemoryConfig`, to one collaborator per
responsibility (:class:`~memo_core.memory.capture.Capture`,
:class:`~memo_core.memory.recall.Recaller`,
:class:`~memo_core.memory.lifecycle.Lifecycle`,
:class:`~memo_core.memory.consolidate.Consolidation`,
:class:`~memo_core.memory.items.Items`,
:class:`~memo_core.memory.transcript.Transcripts`,
:class:`~memo_core.memory.transfer.Transfer`, and the
:class:`~memo_core.memory.facts.FactWriter` they share); each public method is one
call into one of them. All knobs live in :class:`~memo_core.memory.config.MemoryConfig`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from memo_core.embedders.auto import AUTO, EmbedderChoice, resolve_embedder
from memo_core.llm.base import LLM
from memo_core.memory.capture import Capture
from memo_core.memory.config import MemoryConfig
from memo_core.memory.consolidate import Consolidation
from memo_core.memory.facts import FactWriter
from memo_core.memory.gate import RecallGate
from memo_core.memory.items import Items
from memo_core.memory.lifecycle import Lifecycle
from memo_core.memory.namespace import Namespace, NamespaceLike
from memo_core.memory.recall import Recaller
from memo_core.memory.store import FactStore, open_fact_store
from memo_core.memory.transcript import Transcripts
from memo_core.memory.transfer import Source, Transfer
from memo_core.memory.types import (
    BackfillReport,
    CaptureResult,
    ConsolidationReport,
    Fact,
    ImportReport,
    Message,
    Recall,
)
from memo_core.storage import open_database
from memo_core.storage.base import Tracer

__all__ = ["MemoHood"]

_DEFAULT_GATES: dict[str, RecallGate] = {}
_GATE_LOCK = threading.Lock()


def _default_gate(config: MemoryConfig) -> RecallGate:
    """One default gate per process and margin (loading a model costs about a second)."""
    key = f"{config.gate_margin}:{config.gate_neighbours}"
    with _GATE_LOCK:
        if key not in _DEFAULT_GATES:
            _DEFAULT_GATES[key] = RecallGate.default(config=config)
        return _DEFAULT_GATES[key]


class MemoHood:
    """Long-term memory for one application: ``MemoHood(path, embedder=, llm=, gate=, config=)``.

    ``path`` is a SQLite file (or ``sqlite:///file.db``), or ``postgresql://...?schema=name``
    for a memory many processes and machines share. Both store, version, scope and
    find the same facts, and rank keywords with the same BM25 (IDF, k1, b and column
    weights of :mod:`memo_core.search.bm25`; :mod:`memo_core.memory.pg_backend`).

    ``embedder`` enables vector recall, as for :class:`~memo_core.kb.base.MemoBase`:
    ``"auto"`` (the default) is the offline MiniLM model of ``memo[local]``, or
    keyword-only with one logged warning when that extra is missing; an
    :class:`~memo_core.embedders.base.Embedder` is used as given; ``None`` is
    keyword-only. Its fingerprint is stored in the file and a different one is refused
    with :class:`~memo_core.errors.EmbedderMismatchError`; without sqlite-vec / pgvector,
    recall is keyword-only too. ``llm`` (any object
    with ``complete(messages, json_mode=...)``) is used only for borderline turns and
    ambiguous updates. ``gate`` defaults to the Model2Vec gate of
    :func:`~memo_core.memory.config.resolve_gate_model`, loaded on first recall.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        embedder: EmbedderChoice = AUTO,
        llm: LLM | None = None,
        gate: RecallGate | None = None,
        config: MemoryConfig | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.path = str(path)
        self.embedder = resolve_embedder(embedder)
        self.db = open_database(path, tracer=tracer)
        try:
            self._store: FactStore = open_fact_store(self.db, self.embedder)
        except BaseException:
            self.db.close()
            raise
        self._gate = gate
        self._closed = False
        store, cfg = self._store, self.config
        writer = FactWriter(store, cfg)
        self._capture = Capture(store, cfg, writer, llm=llm, gate=lambda: self.gate)
        self._recaller = Recaller(store, cfg, gate=lambda: self.gate)
        self._lifecycle = Lifecycle(store, cfg)
        self._consolidation = Consolidation(store, cfg)
        self._items = Items(store, cfg, writer)
        self._transcripts = Transcripts(store, cfg, self._capture)
        self._transfer = Transfer(store, cfg, self._capture)

    # -- the file and its providers ------------------------------------------------

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.db.close()

    def __enter__(self) -> MemoHood:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def gate(self) -> RecallGate:
        """The recall gate (the default Model2Vec gate is loaded on first use)."""
        if self._gate is None:
            self._gate = _default_gate(self.config)
        return self._gate

    @property
    def llm(self) -> LLM | None:
        """The LLM for borderline turns and ambiguous updates (None: rules only)."""
        return self._capture.llm

    @llm.setter
    def llm(self, llm: LLM | None) -> None:
        self._capture.llm = llm

    @property
    def has_vectors(self) -> bool:
        """Whether recall uses vectors (an embedder is attached, sqlite-vec or pgvector loaded)."""
        return self._store.vectors is not None

    # -- capture -------------------------------------------------------------

    def capture(
        self,
        text: str,
        *,
        namespace: NamespaceLike | None,
        role: str = "user",
        at: datetime | None = None,
        session_id: str | None = None,
    ) -> CaptureResult:
        """Keep one conversation turn: the raw turn always, facts when it holds any.

        ``at`` is when the turn was said (default: now); ``session_id`` groups turns
        of one conversation (pronouns resolve within it). Facts are stored in
        ``namespace`` exactly; store user-level facts at the user's namespace and pass
        the session as ``session_id`` so every session sees them.
        """
        return self._capture.capture(
            text, namespace=namespace, role=role, at=at, session_id=session_id
        )

    def remember(
        self,
        statement: str,
        *,
        namespace: NamespaceLike | None,
        key: str | None = None,
        category: str | None = None,
        pinned: bool = False,
        at: datetime | None = None,
        value: dict[str, object] | None = None,
    ) -> Fact:
        """Store ``statement`` as a fact, verbatim (an explicit write, no scoring).

        With ``key``, a current fact with the same key in this namespace is
        superseded (or reinforced when the statement is unchanged). Without it,
        the same matching as capture applies (slot keys, near-duplicates).
        Category and pinning default from the rules (health and identity pin).
        """
        return self._capture.remember(
            statement,
            namespace=namespace,
            key=key,
            category=category,
            pinned=pinned,
            at=at,
            value=value,
        )

    # -- recall --------------------------------------------------------------

    def recall(
        self,
        message: str,
        *,
        namespace: NamespaceLike | None,
        k: int | None = None,
        as_of: datetime | None = None,
        token_budget: int | None = None,
        use_gate: bool = True,
        at: datetime | None = None,
    ) -> Recall:
        """What memory knows that matters for ``message``, gated, ranked and budgeted.

        ``as_of`` answers with the versions that were current then (history view);
        ``at`` is "now" for decay and for what counts as upcoming (default: now).
        With ``use_gate=False`` the gate is not consulted (always recall).
        """
        return self._recaller.recall(
            message,
            namespace=namespace,
            k=k,
            as_of=as_of,
            token_budget=token_budget,
            use_gate=use_gate,
            at=at,
        )

    # -- lifecycle -----------------------------------------------------------

    def get(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """One fact version by id, owned by ``namespace`` or a descendant of it.

        The namespace is required (``None`` raises
        :class:`~memo_core.errors.NamespaceRequiredError`); an id stored under another
        namespace raises :class:`~memo_core.errors.NotFoundError`, exactly like an
        unknown id, so ids reveal nothing across owners.
        """
        return self._lifecycle.get(fact_id, namespace=namespace, at=at)

    def history(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> list[Fact]:
        """Every version of the fact ``fact_id`` belongs to, oldest first, with dates.

        Ownership is checked as in :meth:`get` (the namespace is required).
        """
        return self._lifecycle.history(fact_id, namespace=namespace, at=at)

    def list_facts(
        self,
        namespace: NamespaceLike | None,
        *,
        include_superseded: bool = False,
        include_archived: bool = False,
        prefix: bool = False,
        at: datetime | None = None,
    ) -> list[Fact]:
        """Facts stored at ``namespace`` (and its descendants with ``prefix=True``)."""
        return self._lifecycle.list_facts(
            namespace,
            include_superseded=include_superseded,
            include_archived=include_archived,
            prefix=prefix,
            at=at,
        )

    def pin(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """Pin the current version of the fact: it never decays or archives."""
        return self._lifecycle.pin(fact_id, namespace=namespace, at=at)

    def unpin(
        self, fact_id: str, *, namespace: NamespaceLike | None, at: datetime | None = None
    ) -> Fact:
        """Unpin: decay starts from full strength at ``at`` (default now)."""
        return self._lifecycle.unpin(fact_id, namespace=namespace, at=at)

    def forget(
        self,
        fact_id: str | None = None,
        *,
        namespace: NamespaceLike | None,
        query: str | None = None,
    ) -> int:
        """Delete for real: every version of a fact (or of each fact matching ``query``).

        Their FTS and vector rows go too, and so do the raw turns they were
        extracted from (with a query, also turns that match it), so recall can no
        longer surface them. Returns the number of fact versions deleted. Chat
        transcripts (``add_message``) are the application's record and are kept.
        """
        return self._lifecycle.forget(fact_id, namespace=namespace, query=query)

    def consolidate(
        self, now: datetime | None = None, *, namespace: NamespaceLike | None = None
    ) -> ConsolidationReport:
        """Archive current facts whose decayed strength fell under ``archive_threshold``.

        Strength is computed from timestamps (never compounded), so any schedule
        (hourly, nightly, once) gives the same strengths for the same ``now``;
        running it twice changes nothing. Pinned facts are skipped. Archived
        facts are kept (``list_facts(include_archived=True)``), only no longer
        recalled; restating or pinning one brings it back.
        """
        return self._consolidation.consolidate(now, namespace=namespace)

    # -- items ---------------------------------------------------------------

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
        """Store ``value`` under ``key``; an existing key is superseded (history kept).

        ``index_text`` is what search matches (default: the value's text field or its
        string values); ``""`` stores the item without indexing it for search.
        ``ttl_minutes`` makes the item expire that long after ``at`` (``None``: never;
        a put without it removes an earlier TTL, as LangGraph's stores do).
        """
        return self._items.put_item(
            namespace, key, value, index_text=index_text, at=at, ttl_minutes=ttl_minutes
        )

    def get_item(
        self,
        namespace: NamespaceLike | None,
        key: str,
        *,
        refresh_ttl: bool = False,
        at: datetime | None = None,
    ) -> Fact | None:
        """The current version stored under ``key`` at exactly ``namespace``, or None.

        An expired item is gone (None); ``refresh_ttl`` restarts a live item's TTL.
        """
        return self._items.get_item(namespace, key, refresh_ttl=refresh_ttl, at=at)

    def delete_item(self, namespace: NamespaceLike | None, key: str) -> bool:
        """Delete every version of the item (FTS and vector rows too)."""
        return self._items.delete_item(namespace, key)

    def sweep_expired_items(self, at: datetime | None = None) -> int:
        """Delete every item whose TTL has passed (any namespace); returns how many."""
        return self._items.sweep_expired_items(at)

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
        """Current, unexpired items under ``namespace_prefix`` that pass ``filter``.

        The filter is applied to the whole namespace before ``offset``/``limit`` (a
        page is a page of the matching items). Without a query, the most recently
        written come first and ``Fact.score`` is None. With a query, every matching
        item is ranked (keyword and vector legs fused by RRF: fusion only orders)
        and ``Fact.score`` is the item's cosine similarity to the query, clamped to
        [0, 1] (None without an embedder); there is no relevance floor unless
        ``min_score`` asks for one. Items stored without an index come after the
        ranked ones with ``score=None``. ``refresh_ttl`` restarts the TTL of the
        items returned.
        """
        return self._items.search_items(
            namespace_prefix,
            query,
            filter,
            limit,
            offset,
            min_score=min_score,
            refresh_ttl=refresh_ttl,
            at=at,
        )

    def list_namespaces(
        self,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Namespace]:
        """Namespaces holding current facts; ``"*"`` in prefix/suffix matches any component."""
        return self._items.list_namespaces(prefix, suffix, max_depth, limit, offset)

    # -- transcript ----------------------------------------------------------

    def add_message(
        self,
        namespace: NamespaceLike | None,
        session_key: str,
        role: str,
        content: str,
        *,
        capture: bool = True,
        at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Message:
        """Append a message to the session's transcript (and capture it by default)."""
        return self._transcripts.add_message(
            namespace, session_key, role, content, capture=capture, at=at, metadata=metadata
        )

    def get_messages(self, session_key: str, namespace: NamespaceLike | None) -> list[Message]:
        """The session's messages in order (``index`` = position in this list)."""
        return self._transcripts.get_messages(session_key, namespace)

    def set_messages(
        self,
        session_key: str,
        namespace: NamespaceLike | None,
        messages: Sequence[Mapping[str, Any] | tuple[str, str]],
        *,
        at: datetime | None = None,
    ) -> list[Message]:
        """Replace the transcript (no capture: these messages were seen before)."""
        return self._transcripts.set_messages(session_key, namespace, messages, at=at)

    def delete_messages(self, session_key: str, namespace: NamespaceLike | None) -> int:
        """Delete the session's transcript; returns how many messages were deleted."""
        return self._transcripts.delete_messages(session_key, namespace)

    def delete_message(
        self, session_key: str, namespace: NamespaceLike | None, index: int
    ) -> Message | None:
        """Delete the message at position ``index`` (negative counts from the end)."""
        return self._transcripts.delete_message(session_key, namespace, index)

    def delete_last_message(
        self, session_key: str, namespace: NamespaceLike | None
    ) -> Message | None:
        return self._transcripts.delete_last_message(session_key, namespace)

    def list_session_keys(self, namespace: NamespaceLike | None) -> list[str]:
        """Session keys with a transcript at ``namespace``, oldest first."""
        return self._transcripts.list_session_keys(namespace)

    # -- transfer ------------------------------------------------------------

    def export_jsonl(self, fp: str | Path | IO[str], namespace: NamespaceLike | None = None) -> int:
        """Write every record (of ``namespace`` and its descendants, or all); returns the count."""
        return self._transfer.export_jsonl(fp, namespace)

    def import_jsonl(self, fp: Source) -> ImportReport:
        """Read an export; existing ids are skipped. Vectors use this file's embedder."""
        return self._transfer.import_jsonl(fp)

    def backfill(
        self, turns_jsonl: Source, *, namespace: NamespaceLike | None = None
    ) -> BackfillReport:
        """Capture an existing chat history in time order.

        Each record: ``text`` (or ``content``), ``role`` (default ``"user"``), a
        timestamp in ``t``/``at``/``timestamp``/``time`` (ISO 8601), and optionally
        ``namespace`` (or ``user``) and ``session_id``; ``namespace`` here is the
        default for records without one (a record with neither fails closed).
        """
        return self._transfer.backfill(turns_jsonl, namespace=namespace)
