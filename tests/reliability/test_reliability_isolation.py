"""Isolation: nothing crosses owners (knowledge base) or namespaces (memory), ever.

Randomised multi-user runs with a shared vocabulary, so every query *could*
match other users' data: well over 1,000 queries each for the knowledge base
and for memory, zero results from another owner/namespace. Then the same
promise under interleaving: another connection commits a matching record for
another user right before *every* SQL statement of a search or a recall, which
is where a check-then-query shortcut would leak. Calls without an owner or a
namespace fail closed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reliability_fuzz import (
    foreign_id_attack,
    isolation_kb,
    isolation_kb_run,
    isolation_memory,
    isolation_memory_run,
)
from reliability_harness import copy_db, embedder, lexical_gate

from memo_core.errors import NamespaceRequiredError, NotFoundError
from memo_core.kb import MemoBase
from memo_core.memory import MemoHood
from memo_core.storage.connection import Database

QUERIES_PER_SUITE = 1100


def _owner_of(hit: Any) -> str:
    return str(hit.metadata["owner_tag"])


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoBase]:
    base = isolation_kb(tmp_path_factory.mktemp("iso") / "kb.db")
    yield base
    base.close()


def test_randomised_knowledge_base_queries_never_cross_owners(kb: MemoBase) -> None:
    tally = isolation_kb_run(kb, random.Random(11), QUERIES_PER_SUITE)
    assert tally.tried == QUERIES_PER_SUITE and tally.leaks == 0
    assert tally.answered > QUERIES_PER_SUITE * 0.8  # the queries really did match something


def test_knowledge_base_reads_by_id_stay_inside_the_owner(kb: MemoBase) -> None:
    ann_chunks = [h.chunk_id for h in kb.search("contract budget", owner="ann", k=5)]
    assert ann_chunks
    # Chunk ids are per owner (ben has his own "doc1"): asking ben's view gives ben's rows.
    assert all(_owner_of(h) == "ben" for h in kb.get_chunks(ann_chunks, owner="ben"))
    assert kb.get_chunks(ann_chunks, owner="zed") == []
    assert all(_owner_of(h) == "ann" for h in kb.get_chunks(ann_chunks, owner="ann"))
    assert kb.get_document("doc1", owner="ben").owner == "ben"  # same id, own copy
    with pytest.raises(NotFoundError):
        kb.get_document("doc1", owner="zed")
    assert kb.delete(["doc1"], owner="zed") == 0
    assert kb.list_documents(owner="zed") == []


@pytest.mark.parametrize("owner", ["", "   "])
def test_knowledge_base_without_an_owner_fails_closed(kb: MemoBase, owner: str) -> None:
    for call in (
        lambda: kb.search("contract", owner=owner),
        lambda: kb.search_by_vector([0.0] * 32, owner=owner),
        lambda: kb.add_texts(["x"], owner=owner),
        lambda: kb.delete(["doc1"], owner=owner),
        lambda: kb.list_documents(owner=owner),
        lambda: kb.for_owner(owner),
    ):
        with pytest.raises(NamespaceRequiredError):
            call()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoHood]:
    with isolation_memory(tmp_path_factory.mktemp("iso-mem") / "memory.db") as mem:
        yield mem


def test_randomised_memory_recalls_never_cross_namespaces(memory: MemoHood) -> None:
    tally = isolation_memory_run(memory, random.Random(5), QUERIES_PER_SUITE)
    assert tally.tried == QUERIES_PER_SUITE and tally.leaks == 0
    assert tally.answered > QUERIES_PER_SUITE * 0.8


def test_memory_reads_by_id_and_prefix_stay_inside_the_namespace(memory: MemoHood) -> None:
    fact = memory.list_facts("u1")[0]
    with pytest.raises(NotFoundError):
        memory.get(fact.id, namespace="u2")
    with pytest.raises(NotFoundError):
        memory.history(fact.id, namespace=("u1", "s1"))  # a descendant cannot see up by id
    assert memory.get(fact.id, namespace="u1").id == fact.id
    for ns in ("u1", ("u1", "s1")):
        assert {f.namespace[0] for f in memory.list_facts(ns, prefix=True)} == {"u1"}
    assert memory.forget(namespace="u2", query=fact.statement) >= 0
    assert memory.get(fact.id, namespace="u1").id == fact.id  # u2's forget cannot touch u1


def test_by_id_calls_with_a_foreign_or_missing_namespace_fail_closed(memory: MemoHood) -> None:
    """Another user's fact id, or no namespace at all: no read, no pin change."""
    tally = foreign_id_attack(memory, random.Random(7), 400)
    assert tally.tried == 400 and tally.typed_errors == 400
    assert tally.leaks == 0 and tally.changed == 0
    fact = memory.list_facts("u1")[0]
    for call in (memory.get, memory.history, memory.pin, memory.unpin):
        with pytest.raises(NamespaceRequiredError):
            call(fact.id, namespace=None)
        with pytest.raises(NotFoundError):
            call(fact.id, namespace="u2")


# -- interleaving: another user's write before every statement ---------------------------


class Intruder:
    """A tracer that commits another user's matching record right before statement ``at``.

    Statements are counted outside the victim's own transactions (a write there
    would wait for the victim's lock). Sweeping ``at`` over every statement of a
    search puts the foreign write between each check and each query.
    """

    def __init__(self, write: Any, victim: Database, at: int | None) -> None:
        self.write = write
        self.victim = victim
        self.at = at
        self.count = 0
        self.wrote = False

    def __call__(self, sql: str, params: object) -> None:
        if self.victim._depth > 0:
            return
        self.count += 1
        if self.count == self.at and not self.wrote:
            self.wrote = True
            self.write()


def _sweep(open_victim: Any, make_write: Any, search: Any) -> int:
    """Run ``search`` once per statement position with a foreign write there; returns runs."""
    victim, template = open_victim(None)
    counter = Intruder(lambda: None, victim.db, None)
    victim.db.tracer = counter
    search(victim)
    victim.close()
    for at in range(1, counter.count + 1):
        victim, _ = open_victim(template)
        intruder = make_write(victim.path)
        victim.db.tracer = tracer = Intruder(intruder.write, victim.db, at)
        try:
            search(victim)
        finally:
            victim.close()
            intruder.close()
        assert tracer.wrote, f"no write at statement {at}"
    return counter.count


class _KbIntruder:
    def __init__(self, path: str) -> None:
        self.kb = MemoBase(path, embedder=embedder(), owner="mallory")

    def write(self) -> None:
        self.kb.add_texts(["harbour lantern harbour lantern secret"], [{"owner_tag": "mallory"}])

    def close(self) -> None:
        self.kb.close()


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_search_does_not_leak_a_concurrent_write_by_another_owner(
    tmp_path: Path, mode: str
) -> None:
    runs = iter(range(10_000))

    def open_victim(template: Path | None) -> tuple[MemoBase, Path]:
        path = tmp_path / f"kb-{next(runs)}.db"
        if template is None:
            base = MemoBase(path, embedder=embedder(), owner="alice")
            texts = [f"harbour lantern note {i}" for i in range(5)]
            base.add_texts(texts, [{"owner_tag": "alice"}] * 5)
            base.close()
            template = tmp_path / "template.db"
            copy_db(path, template)
        else:
            copy_db(template, path)
        return MemoBase(path, embedder=embedder(), owner="alice"), template

    def search(victim: MemoBase) -> None:
        hits = victim.search("harbour lantern", mode=mode, k=10)
        assert hits and {_owner_of(h) for h in hits} == {"alice"}

    assert _sweep(open_victim, _KbIntruder, search) > 2


class _MemoryIntruder:
    def __init__(self, path: str) -> None:
        self.memory = MemoHood(path, embedder=embedder(), gate=lexical_gate())

    def write(self) -> None:
        self.memory.remember("Mallory lives in Berlin near the harbour, secret", namespace="m")

    def close(self) -> None:
        self.memory.close()


def test_recall_does_not_leak_a_concurrent_write_in_another_namespace(tmp_path: Path) -> None:
    runs = iter(range(10_000))

    def open_victim(template: Path | None) -> tuple[MemoHood, Path]:
        path = tmp_path / f"memory-{next(runs)}.db"
        if template is None:
            with MemoHood(path, embedder=embedder(), gate=lexical_gate()) as memory:
                memory.capture("I live in Berlin near the harbour.", namespace="alice")
            template = tmp_path / "template.db"
            copy_db(path, template)
        else:
            copy_db(template, path)
        return MemoHood(path, embedder=embedder(), gate=lexical_gate()), template

    def search(victim: MemoHood) -> None:
        recall = victim.recall("Where do I live, near the harbour?", namespace="alice")
        items = (*recall.facts, *recall.history, *recall.turns)
        assert items and {i.namespace for i in items} == {("alice",)}
        assert "secret" not in recall.block

    assert _sweep(open_victim, _MemoryIntruder, search) > 2
