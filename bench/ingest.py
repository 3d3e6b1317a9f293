"""Ingest throughput against the bare embedder on the same chunks, and unchanged re-ingest.

    python bench/ingest.py [--limit N] [--embedder default|hash] [--rounds 2]

Writes each paragraph of ../shared/eval/qa/corpus.jsonl to a .txt file and runs
the real pipeline (extract, normalise, secret scan, chunk, embed, store, one
transaction per document) into a fresh base, then embeds the very chunk texts it
stored with a fresh embedder of the same settings and nothing else (the bare
embedder: what embedding alone costs). Rounds alternate ingest and bare runs so
a change in the machine's load hits both alike; the ratio is summed over rounds,
in wall time and in this process's CPU time (the machine is shared, so the CPU
ratio is the steadier one). Target (issue 21.3): ingest within 10% of the bare
embedder. The last base is then ingested again unchanged.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import markdown_table, qa_dir, read_jsonl, write_results

from memo_core.embedders import HashEmbedder, default_local_embedder
from memo_core.embedders.base import Embedder
from memo_core.kb import MemoBase


def _clocked(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``, its wall seconds and this process's CPU seconds (all threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    parser.add_argument("--rounds", type=int, default=2, help="ingest / bare pairs")
    args = parser.parse_args()
    corpus = list(read_jsonl(qa_dir() / "corpus.jsonl"))
    if args.limit:
        corpus = corpus[: args.limit]

    def make() -> Embedder:
        embedder = default_local_embedder() if args.embedder == "default" else HashEmbedder(256)
        embedder.embed_documents(["warm up the model before timing"])
        return embedder

    load_before = os.getloadavg()
    totals = {"ingest_wall": 0.0, "ingest_cpu": 0.0, "bare_wall": 0.0, "bare_cpu": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for p in corpus:
            (folder / f"{p['id']}.txt").write_text(p["text"], encoding="utf-8")
        for round_ in range(args.rounds):
            embedder = make()
            kb = MemoBase(Path(tmp) / f"kb{round_}.db", embedder=embedder)
            first, wall, cpu = _clocked(lambda kb=kb: kb.ingest(folder, roots=[folder]))
            totals["ingest_wall"] += wall
            totals["ingest_cpu"] += cpu
            texts = [str(r[0]) for r in kb.db.query("SELECT text FROM chunks ORDER BY rowid")]
            bare = make()
            _, wall, cpu = _clocked(lambda bare=bare, texts=texts: bare.embed_documents(texts))
            totals["bare_wall"] += wall
            totals["bare_cpu"] += cpu
            if round_ < args.rounds - 1:
                kb.close()
        calls = getattr(embedder, "calls", None)
        again = kb.ingest(folder, roots=[folder])
        calls_again = getattr(embedder, "calls", None)
        kb.close()
    load_after = os.getloadavg()
    docs, chunks = len(first.added), first.chunks
    n = chunks * args.rounds
    result = {
        "documents": docs,
        "chunks": chunks,
        "rounds": args.rounds,
        "ingest_chunks_per_second": n / totals["ingest_wall"],
        "bare_chunks_per_second": n / totals["bare_wall"],
        "wall_ratio": totals["ingest_wall"] / totals["bare_wall"],
        "cpu_ratio": totals["ingest_cpu"] / totals["bare_cpu"],
        "seconds_per_1000_chunks": totals["ingest_wall"] / n * 1000,
        "cpu_seconds_per_1000_chunks": totals["ingest_cpu"] / n * 1000,
        "share_outside_embedder": (first.seconds - first.embed_seconds) / first.seconds,
        "reingest_seconds": again.seconds,
        "reingest_unchanged": len(again.unchanged),
        "reingest_embedding_calls": (calls_again - calls) if calls is not None else None,
        "load": {"before": load_before, "after": load_after},
        **totals,
    }
    table = markdown_table(
        [
            "docs",
            "chunks",
            "ingest chunks/s",
            "bare embedder chunks/s",
            "ingest / bare (wall)",
            "ingest / bare (CPU)",
            "s per 1,000 chunks",
            "re-ingest embed calls",
        ],
        [
            [
                docs,
                chunks,
                result["ingest_chunks_per_second"],
                result["bare_chunks_per_second"],
                result["wall_ratio"],
                result["cpu_ratio"],
                result["seconds_per_1000_chunks"],
                result["reingest_embedding_calls"],
            ]
        ],
    )
    load = (
        f"machine load (1/5/15 min) before {load_before[0]:.1f}/{load_before[1]:.1f}/"
        f"{load_before[2]:.1f}, after {load_after[0]:.1f}/{load_after[1]:.1f}/"
        f"{load_after[2]:.1f} on {os.cpu_count()} CPUs"
    )
    header = f"embedder {embedder.fingerprint.describe()}, {args.rounds} rounds; {load}"
    verdict = (
        f"ingest takes {result['wall_ratio']:.3f}x the bare embedder's wall time and "
        f"{result['cpu_ratio']:.3f}x its CPU time (target <= 1.10)"
    )
    write_results("ingest", {"setup": header, **result}, f"{header}\n\n{table}\n\n{verdict}")
    print(header)
    print(table)
    print(verdict)


if __name__ == "__main__":
    main()
