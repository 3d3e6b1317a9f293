"""Memory's keyword index is scoped by namespace (``memory/keyword_scope.py``): a
user's query reads that user's postings only, so recall does not slow down as other
users are added to the file (SQLite; PostgreSQL filters its own index by namespace)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.keyword_scope import namespace_code, scoped_match, scoped_row
from memo_core.memory.namespace import encode_namespace
from memo_core.memory.schema import memory_schema
from memo_core.search.text import fts_match_expression
from memo_core.storage import open_database

USERS = ["ana", "ben", "chloe"]


def _fill(path: Path) -> None:
    with MemoHood(path, embedder=None, gate=RecallGate()) as memory:
        for i, user in enumerate(USERS):
            memory.remember(f"My gym locker is number {40 + i}.", namespace=user)
            memory.remember("I water the ferns on Sundays.", namespace=user)


def _rowids_of(path: Path, user: str) -> set[int]:
    with open_database(path) as db:
        ns = encode_namespace((user,))
        return {int(r[0]) for r in db.query("SELECT rowid FROM mem_facts WHERE ns = ?", [ns])}


def _matching(path: Path, expression: str | None) -> set[int]:
    """Rowids the FTS index itself returns for ``expression``, with no namespace filter."""
    assert expression is not None
    with open_database(path) as db:
        rows = db.query("SELECT rowid FROM mem_facts_fts WHERE mem_facts_fts MATCH ?", [expression])
        return {int(r[0]) for r in rows}


def test_a_namespace_query_reads_only_that_namespaces_postings(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _fill(path)
    ana = encode_namespace(("ana",))
    locker = _matching(path, scoped_match("where is my locker?", [ana]))
    # The index alone, before any namespace filter, answers with ana's rows only.
    assert locker and locker <= _rowids_of(path, "ana")
    both = _matching(path, scoped_match("ferns", [ana, encode_namespace(("ben",))]))
    assert both == (_rowids_of(path, "ana") | _rowids_of(path, "ben")) & _matching(
        path, scoped_match("ferns", [encode_namespace((u,)) for u in USERS])
    )
    assert len(both) == 2
    # An unscoped query finds nothing: no token is stored without its namespace's code.
    assert _matching(path, fts_match_expression("ferns")) == set()
    with open_database(path) as db:
        db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, mem_facts_fts, 'row')")
        terms = {str(r[0]): int(r[1]) for r in db.query("SELECT term, doc FROM temp.v")}
    assert all(t.startswith("ns") and len(t) > 10 for t in terms), terms
    codes = {namespace_code(encode_namespace((u,))) for u in USERS}
    assert {t for t in terms if t.endswith("fern")} == {c + "fern" for c in codes}
    assert all(terms[c + "ferns"] == 1 for c in codes)  # each posting list: one user's row


def test_recall_and_search_find_each_users_own_facts(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _fill(path)
    with MemoHood(path, embedder=None, gate=RecallGate()) as memory:
        for i, user in enumerate(USERS):
            found = memory.recall("which locker is mine?", namespace=user, use_gate=False)
            assert [f.statement for f in found.facts][:1] == [f"My gym locker is number {40 + i}."]
        store = memory._store
        ben = encode_namespace(("ben",))
        # Stemmed words match too, inside the namespace ("watering" -> "water").
        watering = store.search_keyword("facts", "watering", [ben], 10)
        assert [r for r, _ in watering] == sorted(
            _rowids_of(path, "ben") - _matching(path, scoped_match("locker", [ben]))
        )
        # More namespaces than one MATCH expression holds: every one still answers.
        many = [encode_namespace((f"user{i}",)) for i in range(40)]
        for i in range(40):
            memory.remember("The spare key hangs by the door.", namespace=f"user{i}")
        hits = store.search_keyword("facts", "spare key", many, 100)
        assert len(hits) == 40


def test_scoped_rows_carry_the_code_on_every_token() -> None:
    raw, stemmed = scoped_row("ana", "Watering the A-4471 ferns")
    code = namespace_code("ana")
    assert raw.split() == [code + t for t in ("watering", "the", "a", "4471", "ferns")]
    assert stemmed.split()[0] == code + "water"
    assert namespace_code("ana") != namespace_code("ben") and code.isalnum() and len(code) == 10
    with pytest.raises(InvalidInputError):
        fts_match_expression("x", prefixes=['ns" OR "'])


def test_an_unscoped_index_is_scoped_by_the_migration_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    _fill(path)
    with open_database(path) as db, db.transaction():
        before = {int(r[0]) for r in db.query("SELECT rowid FROM mem_facts_fts")}
        rows = db.query("SELECT rowid, statement FROM mem_facts")
        db.execute("DELETE FROM mem_facts_fts")  # the index as the previous version wrote it
        db.executemany(
            "INSERT INTO mem_facts_fts (rowid, raw, stemmed) VALUES (?, ?, ?)",
            [(int(r[0]), str(r[1]), str(r[1]).lower()) for r in rows],
        )
        version = next(
            s.version for s in memory_schema.steps if s.name == "scope_keyword_index_by_namespace"
        )
        db.execute(
            "DELETE FROM _memo_migrations WHERE schema = ? AND version >= ?",
            [memory_schema.schema, version],
        )
    with MemoHood(path, embedder=None, gate=RecallGate()) as memory:
        after = {int(r[0]) for r in memory.db.query("SELECT rowid FROM mem_facts_fts")}
        assert after == before
        found = memory.recall("which locker is mine?", namespace="chloe", use_gate=False)
        assert found.facts[0].statement == "My gym locker is number 42."
    ana = encode_namespace(("ana",))
    assert _matching(path, scoped_match("locker", [ana])) <= _rowids_of(path, "ana")
    assert _matching(path, fts_match_expression("locker")) == set()
