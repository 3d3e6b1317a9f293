"""Hostile values at the edges: spend amounts, secrets files, query vectors.

Each attack runs through the real code path (the ledger's own transaction, bash
actually sourcing ``secrets.env``, a real base answering ``search_by_vector``)
and must end with every trial survived, nothing leaked and nothing lost.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from reliability_attacks import (
    INJECTIONS,
    attack_secret_text,
    attack_secrets_env,
    attack_spend,
    attack_ssrf_ranges,
    attack_vectors,
    held,
    source_with_bash,
)

from memo_core.errors import BudgetExceededError, InvalidInputError
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
    tally = attack_spend(tmp_path, 40, seed=3)
    assert held(tally), tally.as_dict()


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
    tally = attack_secrets_env(tmp_path, 25, seed=5)
    assert held(tally), tally.as_dict()


def test_hostile_query_vectors_get_one_typed_line(tmp_path: Path) -> None:
    tally = attack_vectors(tmp_path, 60, seed=7)
    assert held(tally), tally.as_dict()


def test_credentials_in_urls_and_loose_aws_keys_never_survive_redaction(tmp_path: Path) -> None:
    tally = attack_secret_text(tmp_path, 400, seed=9)
    assert held(tally), tally.as_dict()


def test_every_special_purpose_range_in_every_spelling_is_refused(tmp_path: Path) -> None:
    tally = attack_ssrf_ranges(tmp_path, 200, seed=13)
    assert held(tally), tally.as_dict()
