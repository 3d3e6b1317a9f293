"""Extraction and chunking figures (not a test): python tests/ingest/bench_extract.py

Times extract + chunk over samples/, and normalise + secret scan + chunk over the
evaluation corpus (../shared/eval/qa/corpus.jsonl, when present): the share of
ingest work that happens before the embedder.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from memo_core.ingest import (
    IngestPolicy,
    apply_secret_policy,
    chunk_document,
    extract,
    iter_sources,
)
from memo_core.ingest.markdown import extract_plain_text

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "eval" / "qa" / "corpus.jsonl"


def samples(runs: int = 7) -> None:
    policy = IngestPolicy(allowed_roots=[REPO / "samples"])
    times, docs, chars, chunks = [], 0, 0, 0
    for _ in range(runs):
        start = time.perf_counter()
        docs = chars = chunks = 0
        for source in iter_sources([REPO / "samples"], policy):
            result = extract(source, policy=policy)
            for doc in result if isinstance(result, list) else [result]:
                docs += 1
                chars += len(doc.text)
                chunks += len(chunk_document(doc))
        times.append(time.perf_counter() - start)
    print(
        f"samples/: {docs} documents, {chars} chars, {chunks} chunks; extract+chunk "
        f"median {statistics.median(times) * 1000:.1f} ms (min {min(times) * 1000:.1f} ms)"
    )


def corpus(runs: int = 5) -> None:
    if not CORPUS.exists():
        print(f"{CORPUS} not found: corpus figure skipped")
        return
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    policy = IngestPolicy(allowed_roots=[])
    times, chars, chunks = [], 0, 0
    for _ in range(runs):
        start = time.perf_counter()
        chars = chunks = 0
        for row in rows:
            doc = extract_plain_text(row["text"], source=row["id"], title=row["id"])
            doc = apply_secret_policy(doc, policy)
            chars += len(doc.text)
            chunks += len(chunk_document(doc))
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"corpus.jsonl: {len(rows)} passages, {chars} chars, {chunks} chunks; normalise+scan+chunk "
        f"median {median * 1000:.0f} ms = {chars / median / 1e6:.2f} M chars/s"
    )


if __name__ == "__main__":
    samples()
    corpus()
