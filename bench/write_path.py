"""The write path with precomputed vectors: memo against LanceDB, time and bytes per chunk.

    python bench/write_path.py [--chunks 20000] [--dims 384]

Both get the same texts (90 words each, drawn at random from the paragraphs of
../shared/eval/qa/corpus.jsonl) and the same random unit vectors. memo stores them
with ``MemoBase.add_texts(texts, ids=..., vectors=...)`` (documents, chunks, FTS rows,
vectors, change log, shingles); LanceDB as its documentation sets up a hybrid table
(``create_table`` from Arrow, then ``create_index("text", config=FTS())``). Prints
wall and CPU seconds per 1,000 chunks, the ratio to LanceDB (target, issue 21.3: at
most 2x), bytes per chunk on disk, what each of memo's tables and indexes costs per
chunk (SQLite's ``dbstat``), and the machine's load during the run.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import markdown_table, qa_dir, read_jsonl, write_results

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.kb import MemoBase


class StoredVectorsOnly:
    """An embedder that never embeds: every vector is passed in."""

    def __init__(self, dims: int) -> None:
        self.dimensions = dims
        self.fingerprint = EmbedderFingerprint("bench", "precomputed", dims)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        raise RuntimeError("the write-path benchmark passes every vector")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("the write-path benchmark passes every vector")


def _data(n: int, dims: int) -> tuple[list[str], list[str], np.ndarray]:
    # Words drawn at random from the corpus (its word frequencies, ~90 per chunk): real
    # vocabulary, but no sentence shared between chunks, which would make every chunk
    # boilerplate to the repeated-text detection (kb/repeats.py) and measure that instead.
    words = [w for p in read_jsonl(qa_dir() / "corpus.jsonl") for w in p["text"].split()]
    rng = random.Random(21)
    texts = [" ".join(rng.choices(words, k=90)) for _ in range(n)]
    vectors = np.random.default_rng(21).standard_normal((n, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [f"c{i:07d}" for i in range(n)], texts, vectors


def _clocked(fn: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def write_memo(folder: Path, ids: list[str], texts: list[str], vectors: np.ndarray) -> Any:
    path = folder / "memo.db"
    kb = MemoBase(path, embedder=StoredVectorsOnly(vectors.shape[1]))
    given = vectors.tolist()  # a caller's Python lists, as LangChain hands them over
    wall, cpu = _clocked(lambda: kb.add_texts(texts, ids=ids, vectors=given))
    # The search aids a large ingest starts building in a background thread are not
    # the write path (LanceDB builds no vector index here): waited for off the clock,
    # so their CPU time counts neither for memo nor for LanceDB, measured next in
    # this very process (process_time counts every thread).
    kb.searcher.aids.wait()
    tables = kb.db.query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
    kb.close()
    return wall, cpu, _size(path), {str(n): int(s) for n, s in tables}


def write_lancedb(folder: Path, ids: list[str], texts: list[str], vectors: np.ndarray) -> Any:
    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS

    path = folder / "lancedb"

    def build() -> None:
        db = lancedb.connect(str(path))
        table = db.create_table(
            "chunks",
            data=pa.table(
                {
                    "id": ids,
                    "text": texts,
                    "vector": pa.FixedSizeListArray.from_arrays(
                        pa.array(vectors.ravel()), vectors.shape[1]
                    ),
                }
            ),
        )
        table.create_index("text", config=FTS())

    wall, cpu = _clocked(build)
    return wall, cpu, _size(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--dims", type=int, default=384)
    args = parser.parse_args()
    ids, texts, vectors = _data(args.chunks, args.dims)
    n = args.chunks
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        memo_wall, memo_cpu, memo_bytes, tables = write_memo(Path(tmp), ids, texts, vectors)
        try:
            lance: tuple[float, float, int] | None = write_lancedb(Path(tmp), ids, texts, vectors)
        except ImportError:
            lance = None  # pip install lancedb (the bench extra)
    load_after = os.getloadavg()
    rows = [["memo", memo_wall / n * 1000, memo_cpu / n * 1000, round(memo_bytes / n)]]
    if lance is not None:
        rows.append(["LanceDB", lance[0] / n * 1000, lance[1] / n * 1000, round(lance[2] / n)])
    table = markdown_table(
        ["system", "wall s per 1,000 chunks", "CPU s per 1,000 chunks", "bytes per chunk"], rows
    )
    costs = markdown_table(
        ["memo table or index", "bytes per chunk"],
        [[name, round(size / n)] for name, size in tables.items() if size / n >= 5],
    )
    load = (
        f"machine load (1/5/15 min) before {load_before[0]:.1f}/{load_before[1]:.1f}/"
        f"{load_before[2]:.1f}, after {load_after[0]:.1f}/{load_after[1]:.1f}/"
        f"{load_after[2]:.1f} on {os.cpu_count()} CPUs"
    )
    header = f"{n} chunks, {args.dims}-float vectors given; {load}"
    verdict = ""
    if lance is not None:
        verdict = (
            f"memo / LanceDB: {memo_wall / lance[0]:.1f}x wall, {memo_cpu / lance[1]:.1f}x CPU "
            f"(target <= 2x), {memo_bytes / lance[2]:.2f}x the bytes"
        )
    text = f"{header}\n\n{table}\n\n{verdict}\n\n{costs}"
    result = {
        "chunks": n,
        "memo": {"wall": memo_wall, "cpu": memo_cpu, "bytes": memo_bytes, "tables": tables},
        "lancedb": (
            {"wall": lance[0], "cpu": lance[1], "bytes": lance[2]} if lance is not None else None
        ),
        "load": {"before": load_before, "after": load_after},
    }
    write_results("write_path", {"setup": header, **result}, text)
    print(text)


if __name__ == "__main__":
    main()
