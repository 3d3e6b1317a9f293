"""Memory vectors in plain tables: the file grows with facts, not with users.

The layout before :func:`~memo_core.memory.schema.vectors_in_plain_tables` kept vectors
in vec0 tables partitioned by namespace, about 1.5 MB per user and table; a file of that
layout is rebuilt here from a current one and must upgrade keeping every fact and vector.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.namespace import encode_namespace
from memo_core.memory.schema import VECTOR_TABLES, memory_schema
from memo_core.memory.store import FactStore
from memo_core.storage import open_database

from .conftest import MONDAY, day

DIMS = 64

# The vec0 DDL memo wrote before the upgrade (one partition per namespace).
_OLD_DDL = (
    "CREATE VIRTUAL TABLE {name} USING vec0(row_id INTEGER PRIMARY KEY, ns TEXT PARTITION KEY,"
    " embedding FLOAT[{dims}] distance_metric=cosine)"
)


def _fill(path: Path) -> None:
    with MemoHood(path, embedder=HashEmbedder(DIMS), gate=RecallGate()) as memory:
        memory.capture("I live in Berlin.", namespace="ana", at=MONDAY, session_id="s1")
        memory.capture("I moved to Lisbon.", namespace="ana", at=day(5), session_id="s1")
        memory.capture("By the way, I'm allergic to penicillin.", namespace="ana", at=day(6))
        memory.capture("I think the budget is too tight.", namespace=("ana", "s2"), at=day(7))
        for user in range(6):
            memory.remember(f"My locker number is {user * 7}.", namespace=f"user{user}")
            memory.remember(f"I cycle to work along the canal {user}.", namespace=f"user{user}")


def _vectors(path: Path) -> dict[str, dict[int, tuple[str, bytes]]]:
    with open_database(path) as db:
        return {
            table: {
                int(r[0]): (str(r[1]), bytes(r[2]))
                for r in db.query(f"SELECT row_id, ns, embedding FROM {table}")
            }
            for table in VECTOR_TABLES
        }


def _to_old_layout(path: Path) -> None:
    """Put the vectors back into vec0 partitions and forget the upgrade was applied."""
    with open_database(path) as db, db.transaction():
        for table in VECTOR_TABLES:
            rows = db.query(f"SELECT row_id, ns, embedding FROM {table}")
            db.execute(f"DROP TABLE {table}")
            db.execute(_OLD_DDL.format(name=table, dims=DIMS))
            db.executemany(
                f"INSERT INTO {table} (row_id, ns, embedding) VALUES (?, ?, ?)",
                [tuple(r) for r in rows],
            )
        version = next(
            s.version for s in memory_schema.steps if s.name == "vectors_in_plain_tables"
        )
        db.execute(  # that step and the ones after it run again
            "DELETE FROM _memo_migrations WHERE schema = ? AND version >= ?",
            [memory_schema.schema, version],
        )


def _table_sql(path: Path, table: str) -> str:
    with open_database(path) as db:
        return str(db.query_one("SELECT sql FROM sqlite_master WHERE name = ?", [table])[0])


def _recalls(path: Path) -> list[list[str]]:
    queries = [("Suggest an antibiotic", "ana"), ("where is my locker", "user3"), ("budget", "ana")]
    with MemoHood(path, embedder=HashEmbedder(DIMS), gate=RecallGate()) as memory:
        return [
            [f.id for f in memory.recall(q, namespace=ns, use_gate=False, at=day(20)).facts]
            for q, ns in queries
        ]


def test_an_old_layout_file_upgrades_keeping_every_fact_and_vector(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _fill(path)
    before = _vectors(path)
    recalled = _recalls(path)
    assert all(before.values()) and all(recalled)
    _to_old_layout(path)
    assert "vec0" in _table_sql(path, "mem_facts_vec")
    grown = path.stat().st_size

    assert _recalls(path) == recalled  # opening upgrades, then answers as before
    for table in VECTOR_TABLES:
        assert "vec0" not in _table_sql(path, table)
    assert _vectors(path) == before  # same rowids, namespaces and bytes: nothing re-embedded
    assert path.stat().st_size < grown / 4  # VACUUM handed the partitions' pages back


def test_an_old_layout_file_without_vector_rows_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with MemoHood(path, embedder=HashEmbedder(DIMS), gate=RecallGate()):
        pass  # the vector tables exist, empty
    _to_old_layout(path)
    with MemoHood(path, embedder=HashEmbedder(DIMS), gate=RecallGate()) as memory:
        memory.remember("My locker number is 12.", namespace="u1")
        hits = memory.recall("locker", namespace="u1", use_gate=False).facts
    assert [f.statement for f in hits] == ["My locker number is 12."]
    assert f"length(embedding) = {4 * DIMS}" in _table_sql(path, "mem_facts_vec")


def test_file_size_grows_with_facts_not_with_users(tmp_path: Path) -> None:
    sizes = {}
    for users in (5, 200):
        path = tmp_path / f"m{users}.db"
        with MemoHood(path, embedder=HashEmbedder(384), gate=RecallGate()) as memory:
            for user in range(users):
                memory.remember(f"My badge colour is shade {user}.", namespace=f"u{user}")
        sizes[users] = path.stat().st_size
    per_added_user = (sizes[200] - sizes[5]) / 195
    # A 384-float vector is 1.5 KB; a vec0 partition reserved about 1.5 MB per user.
    assert per_added_user < 16_000


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_vector_search_is_exact_and_stays_in_its_namespaces(tmp_path: Path) -> None:
    embedder = HashEmbedder(DIMS)
    with MemoHood(tmp_path / "m.db", embedder=embedder, gate=RecallGate()) as memory:
        for user in ("a", "b"):
            for n in range(12):
                memory.remember(f"{user} note {n}: the {n % 4} red boats sail", namespace=user)
        store: FactStore = memory._store
        query = embedder.embed_query("red boats")
        a = encode_namespace(("a",))
        hits = store.search_vectors("facts", query, [a], 5)
        rows = memory.db.query("SELECT rowid, ns, statement FROM mem_facts")
    by_rowid = {int(r[0]): (r[1], r[2]) for r in rows}
    assert len(rows) == 24 and len(hits) == 5
    assert {by_rowid[rowid][0] for rowid, _ in hits} == {a}
    expected = sorted(
        (
            (-_cosine(query, embedder.embed_documents([text])[0]), rowid)
            for rowid, (ns, text) in by_rowid.items()
            if ns == a
        ),
    )[:5]
    assert [rowid for rowid, _ in hits] == [rowid for _, rowid in expected]
    for (_, similarity), (negative, _) in zip(hits, expected, strict=True):
        assert similarity == pytest.approx(-negative, abs=1e-5)


def test_a_vector_of_the_wrong_width_is_refused_by_the_table(tmp_path: Path) -> None:
    with MemoHood(tmp_path / "m.db", embedder=HashEmbedder(DIMS), gate=RecallGate()) as memory:
        memory.remember("My locker number is 12.", namespace="u1")
        with pytest.raises(Exception, match="CHECK"):
            memory.db.execute(
                "INSERT INTO mem_facts_vec (row_id, ns, embedding) VALUES (999, 'u1', ?)",
                [struct.pack("3f", 1.0, 2.0, 3.0)],
            )
