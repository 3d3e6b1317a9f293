"""Retrieval side by side: memo against LangChain's EnsembleRetriever and LlamaIndex's
QueryFusionRetriever, on the same data with the same vectors, in one run.

    python bench/peers_retrieval.py                   # the 500-paragraph corpus, every question
    python bench/peers_retrieval.py --chunks 100000   # the same, drowned in 99,500 distractors
    python bench/peers_retrieval.py --systems memo,llamaindex-fusion --questions 200

Same vectors for everyone: the corpus and the questions are embedded ONCE with
memo's default local embedder (MiniLM int8, 384 d; cached on disk between runs),
and every system receives them through its own framework's embedding interface
as a dictionary look-up. Query-embedding time is therefore excluded for every
system alike; latency is the retriever's own work. ``--chunks N`` adds distractor
chunks made of sentences re-sampled from the corpus paragraphs that no asked
question is about, with RANDOM unit vectors (said in the output), so quality stays
measurable: the real paragraphs keep their real vectors and compete with N-500
distractors on the keyword side.

Each system runs in its own process (a fresh interpreter), so its peak memory is
its own: the growth of resident memory (VmHWM) during ingest and queries, over
the process after imports and after loading the shared vectors.
Writes bench/results/peers_retrieval[_N].json, .md and .png.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import RESULTS, markdown_table, median, percentile, qa_dir, read_jsonl, write_results

SYSTEMS: dict[str, str] = {
    "memo": "memo keyword / vector / hybrid (MemoBase.search, k=10), default settings",
    "memo-ram": "memo vector / hybrid with SearchSettings(vector_index='memory'): "
    "the vector leg as a NumPy product over an in-RAM copy of the vectors",
    "langchain-ensemble": "EnsembleRetriever(BM25Retriever, InMemoryVectorStore), 0.5/0.5, k=10",
    "langchain-ensemble-lower": "the same, BM25Retriever with a lowercasing word tokenizer",
    "langchain-ensemble-k4": "the same as users often leave it: k=4 per leg (as_retriever() default)",
    "llamaindex-fusion": "QueryFusionRetriever(reciprocal_rerank, BM25 + VectorStoreIndex), "
    "num_queries=1, k=10, use_async default (True)",
    "llamaindex-fusion-sync": "the same with use_async=False",
}
MEMO_MODES = ("keyword", "vector", "hybrid")
DEFAULT_SYSTEMS = (
    "memo",
    "memo-ram",
    "langchain-ensemble",
    "langchain-ensemble-lower",
    "llamaindex-fusion",
)
EXTRA_SYSTEMS = ("langchain-ensemble-k4", "llamaindex-fusion-sync")

# -- shared vectors ---------------------------------------------------------


def cache_dir() -> Path:
    return Path(os.environ.get("MEMO_BENCH_CACHE", Path.home() / ".cache" / "memo-bench"))


def embed_once(
    embedder: Any, documents: Sequence[str], queries: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Document and query vectors, computed once per (embedder, texts) and cached."""
    key = hashlib.sha256(embedder.fingerprint.to_json().encode())
    for text in [*documents, "\x00", *queries]:
        key.update(text.encode() + b"\x01")
    path = cache_dir() / f"vectors-{key.hexdigest()[:20]}.npz"
    if path.exists():
        data = np.load(path)
        return data["docs"], data["queries"]
    print(f"embedding {len(documents)} documents and {len(queries)} questions once ...")
    docs = np.asarray(embedder.embed_documents(list(documents)), dtype=np.float32)
    qs = np.asarray([embedder.embed_query(q) for q in queries], dtype=np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, docs=docs, queries=qs)
    return docs, qs


def random_unit_vectors(n: int, dims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dims), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def sentences_of(texts: Sequence[str]) -> list[str]:
    return [s for t in texts for s in _SENTENCE.split(t) if len(s.split()) >= 4]


def resampled_chunks(texts: Sequence[str], n: int, seed: int) -> list[str]:
    """``n`` distractor chunks of 2-5 real sentences drawn at random from ``texts``."""
    pool = sentences_of(texts)
    rng = random.Random(seed)
    return [" ".join(rng.choices(pool, k=rng.randint(2, 5))) for _ in range(n)]


# -- the data set every worker reads ----------------------------------------


def prepare(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """Write the corpus, questions and their vectors where the workers read them."""
    data = qa_dir()
    corpus = list(read_jsonl(data / "corpus.jsonl"))
    questions = [q for q in read_jsonl(data / "questions.jsonl") if q["kind"] == "answerable"]
    if args.questions:
        questions = random.Random(7).sample(questions, min(args.questions, len(questions)))
    if args.embedder == "hash":
        from memo_core.embedders import HashEmbedder

        embedder: Any = HashEmbedder(256)
    else:
        from memo_core.embedders import default_local_embedder

        embedder = default_local_embedder()
    texts = [p["text"] for p in corpus]
    ids = [p["id"] for p in corpus]
    docs, qvecs = embed_once(embedder, texts, [q["question"] for q in questions])
    extra = max(0, args.chunks - len(corpus)) if args.chunks else 0
    if extra:
        # Distractors never hold a sentence of an asked question's paragraph: a copy of
        # the answer sentence in a distractor would be a right answer scored as wrong.
        asked = {q["paragraph_id"] for q in questions}
        pool = [p["text"] for p in corpus if p["id"] not in asked]
        if len(pool) < 50:
            sys.exit("too few paragraphs left for distractors: ask fewer --questions")
        texts += resampled_chunks(pool, extra, seed=11)
        ids += [f"x{i:07d}" for i in range(extra)]
        docs = np.vstack([docs, random_unit_vectors(extra, docs.shape[1], seed=13)])
    (folder / "data.json").write_text(
        json.dumps(
            {
                "ids": ids,
                "texts": texts,
                "questions": [q["question"] for q in questions],
                "gold": [q["paragraph_id"] for q in questions],
                "fingerprint": embedder.fingerprint.to_json(),
            }
        )
    )
    np.save(folder / "docs.npy", docs)
    np.save(folder / "queries.npy", qvecs)
    return {
        "chunks": len(texts),
        "real_paragraphs": len(corpus),
        "distractors_random_vectors": extra,
        "questions": len(questions),
        "embedder": embedder.fingerprint.describe(),
    }


# -- systems (each built inside its worker process) --------------------------

Retrieve = Callable[[str], list[str]]


def build_memo(
    data: dict[str, Any], lookup: dict[str, list[float]], tmp: Path, ram: bool = False
) -> Any:
    from memo_core.embedders.base import EmbedderFingerprint
    from memo_core.kb import MemoBase
    from memo_core.search.hybrid import SearchSettings

    fingerprint = EmbedderFingerprint.from_json(data["fingerprint"])

    class LookupEmbedder:
        """memo's Embedder protocol over the shared vectors."""

        dimensions = fingerprint.dimensions

        def __init__(self) -> None:
            self.fingerprint = fingerprint

        def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
            return [lookup[t] for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return lookup[text]

    settings = SearchSettings(vector_index="memory" if ram else "sqlite")
    kb = MemoBase(tmp / "memo.db", embedder=LookupEmbedder(), settings=settings)
    kb.add_texts(data["texts"], ids=data["ids"])

    def modes(mode: str) -> Retrieve:
        return lambda q: [h.document_id for h in kb.search(q, k=10, mode=mode)]

    if ram:
        return {f"memo-ram-{m}": modes(m) for m in ("vector", "hybrid")}, tmp / "memo.db"
    return {f"memo-{m}": modes(m) for m in MEMO_MODES}, tmp / "memo.db"


def build_langchain(
    data: dict[str, Any], lookup: dict[str, list[float]], variant: str
) -> dict[str, Retrieve]:
    import warnings

    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain-community announces its sunset
        from langchain_classic.retrievers import EnsembleRetriever
        from langchain_community.retrievers import BM25Retriever

    class LookupEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [lookup[t] for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return lookup[text]

    k = 4 if variant == "k4" else 10
    metadatas = [{"id": i} for i in data["ids"]]
    bm25_kwargs: dict[str, Any] = {}
    if variant == "lower":
        bm25_kwargs["preprocess_func"] = lambda text: re.findall(r"\w+", text.lower())
    bm25 = BM25Retriever.from_texts(data["texts"], metadatas=metadatas, **bm25_kwargs)
    bm25.k = k
    store = InMemoryVectorStore(embedding=LookupEmbeddings())
    store.add_texts(data["texts"], metadatas=metadatas, ids=data["ids"])
    vector = store.as_retriever(search_kwargs={"k": k}) if k != 4 else store.as_retriever()
    ensemble = EnsembleRetriever(retrievers=[bm25, vector], weights=[0.5, 0.5])
    name = {"": "langchain-ensemble"}.get(variant, f"langchain-ensemble-{variant}")
    return {name: lambda q: [d.metadata["id"] for d in ensemble.invoke(q)][:10]}


def build_llamaindex(
    data: dict[str, Any], lookup: dict[str, list[float]], use_async: bool
) -> dict[str, Retrieve]:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    class LookupEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return lookup[query]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return lookup[query]

        def _get_text_embedding(self, text: str) -> list[float]:
            return lookup[text]

    nodes = [TextNode(text=t, id_=i) for i, t in zip(data["ids"], data["texts"], strict=True)]
    index = VectorStoreIndex(nodes, embed_model=LookupEmbedding(model_name="shared-vectors"))
    bm25 = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10)
    fusion = QueryFusionRetriever(
        [index.as_retriever(similarity_top_k=10), bm25],
        llm=MockLLM(),
        mode="reciprocal_rerank",
        num_queries=1,
        similarity_top_k=10,
        use_async=use_async,
    )
    name = "llamaindex-fusion" if use_async else "llamaindex-fusion-sync"
    return {name: lambda q: [n.node.node_id for n in fusion.retrieve(q)]}


# -- the worker ---------------------------------------------------------------


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> None:
    with contextlib.suppress(OSError):  # Linux: "5" resets VmHWM to the current RSS
        Path("/proc/self/clear_refs").write_text("5")


def score(ranked: list[list[str]], gold: list[str], latencies: list[float]) -> dict[str, float]:
    ranks = [ids.index(g) + 1 if g in ids[:10] else 0 for ids, g in zip(ranked, gold, strict=True)]
    n = len(ranks)
    return {
        "mrr@10": sum(1.0 / r for r in ranks if r) / n,
        "recall@1": sum(1 for r in ranks if r == 1) / n,
        "recall@5": sum(1 for r in ranks if 0 < r <= 5) / n,
        "recall@10": sum(1 for r in ranks if r) / n,
        "p50_ms": median(latencies),
        "p95_ms": percentile(latencies, 95),
    }


def worker(system: str, folder: Path) -> dict[str, Any]:
    """Build one system from the shared data, ask every question, measure."""
    data = json.loads((folder / "data.json").read_text())
    docs, qvecs = np.load(folder / "docs.npy"), np.load(folder / "queries.npy")
    lookup = {t: v.tolist() for t, v in zip(data["texts"], docs, strict=True)}
    lookup.update({q: v.tolist() for q, v in zip(data["questions"], qvecs, strict=True)})
    del docs, qvecs
    builders: dict[str, Callable[[Path], Any]] = {
        "memo": lambda tmp: build_memo(data, lookup, tmp),
        "memo-ram": lambda tmp: build_memo(data, lookup, tmp, ram=True),
        "langchain-ensemble": lambda _: build_langchain(data, lookup, ""),
        "langchain-ensemble-lower": lambda _: build_langchain(data, lookup, "lower"),
        "langchain-ensemble-k4": lambda _: build_langchain(data, lookup, "k4"),
        "llamaindex-fusion": lambda _: build_llamaindex(data, lookup, True),
        "llamaindex-fusion-sync": lambda _: build_llamaindex(data, lookup, False),
    }
    with tempfile.TemporaryDirectory() as tmp:
        _import_only(system)
        base_kib = _status_kib("VmRSS")
        _reset_peak()
        start = time.perf_counter()
        built = builders[system](Path(tmp))
        ingest_s = time.perf_counter() - start
        retrievers, db_path = built if isinstance(built, tuple) else (built, None)
        rows: dict[str, Any] = {}
        for name, retrieve in retrievers.items():
            for q in data["questions"][:5]:
                retrieve(q)  # warm caches and lazy imports
            ranked, latencies, cpu = [], [], []
            for q in data["questions"]:
                t0, c0 = time.perf_counter(), time.process_time()
                ranked.append(retrieve(q))
                latencies.append((time.perf_counter() - t0) * 1000.0)
                cpu.append((time.process_time() - c0) * 1000.0)
            rows[name] = score(ranked, data["gold"], latencies)
            rows[name]["cpu_p50_ms"] = median(cpu)
        peak_mib = (_status_kib("VmHWM") - base_kib) / 1024
        file_mib = db_path.stat().st_size / 2**20 if db_path else None
    for row in rows.values():
        row.update(ingest_s=ingest_s, peak_mib=peak_mib, file_mib=file_mib)
    return rows


def _import_only(system: str) -> None:
    """Import the framework before the memory baseline, so imports are not counted."""
    if system.startswith("memo"):
        import numpy  # noqa: F401

        import memo_core.kb
        import memo_core.search.ram_index  # noqa: F401
    elif system.startswith("langchain"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import langchain_classic.retrievers  # noqa: F401
            import langchain_community.retrievers  # noqa: F401
            import langchain_core.vectorstores  # noqa: F401
    else:
        import llama_index.core
        import llama_index.retrievers.bm25  # noqa: F401


# -- the driver -------------------------------------------------------------


def run_workers(systems: Sequence[str], folder: Path) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for system in systems:
        print(f"running {system} ...", flush=True)
        out = folder / f"{system}.json"
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                system,
                "--data",
                str(folder),
                "--out",
                str(out),
            ],
            check=True,
        )
        rows.update(json.loads(out.read_text()))
    return rows


def with_ratios(rows: dict[str, dict[str, Any]]) -> list[list[Any]]:
    """Table rows; ratios are the peer's p50 over memo hybrid's, and MRR against it."""
    ref = rows.get("memo-hybrid")
    table = []
    for name, r in rows.items():
        speed = r["p50_ms"] / ref["p50_ms"] if ref else float("nan")
        table.append(
            [
                name,
                r["mrr@10"],
                r["recall@1"],
                r["recall@5"],
                r["recall@10"],
                f"{r['p50_ms']:.2f}",
                f"{r['p95_ms']:.2f}",
                f"{r['cpu_p50_ms']:.2f}",
                f"{speed:.1f}x",
                f"{r['mrr@10'] - ref['mrr@10']:+.3f}" if ref else "",
                f"{r['ingest_s']:.1f}",
                f"{r['peak_mib']:.0f}",
            ]
        )
    return table


HEADERS = [
    "system",
    "MRR@10",
    "recall@1",
    "recall@5",
    "recall@10",
    "p50 ms",
    "p95 ms",
    "CPU p50 ms",
    "p50 / memo hybrid",
    "MRR vs memo hybrid",
    "ingest s",
    "peak MiB",
]


def plot(rows: dict[str, dict[str, Any]], title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(rows)
    colors = ["#1f6feb" if n.startswith("memo") else "#9a9a9a" for n in names]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    left.barh(names, [rows[n]["mrr@10"] for n in names], color=colors)
    left.set_xlim(min(0.6, *(rows[n]["mrr@10"] for n in names)), 1.0)
    left.set_xlabel("MRR@10 (higher is better)")
    left.invert_yaxis()
    p50 = [rows[n]["p50_ms"] for n in names]
    p95 = [rows[n]["p95_ms"] for n in names]
    right.barh(names, p50, color=colors, label="p50")
    right.scatter(p95, names, marker="|", s=200, color="black", label="p95")
    right.set_xscale("log")
    right.set_xlabel("query latency, ms (log scale, lower is better)")
    right.invert_yaxis()
    right.legend(loc="upper right")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def targets(rows: dict[str, dict[str, Any]], big: bool) -> list[str]:
    """Each target, met or missed, for memo's default hybrid and its in-RAM variant."""
    out = []
    need = 10 if big else 5
    for ref in ("memo-hybrid", "memo-ram-hybrid"):
        memo = rows.get(ref)
        if memo is None:
            continue
        if not big:
            verdict = "met" if memo["mrr@10"] >= 0.93 else "MISSED"
            out.append(f"{ref} MRR@10 {memo['mrr@10']:.3f} (target >= 0.93): {verdict}")
        for name, r in rows.items():
            if name.startswith("memo"):
                continue
            wall = r["p50_ms"] / memo["p50_ms"]
            cpu = r["cpu_p50_ms"] / memo["cpu_p50_ms"]
            verdict = "met" if wall >= need else "MISSED"
            out.append(
                f"p50 {name} / {ref} = {wall:.1f}x wall, {cpu:.1f}x CPU "
                f"(target >= {need}x): {verdict}"
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=0, help="pad the corpus to N chunks")
    parser.add_argument("--questions", type=int, default=0, help="answerable questions (0: all)")
    parser.add_argument("--systems", default=",".join(DEFAULT_SYSTEMS + EXTRA_SYSTEMS))
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    parser.add_argument("--name", default="", help="results name (default from --chunks)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        rows = worker(args.worker, Path(args.data))
        Path(args.out).write_text(json.dumps(rows))
        return
    systems = [s for s in args.systems.split(",") if s]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        sys.exit(f"unknown systems {unknown}; choose from {sorted(SYSTEMS)}")
    name = args.name or ("peers_retrieval" + (f"_{args.chunks // 1000}k" if args.chunks else ""))
    with tempfile.TemporaryDirectory() as tmp:
        setup = prepare(args, Path(tmp))
        rows = run_workers(systems, Path(tmp))
    big = bool(setup["distractors_random_vectors"])
    header = (
        f"{setup['chunks']} chunks ({setup['real_paragraphs']} real paragraphs"
        + (
            f" + {setup['distractors_random_vectors']} distractors: sentences re-sampled from "
            "the paragraphs no asked question is about, with RANDOM unit vectors"
            if big
            else ""
        )
        + f"), {setup['questions']} answerable questions, shared vectors from "
        f"{setup['embedder']} given to every system by look-up (query embedding excluded "
        "for all); latency = retriever call, one query at a time; peak MiB = resident memory "
        "growth during ingest + queries, each system in its own process."
    )
    verdicts = targets(rows, big)
    table = markdown_table(HEADERS, with_ratios(rows))
    notes = "\n".join(f"- {v}" for v in verdicts)
    systems_doc = "\n".join(f"- `{s}`: {SYSTEMS[s]}" for s in systems)
    reranker = (
        "No reranked row: memo's local reranker needs a cross-encoder model, and none ships "
        "in a PyPI package here (model hubs are unreachable), so it was not measured."
    )
    md = f"{header}\n\n{table}\n\n{notes}\n\n{systems_doc}\n\n{reranker}"
    write_results(name, {"setup": setup, "note": header, "rows": rows, "targets": verdicts}, md)
    plot(rows, f"{setup['chunks']} chunks, {setup['questions']} questions", RESULTS / f"{name}.png")
    print(md)


if __name__ == "__main__":
    main()
