"""Query latency at 10k, 100k and 1M chunks, against the floor of the same work done bare.

    python bench/scale.py --fresh                 # 10k and 100k chunks
    python bench/scale.py --sizes 1000000 --queries 100   # adds 1M to the earlier run

Text: real sentences re-sampled from ../shared/eval/qa/corpus.jsonl (2-5 per chunk).
Vectors: each chunk stores the normalised sum of its sentences' real embeddings
(MiniLM int8, 384 d; every sentence embedded once and cached), a stand-in for
embedding a million chunks, which would take hours on this machine. Unlike random
vectors it keeps the neighbourhood structure of text embeddings, which an
approximate (HNSW) index relies on: on random 384-d vectors HNSW finds under 40%
of the true neighbours at any useful speed. Queries are real answerable questions:
their text for the keyword leg, their real embedding for the vector leg.

Files are written through memo's public bulk insert (``KnowledgeStore.insert_documents``,
the rows ``MemoBase.add_texts`` writes, each table filled by one statement per batch);
``--check`` proves it on a small file by comparing every search with a file built
through ``MemoBase.add_texts``.

Per size: memo hybrid, keyword-only and vector-only (``HybridSearcher.search``
with the query vector given) with the default sqlite-vec leg, the HNSW index
(``vector_index="hnsw"``, its recall@10/@40 against exact search, build and load
time) and the in-RAM NumPy copy (``vector_index="memory"``); the bare floor: the
same FTS5 MATCH with bm25 and nothing else, a raw sqlite-vec KNN, and a NumPy
brute-force dot product in RAM; the file size and resident memory. Writes
bench/results/scale.json, .md and .png.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import RESULTS, markdown_table, median, percentile, qa_dir, read_jsonl, write_results
from peers_retrieval import (
    cache_dir,
    distractor_chunks,
    embed_once,
    random_unit_vectors,
    resampled_chunks,
    sentences_of,
)

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.kb import MemoBase
from memo_core.kb.store import ChunkInput, DocumentWrite
from memo_core.search.ann_graphs import pick_engine
from memo_core.search.ann_index import AnnParameters
from memo_core.search.hybrid import SearchSettings
from memo_core.search.keyword import POSTINGS_BUDGET, select_words, word_cost
from memo_core.search.text import fts_match_expression

DIMS = 384
#: The opt-in keyword postings budget measured beside the default (every word).
BUDGET = POSTINGS_BUDGET
KEYWORD_BUDGET = f"memo keyword (keyword_postings_budget={BUDGET})"
HNSW_BUDGET = f"memo hybrid (hnsw, keyword_postings_budget={BUDGET})"
KW_MEMORY = "memo keyword (keyword_index=memory)"
HYBRID_KW_MEMORY = "memo hybrid (keyword_index=memory)"
HYBRID_FAST = "memo hybrid (hnsw, keyword_index=memory)"
HYBRID_EXACT_RAM = "memo hybrid (vector_index=memory, keyword_index=memory)"
OWNER = "default"
COLLECTION = "default"
FINGERPRINT = EmbedderFingerprint("bench", "sentence-mean-minilm-int8", DIMS, True)


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
    """What ``add_texts(texts, ids=ids, vectors=vectors)`` stores, through the public
    bulk insert (``KnowledgeStore.insert_documents``: the same rows, each table filled
    by one statement per batch); ``--check`` compares the two on a small file."""
    batch = 5000
    for start in range(0, len(texts), batch):
        kb.store.insert_documents(
            [
                DocumentWrite(
                    owner=OWNER,
                    collection=COLLECTION,
                    document_id=ids[i],
                    text=texts[i],
                    chunks=[ChunkInput(texts[i], 0, len(texts[i]), id=ids[i])],
                    vectors=[vectors[i].tobytes()],
                )
                for i in range(start, min(len(texts), start + batch))
            ]
        )


def corpus_texts() -> list[str]:
    return [p["text"] for p in read_jsonl(qa_dir() / "corpus.jsonl")]


#: Where sentence and question vectors come from: "sentences" (the real MiniLM int8
#: model, what ``python bench/scale.py`` uses) or "hash" (the offline HashEmbedder:
#: fast and deterministic, what importing code such as the smoke test gets).
VECTOR_SOURCE = "hash"


def _embedder() -> Any:
    from memo_core.embedders import HashEmbedder, default_local_embedder

    return default_local_embedder() if VECTOR_SOURCE == "sentences" else HashEmbedder(DIMS)


def sentence_pool() -> tuple[list[str], np.ndarray]:
    """Every corpus sentence and its real embedding (computed once, cached on disk)."""
    pool = sentences_of(corpus_texts())
    vectors, _ = embed_once(_embedder(), pool, [])
    return pool, vectors


def chunks_with_vectors(size: int, seed: int) -> tuple[list[str], np.ndarray]:
    """``size`` chunks of 2-5 corpus sentences, each with the normalised sum of its
    sentences' real embeddings: a stand-in for embedding the chunk that keeps the
    neighbourhood structure of text embeddings (what an approximate index relies
    on), unlike random vectors, at no embedding cost."""
    pool, sentence_vecs = sentence_pool()
    rng = random.Random(seed)
    texts: list[str] = []
    vectors = np.empty((size, sentence_vecs.shape[1]), dtype=np.float32)
    for i in range(size):
        picked = rng.choices(range(len(pool)), k=rng.randint(2, 5))
        texts.append(" ".join(pool[j] for j in picked))
        vectors[i] = sentence_vecs[picked].sum(axis=0)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return texts, vectors


def build(size: int, folder: Path) -> tuple[Path, np.ndarray, float]:
    """The file for ``size`` chunks (re-used when already built), its vectors, build seconds."""
    prefix = "scale2" if VECTOR_SOURCE == "sentences" else f"scale2-{VECTOR_SOURCE}"
    path = folder / f"{prefix}-{size}.db"
    ok = folder / f"{prefix}-{size}.ok"
    texts, vectors = chunks_with_vectors(size, seed=size)
    if path.exists() and ok.exists():
        return path, vectors, float(ok.read_text())
    for suffix in ("", "-wal", "-shm", ".hnsw", ".hnsw.json"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    start = time.perf_counter()
    kb = MemoBase(path, embedder=StoredVectorsOnly())
    bulk_load(kb, texts, [f"c{i:07d}" for i in range(size)], vectors)
    kb.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    kb.close()
    seconds = time.perf_counter() - start
    ok.write_text(str(seconds))
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


def query_vectors(questions: list[str]) -> np.ndarray:
    """Real embeddings of the questions (MiniLM int8, computed once, cached)."""
    _, qvecs = embed_once(_embedder(), [], questions)
    return np.asarray(qvecs, dtype=np.float32)


#: The indexes kept beside a file: the settings that use one, and the searcher's
#: method that loads or builds it.
SIDE_INDEXES = {
    "hnsw": ({"vector_index": "hnsw"}, "prepare_vector_index"),
    "kwidx": ({"keyword_index": "memory"}, "prepare_keyword_index"),
}


def saved_index(path: Path, kind: str, **extra: Any) -> tuple[MemoBase, dict[str, Any]]:
    """A base whose ``kind`` index (see SIDE_INDEXES) is loaded from beside the file
    (built once per file, the build timed and remembered beside it), with ``extra``
    settings; its build, load, file and RAM figures, and the index's own status."""
    settings, prepare = SIDE_INDEXES[kind]
    built = Path(f"{path}.{kind}-build-s")
    if not built.exists():
        for suffix in (f".{kind}", f".{kind}.json"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        kb = MemoBase(path, embedder=StoredVectorsOnly(), settings=SearchSettings(**settings))
        start = time.perf_counter()
        status = getattr(kb.searcher, prepare)()
        assert status is not None and status["builds"] == 1
        built.write_text(str(time.perf_counter() - start))
        kb.close()
    rss0 = _status_kib("VmRSS")
    kb = MemoBase(path, embedder=StoredVectorsOnly(), settings=SearchSettings(**settings, **extra))
    start = time.perf_counter()
    status = getattr(kb.searcher, prepare)()
    load_s = time.perf_counter() - start
    assert status is not None and status["builds"] == 0, "the saved index was not reused"
    return kb, {
        f"{kind}_build_s": float(built.read_text()),
        f"{kind}_load_s": load_s,
        f"{kind}_rss_mib": max(0.0, (_status_kib("VmRSS") - rss0) / 1024),
        f"{kind}_file_mib": Path(f"{path}.{kind}").stat().st_size / 2**20,
        "status": status,
    }


def hnsw_index(path: Path) -> tuple[MemoBase, dict[str, Any]]:
    """A base with ``vector_index="hnsw"``, its index loaded; build, load and RAM figures."""
    kb, facts = saved_index(path, "hnsw")
    status = facts.pop("status")
    facts["hnsw_parameters"] = status["parameters"]
    # The graph library's own count: an RSS delta reads 0 when the build just freed as much.
    facts["hnsw_memory_mib"] = status["memory_bytes"] / 2**20
    del facts["hnsw_rss_mib"]
    return kb, facts


def keyword_index(path: Path, **extra: Any) -> tuple[MemoBase, dict[str, Any]]:
    """A base with ``keyword_index="memory"``, its index loaded; build, load and RAM figures."""
    kb, facts = saved_index(path, "kwidx", **extra)
    # Its arrays' size: an RSS delta reads 0 when the build just freed as much.
    facts["kwidx_memory_mib"] = facts.pop("status")["memory_bytes"] / 2**20
    del facts["kwidx_rss_mib"]
    return kb, facts


def keyword_parity(
    base: MemoBase, memory: MemoBase, questions: list[str], depth: int
) -> dict[str, int]:
    """How many questions the in-RAM keyword index answers itself (the rest hold a
    phrase and run in FTS5), and for how many of those its top ``depth`` differs from
    FTS5's by more than the order of equal scores."""
    index = memory.searcher._keywords
    assert index is not None
    answered = differ = 0
    for q in questions:
        with memory.store.reading():
            got = index.candidates(OWNER, q, depth)
        if got is None:
            continue
        answered += 1
        want = base.store.keyword_candidates(OWNER, q, depth)
        a, b = dict(want), dict(got)
        edge = want[-1][1] if want else 0.0
        # Chunks in one list only must tie with the last kept score; shared ones agree.
        only = [a.get(r, b.get(r, 0.0)) for r in set(a) ^ set(b)]
        if any(abs(v - edge) > 1e-9 for v in only) or any(
            abs(a[r] - b[r]) > 1e-9 for r in set(a) & set(b)
        ):
            differ += 1
    return {"keyword_memory_answered": answered, "keyword_memory_differs": differ}


def recall(kb: MemoBase, vectors: np.ndarray, qvecs: np.ndarray, k: int) -> float:
    """Share of the exact ``k`` nearest chunks (NumPy over the same vectors) that
    memo's vector leg returns with ``k`` asked."""
    found = []
    for q in qvecs:
        exact = np.argpartition(-(vectors @ q), k)[:k]
        hits = kb.searcher.search("", owner=OWNER, k=k, mode="vector", query_vector=q.tolist())
        got = {int(h.chunk_id[1:]) for h in hits}
        found.append(len(got & set(exact.tolist())) / k)
    return float(np.mean(found))


def measure(
    size: int,
    folder: Path,
    questions: list[str],
    depth: int,
    quantized: bool = False,
    hnsw_limit: int = 200_000,
) -> dict[str, Any]:
    path, vectors, build_s = build(size, folder)
    qvecs = query_vectors(questions)
    rss0 = _status_kib("VmRSS")
    kb = MemoBase(path, embedder=StoredVectorsOnly())
    db, table = kb.db, kb.store.vector_table
    n = len(questions)
    qlists = [v.tolist() for v in qvecs]
    blobs = [array("f", v).tobytes() for v in qlists]
    # The bare floor runs the same FTS5 query memo runs: every word by default, or its
    # rarest words within a postings budget (memo_core/search/keyword.py).
    exprs = [fts_match_expression(q) for q in questions]
    with kb.store.reading():
        trimmed_exprs = [rarest_expression(kb, q) for q in questions]
    trimmed = sum(a != b for a, b in zip(exprs, trimmed_exprs, strict=True))

    def memo(base: MemoBase, mode: str) -> Callable[[int], Any]:
        return lambda i: base.searcher.search(
            questions[i], owner=OWNER, k=10, mode=mode, query_vector=qlists[i]
        )

    def fts(expressions: list[str | None]) -> Callable[[int], Any]:
        return lambda i: db.query(
            "SELECT rowid, bm25(chunks_fts, 1.0, 0.6) AS s FROM chunks_fts"
            " WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
            [expressions[i], depth],
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
    budgeted = MemoBase(
        path,
        embedder=StoredVectorsOnly(),
        settings=SearchSettings(keyword_postings_budget=BUDGET),
    )
    hnsw_legs: dict[str, Callable[[int], Any]] = {}
    hnsw: MemoBase | None = None
    hnsw_facts: dict[str, Any] = {}
    if size <= hnsw_limit or Path(str(path) + ".hnsw-build-s").exists():
        hnsw, hnsw_facts = hnsw_index(path)
        hnsw_budgeted = MemoBase(
            path,
            embedder=StoredVectorsOnly(),
            settings=SearchSettings(vector_index="hnsw", keyword_postings_budget=BUDGET),
        )
        hnsw_budgeted.searcher.prepare_vector_index()
        hnsw_legs = {
            "memo hybrid (vector_index=hnsw)": memo(hnsw, "hybrid"),
            HNSW_BUDGET: memo(hnsw_budgeted, "hybrid"),
            "memo vector (vector_index=hnsw)": memo(hnsw, "vector"),
        }
    kw_memory, kw_facts = keyword_index(path)
    kw_facts.update(keyword_parity(kb, kw_memory, questions, depth))
    kw_ram, _ = keyword_index(path, vector_index="memory")
    kw_ram.searcher.prepare_vector_index()
    fast_legs: dict[str, Callable[[int], Any]] = {}
    if hnsw is not None:
        kw_hnsw, _ = keyword_index(path, vector_index="hnsw")
        kw_hnsw.searcher.prepare_vector_index()
        fast_legs[HYBRID_FAST] = memo(kw_hnsw, "hybrid")
    legs = timings(
        {
            "memo hybrid": memo(kb, "hybrid"),
            KW_MEMORY: memo(kw_memory, "keyword"),
            HYBRID_KW_MEMORY: memo(kw_memory, "hybrid"),
            **fast_legs,
            HYBRID_EXACT_RAM: memo(kw_ram, "hybrid"),
            "memo keyword": memo(kb, "keyword"),
            KEYWORD_BUDGET: memo(budgeted, "keyword"),
            "memo vector": memo(kb, "vector"),
            **hnsw_legs,
            "memo hybrid (vector_index=memory)": memo(ram, "hybrid"),
            "memo vector (vector_index=memory)": memo(ram, "vector"),
            "bare FTS5": fts(exprs),
            "bare FTS5, rarest words within budget": fts(trimmed_exprs),
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
    if hnsw is not None:
        out["hnsw_recall@10"] = recall(hnsw, vectors, qvecs, 10)
        out["hnsw_recall@40"] = recall(hnsw, vectors, qvecs, 40)
        out["overhead_vs_bare_hnsw"] = out["memo hybrid (vector_index=hnsw)"]["p50_ms"] / (
            out["bare FTS5"]["p50_ms"] + out["memo vector (vector_index=hnsw)"]["p50_ms"]
        )
        out.update(hnsw_facts)
        out["overhead_vs_legs_fast"] = out[HYBRID_FAST]["p50_ms"] / (
            out[KW_MEMORY]["p50_ms"] + out["memo vector (vector_index=hnsw)"]["p50_ms"]
        )
        hnsw.close()
    out.update(kw_facts)
    kw_memory.close()
    kw_ram.close()
    budgeted.close()
    out["keyword_queries_trimmed"] = trimmed
    out["file_mib"] = path.stat().st_size / 2**20
    out["memo_rss_growth_mib"] = memo_rss_mib
    out["memory_index_rss_mib"] = ram_mib
    out["memory_index_load_s"] = load_s
    out["build_seconds"] = build_s
    kb.close()
    return out


def rarest_expression(kb: MemoBase, query: str) -> str | None:
    """The FTS5 expression of ``query``'s rarest words within :data:`BUDGET`, as memo's
    keyword leg chooses them (``search/keyword.py``)."""

    def rarest(words: list[list[str]], stems: list[list[str]]) -> list[int]:
        pairs = list(zip(words, stems, strict=True))
        counts = kb.store.document_frequencies([t for w, st in pairs for t in (*w, *st)])
        return select_words([word_cost(w, st, counts) for w, st in pairs], budget=BUDGET)

    return fts_match_expression(query, keep=rarest)


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
    KEYWORD_BUDGET,
    "memo vector",
    KW_MEMORY,
    HYBRID_KW_MEMORY,
    "memo hybrid (vector_index=hnsw)",
    HNSW_BUDGET,
    HYBRID_FAST,
    "memo vector (vector_index=hnsw)",
    "memo hybrid (vector_index=memory)",
    HYBRID_EXACT_RAM,
    "memo vector (vector_index=memory)",
    "bare FTS5",
    "bare FTS5, rarest words within budget",
    "bare sqlite-vec KNN",
    "bare NumPy dot (RAM)",
    "bare FTS5 + KNN",
    "bare FTS5 + NumPy",
    "sqlite-vec bit[] KNN + float re-score",
)
HYBRIDS = (
    "memo hybrid",
    "memo hybrid (vector_index=hnsw)",
    HNSW_BUDGET,
    "memo hybrid (vector_index=memory)",
    HYBRID_KW_MEMORY,
    HYBRID_FAST,
    HYBRID_EXACT_RAM,
)


def targets(results: dict[str, dict[str, Any]]) -> list[str]:
    out = []
    for size, r in sorted(results.items(), key=lambda kv: int(kv[0])):
        for key, ref in (
            ("overhead_vs_bare", "FTS5 + KNN"),
            ("overhead_vs_bare_hnsw", "FTS5 + memo vector (hnsw)"),
            ("overhead_vs_bare_memory", "FTS5 + NumPy"),
            ("overhead_vs_legs_fast", "legs (hnsw + keyword_index=memory)"),
        ):
            if key not in r:
                continue
            verdict = "met" if r[key] <= 1.3 else "MISSED"
            out.append(
                f"{int(size):,} chunks: hybrid / bare {ref} = {r[key]:.2f}x (target <= 1.3x): {verdict}"
            )
        limit = {100_000: 50.0, 1_000_000: 300.0}.get(int(size))
        if limit is not None:
            for leg in HYBRIDS:
                if leg not in r:
                    continue
                p50 = r[leg]["p50_ms"]
                verdict = "met" if p50 < limit else "MISSED"
                out.append(
                    f"{int(size):,} chunks: {leg} p50 {p50:.1f} ms (target < {limit:.0f} ms): {verdict}"
                )
    return out


#: The per-size facts under the latency table: (label, result key, format).
FACTS = (
    ("keyword queries trimmed to their rarest words", "keyword_queries_trimmed", "{}"),
    ("file MiB", "file_mib", "{:.0f}"),
    ("build s (bulk loader)", "build_seconds", "{:.0f}"),
    ("memo RSS growth MiB (sqlite-vec leg)", "memo_rss_growth_mib", "{:.0f}"),
    ("HNSW recall@10 vs exact", "hnsw_recall@10", "{:.3f}"),
    ("HNSW recall@40 vs exact", "hnsw_recall@40", "{:.3f}"),
    ("HNSW build s (once per file)", "hnsw_build_s", "{:.0f}"),
    ("HNSW load s (saved index)", "hnsw_load_s", "{:.2f}"),
    ("HNSW file MiB", "hnsw_file_mib", "{:.0f}"),
    ("HNSW RAM MiB (the graph library's count)", "hnsw_memory_mib", "{:.0f}"),
    ("in-RAM index RSS MiB", "memory_index_rss_mib", "{:.0f}"),
    ("in-RAM index load s (first query)", "memory_index_load_s", "{:.2f}"),
    ("keyword index build s (once per file)", "kwidx_build_s", "{:.0f}"),
    ("keyword index load s (saved index)", "kwidx_load_s", "{:.2f}"),
    ("keyword index file MiB", "kwidx_file_mib", "{:.0f}"),
    ("keyword index RAM MiB (its arrays)", "kwidx_memory_mib", "{:.0f}"),
    ("keyword queries answered in RAM (the rest ran in FTS5)", "keyword_memory_answered", "{}"),
    ("of those, top 40 unlike FTS5's (ties aside)", "keyword_memory_differs", "{}"),
    ("hybrid / bare FTS5 + KNN", "overhead_vs_bare", "{:.2f}x"),
    ("hybrid (hnsw) / (bare FTS5 + memo vector hnsw)", "overhead_vs_bare_hnsw", "{:.2f}x"),
    ("hybrid (memory) / bare FTS5 + NumPy", "overhead_vs_bare_memory", "{:.2f}x"),
    (
        "hybrid (hnsw, keyword memory) / (its keyword + vector legs)",
        "overhead_vs_legs_fast",
        "{:.2f}x",
    ),
)


def _row(
    label: str, results: dict[str, dict[str, Any]], sizes: list[str], key: str, fmt: str
) -> list[str]:
    return [label, *(fmt.format(results[s][key]) if key in results[s] else "" for s in sizes)]


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
        *(_row(label, results, sizes, key, fmt) for label, key, fmt in FACTS),
    ]
    quant = [
        f"- {int(s):,} chunks: sqlite-vec bit[] KNN (10x oversampled) + float re-score recall@40 vs exact "
        f"{results[s]['sqlite-vec bit[] KNN + float re-score']['recall_vs_exact']:.3f}"
        for s in sizes
        if "sqlite-vec bit[] KNN + float re-score" in results[s]
    ]
    model = "MiniLM-int8" if VECTOR_SOURCE == "sentences" else "HASH-embedder (not a model)"
    ann = AnnParameters()
    header = (
        "Queries per size in the table below: real questions (their text for the keyword leg, "
        f"their {model} embedding for the vector leg). Chunks: 2-5 real sentences re-sampled "
        f"from the QA corpus, each stored with the normalised sum of its sentences' {model} "
        "embeddings (384 d; a stand-in for embedding every chunk, which would take hours here). "
        "k=10, 40 candidates a leg. Latency per query, one at a time, wall clock. HNSW: "
        f"{pick_engine(ann.engine)}, M={ann.connectivity}, efConstruction={ann.expansion_add}, "
        f"ef=max({ann.expansion_search}, 5 x depth), {ann.dtype}."
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
        ("memo hybrid (vector_index=hnsw)", "P-"),
        (HNSW_BUDGET, "X-"),
        ("memo hybrid (vector_index=memory)", "s-"),
        ("bare FTS5", "^--"),
        ("bare sqlite-vec KNN", "v--"),
        ("bare NumPy dot (RAM)", "d--"),
    ):
        have = [s for s in sizes if leg in results[s]]
        if have:
            ax.plot(
                [int(s) for s in have], [results[s][leg]["p50_ms"] for s in have], style, label=leg
            )
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


# -- quality of the keyword options (--quality) --------------------------------


def quality_base(
    folder: Path, chunks: int, asked: int, distractor_vectors: str = "sentences"
) -> tuple[MemoBase, list[dict[str, Any]], Any]:
    """The QA corpus (real vectors) drowned in distractors like peers_retrieval.py's
    100k run (re-sampled sentences of the paragraphs no sampled question is about,
    with the sum of their sentences' embeddings, or ``"random"`` vectors);
    ``chunks=0``: the corpus alone with every question."""
    corpus = list(read_jsonl(qa_dir() / "corpus.jsonl"))
    allq = [q for q in read_jsonl(qa_dir() / "questions.jsonl") if q["kind"] == "answerable"]
    embedder = _embedder()
    docs, qvecs = embed_once(embedder, [p["text"] for p in corpus], [q["question"] for q in allq])
    picked = list(range(len(allq)))
    if chunks:
        picked = random.Random(7).sample(picked, asked)
    fingerprint = embedder.fingerprint

    class Lookup(StoredVectorsOnly):
        fingerprint = embedder.fingerprint

    path = folder / f"quality-{distractor_vectors}-{chunks}-{len(picked)}.db"
    if not path.exists():
        texts, ids, vectors = [p["text"] for p in corpus], [p["id"] for p in corpus], docs
        extra = max(0, chunks - len(corpus))
        if extra:
            gold = {allq[i]["paragraph_id"] for i in picked}
            pool = [p["text"] for p in corpus if p["id"] not in gold]
            ids += [f"x{i:07d}" for i in range(extra)]
            if distractor_vectors == "sentences":
                more, extra_vectors = distractor_chunks(pool, extra, 11, embedder, texts)
            else:
                more = resampled_chunks(pool, extra, seed=11)
                extra_vectors = random_unit_vectors(extra, fingerprint.dimensions, 13)
            texts += more
            vectors = np.vstack([docs, extra_vectors])
        tmp = Path(str(path) + ".tmp")
        for suffix in ("", "-wal", "-shm"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        start = time.perf_counter()
        kb = MemoBase(tmp, embedder=Lookup())
        bulk_load(kb, texts, ids, np.ascontiguousarray(vectors, dtype=np.float32))
        kb.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        kb.close()
        tmp.rename(path)
        # The store time, for the reports that re-use the file (--defaults).
        Path(f"{path}.store-s").write_text(str(time.perf_counter() - start))
    return MemoBase(path, embedder=Lookup()), [allq[i] for i in picked], qvecs[picked]


def mrr(
    kb: MemoBase, questions: list[dict[str, Any]], qvecs: Any, mode: str, **settings: Any
) -> float:
    kb.searcher.settings = SearchSettings(**settings)
    total = 0.0
    for q, v in zip(questions, qvecs, strict=True):
        hits = kb.searcher.search(
            q["question"], owner=OWNER, k=10, mode=mode, query_vector=v.tolist()
        )
        ids = [h.document_id for h in hits]
        total += 1 / (ids.index(q["paragraph_id"]) + 1) if q["paragraph_id"] in ids else 0.0
    return total / len(questions)


def quality(folder: Path, chunks: int, asked: int) -> dict[str, Any]:
    """MRR@10 of the keyword postings budget and of the hybrid keyword cut-off, on the
    corpus alone and among ``chunks`` (the vector leg runs in RAM: same ranking)."""
    out: dict[str, Any] = {}
    for size in (0, chunks):
        kb, questions, qvecs = quality_base(folder, size, asked)
        key = "corpus" if size == 0 else f"{chunks}"
        rows: dict[str, Any] = {"questions": len(questions)}
        for budget in (None, 40_000, BUDGET, 10_000):
            common = {"keyword_postings_budget": budget, "vector_index": "memory"}
            rows[f"budget={budget}"] = {
                "keyword": mrr(kb, questions, qvecs, "keyword", **common),
                "hybrid": mrr(kb, questions, qvecs, "hybrid", **common),
            }
        for cutoff in (0.9, 0.8, 0.7, 0.6, 0.5, 0.0):
            rows[f"cutoff={cutoff}"] = mrr(
                kb, questions, qvecs, "hybrid", keyword_cutoff=cutoff, vector_index="memory"
            )
        if size == 0:  # (the distractors' random vectors say nothing about HNSW recall)
            rows["hnsw"] = {
                m: mrr(kb, questions, qvecs, m, vector_index="hnsw") for m in ("vector", "hybrid")
            }
        out[key] = rows
        kb.close()
    return out


def quality_report(q: dict[str, Any]) -> str:
    keys = list(q)
    head = ["MRR@10"] + [f"{k} ({q[k]['questions']} questions)" for k in keys]
    rows: list[list[Any]] = []
    for budget in (None, 40_000, BUDGET, 10_000):
        for mode in ("keyword", "hybrid"):
            name = "every word" if budget is None else f"keyword_postings_budget={budget}"
            rows.append(
                [f"{mode}, {name}"] + [f"{q[k][f'budget={budget}'][mode]:.3f}" for k in keys]
            )
    for cutoff in (0.9, 0.8, 0.7, 0.6, 0.5, 0.0):
        rows.append(
            [f"hybrid, keyword_cutoff={cutoff}"] + [f"{q[k][f'cutoff={cutoff}']:.3f}" for k in keys]
        )
    for mode in ("vector", "hybrid"):
        rows.append(
            [f"{mode}, vector_index=hnsw"]
            + [f"{q[k]['hnsw'][mode]:.3f}" if "hnsw" in q[k] else "" for k in keys]
        )
    return markdown_table(head, rows)


# -- the defaults at scale (--defaults) ----------------------------------------


def _files_mib(path: Path) -> dict[str, float]:
    """The base's file and the aids saved beside it, MiB each."""
    out = {}
    for suffix in ("", "-wal", ".hnsw", ".kwidx"):
        f = Path(str(path) + suffix)
        if f.exists():
            out[suffix or "db"] = f.stat().st_size / 2**20
    return out


def defaults_run(folder: Path, chunks: int, asked: int, exact_questions: int) -> dict[str, Any]:
    """memo with its default settings among ``chunks`` chunks (the QA corpus drowned
    in peers_retrieval.py's distractors, stored once by the bulk loader and kept):
    the search aids the base switches on by itself (loaded from beside the file, or
    built and timed), then hybrid / keyword / vector p50, p95 and CPU per query,
    interleaved, MRR@10 of each, the HNSW aid's recall@10 against exact search on
    ``exact_questions`` questions (sqlite-vec's exact KNN, about 1 s a query at 1M),
    the file and aids on disk, and the peak memory of this process over it all."""
    out: dict[str, Any] = {"load_before": os.getloadavg()}
    kb, questions, qvecs = quality_base(folder, chunks, asked)
    path = Path(kb.db.path)
    out["store_s"] = float(Path(f"{path}.store-s").read_text())
    kb.close()
    with contextlib.suppress(OSError):  # Linux: "5" resets VmHWM (the build's peak)
        Path("/proc/self/clear_refs").write_text("5")
    rss0 = _status_kib("VmRSS")
    kb, questions, qvecs = quality_base(folder, chunks, asked)
    start = time.perf_counter()
    prepared = kb.prepare_search()
    out["aids_prepare_s"] = time.perf_counter() - start
    aids_file = Path(f"{path}.aids-build-s")
    if not prepared:
        built = "none: the base is below the aids' threshold"
    elif any(a.get("builds", 0) == 0 for a in prepared.values()):
        built = "loaded from beside the file"
    else:
        built = "built in this run"
        aids_file.write_text(str(out["aids_prepare_s"]))
    out["aids"] = {k: {**v, "how": built} for k, v in prepared.items()}
    out["aids_build_s"] = float(aids_file.read_text()) if aids_file.exists() else None
    vectors = [v.tolist() for v in qvecs]

    def leg(mode: str) -> Callable[[int], Any]:
        return lambda i: kb.searcher.search(
            questions[i]["question"], owner=OWNER, k=10, mode=mode, query_vector=vectors[i]
        )

    legs = {f"memo {m} (defaults)": leg(m) for m in ("hybrid", "keyword", "vector")}
    for i in range(min(3, len(questions))):
        for fn in legs.values():
            fn(i)  # warm the page cache and the statements
    wall: dict[str, list[float]] = {n: [] for n in legs}
    cpu: dict[str, list[float]] = {n: [] for n in legs}
    ranks: dict[str, list[int]] = {n: [] for n in legs}
    during = []
    for i, q in enumerate(questions):
        for name, fn in legs.items():
            t0, c0 = time.perf_counter(), time.process_time()
            hits = fn(i)
            wall[name].append((time.perf_counter() - t0) * 1000.0)
            cpu[name].append((time.process_time() - c0) * 1000.0)
            ids = [h.document_id for h in hits]
            ranks[name].append(ids.index(q["paragraph_id"]) + 1 if q["paragraph_id"] in ids else 0)
        if (i + 1) % 25 == 0:
            during.append(os.getloadavg()[0])
            print(f"  {i + 1} of {len(questions)} questions (load {during[-1]:.1f})", flush=True)
    out["legs"] = {
        name: {
            **stats(wall[name]),
            "cpu_p50_ms": median(cpu[name]),
            "mrr@10": sum(1 / r for r in ranks[name] if r) / len(ranks[name]),
            "recall@10": sum(1 for r in ranks[name] if r) / len(ranks[name]),
        }
        for name in legs
    }
    out["load_during"] = during
    if exact_questions:
        exact = MemoBase(
            path,
            embedder=kb.embedder,
            settings=SearchSettings(vector_index="sqlite", keyword_index="sqlite"),
        )
        found = []
        for v in vectors[:exact_questions]:
            want = exact.searcher.search("", owner=OWNER, k=10, mode="vector", query_vector=v)
            got = kb.searcher.search("", owner=OWNER, k=10, mode="vector", query_vector=v)
            found.append(len({h.chunk_id for h in want} & {h.chunk_id for h in got}) / 10)
        out["hnsw_recall@10"] = float(np.mean(found))
        out["hnsw_recall_questions"] = len(found)
        exact.close()
    out["peak_mib"] = (_status_kib("VmHWM") - rss0) / 1024
    out["files_mib"] = _files_mib(path)
    out["chunks"] = kb.store.chunk_total()
    out["questions"] = len(questions)
    out["status"] = kb.searcher.describe_aids()
    kb.close()
    out["load_after"] = os.getloadavg()
    return out


def defaults_report(r: dict[str, Any]) -> str:
    rows = [
        [
            name,
            f"{leg['mrr@10']:.3f}",
            f"{leg['recall@10']:.3f}",
            f"{leg['p50_ms']:.2f}",
            f"{leg['p95_ms']:.2f}",
            f"{leg['cpu_p50_ms']:.2f}",
        ]
        for name, leg in r["legs"].items()
    ]
    table = markdown_table(["leg", "MRR@10", "recall@10", "p50 ms", "p95 ms", "CPU p50 ms"], rows)
    files = r["files_mib"]
    aids = r["aids"]
    hybrid = r["legs"]["memo hybrid (defaults)"]["p50_ms"]
    limit = 50.0
    facts = [
        ["chunks", f"{r['chunks']:,}"],
        ["questions timed", str(r["questions"])],
        ["store s (bulk loader, once)", f"{r['store_s']:.0f}"],
        [
            "search aids build s (HNSW + keyword index, once)",
            f"{r['aids_build_s']:.0f}" if r["aids_build_s"] is not None else "",
        ],
        [
            "search aids prepare s in this run",
            f"{r['aids_prepare_s']:.1f} ({next(iter(aids.values()))['how'] if aids else ''})",
        ],
        ["HNSW parameters", json.dumps(aids.get("vector_index", {}).get("parameters", ""))],
        [
            f"HNSW recall@10 vs exact ({r.get('hnsw_recall_questions', 0)} questions)",
            f"{r['hnsw_recall@10']:.3f}" if "hnsw_recall@10" in r else "not measured",
        ],
        ["file MiB (db + wal)", f"{files.get('db', 0) + files.get('-wal', 0):.0f}"],
        ["HNSW file MiB", f"{files.get('.hnsw', 0):.0f}"],
        ["keyword index file MiB", f"{files.get('.kwidx', 0):.0f}"],
        ["peak memory MiB (this process: aids loaded + queries)", f"{r['peak_mib']:.0f}"],
    ]
    load = ", ".join(f"{x:.1f}" for x in r["load_before"])
    after = ", ".join(f"{x:.1f}" for x in r["load_after"])
    during = ", ".join(f"{x:.1f}" for x in r["load_during"])
    verdict = "met" if hybrid < limit else "MISSED"
    model = "MiniLM-int8" if VECTOR_SOURCE == "sentences" else "HASH-embedder (not a model)"
    return (
        f"memo with its default settings (`MemoBase(path)`, the search aids switched on by "
        f"the base itself) among {r['chunks']:,} chunks: the QA corpus's 500 real paragraphs "
        "and distractors made as `peers_retrieval.py` makes them (re-sampled sentences of the "
        "paragraphs no asked question is about, vectors the normalised sum of their sentences' "
        f"{model} embeddings); questions: real answerable questions (text + their real "
        "embedding), k=10, one at a time, the three legs interleaved. Machine load (1, 5, 15 "
        f"min) before {load}, after {after}; 1-min load every 25 questions {during} (2 cores)."
        f"\n\n{table}\n\n{markdown_table(['fact', 'value'], facts)}\n\n"
        f"- {r['chunks']:,} chunks: memo hybrid (defaults) p50 {hybrid:.1f} ms "
        f"(target < {limit:.0f} ms): {verdict}"
    )


# -- where the search aids start to pay (--threshold) ---------------------------


def threshold(folder: Path, sizes: Sequence[int], questions: list[str]) -> dict[str, Any]:
    """Hybrid latency with the defaults' engines (sqlite-vec + FTS5) against both
    search aids (HNSW + in-RAM keyword index) at each size, the queries of one size
    interleaved across the two so load from elsewhere falls on both alike; and what
    the aids cost once (build seconds, RAM). It chose ``AIDS_FROM_CHUNKS``."""
    qvecs = [v.tolist() for v in query_vectors(questions)]
    out: dict[str, Any] = {"load_before": os.getloadavg()}
    for size in sizes:
        print(f"{size:,} chunks ...", flush=True)
        path, _, _ = build(size, folder)
        for suffix in (".hnsw", ".hnsw.json", ".kwidx", ".kwidx.json"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        plain = MemoBase(
            path,
            embedder=StoredVectorsOnly(),
            settings=SearchSettings(vector_index="sqlite", keyword_index="sqlite"),
        )
        aided = MemoBase(
            path,
            embedder=StoredVectorsOnly(),
            settings=SearchSettings(vector_index="hnsw", keyword_index="memory"),
        )
        start = time.perf_counter()
        prepared = aided.prepare_search()
        build_s = time.perf_counter() - start

        def hybrid(base: MemoBase) -> Callable[[int], Any]:
            return lambda i: base.searcher.search(
                questions[i], owner=OWNER, k=10, mode="hybrid", query_vector=qvecs[i]
            )

        legs = timings({"defaults": hybrid(plain), "aids": hybrid(aided)}, len(questions))
        row = {name: stats(v) for name, v in legs.items()}
        row["ratio"] = row["defaults"]["p50_ms"] / row["aids"]["p50_ms"]
        row["aids_build_s"] = build_s
        row["aids_ram_mib"] = (
            prepared["vector_index"]["memory_bytes"] + prepared["keyword_index"]["memory_bytes"]
        ) / 2**20
        out[str(size)] = row
        plain.close()
        aided.close()
    out["load_after"] = os.getloadavg()
    return out


def threshold_report(result: dict[str, Any]) -> str:
    sizes = [k for k in result if k.isdigit()]
    head = ["chunks", *(f"{int(s):,}" for s in sizes)]
    rows = [
        ["hybrid p50 ms, defaults (sqlite-vec + FTS5)"]
        + [f"{result[s]['defaults']['p50_ms']:.2f}" for s in sizes],
        ["hybrid p50 ms, aids (hnsw + keyword memory)"]
        + [f"{result[s]['aids']['p50_ms']:.2f}" for s in sizes],
        ["defaults / aids"] + [f"{result[s]['ratio']:.1f}x" for s in sizes],
        ["aids build s (once)"] + [f"{result[s]['aids_build_s']:.2f}" for s in sizes],
        ["aids RAM MiB"] + [f"{result[s]['aids_ram_mib']:.1f}" for s in sizes],
    ]
    load = ", ".join(f"{x:.1f}" for x in result["load_before"])
    after = ", ".join(f"{x:.1f}" for x in result["load_after"])
    return f"Machine load (1, 5, 15 min) before {load}, after {after}.\n\n" + markdown_table(
        head, rows
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workdir", default=str(cache_dir() / "scale"), help="built files")
    parser.add_argument("--quantized", action="store_true", help="also time sqlite-vec bit[] KNN")
    parser.add_argument(
        "--hnsw-build-limit",
        type=int,
        default=200_000,
        help="build the HNSW index only up to this size (larger ones need it built before)",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="forget sizes measured by earlier runs"
    )
    parser.add_argument("--check", action="store_true", help="verify the bulk loader, exit")
    parser.add_argument(
        "--vectors",
        choices=("sentences", "hash"),
        default="sentences",
        help="chunk and question vectors: real MiniLM sentence embeddings, or the hash embedder",
    )
    parser.add_argument(
        "--quality",
        type=int,
        metavar="CHUNKS",
        default=0,
        help="instead: MRR@10 of the keyword options on the corpus and among CHUNKS chunks",
    )
    parser.add_argument(
        "--defaults",
        type=int,
        metavar="CHUNKS",
        default=0,
        help="instead: memo's default settings (aids on by themselves) among CHUNKS chunks",
    )
    parser.add_argument(
        "--exact-questions",
        type=int,
        default=50,
        help="with --defaults: questions for the HNSW recall against exact search",
    )
    parser.add_argument(
        "--threshold",
        metavar="SIZES",
        default="",
        help="instead: hybrid latency, defaults against both search aids, at these sizes",
    )
    args = parser.parse_args()
    global VECTOR_SOURCE
    VECTOR_SOURCE = args.vectors
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"bulk loader agrees with add_texts on {check_bulk_load(Path(tmp))} searches")
        return
    sizes = [int(s) for s in args.sizes.split(",") if s] if not args.quality else []
    folder = Path(args.workdir)
    folder.mkdir(parents=True, exist_ok=True)
    questions = questions_text(args.queries)
    if args.defaults:
        measured = defaults_run(folder, args.defaults, args.queries, args.exact_questions)
        md = defaults_report(measured)
        label = (
            f"{args.defaults // 1_000_000}m"
            if args.defaults >= 1_000_000
            else (f"{args.defaults // 1000}k")
        )
        write_results(f"scale_defaults_{label}", measured, md)
        print(md)
        return
    if args.threshold:
        measured = threshold(folder, [int(s) for s in args.threshold.split(",")], questions)
        md = threshold_report(measured)
        write_results("scale_threshold", {"vectors": VECTOR_SOURCE, **measured}, md)
        print(md)
        return
    previous = RESULTS / "scale.json"
    results: dict[str, dict[str, Any]] = {}
    kept: dict[str, Any] = {}
    if previous.exists():
        earlier = json.loads(previous.read_text())
        kept = earlier.get("quality", {})
        if not args.fresh:  # a 1M run can be added to an earlier 10k/100k one
            results = earlier.get("sizes", {})
    if args.quality:
        print(f"quality among {args.quality:,} chunks ...", flush=True)
        kept = quality(folder, args.quality, min(args.queries, 300))
    for size in sizes:
        print(f"{size:,} chunks ...", flush=True)
        results[str(size)] = measure(
            size,
            folder,
            questions,
            40,
            quantized=args.quantized,
            hnsw_limit=args.hnsw_build_limit,
        )
        results[str(size)]["measured_at"] = time.strftime("%Y-%m-%d %H:%M")
        results[str(size)]["queries"] = args.queries
    md = report(results, args.queries)
    if kept:
        md += "\n\nQuality of the keyword options (`--quality`):\n\n" + quality_report(kept)
    payload = {"queries": args.queries, "sizes": results, "targets": targets(results)}
    write_results("scale", {**payload, "quality": kept}, md)
    if results:
        plot(results, RESULTS / "scale.png")
    print(md)


if __name__ == "__main__":
    main()
