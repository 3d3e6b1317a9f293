"""MemoHood on the memory scenarios: gate, recall, leaks, history, and latency at 10,000 facts.

Run: ``python bench/memory_eval.py [--scenarios FILE] [--embedder auto|local|hash|none]
[--facts 10000] [--backend sqlite|postgres] [--pg-url URL] [--out bench/results/memory.json]``

``--backend postgres`` runs everything on PostgreSQL + pgvector: the server named by
``--pg-url`` (or ``MEMO_TEST_POSTGRES_URL``), else a private one started with
``pgserver``; each base is a fresh schema, dropped afterwards.

1. Replays ``../shared/eval/memory/scenarios.jsonl`` exactly as
   ``memo memory replay`` does (one fresh file, each user its own namespace) and
   scores it as ``eval/memory/README.md`` says: the gate's confusion matrix and
   accuracy on ``expect_recall``; the share of probes whose ``must_include`` strings
   are all in the recalled current facts, and the share of strings; probes where
   a ``must_not_include`` string leaked into them (target 0); the share of
   ``history_must_include`` strings in the recalled facts' older versions.
2. Fills a fresh file with synthetic facts (one user, plus noise users) and
   times gate + recall for varied messages: the median and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memo_core.cli.memory import load_scenarios, make_embedder, replay
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.config import resolve_gate_model

log = logging.getLogger("bench.memory_eval")

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SCENARIOS = REPO.parent / "shared" / "eval" / "memory" / "scenarios.jsonl"


def score(scenarios: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_key = {(r["id"], r["probe"]): r for r in rows}
    confusion = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}  # positive = recall expected
    probes_with_include = probes_all_found = 0
    strings = strings_found = 0
    leak_probes: list[dict[str, Any]] = []
    hist_strings = hist_found = 0
    misses: list[dict[str, Any]] = []
    for scenario in scenarios:
        for index, probe in enumerate(scenario["probes"]):
            row = by_key[(scenario["id"], index)]
            recalled = row["gate"] == "recall"
            if probe["expect_recall"]:
                confusion["tp" if recalled else "fn"] += 1
            else:
                confusion["fp" if recalled else "tn"] += 1
            facts = " \n ".join(row["facts"]).lower()
            history = " \n ".join(row["history"]).lower()
            include = probe.get("must_include", [])
            if include:
                probes_with_include += 1
                found = [s for s in include if s.lower() in facts]
                strings += len(include)
                strings_found += len(found)
                if len(found) == len(include):
                    probes_all_found += 1
                else:
                    misses.append(
                        {
                            "id": scenario["id"],
                            "probe": index,
                            "text": probe["text"],
                            "missing": [s for s in include if s not in found],
                            "facts": row["facts"],
                        }
                    )
            leaked = [s for s in probe.get("must_not_include", []) if s.lower() in facts]
            if leaked:
                leak_probes.append(
                    {"id": scenario["id"], "probe": index, "leaked": leaked, "facts": row["facts"]}
                )
            hist = probe.get("history_must_include", [])
            hist_strings += len(hist)
            hist_found += sum(1 for s in hist if s.lower() in history)
    total = sum(confusion.values())
    return {
        "probes": total,
        "gate_confusion": confusion,
        "gate_accuracy": round((confusion["tp"] + confusion["tn"]) / total, 4) if total else None,
        "must_include_probe_share": round(probes_all_found / probes_with_include, 4)
        if probes_with_include
        else None,
        "must_include_string_share": round(strings_found / strings, 4) if strings else None,
        "leak_probes": len(leak_probes),
        "leaks": leak_probes,
        "history_share": round(hist_found / hist_strings, 4) if hist_strings else None,
        "misses": misses,
    }


_SUBJECTS = [
    "project",
    "server",
    "garden",
    "recipe",
    "invoice",
    "client",
    "book",
    "course",
    "car",
    "bike",
    "laptop",
    "trip",
    "concert",
    "meeting",
    "report",
    "budget",
]
_VERBS = ["uses", "needs", "costs", "runs on", "starts with", "depends on", "moved to", "is in"]
_OBJECTS = [
    "PostgreSQL",
    "Kotlin",
    "Lisbon",
    "the blue folder",
    "March",
    "Friday",
    "tomatoes",
    "a new battery",
    "version 3",
    "the north office",
    "Berlin",
    "a discount",
]
_MESSAGES = [
    "What database does the project use?",
    "When is the report due?",
    "Suggest something for dinner tonight",
    "Which laptop did I buy?",
    "Remind me where the north office is",
    "thanks!",
    "ok cool",
    "What do I need for the trip?",
    "How much does the bike cost?",
    "Что мне приготовить на ужин?",
    "Когда встреча с клиентом?",
]


def _synthetic_records(facts: int, seed: int) -> list[dict[str, Any]]:
    """Fact records in the export format: 3 of 4 for the probed user, the rest noise users."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    records: list[dict[str, Any]] = []
    for i in range(facts):
        user = "bench-user" if i % 4 else f"noise-{i % 50}"
        when = (start + timedelta(minutes=i)).isoformat()
        statement = f"The {rng.choice(_SUBJECTS)} {i} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}."
        fid = f"fact_bench_{i:06d}"
        records.append(
            {
                "type": "fact",
                "id": fid,
                "namespace": [user],
                "chain_id": fid,
                "version": 1,
                "key": fid,
                "statement": statement,
                "category": rng.choice(["fact", "preference", "plan", "decision"]),
                "pinned": i % 97 == 0,
                "valid_from": when,
                "valid_to": None,
                "last_used": when,
                "strength": 1.0,
            }
        )
    return records


@contextlib.contextmanager
def bases(backend: str, pg_url: str | None) -> Iterator[Callable[[str], str]]:
    """``url(name)`` names a fresh base on ``backend``; every one is removed afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        if backend == "sqlite":
            yield lambda name: f"sqlite:///{Path(tmp) / name}.db"
            return
        from memo_core.storage.local_server import LocalPostgres, start_local_postgres
        from memo_core.storage.postgres import PostgresDatabase

        server = LocalPostgres(pg_url, None) if pg_url else start_local_postgres(Path(tmp) / "pg")
        run = uuid.uuid4().hex[:8]
        made: list[str] = []

        def url(name: str) -> str:
            made.append(server.url(f"membench_{run}_{name}"))
            return made[-1]

        try:
            yield url
        finally:
            for made_url in made:
                with PostgresDatabase(made_url, load_vec=False, max_connections=1) as db:
                    db.drop_schema()
            server.stop()


def latency(
    facts: int, embedder_choice: str, gate: RecallGate, url: Callable[[str], str], seed: int = 7
) -> dict[str, Any]:
    """Median gate + recall time over varied messages with ``facts`` stored facts."""
    path = url("latency")
    embedder = make_embedder(embedder_choice, path)
    with MemoHood(path, embedder=embedder, gate=gate) as memory:
        t0 = time.perf_counter()
        memory.import_jsonl(_synthetic_records(facts, seed))  # batched embedding
        fill_seconds = time.perf_counter() - t0
        now = datetime(2026, 3, 1, tzinfo=UTC)
        for message in _MESSAGES[:3]:  # warm-up: model loads, caches
            memory.recall(message, namespace=("bench-user",), at=now)
        timings: list[float] = []
        for i in range(66):
            message = _MESSAGES[i % len(_MESSAGES)]
            t = time.perf_counter()
            memory.recall(message, namespace=("bench-user",), at=now)
            timings.append((time.perf_counter() - t) * 1000)
        stored = memory.db.query_one("SELECT count(*) FROM mem_facts")[0]
    timings.sort()
    return {
        "facts_stored": int(stored),
        "facts_of_probed_user": sum(1 for i in range(facts) if i % 4),
        "fill_seconds": round(fill_seconds, 2),
        "recall_ms_median": round(statistics.median(timings), 2),
        "recall_ms_p95": round(timings[int(len(timings) * 0.95) - 1], 2),
        "queries": len(timings),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default=str(DEFAULT_SCENARIOS))
    parser.add_argument("--embedder", default="auto", choices=("auto", "local", "hash", "none"))
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--pg-url", help="an existing PostgreSQL (else pgserver starts one)")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "memory.json"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    gate = RecallGate.default()
    scenarios = load_scenarios(args.scenarios)
    with bases(args.backend, args.pg_url) as url:
        path = url("replay")
        embedder = make_embedder(args.embedder, path)
        with MemoHood(path, embedder=embedder, gate=gate) as memory:
            rows = list(replay(memory, scenarios))
            vectors = memory.has_vectors
        lat = latency(args.facts, args.embedder, gate, url) if args.facts > 0 else None
    result = score(scenarios, rows)
    result["backend"] = args.backend
    result["embedder"] = embedder.fingerprint.describe() if embedder is not None else "none"
    result["vectors"] = vectors
    result["gate"] = {
        "model": resolve_gate_model() if gate.uses_model else None,
        "method": "model2vec" if gate.uses_model else "lexical",
        "margin": gate.margin,
    }
    result["latency"] = lat
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    c = result["gate_confusion"]
    print(
        f"backend: {args.backend}, scenarios: {args.scenarios} ({result['probes']} probes), "
        f"embedder: {result['embedder']}, gate: {result['gate']['method']}"
    )
    print(
        f"gate confusion (rows expected, cols decided):  recall  skip\n"
        f"   expect recall                             {c['tp']:6d} {c['fn']:5d}\n"
        f"   expect skip                               {c['fp']:6d} {c['tn']:5d}"
    )
    print(f"gate accuracy: {result['gate_accuracy']}")
    print(
        f"must_include: all found in {result['must_include_probe_share']} of probes, "
        f"{result['must_include_string_share']} of strings"
    )
    print(f"probes with a must_not_include leak: {result['leak_probes']} (target 0)")
    print(f"history_must_include found: {result['history_share']}")
    if result["latency"]:
        lat = result["latency"]
        print(
            f"gate+recall at {lat['facts_stored']} stored facts: median "
            f"{lat['recall_ms_median']} ms, p95 {lat['recall_ms_p95']} ms"
        )
    for miss in result["misses"]:
        print(
            f"  miss {miss['id']}#{miss['probe']}: {miss['missing']} <- {miss['text']}",
            file=sys.stderr,
        )
    for leak in result["leaks"]:
        print(f"  leak {leak['id']}#{leak['probe']}: {leak['leaked']}", file=sys.stderr)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
