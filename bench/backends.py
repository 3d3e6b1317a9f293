"""SQLite against PostgreSQL + pgvector: the same MemoBase API on both backends.

The same corpus (the 500 real paragraphs plus re-sampled distractors, see
``peers_retrieval.py``) is loaded into SQLite through ``MemoBase.add_texts`` and
copied to PostgreSQL with ``memo migrate`` (``--pg-load api`` uses add_texts there too),
then measured one query at a time (keyword, vector and hybrid: MRR@10, recall@10,
p50/p95 latency, and the vector leg's recall@10 against exact NumPy search, which
shows what PostgreSQL's approximate HNSW index costs), and finally under load:
``--clients`` processes (default 8) each opening the base and querying for
``--seconds``, read-only and then with one write in ten.

Vectors come from the shared look-up (real MiniLM vectors for the paragraphs and
questions, RANDOM unit vectors for the distractors), so query embedding is not
part of any latency. PostgreSQL runs from the ``pgserver`` package (a private
server on a Unix socket), or the server in ``MEMO_TEST_POSTGRES_URL`` / ``--pg-url``.

    python bench/backends.py                      # 100,000 chunks, 300 questions
    python bench/backends.py --chunks 20000 --seconds 5    # quicker
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import RESULTS, markdown_table, median, percentile, write_results
from peers_retrieval import prepare

MODES = ("keyword", "vector", "hybrid")


class LookupEmbedder:
    """memo's Embedder protocol over precomputed vectors (unknown texts: random)."""

    def __init__(self, fingerprint_json: str, lookup: dict[str, list[float]]) -> None:
        from memo_core.embedders.base import EmbedderFingerprint

        self.fingerprint = EmbedderFingerprint.from_json(fingerprint_json)
        self.dimensions = self.fingerprint.dimensions
        self._lookup = lookup
        self._rng = np.random.default_rng()

    def _vector(self, text: str) -> list[float]:
        found = self._lookup.get(text)
        if found is not None:
            return found
        v = self._rng.standard_normal(self.dimensions).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def load_data(folder: Path, with_docs: bool) -> tuple[dict[str, Any], LookupEmbedder, np.ndarray]:
    data = json.loads((folder / "data.json").read_text())
    docs, qvecs = np.load(folder / "docs.npy"), np.load(folder / "queries.npy")
    lookup = {q: v.tolist() for q, v in zip(data["questions"], qvecs, strict=True)}
    if with_docs:
        lookup.update({t: v.tolist() for t, v in zip(data["texts"], docs, strict=True)})
    return data, LookupEmbedder(data["fingerprint"], lookup), docs


def build(url: str, folder: Path, batch: int = 2000) -> float:
    from memo_core.kb import MemoBase

    data, embedder, _ = load_data(folder, with_docs=True)
    start = time.perf_counter()
    with MemoBase(url, embedder=embedder) as kb:
        texts, ids = data["texts"], data["ids"]
        for i in range(0, len(texts), batch):
            kb.add_texts(texts[i : i + batch], ids=ids[i : i + batch])
    return time.perf_counter() - start


def exact_top10(docs: np.ndarray, queries: np.ndarray, ids: Sequence[str]) -> list[list[str]]:
    sims = queries @ docs.T
    order = np.argsort(-sims, axis=1)[:, :10]
    return [[ids[j] for j in row] for row in order]


def measure(url: str, folder: Path) -> dict[str, Any]:
    """Quality and one-at-a-time latency per mode, and HNSW/exact agreement."""
    from memo_core.kb import MemoBase

    data, embedder, docs = load_data(folder, with_docs=False)
    queries = np.load(folder / "queries.npy")
    exact = exact_top10(docs, queries, data["ids"])
    rows: dict[str, Any] = {}
    with MemoBase(url, embedder=embedder) as kb:
        for mode in MODES:
            for q in data["questions"][:5]:
                kb.search(q, k=10, mode=mode)  # warm caches
            ranked, latencies = [], []
            for q in data["questions"]:
                t0 = time.perf_counter()
                ranked.append([h.document_id for h in kb.search(q, k=10, mode=mode)])
                latencies.append((time.perf_counter() - t0) * 1000.0)
            ranks = [
                r.index(g) + 1 if g in r else 0 for r, g in zip(ranked, data["gold"], strict=True)
            ]
            row = {
                "mrr@10": sum(1.0 / r for r in ranks if r) / len(ranks),
                "recall@10": sum(1 for r in ranks if r) / len(ranks),
                "p50_ms": median(latencies),
                "p95_ms": percentile(latencies, 95),
            }
            if mode == "vector":
                agree = [len(set(r) & set(e)) / 10 for r, e in zip(ranked, exact, strict=True)]
                row["recall@10_vs_exact"] = sum(agree) / len(agree)
            rows[mode] = row
    return rows


def client(url: str, folder: str, seconds: float, start_at: float, write_every: int) -> dict:
    """One client process: hybrid queries (and a write every ``write_every`` ops)."""
    from memo_core.errors import MemoError
    from memo_core.kb import MemoBase

    data, embedder, _ = load_data(Path(folder), with_docs=False)
    questions = data["questions"]
    done = writes = errors = 0
    with MemoBase(url, embedder=embedder) as kb:
        kb.search(questions[0], k=10)  # connect before the clock starts
        time.sleep(max(0.0, start_at - time.time()))
        end = time.time() + seconds
        i = 0
        while time.time() < end:
            i += 1
            try:
                if write_every and i % write_every == 0:
                    kb.add_texts([f"note {uuid.uuid4().hex}: {questions[i % len(questions)]}"])
                    writes += 1
                else:
                    kb.search(questions[i % len(questions)], k=10)
                done += 1
            except MemoError:
                errors += 1
    return {"ops": done, "writes": writes, "errors": errors}


def throughput(url: str, folder: Path, clients: int, seconds: float, write_every: int) -> dict:
    ctx = mp.get_context("spawn")
    start_at = time.time() + 8.0  # every process imported and connected by then
    with ctx.Pool(clients) as pool:
        results = pool.starmap(
            client, [(url, str(folder), seconds, start_at, write_every)] * clients
        )
    ops = sum(r["ops"] for r in results)
    return {
        "clients": clients,
        "seconds": seconds,
        "ops_per_s": ops / seconds,
        "writes": sum(r["writes"] for r in results),
        "errors": sum(r["errors"] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    parser.add_argument("--pg-url", help="an existing PostgreSQL (else pgserver starts one)")
    parser.add_argument(
        "--pg-load",
        choices=("migrate", "api"),
        default="migrate",
        help="fill PostgreSQL by `memo migrate` from the SQLite base (default), or add_texts",
    )
    parser.add_argument("--name", default="backends")
    args = parser.parse_args()

    from memo_core.migrate import migrate
    from memo_core.storage.local_server import LocalPostgres, start_local_postgres

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        setup = prepare(args, folder)
        server = (
            LocalPostgres(args.pg_url, None) if args.pg_url else start_local_postgres(folder / "pg")
        )
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        urls = {"sqlite": f"sqlite:///{folder / 'memo.db'}", "postgres": server.url(schema)}
        results: dict[str, Any] = {}
        try:
            build_s: dict[str, float] = {}
            for backend, url in urls.items():
                # PostgreSQL is filled right after SQLite, before any benchmark writes.
                print(f"{backend}: loading {setup['chunks']} chunks ...", flush=True)
                start = time.perf_counter()
                if backend == "postgres" and args.pg_load == "migrate":
                    migrate(urls["sqlite"], url)
                else:
                    build(url, folder)
                build_s[backend] = time.perf_counter() - start
                print(f"{backend}: loaded in {build_s[backend]:.0f} s", flush=True)
            for backend, url in urls.items():
                print(f"{backend}: measuring ...", flush=True)
                row: dict[str, Any] = {"build_s": build_s[backend], "modes": measure(url, folder)}
                for label, every in (("read_only", 0), ("mixed_1_in_10_writes", 10)):
                    print(f"{backend}: {args.clients} clients, {label} ...", flush=True)
                    row[label] = throughput(url, folder, args.clients, args.seconds, every)
                results[backend] = row
        finally:
            if not args.pg_url:
                server.stop()
            else:
                from memo_core.storage.postgres import PostgresDatabase

                with PostgresDatabase(urls["postgres"], load_vec=False) as db:
                    db.drop_schema()

    md = report(setup, results, args)
    write_results(args.name, {"setup": setup, "clients": args.clients, "results": results}, md)
    print(md)
    print(f"written to {RESULTS / args.name}.json/.md")


def report(setup: dict[str, Any], results: dict[str, Any], args: argparse.Namespace) -> str:
    header = (
        f"{setup['chunks']} chunks ({setup['real_paragraphs']} real paragraphs + "
        f"{setup['distractors']} re-sampled distractors, {setup['distractor_vectors']} vectors), "
        f"{setup['questions']} answerable questions, vectors from {setup['embedder']} by look-up "
        "(query embedding excluded); latency = MemoBase.search(k=10), one query at a time. "
        + (
            "load s: SQLite by MemoBase.add_texts, PostgreSQL by `memo migrate` from that file "
            "(vectors copied, keyword index and HNSW built)."
            if args.pg_load == "migrate"
            else "load s: MemoBase.add_texts on both."
        )
    )
    rows = []
    for backend, r in results.items():
        for mode in MODES:
            m = r["modes"][mode]
            rows.append(
                [
                    backend,
                    mode,
                    m["mrr@10"],
                    m["recall@10"],
                    m.get("recall@10_vs_exact", ""),
                    round(m["p50_ms"], 2),
                    round(m["p95_ms"], 2),
                ]
            )
    quality = markdown_table(
        ["backend", "mode", "MRR@10", "recall@10", "vector recall@10 vs exact", "p50 ms", "p95 ms"],
        rows,
    )
    load_rows = [
        [
            backend,
            round(r["build_s"]),
            round(r["read_only"]["ops_per_s"], 1),
            r["read_only"]["errors"],
            round(r["mixed_1_in_10_writes"]["ops_per_s"], 1),
            r["mixed_1_in_10_writes"]["writes"],
            r["mixed_1_in_10_writes"]["errors"],
        ]
        for backend, r in results.items()
    ]
    load = markdown_table(
        [
            "backend",
            "load s",
            f"hybrid queries/s, {args.clients} clients",
            "errors",
            "ops/s with 1 write in 10",
            "writes",
            "errors",
        ],
        load_rows,
    )
    return f"{header}\n\n{quality}\n\n{load}"


if __name__ == "__main__":
    main()
