"""Retrieval quality and latency of memo's keyword, vector and hybrid modes.

    python bench/retrieval.py [--limit N] [--embedder default|hash] [--db-url URL]

Ingests ../shared/eval/qa/corpus.jsonl (one chunk per paragraph) into a fresh
base and asks every ``answerable`` question: MRR@10 and recall@1/5/10 of the
right paragraph, median and p95 query latency per mode. Writes
bench/results/retrieval.json and .md (retrieval-postgres.* for a PostgreSQL
``--db-url``, e.g. ``postgresql:///memo?host=/tmp&schema=bench``; that schema is
dropped afterwards, so name a scratch one).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from _common import markdown_table, median, percentile, qa_dir, read_jsonl, timed, write_results

from memo_core.embedders import HashEmbedder, default_local_embedder
from memo_core.kb import MemoBase
from memo_core.storage.registry import backend_of

MODES = ("keyword", "vector", "hybrid")


def evaluate(kb: MemoBase, questions: list[dict], mode: str) -> dict[str, float]:
    rr, r1, r5, r10, lat = [], [], [], [], []
    for q in questions:
        hits, ms = timed(lambda q=q: kb.search(q["question"], k=10, mode=mode))
        lat.append(ms)
        ids = [h.document_id for h in hits]
        rank = ids.index(q["paragraph_id"]) + 1 if q["paragraph_id"] in ids else None
        rr.append(1.0 / rank if rank else 0.0)
        r1.append(1.0 if rank == 1 else 0.0)
        r5.append(1.0 if rank and rank <= 5 else 0.0)
        r10.append(1.0 if rank else 0.0)
    n = len(questions)
    return {
        "mrr@10": sum(rr) / n,
        "recall@1": sum(r1) / n,
        "recall@5": sum(r5) / n,
        "recall@10": sum(r10) / n,
        "p50_ms": median(lat),
        "p95_ms": percentile(lat, 95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="questions to ask (0 = all)")
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    parser.add_argument("--db-url", help="a base URL (default: a temporary SQLite file)")
    args = parser.parse_args()

    data = qa_dir()
    corpus = list(read_jsonl(data / "corpus.jsonl"))
    questions = [q for q in read_jsonl(data / "questions.jsonl") if q["kind"] == "answerable"]
    if args.limit:
        questions = questions[: args.limit]
    embedder = default_local_embedder() if args.embedder == "default" else HashEmbedder(256)

    with tempfile.TemporaryDirectory() as tmp:
        kb = MemoBase(args.db_url or Path(tmp) / "bench.db", embedder=embedder)
        if kb.store.counts()["documents"]:
            sys.exit(f"{kb.path} already holds documents: name an empty base")
        try:
            start = time.perf_counter()
            kb.add_texts([p["text"] for p in corpus], ids=[p["id"] for p in corpus])
            ingest_s = time.perf_counter() - start
            kb.search("warm up", k=10)
            results = {mode: evaluate(kb, questions, mode) for mode in MODES}
        finally:
            drop = getattr(kb.db, "drop_schema", None)  # a PostgreSQL schema made for this run
            if drop is not None:
                drop()
            kb.close()

    rows = [
        [m, r["mrr@10"], r["recall@1"], r["recall@5"], r["recall@10"], r["p50_ms"], r["p95_ms"]]
        for m, r in results.items()
    ]
    table = markdown_table(
        ["mode", "MRR@10", "recall@1", "recall@5", "recall@10", "p50 ms", "p95 ms"], rows
    )
    backend = backend_of(kb.db).name
    header = (
        f"{len(corpus)} paragraphs, {len(questions)} answerable questions, "
        f"embedder {embedder.fingerprint.describe()}, backend {backend}, ingest {ingest_s:.1f} s"
    )
    write_results(
        "retrieval" if backend == "sqlite" else f"retrieval-{backend}",
        {"setup": header, "ingest_seconds": ingest_s, "modes": results},
        header + "\n\n" + table,
    )
    print(header)
    print(table)


if __name__ == "__main__":
    main()
