"""Shared fixtures: a memory file on tmp_path with the deterministic hash embedder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.config import GATE_MODEL_ENV, repo_test_gate_model

MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def day(n: float, hour: int = 9) -> datetime:
    """``n`` days after Monday 2 March 2026, at ``hour`` UTC."""
    return MONDAY.replace(hour=hour) + timedelta(days=n)


@pytest.fixture
def lexical_gate() -> RecallGate:
    return RecallGate()  # no model: the lexical rule only


@pytest.fixture
def memory(tmp_path: Path, lexical_gate: RecallGate) -> Iterator[MemoHood]:
    with MemoHood(tmp_path / "memory.db", embedder=HashEmbedder(), gate=lexical_gate) as mem:
        yield mem


@pytest.fixture
def keyword_memory(tmp_path: Path, lexical_gate: RecallGate) -> Iterator[MemoHood]:
    with MemoHood(tmp_path / "kw.db", gate=lexical_gate) as mem:
        yield mem


@pytest.fixture(scope="session")
def gate_model_path() -> Path:
    env = os.environ.get(GATE_MODEL_ENV)
    path = Path(env) if env else repo_test_gate_model()
    if path is None or not path.exists():
        pytest.skip("the offline Model2Vec test model (../shared/models/m2v-minilm-256) is absent")
    pytest.importorskip("model2vec", reason="model2vec (memo[local]) is not installed")
    return path


@pytest.fixture(scope="session")
def model_gate(gate_model_path: Path) -> RecallGate:
    return RecallGate(gate_model_path)
