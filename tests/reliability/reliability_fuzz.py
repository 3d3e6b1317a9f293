"""Hostile inputs and randomised multi-user runs, shared by the tests and bench/stress.py.

The tests drive these with hypothesis where shrinking helps; the stress command
draws many more cases from :mod:`random` with a seed. Either way a call must
return a safe result or raise a :class:`~memo_core.errors.MemoError`, leave the
file unchanged, and never return another owner's or namespace's record.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reliability_harness import CITIES, WORDS, embedder, lexical_gate

from memo_core.errors import MemoError
from memo_core.kb import MemoBase
from memo_core.memory import MemoHood
from memo_core.memory.namespace import ancestors, normalize_namespace

#: Fragments that mean something to FTS5, SQL, JSON paths or a terminal.
FTS_SYNTAX = [
    '"', "'", '""', "*", "NEAR(", "NEAR/2", "AND", "OR", "NOT", "-", "+", ":", "^", "(", ")",
    "{", "}", "\x00", ";", "--", "/*", "*/", "' OR 1=1 --", "'); DROP TABLE chunks;--",
    "\\", "%", "_", "rowid", "chunks_fts", "MATCH", "\u202e", "\ufeff", "\ud800", "raw:x",
    "stemmed : y", "x" * 5000,
]  # fmt: skip
SQL_VALUES = ["'", '"', "' OR '1'='1", "1; DROP TABLE documents", "$eq", "%", "\x00", "\ud800"]
OPERATORS = [
    "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains", "$any",
    "$all", "$text_match", "$text_match_insensitive", "$exists", "$is_empty", "$bogus",
]  # fmt: skip
FIELDS = ["page", "tags", "lang", '"', "a.b", "$[0]", "\x00", "owner_tag", "x" * 300]


def _random_text(rng: random.Random, size: int) -> str:
    return "".join(
        chr(rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FFF)))) for _ in range(size)
    )


def random_query(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        return " ".join(rng.choice((*FTS_SYNTAX, *WORDS)) for _ in range(rng.randint(0, 10)))
    if kind < 0.8:
        return _random_text(rng, rng.randint(0, 60))
    return "contract " * rng.randint(1, 20_000)


def _scalar(rng: random.Random) -> Any:
    return rng.choice(
        (
            None,
            True,
            rng.randint(-(2**70), 2**70),
            rng.randint(-5, 5),
            rng.choice((float("nan"), float("inf"), -0.0, 1e308, rng.random())),
            rng.choice(SQL_VALUES),
            _random_text(rng, rng.randint(0, 8)),
        )
    )


def random_filter(rng: random.Random, depth: int = 0) -> Any:
    """A filter of any shape: valid, malformed, deep, or not a dict at all."""
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        field_name: Any = rng.choice((*FIELDS, rng.randint(0, 9), _random_text(rng, 4)))
        if rng.random() < 0.5:
            return {field_name: _scalar(rng)}
        operand = rng.choice((_scalar(rng), [_scalar(rng) for _ in range(rng.randint(0, 3))]))
        return {field_name: {rng.choice(OPERATORS): operand}}
    if roll < 0.6:
        key = rng.choice(("$and", "$or"))
        return {key: [random_filter(rng, depth + 1) for _ in range(rng.randint(0, 3))]}
    if roll < 0.75:
        return {"$not": random_filter(rng, depth + 1)}
    if roll < 0.85:
        return rng.choice(([], "page", 3, {"page": {}}, {"$bogus": 1}))
    spec: Any = {"page": 1}
    for _ in range(rng.randint(30, 3000)):
        spec = {"$not": spec}
    return spec


def random_namespace(rng: random.Random) -> Any:
    return rng.choice(
        (
            "alice",
            ("alice", "s1"),
            "",
            " ",
            "\x00",
            "\ud800",
            [],
            ("alice", ""),
            "x" * 300,
            tuple("abcdefghijklmnopq"),
            _random_text(rng, 6) or "z",
        )
    )


def kb_state(kb: MemoBase) -> tuple[Any, ...]:
    """Everything a read could have changed: row contents and this connection's writes."""
    digest = hashlib.sha256()
    for table in ("documents", "chunks", "kb_meta"):
        for row in kb.db.query(f"SELECT * FROM {table} ORDER BY rowid"):
            digest.update(repr(row).encode("utf-8", "backslashreplace"))
    return kb.db.conn.total_changes, tuple(sorted(kb.store.counts().items())), digest.hexdigest()


def memory_state(memory: MemoHood) -> str:
    """Fact and turn contents (recall's own touch of ``last_used`` is not a change)."""
    digest = hashlib.sha256()
    for row in memory.db.query(
        "SELECT id, ns, statement, valid_to, superseded_by, archived FROM mem_facts ORDER BY rowid"
    ):
        digest.update(repr(row).encode())
    for row in memory.db.query("SELECT id, ns, text, decision FROM mem_turns ORDER BY rowid"):
        digest.update(repr(row).encode())
    return digest.hexdigest()


@dataclass
class Tally:
    """Outcomes of many calls: what a bench reports and a test asserts on."""

    tried: int = 0
    typed_errors: int = 0
    safe_results: int = 0
    crashes: list[str] = field(default_factory=list)
    changed: int = 0
    leaks: int = 0
    answered: int = 0

    def add(self, other: Tally) -> None:
        self.tried += other.tried
        self.typed_errors += other.typed_errors
        self.safe_results += other.safe_results
        self.crashes += other.crashes
        self.changed += other.changed
        self.leaks += other.leaks
        self.answered += other.answered


def _attempt(tally: Tally, call: Callable[[], int], state: Callable[[], Any]) -> None:
    """Run one hostile call: ``call`` returns how many foreign records it saw."""
    before = state()
    tally.tried += 1
    try:
        tally.leaks += call()
        tally.safe_results += 1
    except MemoError:
        tally.typed_errors += 1
    except Exception as exc:  # the defect this exists to find
        tally.crashes.append(f"{type(exc).__name__}: {exc}"[:300])
    if state() != before:
        tally.changed += 1


def fuzz_kb(kb: MemoBase, rng: random.Random, count: int) -> Tally:
    """Hostile queries and filters through MemoBase.search (every owner tagged in metadata)."""
    tally = Tally()
    for _ in range(count):
        owner = rng.choice(("alice", "bob"))
        query, spec = random_query(rng), random_filter(rng) if rng.random() < 0.6 else None
        mode = rng.choice(("keyword", "vector", "hybrid"))

        def call(owner: str = owner, query: str = query, spec: Any = spec, mode: str = mode) -> int:
            hits = kb.search(query, mode=mode, owner=owner, filter=spec, k=5)
            return sum(h.metadata.get("owner_tag") != owner for h in hits)

        _attempt(tally, call, lambda: kb_state(kb))
    return tally


def fuzz_memory(memory: MemoHood, rng: random.Random, count: int) -> Tally:
    """Hostile recall queries and namespaces through MemoHood.recall."""
    tally = Tally()
    for _ in range(count):
        query = random_query(rng)
        namespace = random_namespace(rng) if rng.random() < 0.4 else rng.choice(("alice", "bob"))
        gate = rng.random() < 0.5

        def call(query: str = query, namespace: Any = namespace, gate: bool = gate) -> int:
            recall = memory.recall(query, namespace=namespace, use_gate=gate)
            visible = set(ancestors(normalize_namespace(namespace)))
            items = (*recall.facts, *recall.history, *recall.turns)
            return sum(item.namespace not in visible for item in items)

        _attempt(tally, call, lambda: memory_state(memory))
    return tally


def hostile_kb(path: Path) -> MemoBase:
    base = MemoBase(path, embedder=embedder())
    for owner in ("alice", "bob"):
        base.add_texts(
            [f"The {owner} contract term is 24 months.", f"Invoice {owner}-4471 ships Monday."],
            [
                {"page": 2, "tags": ["legal"], "lang": "en", "owner_tag": owner},
                {"page": 1, "draft": True, "owner_tag": owner, "weird": "'; --"},
            ],
            owner=owner,
        )
    return base


def hostile_memory(path: Path) -> MemoHood:
    memory = MemoHood(path, embedder=embedder(), gate=lexical_gate())
    for ns in ("alice", "bob"):
        memory.capture("I live in Berlin and I'm allergic to penicillin.", namespace=ns)
        memory.remember(f"{ns} prefers tea", namespace=ns, key="drink")
    return memory


# -- randomised multi-user isolation --------------------------------------------------------

OWNERS = ("ann", "ben", "cid", "dee")
USERS = ("u1", "u2", "u3", "u4")


def isolation_kb(path: Path, docs_per_owner: int = 15) -> MemoBase:
    """Four owners, the same vocabulary and the same document ids, two collections each."""
    rng = random.Random(7)
    base = MemoBase(path, embedder=embedder())
    for owner in OWNERS:
        texts = [" ".join(rng.choices(WORDS, k=25)) for _ in range(docs_per_owner)]
        metas = [
            {"owner_tag": owner, "n": i, "tags": rng.sample(WORDS, 2)} for i in range(len(texts))
        ]
        ids = [f"doc{i}" for i in range(len(texts))]
        half = len(texts) // 2
        base.add_texts(texts[:half], metas[:half], ids[:half], owner=owner, collection="a")
        base.add_texts(texts[half:], metas[half:], ids[half:], owner=owner, collection="b")
    return base


def isolation_kb_run(kb: MemoBase, rng: random.Random, queries: int) -> Tally:
    tally = Tally()
    for _ in range(queries):
        owner = rng.choice(OWNERS)
        kwargs: dict[str, Any] = {"owner": owner, "k": rng.randint(1, 20)}
        if rng.random() < 0.3:
            kwargs["collection"] = rng.choice(["a", "b", ["a", "b"]])
        if rng.random() < 0.3:
            kwargs["filter"] = rng.choice(
                [{"n": {"$lt": 8}}, {"tags": {"$contains": rng.choice(WORDS)}}, {"n": {"$ne": 3}}]
            )
        if rng.random() < 0.2:
            hits = kb.search_by_vector([rng.uniform(-1, 1) for _ in range(32)], **kwargs)
        else:
            query = " ".join(rng.sample(WORDS, 3))
            hits = kb.search(query, mode=rng.choice(["keyword", "vector", "hybrid"]), **kwargs)
        tally.tried += 1
        tally.answered += bool(hits)
        tally.leaks += sum(h.metadata["owner_tag"] != owner for h in hits)
    return tally


def isolation_namespaces() -> list[tuple[str, ...]]:
    return [ns for u in USERS for ns in ((u,), (u, "s1"), (u, "s2"), (u, "agent", "s1"))]


def isolation_memory(path: Path) -> MemoHood:
    """Four users, each with sessions and an agent namespace, saying similar things."""
    rng = random.Random(3)
    memory = MemoHood(path, embedder=embedder(), gate=lexical_gate())
    for ns in isolation_namespaces():
        memory.capture(f"I live in {rng.choice(CITIES)}.", namespace=ns)
        allergy = rng.choice(["penicillin", "nuts", "pollen"])
        memory.capture(f"I'm allergic to {allergy}.", namespace=ns)
        memory.remember(f"My favourite word is {rng.choice(WORDS)}", namespace=ns, key="word")
        memory.capture(f"Remember that the {rng.choice(WORDS)} meeting is on Friday.", namespace=ns)
    return memory


def isolation_memory_run(memory: MemoHood, rng: random.Random, queries: int) -> Tally:
    tally = Tally()
    spaces = isolation_namespaces()
    questions = ("Where do I live?", "What am I allergic to?", "Which meeting is on Friday?")
    for _ in range(queries):
        ns = rng.choice(spaces)
        recall = memory.recall(
            rng.choice(questions) + " " + rng.choice(WORDS), namespace=ns, use_gate=False
        )
        visible = set(ancestors(ns))
        items = (*recall.facts, *recall.history, *recall.turns)
        tally.tried += 1
        tally.answered += bool(items)
        tally.leaks += sum(item.namespace not in visible for item in items)
    return tally


def foreign_id_attack(memory: MemoHood, rng: random.Random, trials: int) -> Tally:
    """By-id reads and writes (get, history, pin, unpin) with a fact id of another user.

    Each trial takes a fact of one namespace and calls a by-id method with no
    namespace, a sibling, a descendant or another root. Every call must raise a
    typed error; a returned fact is a leak, and so is a pin flag that changed.
    """
    tally = Tally()
    spaces = isolation_namespaces()
    facts = [f for ns in spaces for f in memory.list_facts(ns)]
    calls: list[Callable[[str, Any], Any]] = [
        lambda fid, ns: memory.get(fid, namespace=ns),
        lambda fid, ns: memory.history(fid, namespace=ns),
        lambda fid, ns: memory.pin(fid, namespace=ns),
        lambda fid, ns: memory.unpin(fid, namespace=ns),
    ]
    for _ in range(trials):
        fact = rng.choice(facts)
        visible = set(ancestors(fact.namespace))
        caller = rng.choice([None, *(ns for ns in spaces if ns not in visible)])
        before = memory.get(fact.id, namespace=fact.namespace).pinned
        tally.tried += 1
        try:
            result = rng.choice(calls)(fact.id, caller)
        except MemoError:
            tally.typed_errors += 1
        else:
            tally.leaks += 1
            tally.answered += bool(result)
        tally.changed += memory.get(fact.id, namespace=fact.namespace).pinned != before
    return tally
