"""Fixtures shared by the whole suite: the storage backends.

``backend_url`` runs a test once per backend: a SQLite file, and a fresh schema
in a real PostgreSQL with pgvector (``MEMO_TEST_POSTGRES_URL``, or a private
server that ``pgserver`` starts once per session). Only when neither is
installed does the PostgreSQL half skip, with the reason; a server that is
installed but fails to start fails the tests.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memo_core.search.ann_index import load_cpp_runtime_first
from memo_core.storage.local_server import ENV_URL, LocalPostgres, start_local_postgres

# A test may import usearch before any base loads it the way memo does: the C++ runtime
# goes first here too, or a later onnxruntime import crashes the run.
load_cpp_runtime_first()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[LocalPostgres]:
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs memo[postgres]")
    if not os.environ.get(ENV_URL):
        pytest.importorskip("pgserver", reason=f"no pgserver (memo[dev]) and no {ENV_URL}")
    # Outside pytest's temp tree: a concurrent pytest session prunes old basetemp
    # folders, which would pull the data directory from under a running server.
    data_dir = tempfile.mkdtemp(prefix="memo-pgdata-")
    # Installed but failing to start is an error, never a quiet skip.
    server = start_local_postgres(data_dir)
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: LocalPostgres) -> Iterator[str]:
    """A URL naming a fresh, empty schema; dropped after the test."""
    from memo_core.storage.postgres import PostgresDatabase

    url = postgres_server.url(f"t_{uuid.uuid4().hex[:16]}")
    yield url
    with PostgresDatabase(url, load_vec=False, max_connections=1) as db:
        db.drop_schema()


@pytest.fixture(params=["sqlite", "postgres"])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One base location per backend: ``sqlite:///...`` and ``postgresql://...``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'base.db'}"
    return str(request.getfixturevalue("postgres_url"))
