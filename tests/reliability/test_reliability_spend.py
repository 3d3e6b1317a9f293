"""Spend ceilings through the real paid-call path, from several processes at once.

Six processes search one base with a paid (fake) Cohere reranker charged to one
shared ledger. The ceiling leaves room for exactly ten paid calls: exactly ten
are made and recorded, the recorded spend never passes the ceiling, and every
other search still answers, in fused (RRF) order: the fallback engages.
(tests/ops covers the ledger's own race; this is the wiring under contention.)
"""

from __future__ import annotations

import multiprocessing.context
import time
from pathlib import Path

from reliability_harness import embedder
from reliability_workload import FakeCohere, paid_search_worker

from memo_core.kb import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.rerank.providers import CohereReranker

PROCESSES = 6
SEARCHES = 12
PRICE = 0.002  # one Cohere rerank search
ROOM = 10


def test_concurrent_paid_calls_cannot_overspend_and_fall_back(
    tmp_path: Path, spawn: multiprocessing.context.SpawnContext
) -> None:
    kb_path, spend, calls = tmp_path / "kb.db", tmp_path / "spend.db", tmp_path / "calls.log"
    with MemoBase(kb_path, embedder=embedder()) as kb:
        kb.add_texts(
            [f"Contract budget note {i} about the harbour and the meadow." for i in range(20)]
        )
    SpendLedger(spend).db.close()
    ceiling = ROOM * PRICE + PRICE / 2
    start_at = time.time() + 3.0
    args = (str(kb_path), str(spend), str(calls), ceiling, SEARCHES, start_at)
    procs = [spawn.Process(target=paid_search_worker, args=args) for _ in range(PROCESSES)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=240)
    assert [p.exitcode for p in procs] == [0] * PROCESSES  # every search answered
    ledger = SpendLedger(spend, ceilings={"cohere": ceiling})
    try:
        paid = calls.read_text(encoding="utf-8").splitlines()
        recorded = ledger.db.query_one("SELECT count(*) FROM spend WHERE provider = 'cohere'")[0]
        assert len(paid) == recorded == ROOM
        assert ledger.month_spend("cohere") <= ceiling
    finally:
        ledger.db.close()


def test_over_the_ceiling_the_search_keeps_the_fused_order(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=embedder()) as kb:
        kb.add_texts([f"Contract budget note {i} about the harbour." for i in range(10)])
        plain = [h.chunk_id for h in kb.search("contract harbour", k=5)]
    ledger = SpendLedger(tmp_path / "spend.db", ceilings={"cohere": 0.0})
    calls = tmp_path / "calls.log"
    reranker = CohereReranker("key", client=FakeCohere(str(calls)), ledger=ledger)
    with MemoBase(tmp_path / "kb.db", embedder=embedder(), reranker=reranker) as kb:
        hits = kb.search("contract harbour", k=5)
    assert [h.chunk_id for h in hits] == plain and all(h.rerank_score is None for h in hits)
    assert not calls.exists()  # refused before the request, nothing recorded
    assert ledger.month_spend("cohere") == 0.0
    ledger.db.close()
