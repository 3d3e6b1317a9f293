"""MemoHood: long-term conversation memory in one SQLite file (or one PostgreSQL schema).

::

    with MemoHood("memory.db", embedder=default_local_embedder()) as memory:
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

All knobs live in :class:`~memo_core.memory.config.MemoryConfig`.
"""

from __future__ import annotations

from memo_core.memory.items import ItemsMixin
from memo_core.memory.lifecycle import LifecycleMixin
from memo_core.memory.recall import RecallMixin
from memo_core.memory.transfer import TransferMixin

__all__ = ["MemoHood"]


class MemoHood(TransferMixin, RecallMixin, LifecycleMixin, ItemsMixin):
    """Long-term memory for one application: ``MemoHood(path, embedder=, llm=, gate=, config=)``.

    ``path`` is a SQLite file (or ``sqlite:///file.db``), or ``postgresql://...?schema=name``
    for a memory many processes and machines share; both behave identically.

    ``embedder`` enables vector recall (its fingerprint is stored in the file and a
    different one is refused with :class:`~memo_core.errors.EmbedderMismatchError`);
    without it, or without sqlite-vec / pgvector, recall is keyword-only. ``llm`` (any object
    with ``complete(messages, json_mode=...)``) is used only for borderline turns and
    ambiguous updates. ``gate`` defaults to the Model2Vec gate of
    :func:`~memo_core.memory.config.resolve_gate_model`, loaded on first recall.
    """

    def __enter__(self) -> MemoHood:
        return self
