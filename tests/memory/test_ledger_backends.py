"""The spend ledger on both backends: the same records, and a ceiling no race can pass."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from memo_core.errors import BudgetExceededError, InvalidInputError
from memo_core.ledger import SpendLedger

CEILING = 1.0
COST = 0.03
ALLOWED = 33  # 33 x 0.03 = 0.99; a 34th charge would pass 1.00

WORKER = r"""
import json, sys, time
from memo_core.errors import BudgetExceededError
from memo_core.ledger import SpendLedger

url, start_at = sys.argv[1], float(sys.argv[2])
ledger = SpendLedger(url, ceilings={"cohere": 1.0})
ledger.month_spend("cohere")  # connected before the start
time.sleep(max(0.0, start_at - time.time()))
charged = refused = 0
for _ in range(60):
    try:
        ledger.charge("cohere", "rerank", 1, cost_usd=0.03, note="race")
        charged += 1
    except BudgetExceededError:
        refused += 1
ledger.db.close()
print(json.dumps({"charged": charged, "refused": refused}))
"""


def test_four_processes_never_overspend_one_ceiling(backend_url: str) -> None:
    SpendLedger(backend_url).db.close()  # the table exists before the race
    start_at = time.time() + 6.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, backend_url, str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err[-2000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert sum(r["charged"] for r in results) == ALLOWED
    assert sum(r["refused"] for r in results) == 4 * 60 - ALLOWED
    ledger = SpendLedger(backend_url, ceilings={"cohere": CEILING})
    try:
        spent = ledger.month_spend("cohere")
        assert spent <= CEILING and spent == pytest.approx(ALLOWED * COST)
        rows = ledger.db.query_one("SELECT count(*) FROM spend WHERE note = 'race'")
        assert rows[0] == ALLOWED
    finally:
        ledger.db.close()


def test_ledger_records_the_same_on_both_backends(backend_url: str) -> None:
    ledger = SpendLedger(backend_url, ceilings={"openai": 0.001})
    try:
        when = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        record = ledger.charge("cloudflare", "embedding", 1_000_000, at=when)
        assert record.cost_usd == pytest.approx(0.012)
        ledger.charge("openai", "llm", 1000, at=when)  # 0.0006
        with pytest.raises(BudgetExceededError):
            ledger.charge("openai", "llm", 1000, at=when)  # would reach 0.0012
        with pytest.raises(InvalidInputError):
            ledger.charge("openai", "llm", -1, at=when)
        assert ledger.by_provider(when) == pytest.approx({"cloudflare": 0.012, "openai": 0.0006})
        assert ledger.month_spend(at=when) == pytest.approx(0.0126)
        # Double precision on both engines: a tiny cost is not rounded away.
        ledger.charge("cohere", "rerank", 1, cost_usd=1e-9, at=when)
        assert ledger.month_spend("cohere", at=when) == 1e-9
        assert ledger.month_spend(at=datetime(2026, 4, 1, tzinfo=UTC)) == 0.0
    finally:
        ledger.db.close()
