"""Code the ops tests run in other processes (imported by name under ``spawn``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

#: Every writer document has this many paragraphs (so chunks per document are known).
PARAGRAPHS = 3


def paragraphs(n: int) -> list[str]:
    return [
        f"Document {n} paragraph {p}: the quick brown fox number {n * 10 + p} jumps."
        for p in range(PARAGRAPHS)
    ]


def document_text(n: int) -> str:
    return "\n\n".join(paragraphs(n))


def document_chunks(n: int) -> list[Any]:
    """One chunk per paragraph, with its span in :func:`document_text`."""
    from memo_core.kb.store import ChunkInput

    chunks, start = [], 0
    for paragraph in paragraphs(n):
        chunks.append(ChunkInput(paragraph, start, start + len(paragraph), {"paragraph": start}))
        start += len(paragraph) + 2
    return chunks


def write_documents(db: str, stop_file: str, limit: int = 100_000) -> int:
    """Add documents doc-00000, doc-00001... one transaction each, until ``stop_file`` exists."""
    from memo_core.embedders.hash import HashEmbedder
    from memo_core.kb.base import MemoBase

    kb = MemoBase(db, embedder=HashEmbedder(32))
    n = 0
    try:
        while n < limit and not Path(stop_file).exists():
            kb.add_document(
                document_text(n), chunks=document_chunks(n), source=f"doc-{n:05d}", title=f"{n}"
            )
            n += 1
    finally:
        kb.close()
    return n


def charge_many(ledger_path: str, ceiling: float, attempts: int, start_at: float) -> int:
    """Try ``attempts`` charges of $0.002 against a shared ceiling; count the accepted ones."""
    from memo_core.errors import BudgetExceededError
    from memo_core.ledger import SpendLedger

    ledger = SpendLedger(ledger_path, ceilings={"cohere": ceiling})
    while time.time() < start_at:  # start together, so the charges really interleave
        time.sleep(0.001)
    accepted = 0
    for _ in range(attempts):
        try:
            ledger.charge("cohere", "rerank", 1)
        except BudgetExceededError:
            continue
        accepted += 1
    ledger.db.close()
    return accepted


if __name__ == "__main__":  # python ops_workers.py DB STOP_FILE
    print(write_documents(sys.argv[1], sys.argv[2]))
