"""Where a default hybrid query's time goes on a large base (issue 21.1): wall clock
against the thread's CPU time and the time it waited for a core, and the CPU of
each stage.

    python bench/query_time.py --folder /tmp/q100k                     # 100k chunks
    python bench/query_time.py --folder /tmp/q100k --save before.json  # keep rankings
    python bench/query_time.py --folder /tmp/q100k --compare before.json

The folder keeps ``peers_retrieval.py``'s data set (the same chunks, vectors and
questions for the same ``--chunks`` / ``--questions``) and a memo base stored as its
``memo-bulk`` row stores it (the public bulk insert, then ``prepare_search()``),
built on the first run and re-opened by later ones, so that a change to the query
path is measured without storing 100k chunks again. ``--compare``: every question's
hits (document, score, leg ranks, similarity) must equal a saved run's.

Per query the wall clock is split into the thread's time on a core (its CPU clock)
and, from ``/proc/thread-self/schedstat`` (Linux), its time runnable but waiting for
one and how many times it was put on one. Wall minus both is time blocked (I/O,
locks, sleeps, or waiting for the vector leg's worker thread). ``process CPU`` is
the CPU of every thread of the process during the query (the vector leg runs on a
worker thread beside the keyword leg when the graph library frees the interpreter
lock, ``AnnVectorIndex.beside``): the figure to set against other systems.
``--recall``: the HNSW aid's recall@10 against the exact vector search (sqlite-vec)
on the same questions.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers_retrieval


def _schedstat() -> tuple[float, float, int]:
    """(ms on a core, ms waiting for one, times scheduled) of the calling thread."""
    on, waiting, slices = Path("/proc/thread-self/schedstat").read_text().split()
    return int(on) / 1e6, int(waiting) / 1e6, int(slices)


def open_base(
    folder: Path, chunks: int, questions: int, embedder: str = "default"
) -> tuple[Any, dict[str, Any], Any]:
    """The kept base (built on first use), the data set and its vector look-up."""
    if not (folder / "data.json").exists():
        folder.mkdir(parents=True, exist_ok=True)
        args = argparse.Namespace(chunks=chunks, questions=questions, embedder=embedder)
        peers_retrieval.prepare(args, folder)
    data = json.loads((folder / "data.json").read_text())
    docs, queries = np.load(folder / "docs.npy"), np.load(folder / "queries.npy")
    lookup = peers_retrieval.VectorLookup(
        [*data["texts"], *data["questions"]], np.vstack([docs, queries])
    )
    if not (folder / "memo.db").exists():
        start = time.perf_counter()
        peers_retrieval.build_memo(data, lookup, folder, "bulk")
        print(f"stored and prepared in {time.perf_counter() - start:.0f} s", flush=True)
    from memo_core.kb import MemoBase

    embedder = peers_retrieval.LookupEmbedder(data["fingerprint"], lookup)
    kb = MemoBase(folder / "memo.db", embedder=embedder)
    kb.prepare_search()
    return kb, data, lookup


def split_wall(kb: Any, questions: Sequence[str]) -> tuple[dict[str, list[float]], list[Any]]:
    """Each question's wall, CPU, run-queue wait and slices; and its hits."""
    out: dict[str, list[float]] = {
        "wall": [],
        "cpu": [],
        "process CPU": [],
        "waiting": [],
        "slices": [],
    }
    answers = []
    for q in questions:
        # CPU comes from the thread's own clock: schedstat's run time only advances at a
        # scheduler tick or a switch, so a query shorter than a tick could read as 0 ms.
        (_, waiting, slices), wall = _schedstat(), time.perf_counter()
        cpu, process = time.thread_time(), time.process_time()
        hits = kb.search(q, k=10)
        cpu, process = (time.thread_time() - cpu) * 1e3, (time.process_time() - process) * 1e3
        wall = (time.perf_counter() - wall) * 1e3
        after = _schedstat()
        out["wall"].append(wall)
        out["cpu"].append(cpu)
        out["process CPU"].append(process)
        out["waiting"].append(after[1] - waiting)
        out["slices"].append(after[2] - slices)
        answers.append(
            [
                [
                    h.document_id,
                    round(h.score, 9),
                    h.keyword_rank,
                    h.vector_rank,
                    None if h.vector_similarity is None else round(h.vector_similarity, 4),
                ]
                for h in hits
            ]
        )
    return out, answers


def stages(kb: Any, questions: Sequence[str], lookup: Any) -> dict[str, float]:
    """Mean CPU ms of each stage of a hybrid query, run one by one as the searcher runs them."""
    from memo_core.search.repeats import query_shares

    searcher, store, owner = kb.searcher, kb.store, kb._owner(None)
    spent: dict[str, float] = {}

    @contextlib.contextmanager
    def clock(name: str) -> Iterator[None]:
        start = time.thread_time()
        yield
        spent[name] = spent.get(name, 0.0) + (time.thread_time() - start) * 1e3

    for q in questions:
        with store.reading():
            with clock("keyword leg"):
                keyword = searcher.keyword_leg(owner, q, 40)
            with clock("vector leg"):
                vector = searcher.vector_leg(owner, lookup[q], 40)
            both = list(dict.fromkeys([r for r, _ in keyword] + [r for r, _ in vector]))
            with clock("repeated texts (SQL)"):
                stored = store.repeated_texts(both)
            with clock("repeated shares"):
                query_shares(q, stored)
            with clock("hits (SQL)"):
                store.hits_by_rowid(both[:10])
        with clock("whole search"):
            kb.search(q, k=10)
    return {name: ms / len(questions) for name, ms in spent.items()}


def recall_at_10(kb: Any, data: dict[str, Any], lookup: Any) -> float:
    """Share of the exact 10 nearest chunks (sqlite-vec) that the HNSW aid returns."""
    from memo_core.kb import MemoBase
    from memo_core.search.hybrid import SearchSettings

    exact = MemoBase(
        kb.store.db.path,
        embedder=kb.embedder,
        settings=SearchSettings(vector_index="sqlite", keyword_index="sqlite"),
    )
    found, owner = [], kb._owner(None)
    for q in data["questions"]:
        vector = lookup[q]
        want = exact.searcher.search("", owner=owner, k=10, mode="vector", query_vector=vector)
        got = kb.searcher.search("", owner=owner, k=10, mode="vector", query_vector=vector)
        found.append(len({h.chunk_id for h in want} & {h.chunk_id for h in got}) / 10)
    exact.close()
    return float(np.mean(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True, help="where the data and the base are kept")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    parser.add_argument("--save", help="write the rankings to this JSON file")
    parser.add_argument("--compare", help="the rankings must equal this saved JSON file")
    parser.add_argument("--recall", action="store_true", help="HNSW recall@10 against exact")
    args = parser.parse_args()
    kb, data, lookup = open_base(Path(args.folder), args.chunks, args.questions, args.embedder)
    questions = data["questions"]
    for q in questions[:5]:
        kb.search(q, k=10)  # warm caches and lazy imports
    load = os.getloadavg()
    split, answers = split_wall(kb, questions)
    parts = stages(kb, questions, lookup)
    threads = sorted(t.name for t in threading.enumerate())
    after = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    before = ", ".join(f"{x:.1f}" for x in load)
    print(f"load (1, 5, 15 min) before {before}, after {after} on {os.cpu_count()} cores")
    print(f"threads while querying: {threads}")
    for name, values in split.items():
        print(
            f"{name:>8}: p50 {np.percentile(values, 50):7.2f}  p95 {np.percentile(values, 95):7.2f}"
        )
    blocked = np.array(split["wall"]) - np.array(split["cpu"]) - np.array(split["waiting"])
    print(f" blocked: p50 {np.percentile(blocked, 50):7.2f}  (wall - on a core - waiting)")
    for name, ms in parts.items():
        print(f"{name:>22}: {ms:6.2f} ms CPU")
    gold = data["gold"]
    mrr = np.mean(
        [
            next((1 / i for i, h in enumerate(a, 1) if h[0] == g), 0.0)
            for a, g in zip(answers, gold, strict=True)
        ]
    )
    print(f"MRR@10 {mrr:.3f}")
    print(f"vector index: {kb.searcher.describe_aids()['vector_index']}")
    if args.recall:
        print(f"HNSW recall@10 against exact: {recall_at_10(kb, data, lookup):.4f}")
    if args.save:
        Path(args.save).write_text(json.dumps(answers))
    if args.compare:
        before = json.loads(Path(args.compare).read_text())
        changed = [i for i, (a, b) in enumerate(zip(answers, before, strict=True)) if a != b]
        print(
            f"rankings equal to {args.compare}: {len(questions) - len(changed)} of {len(questions)}"
        )
        if changed:
            sys.exit(f"questions whose hits changed: {changed}")
    kb.close()


if __name__ == "__main__":
    main()
