"""The write path with precomputed vectors: memo against LanceDB, time and bytes per chunk.

    python bench/write_path.py [--chunks 20000] [--dims 384] [--parts]

Both get the same texts (90 words each, drawn at random from the paragraphs of
../shared/eval/qa/corpus.jsonl) and the same random unit vectors. memo stores them
with ``MemoBase.add_texts(texts, ids=..., vectors=...)`` (documents, chunks, FTS rows,
vectors, change log, shingles), the vectors given as Python lists (as LangChain hands
them over: the ratio's row) and, in a second row, as the float32 matrix LanceDB is
given; LanceDB as its documentation sets up a hybrid table
(``create_table`` from Arrow, then ``create_index("text", config=FTS())``). Prints
wall and CPU seconds per 1,000 chunks (medians of ``--repeat`` runs of each, in turn), the ratio to LanceDB (target, issue 21.3: at
most 2x), bytes per chunk on disk, what each of memo's tables and indexes costs per
chunk (SQLite's ``dbstat``), and the machine's load during the run. ``--parts``
also prints where memo's CPU goes, per chunk: each SQL statement's time inside the
real run (the driver's C code, triggers included), and each Python step of the
write (tokenizing, flags, stems, vector scaling, hashing, shingles) timed alone on
the same texts and vectors.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
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


def write_memo(
    folder: Path, ids: list[str], texts: list[str], vectors: np.ndarray, *, as_lists: bool = True
) -> Any:
    """memo's write: the vectors as a caller's Python lists (as LangChain hands them over)
    or, ``as_lists=False``, as the rows of the float32 matrix LanceDB is given."""
    path = folder / ("memo.db" if as_lists else "memo-array.db")
    kb = MemoBase(path, embedder=StoredVectorsOnly(vectors.shape[1]))
    given: Any = vectors.tolist() if as_lists else vectors
    wall, cpu = _clocked(lambda: kb.add_texts(texts, ids=ids, vectors=given))
    # The search aids a large ingest starts building in a background thread are not
    # the write path (LanceDB builds no vector index here): waited for off the clock,
    # so their CPU time counts neither for memo nor for LanceDB, measured next in
    # this very process (process_time counts every thread).
    kb.searcher.aids.wait()
    tables = kb.db.query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
    kb.close()
    return wall, cpu, _size(path), {str(n): int(s) for n, s in tables}


def memo_parts(ids: list[str], texts: list[str], vectors: np.ndarray) -> list[list[Any]]:
    """``[part, microseconds of CPU per chunk]``: SQL statements timed inside one
    ``add_texts`` (a fresh base), then the Python steps alone on the same data."""
    from memo_core.kb import repeats
    from memo_core.kb.flags import chunk_flags
    from memo_core.kb.records import sha256, vector_blobs
    from memo_core.search.text import detect_language, stem_text, tokenize
    from memo_core.storage.connection import Database

    spent: dict[str, float] = {}
    plain_execute, plain_executemany = Database.execute, Database.executemany

    def clock(sql: str, run: Callable[[], Any]) -> Any:
        start = time.process_time()
        try:
            return run()
        finally:
            key = " ".join(sql.split())[:60]
            spent[key] = spent.get(key, 0.0) + time.process_time() - start

    def execute(self: Database, sql: str, params: Any = ()) -> Any:
        return clock(sql, lambda: plain_execute(self, sql, params))

    def executemany(self: Database, sql: str, rows: Any) -> Any:
        return clock(sql, lambda: plain_executemany(self, sql, rows))

    n = len(texts)
    with tempfile.TemporaryDirectory() as tmp:
        kb = MemoBase(Path(tmp) / "parts.db", embedder=StoredVectorsOnly(vectors.shape[1]))
        given = vectors.tolist()
        Database.execute, Database.executemany = execute, executemany  # type: ignore[method-assign]
        try:
            _, total = _clocked(lambda: kb.add_texts(texts, ids=ids, vectors=given))
        finally:
            Database.execute, Database.executemany = plain_execute, plain_executemany  # type: ignore[method-assign]
        kb.searcher.aids.wait()
        kb.close()
    rows: list[list[Any]] = [["add_texts, all of it", total / n * 1e6]]
    sql = sorted(spent.items(), key=lambda kv: -kv[1])
    rows.append(["SQL, every statement", sum(spent.values()) / n * 1e6])
    rows += [[f"SQL: {key}", cpu / n * 1e6] for key, cpu in sql if cpu / n * 1e6 >= 0.5]
    words = [tokenize(t) for t in texts]
    shingled = repeats._Shingled(dict(enumerate(texts)), dict(enumerate(words)))
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("Python: tokenize", lambda: [tokenize(t) for t in texts]),
        ("Python: flags", lambda: [chunk_flags(t, w) for t, w in zip(texts, words, strict=True)]),
        ("Python: language", lambda: [detect_language(t) for t in texts]),
        (
            "Python: stems",
            lambda: [stem_text(t, "english", w) for t, w in zip(texts, words, strict=True)],
        ),
        ("Python: vectors checked and scaled", lambda: vector_blobs(given, vectors.shape[1])),
        ("Python: sha256", lambda: [sha256(t) for t in texts]),
        ("Python: shingles kept", lambda: repeats._runs_of(words)),
        ("Python: shingle rows sorted and counted", lambda: shingled.new_rows(1, list(range(n)))),
    ]
    for name, step in steps:
        rows.append([name, _clocked(step)[1] / n * 1e6])
    return rows


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


def _medians(runs: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The median wall and the median CPU time of ``runs``."""
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--parts", action="store_true", help="where memo's CPU goes")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each system, interleaved; medians shown"
    )
    args = parser.parse_args()
    ids, texts, vectors = _data(args.chunks, args.dims)
    n = args.chunks
    load_before = os.getloadavg()
    # The machine is shared: one run of each can differ by half from the next, so each
    # system runs several times, in turn, and the median of each measure is shown.
    runs: dict[str, list[tuple[float, float]]] = {"memo": [], "array": [], "lance": []}
    lance_bytes: int | None = None
    for _ in range(max(1, args.repeat)):
        with tempfile.TemporaryDirectory() as tmp:
            memo_wall, memo_cpu, memo_bytes, tables = write_memo(Path(tmp), ids, texts, vectors)
            runs["memo"].append((memo_wall, memo_cpu))
            array_wall, array_cpu, *_ = write_memo(Path(tmp), ids, texts, vectors, as_lists=False)
            runs["array"].append((array_wall, array_cpu))
            try:
                wall, cpu, lance_bytes = write_lancedb(Path(tmp), ids, texts, vectors)
                runs["lance"].append((wall, cpu))
            except ImportError:
                pass  # pip install lancedb (the bench extra)
    memo_wall, memo_cpu = _medians(runs["memo"])
    array_wall, array_cpu = _medians(runs["array"])
    lance: tuple[float, float, int] | None = None
    if runs["lance"] and lance_bytes is not None:
        lance = (*_medians(runs["lance"]), lance_bytes)
    parts = memo_parts(ids, texts, vectors) if args.parts else []
    load_after = os.getloadavg()
    rows = [
        ["memo", memo_wall / n * 1000, memo_cpu / n * 1000, round(memo_bytes / n)],
        ["memo, vectors as an array", array_wall / n * 1000, array_cpu / n * 1000, ""],
    ]
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
    header = (
        f"{n} chunks, {args.dims}-float vectors given; median of {max(1, args.repeat)} runs"
        f" of each, in turn; {load}"
    )
    verdict = ""
    if lance is not None:
        verdict = (
            f"memo / LanceDB: {memo_wall / lance[0]:.1f}x wall, {memo_cpu / lance[1]:.1f}x CPU "
            f"(target <= 2x), {memo_bytes / lance[2]:.2f}x the bytes"
        )
    text = f"{header}\n\n{table}\n\n{verdict}\n\n{costs}"
    if parts:
        text += "\n\n" + markdown_table(["memo's write, part", "CPU µs per chunk"], parts)
    result = {
        "chunks": n,
        "memo": {"wall": memo_wall, "cpu": memo_cpu, "bytes": memo_bytes, "tables": tables},
        "memo_array": {"wall": array_wall, "cpu": array_cpu},
        "lancedb": (
            {"wall": lance[0], "cpu": lance[1], "bytes": lance[2]} if lance is not None else None
        ),
        "load": {"before": load_before, "after": load_after},
        "parts": {str(name): cpu for name, cpu in parts},
    }
    write_results("write_path", {"setup": header, **result}, text)
    print(text)


if __name__ == "__main__":
    main()
