"""Where PostgreSQL differs from SQLite: concurrency, HNSW filtering, tsvector parity, hostile input.

* 4 processes superseding one key leave exactly one current version and an
  unbroken chain (the writer lock is what makes "read current, close it, insert
  the next" safe), on both backends.
* HNSW filters after its graph walk: a selective namespace must still get its
  nearest rows (the store falls back to an exact scan), and never another's.
* The tsvector representation matches what FTS5 matches, word for word
  (property test against a SQLite twin: diacritics, stems, Russian, phrases,
  FTS/tsquery syntax characters).
* NUL bytes, lone surrogates and out-of-range integers raise typed errors and
  change nothing, identically on both backends.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, RecallGate, pg_backend
from memo_core.memory.namespace import encode_namespace
from memo_core.memory.records import FactRow

from .conftest import MONDAY, day

# -- concurrency --------------------------------------------------------------------------

WORKER = r"""
import sys, time
from memo_core.embedders.hash import HashEmbedder
from memo_core.memory import MemoHood, RecallGate

url, worker, rounds, start_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
with MemoHood(url, embedder=HashEmbedder(64), gate=RecallGate()) as memory:
    memory.get_item(("team",), "plan")  # connected (and migrated) before the start
    time.sleep(max(0.0, start_at - time.time()))
    for i in range(rounds):
        memory.put_item(("team",), "plan", {"text": f"plan {worker}-{i}", "worker": worker})
        memory.remember(f"The office moves to building {worker}{i}.", namespace="team", key="office")
"""

WORKERS = 4
ROUNDS = 5


def _chain_is_linear(memory: MemoHood, key: str) -> list[int]:
    """Assert the versions of ``key`` form one unbroken chain; return their version numbers."""
    rows = memory.db.query(
        "SELECT id, version, valid_from, valid_to, superseded_by, chain_id FROM mem_facts "
        "WHERE ns = ? AND key = ? ORDER BY version",
        [encode_namespace(("team",)), key],
    )
    assert len({r[5] for r in rows}) == 1
    current = [r for r in rows if r[3] is None]
    assert len(current) == 1 and current[0] is rows[-1]
    for old, new in itertools.pairwise(rows):
        assert old[4] == new[0] and old[3] == new[2]
    return [int(r[1]) for r in rows]


def test_concurrent_supersede_of_one_key_leaves_one_current_version(backend_url: str) -> None:
    with MemoHood(backend_url, embedder=HashEmbedder(64), gate=RecallGate()):
        pass  # create the schema once, so the workers only race on the data
    start_at = time.time() + 6.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, backend_url, str(w), str(ROUNDS), str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err[-2000:]
    with MemoHood(backend_url, embedder=HashEmbedder(64), gate=RecallGate()) as memory:
        # Every put changes the value, so every put is one more version.
        assert _chain_is_linear(memory, "plan") == list(range(1, WORKERS * ROUNDS + 1))
        assert len(_chain_is_linear(memory, "office")) == WORKERS * ROUNDS
        item = memory.get_item(("team",), "plan")
        assert item is not None and item.item_value["text"].endswith(f"-{ROUNDS - 1}")
        current = memory.db.query_one(
            "SELECT count(*) FROM mem_facts WHERE valid_to IS NULL AND key IN ('plan', 'office')"
        )[0]
        assert current == 2


# -- HNSW with a selective namespace ------------------------------------------------------


def _records(user: str, statements: list[str]) -> list[dict[str, Any]]:
    at = MONDAY.isoformat()
    return [
        {
            "type": "fact",
            "id": f"fact_{user}_{i:05d}",
            "namespace": [user],
            "chain_id": f"fact_{user}_{i:05d}",
            "key": f"k{i}",
            "statement": text,
            "category": "fact",
            "valid_from": at,
            "last_used": at,
        }
        for i, text in enumerate(statements)
    ]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_hnsw_filtered_search_returns_the_selective_namespace(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_backend, "EXACT_SEARCH_ROWS", 20)  # so 45 rows take the HNSW path
    crowd = [f"The project {i} uses PostgreSQL on server {i % 7}." for i in range(600)]
    rare = [f"Бабушка {i} печёт пирог с вишней по воскресеньям." for i in range(45)]
    query = "Which project uses PostgreSQL on which server?"
    with MemoHood(postgres_url, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        memory.import_jsonl(_records("crowd", crowd) + _records("rare", rare))
        store = memory._store
        qvec = store.embed_query(query)
        assert qvec is not None
        rare_ids = [
            int(r[0]) for r in memory.db.query("SELECT rowid FROM mem_facts WHERE ns = 'rare/'")
        ]
        vectors = store.vectors_for("facts", rare_ids)
        # The 10 best similarities (the rows differ only by a number, so ties abound).
        exact = sorted((round(_cosine(qvec, v), 5) for v in vectors.values()), reverse=True)[:10]

        def same_as_exact(hits: list[tuple[int, float]]) -> bool:
            return set(dict(hits)) <= set(rare_ids) and [round(c, 5) for _, c in hits] == exact

        # Left to itself the planner may pick the ns B-tree for a selective namespace.
        hits = store.search_vectors("facts", qvec, [encode_namespace(("rare",))], 10)
        assert same_as_exact(hits)
        for rowid, cos in hits:
            assert cos == pytest.approx(_cosine(qvec, vectors[rowid]), abs=1e-5)
        recall = memory.recall("бабушка пирог", namespace="rare", use_gate=False, k=5)
        assert recall.facts and all(f.namespace == ("rare",) for f in recall.facts)
    # Now force the plan a large table gets: the HNSW walk, filtered afterwards.
    # (No ns index is left for a bitmap scan; one option without spaces, see the report.)
    forced = postgres_url + "&options=-cenable_seqscan%3Doff"
    statements: list[str] = []
    with MemoHood(
        forced,
        embedder=HashEmbedder(),
        gate=RecallGate(),
        tracer=lambda sql, params: statements.append(sql),
    ) as memory:
        store = memory._store
        memory.db.execute("DROP INDEX mem_facts_vec_ns")
        plan = memory.db.query(
            "EXPLAIN SELECT row_id FROM mem_facts_vec WHERE ns = ANY(?) "
            "ORDER BY embedding <=> ?::vector LIMIT 10",
            [["rare/"], qvec],
        )
        assert "mem_facts_vec_hnsw" in " ".join(r[0] for r in plan)
        statements.clear()
        hits = store.search_vectors("facts", qvec, [encode_namespace(("rare",))], 10)
        # ef_search 40 meets only crowd rows near this query: the exact scan takes over.
        assert any("set_config('hnsw.ef_search'" in s for s in statements)
        assert any("+ 0" in s for s in statements)
        assert same_as_exact(hits)
        recall = memory.recall("бабушка пирог", namespace="rare", use_gate=False, k=5)
        assert recall.facts and all(f.namespace == ("rare",) for f in recall.facts)
        # A namespace the walk serves well gets its k rows from the index alone.
        statements.clear()
        crowd_hits = store.search_vectors("facts", qvec, [encode_namespace(("crowd",))], 10)
        assert len(crowd_hits) == 10 and not any("+ 0" in s for s in statements)
        crowd_ids = {
            int(r[0]) for r in memory.db.query("SELECT rowid FROM mem_facts WHERE ns = 'crowd/'")
        }
        assert {r for r, _ in crowd_hits} <= crowd_ids
        assert store.search_vectors("facts", qvec, [encode_namespace(("nobody",))], 10) == []


# -- keyword parity with SQLite FTS5 ------------------------------------------------------

DOCS = [
    "Café naïve résumé at the Crème Brûlée place in Zürich.",
    "Øresund bridge and the Straße near the Ångström lab.",
    "Ticket A-4471 was escalated; see foo@bar.com for details.",
    "My weekly 1:1 is on Tuesdays at 10:00, room 2B.",
    "I'm running three connections, and she runs connected servers.",
    "Мама любит пионы и розы, а папа — тюльпаны.",
    "Встречу перенесли на пятницу, в 15:00.",
    "Ёлка и йогурт стоят в коридоре.",
    "The quick brown fox jumps over the lazy dog.",
    "Penicillin allergy: never prescribe amoxicillin.",
]
VOCAB = [
    "cafe", "CAFÉ", "Café", "naive", "resume", "résumé", "brulee", "creme", "zurich", "Zürich",
    "oresund", "Øresund", "strasse", "straße", "angstrom", "A-4471", "a 4471", "4471", "foo@bar",
    "1:1", "10:00", "2b", "running", "run", "connection", "connected", "connect", "servers",
    "мамы", "мама", "пион", "пионы", "розами", "папа", "перенесли", "пятница", "15:00", "ёлка",
    "елка", "йогурт", "коридор", "quick", "fox", "dogs", "jumping", "penicillin", "amoxicillin",
    "allergic", "the", "and", "и", "на", '"', "*", "NEAR", "-", ":", "''", "\\", "|", "&", "!",
    "<->", "(", ")", "^", "x" * 600,
]  # fmt: skip


@pytest.fixture
def twins(tmp_path: Path, postgres_url: str) -> Any:
    bases = {}
    for name, url in (("sqlite", f"sqlite:///{tmp_path / 'twin.db'}"), ("postgres", postgres_url)):
        memory = MemoHood(url, embedder=None, gate=RecallGate())
        for i, text in enumerate(DOCS):
            memory.put_item("u1", f"doc{i}", {"text": text}, at=day(i))
        bases[name] = memory
    yield bases
    for memory in bases.values():
        memory.close()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(words=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4))
def test_tsvector_matches_exactly_what_fts5_matches(twins: Any, words: list[str]) -> None:
    query = " ".join(words)
    found = {
        name: {
            rowid
            for rowid, _ in memory._store.search_keyword(
                "facts", query, [encode_namespace(("u1",))], 100
            )
        }
        for name, memory in twins.items()
    }
    assert found["postgres"] == found["sqlite"], query


def test_keyword_parity_spot_checks(twins: Any) -> None:
    """A few hand-checked expectations, so the property above cannot pass on two empty sets."""
    for memory in twins.values():

        def hits(query: str, m: MemoHood = memory) -> list[str]:
            """Keys of the items the keyword leg matches (search_items also lists the rest)."""
            ns = [encode_namespace(("u1",))]
            rowids = [r for r, _ in m._store.search_keyword("facts", query, ns, 100)]
            return sorted(FactRow(row).key for row in m._store.facts_by_rowids(rowids))

        assert hits("cafe") == ["doc0"]  # diacritics folded
        assert hits("strasse") == []  # ß is not a diacritic
        assert hits("A-4471") == ["doc2"]  # a phrase of adjacent tokens
        assert hits("4471 A") == ["doc2"]
        assert hits("connect") == ["doc4"]  # stemmed
        assert hits("пион") == ["doc5"]
        assert hits('" * - : \\ | & ! <-> ( )') == []  # syntax is only text
        assert hits('NEAR("bridge" lab)') == ["doc1"]  # NEAR is just a word


# -- hostile input ------------------------------------------------------------------------

HUGE = 10**30


def _fact_record(**changes: Any) -> dict[str, Any]:
    record = _records("alice", ["I like tea."])[0]
    record.update(changes)
    return record


HOSTILE: list[Callable[[MemoHood], Any]] = [
    lambda m: m.capture("I live in \x00 Oslo.", namespace="alice"),
    lambda m: m.capture("I live in \ud800 Oslo.", namespace="alice"),
    lambda m: m.remember("I drink tea\x00.", namespace="alice"),
    lambda m: m.remember("I drink tea.", namespace="alice", key="drink\x00"),
    lambda m: m.remember("I drink \udfff tea.", namespace="alice"),
    lambda m: m.put_item("alice", "k\x00", {"text": "x"}),
    lambda m: m.put_item("alice", "k", {"text": "x\x00y"}),
    lambda m: m.put_item("alice", "k", {"text": "x \ud800"}),
    lambda m: m.get_item("alice", "k\x00"),
    lambda m: m.delete_item("alice", "k\x00"),
    lambda m: m.get("fact_\x00", namespace="alice"),
    lambda m: m.history("fact_\x00", namespace="alice"),
    lambda m: m.pin("fact_\x00", namespace="alice"),
    lambda m: m.add_message("alice", "s\x00", "user", "hi"),
    lambda m: m.add_message("alice", "s", "user", "hi\x00", capture=False),
    lambda m: m.add_message("alice", "s", "user", "hi \ud800", capture=False),
    lambda m: m.recall("hi", namespace="al\x00ice"),
    lambda m: m.import_jsonl([_fact_record(version=HUGE)]),
    lambda m: m.import_jsonl([_fact_record(statement="tea\x00")]),
    lambda m: m.import_jsonl([_fact_record(statement="tea \ud800")]),
    lambda m: m.import_jsonl(
        [_fact_record(id="ok_first"), _fact_record(id="bad_second", version=-HUGE)]
    ),
    lambda m: m.import_jsonl(
        [
            {
                "type": "message",
                "id": "msg_huge",
                "namespace": ["alice"],
                "session_key": "s",
                "seq": HUGE,
                "content": "hi",
                "at": MONDAY.isoformat(),
            }
        ]
    ),
]


def _state(memory: MemoHood) -> str:
    digest = hashlib.sha256()
    for table in ("mem_facts", "mem_turns", "mem_messages", "mem_facts_fts", "mem_turns_fts"):
        digest.update(repr(memory.db.query(f"SELECT count(*) FROM {table}")).encode())
    for row in memory.db.query(
        "SELECT id, ns, statement, valid_to, superseded_by, archived FROM mem_facts ORDER BY id"
    ):
        digest.update(repr(row).encode())
    for row in memory.db.query("SELECT id, text FROM mem_turns ORDER BY id"):
        digest.update(repr(row).encode())
    return digest.hexdigest()


@pytest.mark.parametrize("call", HOSTILE, ids=[f"hostile{i}" for i in range(len(HOSTILE))])
def test_hostile_input_is_a_typed_error_and_changes_nothing(memory: MemoHood, call: Any) -> None:
    memory.remember("I like tea.", namespace="alice", key="drink", at=MONDAY)
    memory.add_message("alice", "s", "user", "hello", capture=False, at=MONDAY)
    before = _state(memory)
    with pytest.raises(InvalidInputError):
        call(memory)
    assert _state(memory) == before


def test_hostile_queries_are_only_text(memory: MemoHood) -> None:
    """Query text never becomes FTS5 or tsquery syntax, and huge limits are clamped."""
    memory.remember("I'm allergic to penicillin.", namespace="alice", at=MONDAY)
    before = _state(memory)
    noise = "'\"\\:*&|!<->()^~%_?$1 OR 1=1; DROP TABLE mem_facts;-- " * 2000
    for query in (noise, "penicillin " + noise, "\x00penicillin\x00", "penicillin & ! |"):
        recall = memory.recall(query, namespace="alice", use_gate=False, at=day(1))
        if "penicillin" in query:
            assert [f.statement for f in recall.facts] == ["I'm allergic to penicillin."]
        memory.search_items("alice", query, limit=HUGE, offset=HUGE)
        assert memory.forget(namespace="bob", query=query) == 0
    hits = memory.search_items("alice", "penicillin", limit=HUGE)
    assert [f.statement for f in hits] == ["I'm allergic to penicillin."]
    assert memory.recall("penicillin", namespace="alice", k=HUGE, use_gate=False).facts
    assert memory.delete_message("s", "alice", HUGE) is None
    assert _state(memory) == before
