"""Query latency at 10k, 100k and 1M chunks, against the floor of the same work done bare.

    python bench/scale.py                         # 10k and 100k chunks
    python bench/scale.py --sizes 10000,100000,1000000 --queries 200

Text: real sentences re-sampled from ../shared/eval/qa/corpus.jsonl (2-5 per chunk).
Vectors: RANDOM unit vectors (384 d), stored, so the run does not wait hours on
embedding; queries are the real answerable questions (their text for the keyword
leg, a random unit vector for the vector leg). Random vectors cost a vector search
exactly what real ones cost; they say nothing about quality (that is
bench/peers_retrieval.py's job).

Files are written by a bulk loader that stores exactly the rows memo's own write
path stores (one transaction, executemany); ``--check`` proves it on a small file
by comparing every search with a file built through ``MemoBase.add_texts``.

Per size: memo hybrid, keyword-only and vector-only (``HybridSearcher.search``
with the query vector given); the bare floor: the same FTS5 MATCH with bm25 and
nothing else, a raw sqlite-vec KNN, and a NumPy brute-force dot product in RAM;
the file size and resident memory. Writes bench/results/scale.json, .md and .png.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import RESULTS, markdown_table, median, percentile, qa_dir, read_jsonl, write_results
from peers_retrieval import cache_dir, random_unit_vectors, resampled_chunks

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.kb import MemoBase
from memo_core.kb.store import sha256
from memo_core.search.hybrid import SearchSettings
from memo_core.search.text import detect_language, fts_match_expression, stem_text

DIMS = 384
OWNER = "default"
COLLECTION = "default"
FINGERPRINT = EmbedderFingerprint("bench", "random-unit-vectors", DIMS, True)


class StoredVectorsOnly:
    """An embedder stub: scale queries always pass their vector, nothing is embedded."""

    dimensions = DIMS
    fingerprint = FINGERPRINT

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        raise RuntimeError("the scale benchmark stores precomputed vectors")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("the scale benchmark passes query vectors")


# -- building the files -------------------------------------------------------


def bulk_load(kb: MemoBase, texts: Sequence[str], ids: Sequence[str], vectors: np.ndarray) -> None:
    """The rows ``add_texts(texts, ids=ids, vectors=vectors)`` writes, in bulk.

    One document per text with one chunk spanning it (chunk id = document id), its
    FTS row (raw and stemmed) and its vector, like ``MemoBase.add_texts`` with
    precomputed vectors; ``--check`` compares the two on a small file.
    """
    store, db = kb.store, kb.db
    table = store.vector_table
    assert table is not None, "the base needs a vector table (sqlite-vec)"
    now = "2026-01-01T00:00:00+00:00"
    batch = 5000
    with db.transaction():
        first = int(db.query_one("SELECT coalesce(max(rowid), 0) FROM documents")[0]) + 1
        first_chunk = int(db.query_one("SELECT coalesce(max(rowid), 0) FROM chunks")[0]) + 1
        for start in range(0, len(texts), batch):
            part = range(start, min(len(texts), start + batch))
            docs, chunks, fts, vecs = [], [], [], []
            for i in part:
                text, doc_id = texts[i], ids[i]
                digest = sha256(text)
                doc_rowid, chunk_rowid = first + i, first_chunk + i
                meta = json.dumps({"source": "", "title": ""})
                docs.append(
                    (
                        doc_rowid,
                        doc_id,
                        OWNER,
                        COLLECTION,
                        "",
                        "",
                        "text",
                        digest,
                        text,
                        "{}",
                        now,
                        now,
                    )
                )
                chunks.append(
                    (
                        chunk_rowid,
                        doc_id,
                        doc_rowid,
                        OWNER,
                        COLLECTION,
                        0,
                        0,
                        len(text),
                        text,
                        "{}",
                        meta,
                        digest,
                    )
                )
                fts.append((chunk_rowid, text, stem_text(text, detect_language(text))))
                vecs.append((chunk_rowid, OWNER, COLLECTION, vectors[i].tobytes()))
            db.executemany(
                "INSERT INTO documents (rowid, id, owner, collection, source, title, kind,"
                " content_hash, text, metadata, created_at, updated_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                docs,
            )
            db.executemany(
                'INSERT INTO chunks (rowid, id, doc_rowid, owner, collection, ord, start, "end",'
                " text, locator, metadata, content_hash) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                chunks,
            )
            db.executemany("INSERT INTO chunks_fts (rowid, raw, stemmed) VALUES (?, ?, ?)", fts)
            db.executemany(
                f"INSERT INTO {table} (chunk_rowid, owner, collection, embedding)"
                " VALUES (?, ?, ?, ?)",
                vecs,
            )


def corpus_texts() -> list[str]:
    return [p["text"] for p in read_jsonl(qa_dir() / "corpus.jsonl")]


def build(size: int, folder: Path) -> tuple[Path, np.ndarray, float]:
    """The file for ``size`` chunks (re-used when already built), its vectors, build seconds."""
    path = folder / f"scale-{size}.db"
    vectors = random_unit_vectors(size, DIMS, seed=size)
    if path.exists() and (folder / f"scale-{size}.ok").exists():
        return path, vectors, float((folder / f"scale-{size}.ok").read_text())
    path.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    texts = resampled_chunks(corpus_texts(), size, seed=size)
    start = time.perf_counter()
    kb = MemoBase(path, embedder=StoredVectorsOnly())
    bulk_load(kb, texts, [f"c{i:07d}" for i in range(size)], vectors)
    kb.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    kb.close()
    seconds = time.perf_counter() - start
    (folder / f"scale-{size}.ok").write_text(str(seconds))
    return path, vectors, seconds


# -- measuring ------------------------------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def timings(legs: dict[str, Callable[[int], Any]], n: int) -> dict[str, list[float]]:
    """Per-query latency of each leg, run round-robin (query i on every leg, then i+1),
    so that load from elsewhere on the machine falls on all legs alike."""
    for i in range(min(3, n)):
        for fn in legs.values():
            fn(i)  # warm the page cache and statement cache
    out: dict[str, list[float]] = {name: [] for name in legs}
    for i in range(n):
        for name, fn in legs.items():
            t0 = time.perf_counter()
            fn(i)
            out[name].append((time.perf_counter() - t0) * 1000.0)
    return out


def stats(values: list[float]) -> dict[str, float]:
    return {"p50_ms": median(values), "p95_ms": percentile(values, 95)}


def measure(
    size: int, folder: Path, questions: list[str], depth: int, quantized: bool = False
) -> dict[str, Any]:
    path, vectors, build_s = build(size, folder)
    qvecs = random_unit_vectors(len(questions), DIMS, seed=size + 1)
    rss0 = _status_kib("VmRSS")
    kb = MemoBase(path, embedder=StoredVectorsOnly())
    db, table = kb.db, kb.store.vector_table
    n = len(questions)
    qlists = [v.tolist() for v in qvecs]
    blobs = [array("f", v).tobytes() for v in qlists]
    exprs = [fts_match_expression(q) for q in questions]

    def memo(base: MemoBase, mode: str) -> Callable[[int], Any]:
        return lambda i: base.searcher.search(
            questions[i], owner=OWNER, k=10, mode=mode, query_vector=qlists[i]
        )

    for i in range(min(20, n)):  # the default base's working set: page cache, statements
        memo(kb, "hybrid")(i)
    memo_rss_mib = max(0.0, (_status_kib("VmRSS") - rss0) / 1024)
    ram = MemoBase(
        path, embedder=StoredVectorsOnly(), settings=SearchSettings(vector_index="memory")
    )
    rss1 = _status_kib("VmRSS")
    start = time.perf_counter()
    memo(ram, "vector")(0)  # the first query loads the vectors into RAM
    load_s = time.perf_counter() - start
    ram_mib = (_status_kib("VmRSS") - rss1) / 1024
    legs = timings(
        {
            "memo hybrid": memo(kb, "hybrid"),
            "memo keyword": memo(kb, "keyword"),
            "memo vector": memo(kb, "vector"),
            "memo hybrid (vector_index=memory)": memo(ram, "hybrid"),
            "memo vector (vector_index=memory)": memo(ram, "vector"),
            "bare FTS5": lambda i: db.query(
                "SELECT rowid, bm25(chunks_fts, 1.0, 0.6) AS s FROM chunks_fts"
                " WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
                [exprs[i], depth],
            ),
            "bare sqlite-vec KNN": lambda i: db.query(
                f"SELECT chunk_rowid, distance FROM {table}"
                " WHERE embedding MATCH ? AND k = ? ORDER BY distance",
                [blobs[i], depth],
            ),
            "bare NumPy dot (RAM)": lambda i: np.argpartition(-(vectors @ qvecs[i]), depth)[:depth],
        },
        n,
    )
    ram.close()
    legs["bare FTS5 + KNN"] = _add(legs["bare FTS5"], legs["bare sqlite-vec KNN"])
    legs["bare FTS5 + NumPy"] = _add(legs["bare FTS5"], legs["bare NumPy dot (RAM)"])
    out: dict[str, Any] = {name: stats(v) for name, v in legs.items()}
    if quantized:
        out["sqlite-vec bit[] KNN + float re-score"] = quantized_leg(
            db, table, vectors, qvecs, depth
        )
    out["overhead_vs_bare"] = out["memo hybrid"]["p50_ms"] / out["bare FTS5 + KNN"]["p50_ms"]
    out["overhead_vs_bare_memory"] = (
        out["memo hybrid (vector_index=memory)"]["p50_ms"] / out["bare FTS5 + NumPy"]["p50_ms"]
    )
    out["file_mib"] = path.stat().st_size / 2**20
    out["memo_rss_growth_mib"] = memo_rss_mib
    out["memory_index_rss_mib"] = ram_mib
    out["memory_index_load_s"] = load_s
    out["build_seconds"] = build_s
    kb.close()
    return out


def _add(a: list[float], b: list[float]) -> list[float]:
    return [x + y for x, y in zip(a, b, strict=True)]


def quantized_leg(
    db: Any, table: str, vectors: np.ndarray, qvecs: np.ndarray, depth: int, oversample: int = 10
) -> dict[str, float]:
    """sqlite-vec's binary quantisation: hamming KNN of depth x oversample, then exact
    float re-scoring of those; recall@depth against the exact neighbours."""
    db.execute("DROP TABLE IF EXISTS temp.vbits")
    db.execute(f"CREATE VIRTUAL TABLE temp.vbits USING vec0(embedding bit[{DIMS}])")
    db.execute(
        f"INSERT INTO temp.vbits (rowid, embedding) SELECT chunk_rowid,"
        f" vec_quantize_binary(embedding) FROM {table}"
    )
    latencies, recalls = [], []
    for q in qvecs:
        blob = q.tobytes()
        t0 = time.perf_counter()
        rows = db.query(
            f"SELECT b.rowid, vec_distance_cosine(v.embedding, ?) AS d FROM"
            " (SELECT rowid FROM temp.vbits WHERE embedding MATCH vec_quantize_binary(?)"
            f" AND k = ?) b JOIN {table} v ON v.chunk_rowid = b.rowid ORDER BY d LIMIT ?",
            [blob, blob, depth * oversample, depth],
        )
        latencies.append((time.perf_counter() - t0) * 1000.0)
        exact = set((np.argpartition(-(vectors @ q), depth)[:depth] + 1).tolist())
        recalls.append(len(exact & {int(r[0]) for r in rows}) / depth)
    db.execute("DROP TABLE temp.vbits")
    return {**stats(latencies), "recall_vs_exact": sum(recalls) / len(recalls)}


def questions_text(n: int) -> list[str]:
    qs = [
        q["question"] for q in read_jsonl(qa_dir() / "questions.jsonl") if q["kind"] == "answerable"
    ]
    return random.Random(3).sample(qs, min(n, len(qs)))


def check_bulk_load(folder: Path, size: int = 200, queries: int = 20) -> int:
    """Build ``size`` chunks both ways; every search must agree. Returns searches compared."""
    texts = resampled_chunks(corpus_texts(), size, seed=5)
    ids = [f"c{i:07d}" for i in range(size)]
    vectors = random_unit_vectors(size, DIMS, seed=6)
    bulk = MemoBase(folder / "bulk.db", embedder=StoredVectorsOnly())
    bulk_load(bulk, texts, ids, vectors)
    real = MemoBase(folder / "real.db", embedder=StoredVectorsOnly())
    real.add_texts(texts, ids=ids, vectors=vectors.tolist())
    compared = 0
    qvecs = random_unit_vectors(queries, DIMS, seed=7)
    for question, qvec in zip(questions_text(queries), qvecs, strict=False):
        for mode in ("keyword", "vector", "hybrid"):
            got = [
                [(h.chunk_id, h.document_id, h.text, h.metadata, round(h.score, 6)) for h in hits]
                for hits in (
                    kb.searcher.search(
                        question, owner=OWNER, k=10, mode=mode, query_vector=qvec.tolist()
                    )
                    for kb in (bulk, real)
                )
            ]
            if got[0] != got[1]:
                raise AssertionError(f"bulk-loaded file differs on {question!r} ({mode})")
            compared += 1
    bulk.close()
    real.close()
    return compared


LEGS = (
    "memo hybrid",
    "memo keyword",
    "memo vector",
    "memo hybrid (vector_index=memory)",
    "memo vector (vector_index=memory)",
    "bare FTS5",
    "bare sqlite-vec KNN",
    "bare NumPy dot (RAM)",
    "bare FTS5 + KNN",
    "bare FTS5 + NumPy",
    "sqlite-vec bit[] KNN + float re-score",
)
HYBRIDS = ("memo hybrid", "memo hybrid (vector_index=memory)")


def targets(results: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for size, r in sorted(results.items(), key=lambda kv: int(kv[0])):
        for key, ref in (
            ("overhead_vs_bare", "FTS5 + KNN"),
            ("overhead_vs_bare_memory", "FTS5 + NumPy"),
        ):
            verdict = "met" if r[key] <= 1.3 else "MISSED"
            out.append(
                f"{int(size):,} chunks: hybrid / bare {ref} = {r[key]:.2f}x (target <= 1.3x): {verdict}"
            )
        limit = {100_000: 50.0, 1_000_000: 300.0}.get(int(size))
        if limit is not None:
            for leg in HYBRIDS:
                p50 = r[leg]["p50_ms"]
                verdict = "met" if p50 < limit else "MISSED"
                out.append(
                    f"{int(size):,} chunks: {leg} p50 {p50:.1f} ms (target < {limit:.0f} ms): {verdict}"
                )
    return out


def report(results: dict[str, dict[str, Any]], queries: int) -> str:
    sizes = sorted(results, key=int)
    headers = ["leg"] + [f"{int(s):,} {q}" for s in sizes for q in ("p50 ms", "p95 ms")]
    rows = []
    for leg in LEGS:
        if not any(leg in results[s] for s in sizes):
            continue
        row: list[Any] = [leg]
        for s in sizes:
            r = results[s].get(leg)
            row += [f"{r['p50_ms']:.2f}", f"{r['p95_ms']:.2f}"] if r else ["", ""]
        rows.append(row)
    facts = [
        ["queries timed"] + [str(results[s].get("queries", queries)) for s in sizes],
        ["measured at (UTC)"] + [str(results[s].get("measured_at", "")) for s in sizes],
        ["file MiB"] + [f"{results[s]['file_mib']:.0f}" for s in sizes],
        ["build s (bulk loader)"] + [f"{results[s]['build_seconds']:.0f}" for s in sizes],
        ["memo RSS growth MiB (sqlite-vec leg)"]
        + [f"{results[s]['memo_rss_growth_mib']:.0f}" for s in sizes],
        ["in-RAM index RSS MiB"] + [f"{results[s]['memory_index_rss_mib']:.0f}" for s in sizes],
        ["in-RAM index load s (first query)"]
        + [f"{results[s]['memory_index_load_s']:.2f}" for s in sizes],
        ["hybrid / bare FTS5 + KNN"] + [f"{results[s]['overhead_vs_bare']:.2f}x" for s in sizes],
        ["hybrid (memory) / bare FTS5 + NumPy"]
        + [f"{results[s]['overhead_vs_bare_memory']:.2f}x" for s in sizes],
    ]
    quant = [
        f"- {int(s):,} chunks: sqlite-vec bit[] KNN (10x oversampled) + float re-score recall@40 vs exact "
        f"{results[s]['sqlite-vec bit[] KNN + float re-score']['recall_vs_exact']:.3f}"
        for s in sizes
        if "sqlite-vec bit[] KNN + float re-score" in results[s]
    ]
    header = (
        "Queries per size in the table below (real questions for the keyword leg; RANDOM unit query vectors "
        "against stored RANDOM unit chunk vectors, 384 d, for the vector leg: timing only, no "
        "quality). Text: real sentences re-sampled from the QA corpus. k=10, 40 candidates a leg. "
        "Latency per query, one at a time, wall clock."
    )
    return "\n\n".join(
        [
            header,
            markdown_table(headers, rows),
            markdown_table(["size"] + [f"{int(s):,}" for s in sizes], facts),
            "\n".join(f"- {t}" for t in targets(results)),
            "\n".join(quant),
        ]
    ).strip()


def plot(results: dict[str, dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(results, key=int)
    x = [int(s) for s in sizes]
    fig, ax = plt.subplots(figsize=(8, 5))
    for leg, style in (
        ("memo hybrid", "o-"),
        ("memo hybrid (vector_index=memory)", "s-"),
        ("bare FTS5", "^--"),
        ("bare sqlite-vec KNN", "v--"),
        ("bare NumPy dot (RAM)", "d--"),
    ):
        ax.plot(x, [results[s][leg]["p50_ms"] for s in sizes], style, label=leg)
    for limit, at in ((50, 100_000), (300, 1_000_000)):
        if at in x:
            ax.plot([at], [limit], "r*", markersize=12)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks")
    ax.set_ylabel("p50 query latency, ms (red stars: targets)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workdir", default=str(cache_dir() / "scale"), help="built files")
    parser.add_argument("--quantized", action="store_true", help="also time sqlite-vec bit[] KNN")
    parser.add_argument(
        "--fresh", action="store_true", help="forget sizes measured by earlier runs"
    )
    parser.add_argument("--check", action="store_true", help="verify the bulk loader, exit")
    args = parser.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"bulk loader agrees with add_texts on {check_bulk_load(Path(tmp))} searches")
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    folder = Path(args.workdir)
    folder.mkdir(parents=True, exist_ok=True)
    questions = questions_text(args.queries)
    previous = RESULTS / "scale.json"
    results: dict[str, dict[str, Any]] = {}
    if previous.exists() and not args.fresh:  # a 1M run can be added to an earlier 10k/100k one
        results = json.loads(previous.read_text()).get("sizes", {})
    for size in sizes:
        print(f"{size:,} chunks ...", flush=True)
        results[str(size)] = measure(size, folder, questions, 40, quantized=args.quantized)
        results[str(size)]["measured_at"] = time.strftime("%Y-%m-%d %H:%M")
        results[str(size)]["queries"] = args.queries
    md = report(results, args.queries)
    write_results(
        "scale", {"queries": args.queries, "sizes": results, "targets": targets(results)}, md
    )
    plot(results, RESULTS / "scale.png")
    print(md)


if __name__ == "__main__":
    main()
