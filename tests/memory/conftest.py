"""Shared fixtures: a memory base on each storage backend, with the deterministic hash embedder.

``memory`` and ``keyword_memory`` open a MemoHood at ``backend_url`` (a SQLite file,
then a fresh PostgreSQL schema), so every test using them runs on both backends.
Tests needing more than one base call ``base_url(name)``, which names a second
base on the same backend (and drops it afterwards on PostgreSQL).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.config import DEFAULT_GATE_MODEL, GATE_MODEL_ENV
from memo_core.memory.keyword_scope import namespace_code

MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def day(n: float, hour: int = 9) -> datetime:
    """``n`` days after Monday 2 March 2026, at ``hour`` UTC."""
    return MONDAY.replace(hour=hour) + timedelta(days=n)


@pytest.fixture
def lexical_gate() -> RecallGate:
    return RecallGate()  # no model: the lexical rule only


@pytest.fixture
def base_url(backend_url: str, tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """``base_url(name)``: another base on the backend of this test run."""
    made: list[str] = []

    def make(name: str) -> str:
        if backend_url.startswith("sqlite:"):
            return f"sqlite:///{tmp_path / name}"
        suffix = re.sub(r"[^a-z0-9_]", "_", name.lower())
        url = re.sub(r"schema=(\w+)", lambda m: f"schema={m.group(1)}_{suffix}"[:70], backend_url)
        made.append(url)
        return url

    yield make
    if made:
        from memo_core.storage.postgres import PostgresDatabase

        for url in made:
            with PostgresDatabase(url, load_vec=False, max_connections=1) as db:
                db.drop_schema()


def keyword_index_rowids(memory: MemoHood, table: str, word: str) -> list[int]:
    """Rowids whose raw keyword-index entry holds ``word`` (read straight from the index)."""
    if memory.db.dialect == "postgres":
        sql = f"SELECT rowid FROM {table} WHERE raw @@ ?::tsquery ORDER BY rowid"
        return [r[0] for r in memory.db.query(sql, [f"'{word.lower()}'"])]
    # Every token carries its namespace's code (memory/keyword_scope.py): ask in all of them.
    base = table.removesuffix("_fts")
    codes = {namespace_code(str(r[0])) for r in memory.db.query(f"SELECT DISTINCT ns FROM {base}")}
    if not codes:
        return []
    terms = " OR ".join(f'"{code}{word.lower()}"' for code in sorted(codes))
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid"
    return [r[0] for r in memory.db.query(sql, [f"raw : ({terms})"])]


@pytest.fixture
def memory(backend_url: str, lexical_gate: RecallGate) -> Iterator[MemoHood]:
    with MemoHood(backend_url, embedder=HashEmbedder(), gate=lexical_gate) as mem:
        yield mem


@pytest.fixture
def keyword_memory(backend_url: str, lexical_gate: RecallGate) -> Iterator[MemoHood]:
    with MemoHood(backend_url, embedder=None, gate=lexical_gate) as mem:
        yield mem


@pytest.fixture(scope="session")
def gate_model_path() -> Path:
    env = os.environ.get(GATE_MODEL_ENV)
    path = Path(env) if env else Path(DEFAULT_GATE_MODEL)  # shipped inside the package
    pytest.importorskip("model2vec", reason="model2vec (memo[local]) is not installed")
    return path


@pytest.fixture(scope="session")
def model_gate(gate_model_path: Path) -> RecallGate:
    return RecallGate(gate_model_path)
