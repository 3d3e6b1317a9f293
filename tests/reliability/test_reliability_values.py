"""Hostile values at the edges: spend amounts, secrets files, query vectors.

Each attack runs through the real code path (the ledger's own transaction, bash
actually sourcing ``secrets.env``, a real base answering ``search_by_vector``)
and must end with every trial survived, nothing leaked and nothing lost.
"""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path

import pytest
from reliability_attacks import (
    INJECTIONS,
    attack_secrets_env,
    attack_spend,
    attack_vectors,
    source_with_bash,
)
from reliability_harness import DIMS, embedder

from memo_core.errors import BudgetExceededError, InvalidInputError
from memo_core.kb import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.setup_wizard import write_secrets


@pytest.mark.parametrize("cost", [-100.0, math.nan, math.inf, -math.inf])
def test_a_negative_or_non_finite_cost_is_refused_and_spends_nothing(
    tmp_path: Path, cost: float
) -> None:
    ledger = SpendLedger(tmp_path / "spend.db", ceilings={"cohere": 1.0})
    try:
        ledger.charge("cohere", "rerank", 1, cost_usd=0.9)
        with pytest.raises(InvalidInputError, match="cost_usd"):
            ledger.charge("cohere", "rerank", 1, cost_usd=cost)
        assert ledger.month_spend("cohere") == pytest.approx(0.9)
        # the ceiling still holds: a NaN or negative record would have lifted it
        with pytest.raises(BudgetExceededError):
            ledger.charge("cohere", "rerank", 1, cost_usd=0.2)
    finally:
        ledger.db.close()


def test_a_nan_ceiling_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        SpendLedger(tmp_path / "spend.db", ceilings={"cohere": math.nan})


def test_spend_attack_holds(tmp_path: Path) -> None:
    tally = attack_spend(tmp_path / "spend.db", random.Random(3), 40)
    assert tally.held, tally.to_dict()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_sourcing_secrets_env_runs_nothing_and_assigns_each_value_literally(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "pwned"
    values = {f"K{i}": v.format(marker=marker) for i, v in enumerate(INJECTIONS)}
    path = tmp_path / "secrets.env"
    write_secrets(path, values)
    assert source_with_bash(path, list(values), tmp_path) == list(values.values())
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_secrets_env_attack_holds(tmp_path: Path) -> None:
    tally = attack_secrets_env(tmp_path, random.Random(5), 25)
    assert tally.held, tally.to_dict()


def test_hostile_query_vectors_get_one_typed_line(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=embedder()) as kb:
        kb.add_texts([f"Harbour lantern note {i} about the meadow." for i in range(12)])
        tally = attack_vectors(kb, DIMS, random.Random(7), 60)
    assert tally.held, tally.to_dict()
