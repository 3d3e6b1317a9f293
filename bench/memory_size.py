"""Memory file size and recall latency as users grow: bytes per fact, per user, per table.

    python bench/memory_size.py [--users 10,1000,10000] [--facts 3] [--probes 50]

For each user count a fresh memory file gets ``--facts`` facts per user through
``MemoHood.remember`` (the normal write path: FTS rows, a vector per fact, version
chains), with a 384-dimension hash embedder: the file holds what MiniLM's vectors
would (384 float32 each), without spending an hour embedding. Then ``--probes``
users, spread over the file, each recall one question (gate off), and the table
prints bytes per stored fact and per user, the p50 recall latency, and what each
table and index costs per fact (SQLite's ``dbstat``). Target (issue 21.5): under
20 KB per stored fact at 10,000 users, and recall latency flat as users grow.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import markdown_table, median, percentile, write_results

from memo_core.embedders import HashEmbedder
from memo_core.memory import MemoHood, RecallGate
from memo_core.storage import open_database

DIMENSIONS = 384  # all-MiniLM-L6-v2, memo's default local embedder
_FACTS = (
    "My locker number is {n}.",
    "I cycle to work along the canal every {day}.",
    "My sister {name} lives in {city}.",
    "I am allergic to {thing}.",
    "Our team stand-up moved to {hour}:30.",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_NAMES = ("Ines", "Maren", "Oksana", "Priya", "Sofia", "Yuki")
_CITIES = ("Porto", "Tromsø", "Lviv", "Pune", "Seville", "Sapporo")
_THINGS = ("penicillin", "peanuts", "cats", "pollen", "latex", "shellfish")


def _statement(user: int, index: int) -> str:
    template = _FACTS[index % len(_FACTS)]
    return template.format(
        n=user * 7 + index,
        day=_DAYS[user % len(_DAYS)],
        name=_NAMES[user % len(_NAMES)],
        city=_CITIES[(user // 6) % len(_CITIES)],
        thing=_THINGS[(user // 36) % len(_THINGS)],
        hour=8 + user % 4,
    )


def _per_table(path: Path) -> dict[str, int]:
    """Bytes per table or index (dbstat pages), the FTS5 / vector shadow tables included."""
    with open_database(path) as db:
        rows = db.query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
    return {str(name): int(size) for name, size in rows}


def measure(users: int, facts: int, probes: int, folder: Path) -> dict[str, Any]:
    path = folder / f"memory-{users}.db"
    embedder = HashEmbedder(DIMENSIONS)
    start = time.perf_counter()
    with MemoHood(path, embedder=embedder, gate=RecallGate()) as memory:
        for user in range(users):
            for index in range(facts):
                memory.remember(_statement(user, index), namespace=f"user{user}")
        write_seconds = time.perf_counter() - start
        stored = int(memory.db.query_one("SELECT count(*) FROM mem_facts")[0])
        step = max(1, users // probes)
        memory.recall("warm up", namespace="user0", use_gate=False)  # lazy loads, cold pages
        latencies = []
        for user in range(0, users, step)[:probes]:
            began = time.perf_counter()
            found = memory.recall("where is my locker?", namespace=f"user{user}", use_gate=False)
            latencies.append((time.perf_counter() - began) * 1000)
            if not found.facts:
                raise SystemExit(f"user{user} recalled nothing: the measurement is void")
    size = path.stat().st_size
    return {
        "users": users,
        "facts": stored,
        "bytes": size,
        "bytes_per_fact": size / stored,
        "bytes_per_user": size / users,
        "write_seconds": write_seconds,
        "recall_p50_ms": median(latencies),
        "recall_p95_ms": percentile(latencies, 95),
        "tables": _per_table(path),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="10,1000,10000")
    parser.add_argument("--facts", type=int, default=3, help="facts per user")
    parser.add_argument("--probes", type=int, default=50, help="users whose recall is timed")
    args = parser.parse_args()
    counts = [int(n) for n in args.users.split(",") if n.strip()]
    load_before = os.getloadavg()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for users in counts:
            results.append(measure(users, args.facts, args.probes, Path(tmp)))
            print(f"{users} users done", flush=True)
    load_after = os.getloadavg()
    table = markdown_table(
        ["users", "facts", "file MiB", "bytes/fact", "bytes/user", "recall p50 ms", "p95 ms"],
        [
            [
                r["users"],
                r["facts"],
                round(r["bytes"] / 2**20, 2),
                round(r["bytes_per_fact"]),
                round(r["bytes_per_user"]),
                r["recall_p50_ms"],
                r["recall_p95_ms"],
            ]
            for r in results
        ],
    )
    largest = results[-1]
    costs = markdown_table(
        ["table or index", "bytes per fact"],
        [
            [name, round(size / largest["facts"])]
            for name, size in largest["tables"].items()
            if size / largest["facts"] >= 10
        ],
    )
    verdict = (
        f"at {largest['users']} users: {largest['bytes_per_fact'] / 1024:.1f} KB per stored fact "
        f"(target < 20 KB); recall p50 {results[0]['recall_p50_ms']:.2f} ms at "
        f"{results[0]['users']} users, {largest['recall_p50_ms']:.2f} ms at {largest['users']}"
    )
    load = (
        f"machine load (1/5/15 min) before {load_before[0]:.1f}/{load_before[1]:.1f}/"
        f"{load_before[2]:.1f}, after {load_after[0]:.1f}/{load_after[1]:.1f}/{load_after[2]:.1f}"
        f" on {os.cpu_count()} CPUs"
    )
    header = (
        f"{args.facts} facts per user through MemoHood.remember, {DIMENSIONS}-float vectors; {load}"
    )
    text = f"{header}\n\n{table}\n\n{verdict}\n\nWhat each table costs at {largest['users']} users:\n\n{costs}"
    write_results(
        "memory_size",
        {"setup": header, "load": {"before": load_before, "after": load_after}, "runs": results},
        text,
    )
    print(text)


if __name__ == "__main__":
    main()
