"""SIGKILL at random points of ingest, re-index, supersede and consolidation.

Half the kills land right before a random SQL statement of the operation (most
of them inside a transaction), half after a random delay (anywhere: embedding,
COMMIT, Python code). After each kill the file must open with integrity, every
document/fact must be entirely its old or its new version, and a re-run must
complete the work. ``python bench/stress.py`` runs many more trials.
"""

from __future__ import annotations

import multiprocessing.context
from collections.abc import Callable
from pathlib import Path

import pytest
from reliability_crash import SCENARIOS, Prepared, check, prepare, run_trials
from reliability_harness import (
    KILL_TRIALS,
    copy_db,
    kb_problems,
    memory_problems,
    open_memory,
    raw,
)


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Prepared]:
    cache: dict[str, Prepared] = {}

    def get(kind: str) -> Prepared:
        if kind not in cache:
            cache[kind] = prepare(kind, tmp_path_factory.mktemp(f"scenario-{kind}"))
        return cache[kind]

    return get


@pytest.mark.parametrize("kind", SCENARIOS)
def test_sigkill_leaves_old_or_new_and_a_rerun_finishes(
    tmp_path: Path,
    forkserver: multiprocessing.context.ForkServerContext,
    scenarios: Callable[[str], Prepared],
    kind: str,
) -> None:
    prepared = scenarios(kind)
    assert prepared.statements > 1
    trials = run_trials(
        forkserver, prepared, KILL_TRIALS, tmp_path / "trials", seed=SCENARIOS.index(kind)
    )
    problems = [f"trial {i} ({t.mode}): {p}" for i, t in enumerate(trials) for p in t.problems]
    assert problems == []
    # The statement-mode kills always land (the child kills itself before statement n).
    assert all(t.killed for t in trials if t.mode == "statement")


# -- the checks themselves can fail -------------------------------------------------------

BREAKAGES = {
    "ingest": [
        # (chunks_fts is contentless: a row goes by the 'delete' command, here with
        # a wrong stemmed value, so its stems stay behind as well)
        "INSERT INTO chunks_fts (chunks_fts, rowid, raw, stemmed)"
        " SELECT 'delete', rowid, text, '' FROM chunks WHERE rowid = (SELECT max(rowid) FROM chunks)",
        "UPDATE chunks SET text = text || ' half' WHERE rowid = (SELECT min(rowid) FROM chunks)",
        "DELETE FROM chunks WHERE rowid = (SELECT max(rowid) FROM chunks)",
    ],
    "reindex": ["DELETE FROM vec_chunks_1 WHERE chunk_rowid = (SELECT min(rowid) FROM chunks)"],
    "supersede": [
        "UPDATE mem_facts SET chain_id = (SELECT chain_id FROM mem_facts WHERE key = 'plan'"
        " AND ns = 'user1/') WHERE key = 'plan' AND ns = 'user0/'",
        "DELETE FROM mem_turns_fts WHERE rowid = (SELECT max(rowid) FROM mem_turns)",
        "UPDATE mem_facts SET statement = 'Plan 0 is version C' WHERE key = 'plan'"
        " AND ns = 'user0/'",
    ],
    "consolidate": [
        "UPDATE mem_facts SET archived = 1 WHERE pinned = 0 AND rowid % 2 = 0",
        "UPDATE mem_facts SET archived = 1 WHERE pinned = 1",
    ],
}


@pytest.mark.parametrize(("kind", "sql"), [(k, s) for k, v in BREAKAGES.items() for s in v])
def test_the_checks_catch_a_half_written_state(
    tmp_path: Path, scenarios: Callable[[str], Prepared], kind: str, sql: str
) -> None:
    prepared = scenarios(kind)
    path = tmp_path / "broken.db"
    copy_db(prepared.template, path)
    if kind == "consolidate":  # archive-state breakages need the pinned rows of the template
        assert check(prepared, str(path), final=False) == []
    with raw(path) as db:
        db.execute("PRAGMA foreign_keys = OFF")
        with db.transaction():
            assert db.execute(sql).rowcount > 0
    base = kb_problems(path) if kind in ("ingest", "reindex") else memory_problems(path)
    assert base or check(prepared, str(path), final=False)


# -- a correction is never swallowed --------------------------------------------------------

CORRECTIONS = [
    ("My favourite colour is blue.", "Scratch that, my favourite colour is green.", "green"),
    ("My favourite colour is blue.", "Actually, my favourite colour is green.", "green"),
    ("We use React for the frontend.", "Scratch that, we use Svelte for the frontend.", "Svelte"),
    ("My manager is Alice.", "Correction: my manager is Bob.", "Bob"),
    ("I live in Berlin.", "Actually, I moved to Paris.", "Paris"),
]


@pytest.mark.parametrize(("said", "corrected", "now"), CORRECTIONS)
def test_an_explicit_correction_supersedes_and_keeps_the_old_version(
    tmp_path: Path, said: str, corrected: str, now: str
) -> None:
    with open_memory(tmp_path / "memory.db") as memory:
        memory.capture(said, namespace="u")
        result = memory.capture(corrected, namespace="u")
        current = memory.list_facts("u")
        assert [f.statement for f in result.superseded] == [said]
        assert len(current) == 1 and now in current[0].statement
        history = memory.history(current[0].id, namespace="u")
        assert [f.statement for f in history] == [said, current[0].statement]
    assert memory_problems(tmp_path / "memory.db") == []
