"""MemoHood on the memory scenarios, by category: gate, recall, leaks, history, latency.

Run: ``python bench/memory_eval.py [--scenarios FILE ...] [--embedder auto|local|hash|none]
[--facts 10000] [--backend sqlite|postgres] [--pg-url URL] [--out bench/results/memory.json]``

``--scenarios`` defaults to both sets: the public ``../shared/eval/memory/scenarios.jsonl``
and the project's dev set ``bench/data/memory/dev_scenarios.jsonl`` (231 scenarios, EN/RU,
built by ``bench/data/memory/make_dev_scenarios.py``). ``--backend postgres`` runs everything
on PostgreSQL + pgvector: the server named by ``--pg-url`` (or ``MEMO_TEST_POSTGRES_URL``),
else a private one started with ``pgserver``; each base is a fresh schema, dropped afterwards.

1. Replays each file with ``memo memory replay``'s implementation
   (:mod:`memo_core.memory.replay`: one fresh memory per file, each user its own namespace,
   a probe's ``as_of`` honoured for temporal questions), and scores it as
   ``eval/memory/README.md`` says, for the whole file and per probe category: memory questions
   the gate passed and small talk it skipped; probes whose ``must_include`` strings are all in
   the recalled current facts, and the share of strings; probes where a ``must_not_include``
   string (a stale value, another user's, a stranger's or a hypothetical) leaked into them
   (target 0; for a ``credential`` probe, anywhere in the prompt block, past turns included);
   "recalled facts" are all the current facts in the block: the matched ones (``facts``)
   and those filling a small namespace's budget (``unmatched``, ``MemoryConfig.recall_fill``),
   with the matched share and the leaks found only among the unmatched shown apart; the share of ``history_must_include`` strings in the recalled facts' older
   versions; the median gate + recall time of the probes.
2. Fills a fresh file with synthetic facts (one user, plus noise users) and
   times gate + recall for varied messages: the median and p95 in milliseconds.

Writes ``--out`` (JSON, one section per file) and the per-category tables beside it (``.md``).
The dev set is scored twice more, per ``split`` (see ``make_dev_scenarios.py``): its ``dev``
part, which rules and knobs are tuned on, and its ``heldout`` part, of which only the figures
are written and printed (no probe text, no miss), so it stays a check nobody tunes on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
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

sys.path.insert(0, str(Path(__file__).resolve().parent / "data" / "memory"))
from make_dev_scenarios import CATEGORIES as SCENARIO_CATEGORIES

from memo_core.cli.memory import make_embedder
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.config import resolve_gate_model
from memo_core.memory.replay import load_scenarios, replay

log = logging.getLogger("bench.memory_eval")

REPO = Path(__file__).resolve().parents[1]
PUBLIC_SCENARIOS = REPO.parent / "shared" / "eval" / "memory" / "scenarios.jsonl"
DEV_SCENARIOS = REPO / "bench" / "data" / "memory" / "dev_scenarios.jsonl"


# The dev set's categories in its order, and the public set's inferred "distractor" before
# small talk.
CATEGORY_ORDER = (*(c for c in SCENARIO_CATEGORIES if c != "smalltalk"), "distractor", "smalltalk")


def probe_category(scenario: dict[str, Any], probe: dict[str, Any]) -> str:
    """A small-talk probe is ``smalltalk`` wherever it stands; a memory probe takes its
    scenario's ``category`` (single_session inside a small-talk scenario), or, in a file
    without one (the public set), a category read off its checks: isolation_of ->
    isolation, history -> knowledge_update, a string that must not be recalled ->
    distractor, else single_session."""
    if not probe["expect_recall"]:
        return "smalltalk"
    if "category" in scenario:
        category = str(scenario["category"])
        return "single_session" if category == "smalltalk" else category
    if "isolation_of" in scenario:
        return "isolation"
    if probe.get("history_must_include"):
        return "knowledge_update"
    if probe.get("must_not_include"):
        return "distractor"
    return "single_session"


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _tally(pairs: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """The scores of ``(scenario, probe, row)`` triples, as eval/memory/README.md defines them."""
    confusion = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}  # positive = recall expected
    probes_with_include = probes_all_found = 0
    strings = strings_found = 0
    leak_probes: list[dict[str, Any]] = []
    leaked_strings = 0
    unmatched_leaks = 0  # probes whose leaked strings are all in the unmatched section
    matched_all_found = 0  # probes with all must_include among the matched facts alone
    hist_strings = hist_found = 0
    misses: list[dict[str, Any]] = []
    history_misses: list[dict[str, Any]] = []
    gate_errors: list[dict[str, Any]] = []
    timings: list[float] = []
    for scenario, probe, row in pairs:
        index = row["probe"]
        recalled = row["gate"] == "recall"
        if "ms" in row:
            timings.append(row["ms"])
        if probe["expect_recall"]:
            confusion["tp" if recalled else "fn"] += 1
        else:
            confusion["fp" if recalled else "tn"] += 1
        if recalled != probe["expect_recall"]:
            gate_errors.append(
                {"id": scenario["id"], "probe": index, "text": probe["text"], "gate": row["gate"]}
            )
        matched = " \n ".join(row["facts"]).lower()
        # Every current fact in the block counts as recalled: the matched ones and those
        # filling a small namespace's budget under their own heading.
        facts = matched + " \n " + " \n ".join(row.get("unmatched", [])).lower()
        history = " \n ".join(row["history"]).lower()
        include = probe.get("must_include", [])
        if include:
            probes_with_include += 1
            matched_all_found += all(s.lower() in matched for s in include)
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
                        "facts": row["facts"] + row.get("unmatched", []),
                    }
                )
        # A credential must not reach the prompt at all: not as a fact, not in a past turn.
        where = facts
        if probe_category(scenario, probe) == "credential":
            where = row.get("block", facts).lower()
        leaked = [s for s in probe.get("must_not_include", []) if s.lower() in where]
        if leaked:
            leaked_strings += len(leaked)
            unmatched_leaks += not any(s.lower() in matched for s in leaked)
            leak_probes.append(
                {"id": scenario["id"], "probe": index, "leaked": leaked, "facts": row["facts"]}
            )
        hist = probe.get("history_must_include", [])
        hist_strings += len(hist)
        hist_found += sum(1 for s in hist if s.lower() in history)
        lost = [s for s in hist if s.lower() not in history]
        if lost:
            history_misses.append(
                {"id": scenario["id"], "probe": index, "missing": lost, "history": row["history"]}
            )
    total = sum(confusion.values())
    return {
        "probes": total,
        "gate_confusion": confusion,
        "gate_accuracy": _share(confusion["tp"] + confusion["tn"], total),
        "memory_questions_passed": _share(confusion["tp"], confusion["tp"] + confusion["fn"]),
        "smalltalk_skipped": _share(confusion["tn"], confusion["tn"] + confusion["fp"]),
        "must_include_probe_share": _share(probes_all_found, probes_with_include),
        "must_include_string_share": _share(strings_found, strings),
        "must_include_matched_probe_share": _share(matched_all_found, probes_with_include),
        "leak_probes": len(leak_probes),
        "leak_probes_unmatched_only": unmatched_leaks,
        "leaked_strings": leaked_strings,
        "leaks": leak_probes,
        "history_share": _share(hist_found, hist_strings),
        "gate_recall_ms_p50": round(statistics.median(timings), 2) if timings else None,
        "misses": misses,
        "history_misses": history_misses,
        "gate_errors": gate_errors,
    }


#: What a held-out part keeps of its scores: figures only. Its misses, leaks and gate errors
#: (the probe texts and what was recalled) are not written or printed, so no rule is tuned on
#: them.
_HIDDEN = ("leaks", "misses", "history_misses", "gate_errors")


def _scored(triples: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    result = _tally(triples)
    groups: dict[str, list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]] = {}
    for triple in triples:
        groups.setdefault(probe_category(triple[0], triple[1]), []).append(triple)
    order = {c: i for i, c in enumerate(CATEGORY_ORDER)}
    result["by_category"] = {
        c: {k: v for k, v in _tally(groups[c]).items() if k not in _HIDDEN}
        for c in sorted(groups, key=lambda c: (order.get(c, len(order)), c))
    }
    return result


def score(scenarios: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The scores of a whole file, and the same per probe category (``by_category``).

    A file whose scenarios carry a ``split`` (the dev set: ``dev`` / ``heldout``) is also
    scored per part (``splits``); the whole file's misses are then the dev part's alone."""
    by_key = {(r["id"], r["probe"]): r for r in rows}
    pairs = [
        (scenario, probe, by_key[(scenario["id"], index)])
        for scenario in scenarios
        for index, probe in enumerate(scenario["probes"])
    ]
    result = _scored(pairs)
    parts = sorted({str(s["split"]) for s in scenarios if "split" in s})
    if parts:
        splits = {p: _scored([t for t in pairs if t[0].get("split") == p]) for p in parts}
        for name, part in splits.items():
            if name != "dev":
                for key in _HIDDEN:
                    part[key] = []
        result["splits"] = splits
        for key in _HIDDEN:
            result[key] = splits.get("dev", {}).get(key, [])
    return result


def category_table(result: dict[str, Any]) -> str:
    """A Markdown table of ``score``'s ``by_category``, with the whole file as the last row."""
    headers = [
        "category",
        "probes",
        "memory questions passed",
        "small talk skipped",
        "must_include recalled (probes / strings)",
        "of which matched (probes)",
        "probes with a leak (unmatched only)",
        "history share",
        "gate+recall p50 ms",
    ]

    def cell(value: Any) -> str:
        return "-" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)

    rows = [(name, r) for name, r in result["by_category"].items()] + [("all", result)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for name, r in rows:
        include = f"{cell(r['must_include_probe_share'])} / {cell(r['must_include_string_share'])}"
        values = [
            name,
            r["probes"],
            cell(r["memory_questions_passed"]),
            cell(r["smalltalk_skipped"]),
            include if r["must_include_probe_share"] is not None else "-",
            cell(r["must_include_matched_probe_share"]),
            f"{r['leak_probes']} ({r['leak_probes_unmatched_only']})",
            cell(r["history_share"]),
            cell(r["gate_recall_ms_p50"]),
        ]
        lines.append("| " + " | ".join(str(v) for v in values) + " |")
    return "\n".join(lines)


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
        cpu: list[float] = []  # this process's CPU time: what a quiet machine would wait
        for i in range(66):
            message = _MESSAGES[i % len(_MESSAGES)]
            t, c = time.perf_counter(), time.process_time()
            memory.recall(message, namespace=("bench-user",), at=now)
            timings.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        stored = memory.db.query_one("SELECT count(*) FROM mem_facts")[0]
    timings.sort()
    return {
        "facts_stored": int(stored),
        "facts_of_probed_user": sum(1 for i in range(facts) if i % 4),
        "fill_seconds": round(fill_seconds, 2),
        "recall_ms_median": round(statistics.median(timings), 2),
        "recall_ms_p95": round(timings[int(len(timings) * 0.95) - 1], 2),
        "recall_cpu_ms_median": round(statistics.median(cpu), 2),
        "load_average": round(os.getloadavg()[0], 1),
        "queries": len(timings),
    }


def run_file(
    path: str, embedder_choice: str, gate: RecallGate, url: Callable[[str], str]
) -> dict[str, Any]:
    """One scenario file replayed into a fresh memory and scored."""
    scenarios = load_scenarios(path)
    base = url(f"replay_{Path(path).stem}")
    embedder = make_embedder(embedder_choice, base)
    with MemoHood(base, embedder=embedder, gate=gate) as memory:
        rows = list(replay(memory, scenarios))
        vectors = memory.has_vectors
    result = score(scenarios, rows)
    result["scenarios"] = len(scenarios)
    result["embedder"] = embedder.fingerprint.describe() if embedder is not None else "none"
    result["vectors"] = vectors
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scenarios",
        action="append",
        help="a scenario file (repeatable; default: the public set and the dev set)",
    )
    parser.add_argument("--embedder", default="auto", choices=("auto", "local", "hash", "none"))
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--pg-url", help="an existing PostgreSQL (else pgserver starts one)")
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "memory.json"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    files = args.scenarios or [str(p) for p in (PUBLIC_SCENARIOS, DEV_SCENARIOS) if p.exists()]
    if not files:
        sys.exit(f"no scenario file found ({PUBLIC_SCENARIOS}, {DEV_SCENARIOS})")
    gate = RecallGate.default()
    results: dict[str, dict[str, Any]] = {}
    with bases(args.backend, args.pg_url) as url:
        for path in files:
            results[Path(path).name] = run_file(path, args.embedder, gate, url)
        lat = latency(args.facts, args.embedder, gate, url) if args.facts > 0 else None
    payload = {
        "backend": args.backend,
        "gate": {
            "model": resolve_gate_model() if gate.uses_model else None,
            "method": "model2vec" if gate.uses_model else "lexical",
            "margin": gate.margin,
        },
        "files": results,
        "latency": lat,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    sections = []
    for name, result in results.items():
        parts = [(name, result)]
        if "splits" in result:
            parts += [(f"{name}, {p} part", r) for p, r in result["splits"].items()]
        for title, part in parts:
            c = part["gate_confusion"]
            sections.append(
                f"### {title} ({part['probes']} probes of {result['scenarios']} scenarios' "
                f"{result['probes']})\n\nbackend {args.backend}, embedder {result['embedder']}, "
                f"gate {payload['gate']['method']}; gate confusion: recall expected {c['tp']} "
                f"passed / {c['fn']} skipped, small talk {c['tn']} skipped / {c['fp']} recalled; "
                f"{part['leaked_strings']} stale/foreign strings leaked in "
                f"{part['leak_probes']} probes.\n\n{category_table(part)}"
            )
    if lat:
        sections.append(
            f"Gate + recall at {lat['facts_stored']} stored facts (synthetic): median "
            f"{lat['recall_ms_median']} ms, p95 {lat['recall_ms_p95']} ms; median CPU time "
            f"{lat['recall_cpu_ms_median']} ms (load average {lat['load_average']} on "
            f"{os.cpu_count()} cores: under load the wall time is inflated, the CPU time is not)."
        )
    md = "\n\n".join(sections)
    out.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    print(md)
    for name, result in results.items():
        for miss in result["misses"]:
            print(
                f"  miss {name} {miss['id']}#{miss['probe']}: {miss['missing']} <- {miss['text']}",
                file=sys.stderr,
            )
        for lost in result["history_misses"]:
            print(
                f"  history {name} {lost['id']}#{lost['probe']}: {lost['missing']}",
                file=sys.stderr,
            )
        for leak in result["leaks"]:
            print(
                f"  leak {name} {leak['id']}#{leak['probe']}: {leak['leaked']}",
                file=sys.stderr,
            )
        for wrong in result["gate_errors"]:
            print(
                f"  gate {name} {wrong['id']}#{wrong['probe']}: {wrong['gate']} <- {wrong['text']}",
                file=sys.stderr,
            )
    print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
