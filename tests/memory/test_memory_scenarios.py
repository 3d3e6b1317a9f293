"""Scenario replays of this folder's own scenarios.

The public scenarios (``../shared/eval/memory``) are a reported benchmark, not a test:
``python bench/memory_eval.py`` scores them (a test demanding 100% on an evaluation set
turns it into a training set).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.embedders.base import Embedder
from memo_core.errors import MemoError
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.replay import load_scenarios, replay

OWN = Path(__file__).parent / "data" / "own_scenarios.jsonl"


def _score(path: Path, memory: MemoHood) -> dict[str, list[str]]:
    scenarios = load_scenarios(path)
    rows = {(r["id"], r["probe"]): r for r in replay(memory, scenarios)}
    problems: dict[str, list[str]] = {"gate": [], "missing": [], "leaked": [], "history": []}
    for scenario in scenarios:
        for i, probe in enumerate(scenario["probes"]):
            row = rows[(scenario["id"], i)]
            facts = " ".join(row["facts"]).lower()
            history = " ".join(row["history"]).lower()
            where = f"{scenario['id']}#{i}"
            if (row["gate"] == "recall") != probe["expect_recall"]:
                problems["gate"].append(where)
            problems["missing"] += [
                f"{where}:{s}" for s in probe["must_include"] if s.lower() not in facts
            ]
            problems["leaked"] += [
                f"{where}:{s}" for s in probe["must_not_include"] if s.lower() in facts
            ]
            problems["history"] += [
                f"{where}:{s}" for s in probe["history_must_include"] if s.lower() not in history
            ]
    return problems


def _local_embedder() -> Embedder:
    pytest.importorskip("fastembed", reason="fastembed (memo[local]) is not installed")
    try:
        from memo_core.embedders import default_local_embedder

        embedder = default_local_embedder()
        _ = embedder.dimensions
    except MemoError as exc:
        pytest.skip(f"the offline MiniLM model is unavailable: {exc}")
    return embedder


@pytest.mark.parametrize("kind", ["keyword", "local"])
def test_own_scenarios(backend_url: str, model_gate: RecallGate, kind: str) -> None:
    """Scenarios written for this suite, unlike the public ones, with no LLM."""
    embedder = _local_embedder() if kind == "local" else None
    with MemoHood(backend_url, embedder=embedder, gate=model_gate) as memory:
        problems = _score(OWN, memory)
    assert problems["leaked"] == []
    assert problems["gate"] == []
    assert problems["missing"] == []
    assert problems["history"] == []
