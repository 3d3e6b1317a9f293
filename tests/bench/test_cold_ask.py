"""bench/cold_ask.py: fresh processes asking a small base, their CPU and import split."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def cold_ask() -> ModuleType:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCH))
        import cold_ask

        return cold_ask


def test_import_split_counts_top_level_imports_once(cold_ask: ModuleType) -> None:
    stderr = "\n".join(
        [
            "import time: self [us] | cumulative | imported package",
            "import time:       100 |        100 |   numpy.core",
            "import time:       200 |        300 | numpy",
            "import time:       400 |       1000 | memo_core",
            "import time:        50 |         50 | json",
            "an unrelated line",
        ]
    )
    split = cold_ask._import_split(stderr)
    assert split["numpy"] == pytest.approx(300e-6)  # numpy.core is inside numpy's 300
    assert split["memo_core"] == pytest.approx(1000e-6)
    assert split["other"] == pytest.approx(50e-6)
    assert split["wordfreq"] == 0.0


def test_a_tiny_run_asks_each_question_in_fresh_processes(cold_ask: ModuleType) -> None:
    # The same code as "before" too: each tree ingests its own base and is asked in turn.
    args = argparse.Namespace(runs=1, embedder="hash", db=None, before=str(cold_ask.REPO))
    result = cold_ask.run(args)
    asked = [(r["code"], r["question"]) for r in result["questions"]]
    assert asked == [(c, q) for q in cold_ask.QUESTIONS for c in ("now", "before")]
    for row in result["questions"]:
        assert len(row["cpu_runs_s"]) == 1 and row["cpu_s"] > 0 and row["wall_s"] > 0
    assert result["imports"]["now"]["memo_core"] > 0
    assert result["imports"]["before"]["memo_core"] > 0
