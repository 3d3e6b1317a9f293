"""Ingest throughput, the share of time outside the embedder, and unchanged re-ingest.

    python bench/ingest.py [--limit N] [--embedder default|hash]

Writes each paragraph of ../shared/eval/qa/corpus.jsonl to a .txt file and runs
the real pipeline (extract, normalise, secret scan, chunk, embed, store, one
transaction per document), then runs it again on the unchanged files.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import markdown_table, qa_dir, read_jsonl, write_results

from memo_core.embedders import HashEmbedder, default_local_embedder
from memo_core.kb import MemoBase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    args = parser.parse_args()
    corpus = list(read_jsonl(qa_dir() / "corpus.jsonl"))
    if args.limit:
        corpus = corpus[: args.limit]
    embedder = default_local_embedder() if args.embedder == "default" else HashEmbedder(256)
    embedder.embed_documents(["warm up the model before timing"])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for p in corpus:
            (folder / f"{p['id']}.txt").write_text(p["text"], encoding="utf-8")
        kb = MemoBase(Path(tmp) / "kb.db", embedder=embedder)
        first = kb.ingest(folder, roots=[folder])
        calls = getattr(embedder, "calls", None)
        again = kb.ingest(folder, roots=[folder])
        calls_again = getattr(embedder, "calls", None)
        kb.close()
    docs = len(first.added)
    outside = (first.seconds - first.embed_seconds) / first.seconds
    result = {
        "documents": docs,
        "chunks": first.chunks,
        "seconds": first.seconds,
        "docs_per_second": docs / first.seconds,
        "embed_seconds": first.embed_seconds,
        "share_outside_embedder": outside,
        "reingest_seconds": again.seconds,
        "reingest_share_of_first": again.seconds / first.seconds,
        "reingest_unchanged": len(again.unchanged),
        "reingest_embedding_calls": (calls_again - calls) if calls is not None else None,
    }
    table = markdown_table(
        [
            "docs",
            "chunks",
            "docs/s",
            "share outside embedder",
            "re-ingest / first",
            "re-ingest embed calls",
        ],
        [
            [
                docs,
                first.chunks,
                result["docs_per_second"],
                outside,
                result["reingest_share_of_first"],
                result["reingest_embedding_calls"],
            ]
        ],
    )
    header = f"embedder {embedder.fingerprint.describe()}"
    write_results("ingest", {"setup": header, **result}, header + "\n\n" + table)
    print(header)
    print(table)


if __name__ == "__main__":
    main()
