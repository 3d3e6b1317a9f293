"""Stress: many processes on one file, SIGKILL trials, hostile input, isolation, spend ceilings.

    python bench/stress.py [--processes 8] [--operations 200] [--threads 8]
                           [--kill-trials 50] [--hostile 2000] [--isolation 5000]
                           [--attack-trials 20] [--seed 1]

The same workloads as tests/reliability (which run them with CI-sized counts),
with larger ones. Writes bench/results/stress.json and stress.md and exits 1
when a target is missed: items lost, cross-namespace leaks, locked errors,
crashes on hostile input and overspend must all be 0. The attacks of issue 16
(foreign, restored and damaged search aids; hostile spend amounts, secrets.env
values and query vectors; credentials in URLs; special-purpose addresses;
expanding documents; slow-loris servers; control characters in file names;
overlapping ingests and a killed claimer)
report trials, survived, lost and leaked, and every trial must survive.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "reliability"))

from _common import markdown_table, write_results  # noqa: E402
from reliability_attacks import (  # noqa: E402
    attack_control_names,
    attack_crashed_claimer,
    attack_expanding_documents,
    attack_full_disk,
    attack_overlapping_ingest,
    attack_secret_text,
    attack_secrets_env,
    attack_slow_loris,
    attack_spend,
    attack_ssrf_ranges,
    attack_vectors,
)
from reliability_crash import SCENARIOS, prepare, run_trials  # noqa: E402
from reliability_fuzz import (  # noqa: E402
    Tally,
    foreign_id_attack,
    fuzz_kb,
    fuzz_memory,
    hostile_kb,
    hostile_memory,
    isolation_kb,
    isolation_kb_run,
    isolation_memory,
    isolation_memory_run,
)
from reliability_harness import (  # noqa: E402
    embedder,
    kb_problems,
    memory_problems,
    open_memory,
    read_acks,
)
from reliability_sidecars import run_bit_rot, run_foreign, run_restored  # noqa: E402
from reliability_storage import (  # noqa: E402
    read_only_available,
    run_corrupt,
    run_killed_backup,
    run_killed_reindex,
    run_read_only,
)
from reliability_workload import (  # noqa: E402
    WorkerResult,
    Workload,
    lost_writes,
    make_specs,
    paid_search_worker,
    process_worker,
    read_result,
)

from memo_core.kb import MemoBase  # noqa: E402
from memo_core.ledger import SpendLedger  # noqa: E402

PRELOAD = ["memo_core.embedders.hash", "memo_core.ingest", "memo_core.kb", "memo_core.memory"]


def _summarise(folder: Path, results: list[WorkerResult], acks: list[str]) -> dict[str, Any]:
    errors = [e.splitlines()[0] for r in results for e in r.errors]
    return {
        "operations": sum(sum(r.done.values()) for r in results),
        "acknowledged_writes": len(read_acks(acks)),
        "locked_errors": sum(r.locked for r in results),
        "errors": len(errors),
        "first_errors": errors[:5],
        "leaks": sum(r.leaks for r in results),
        "lost": lost_writes(str(folder / "kb.db"), str(folder / "memory.db"), acks),
        "problems": kb_problems(folder / "kb.db") + memory_problems(folder / "memory.db"),
    }


def run_processes(folder: Path, processes: int, operations: int, seed: int) -> dict[str, Any]:
    specs = make_specs(folder, processes, operations, seed)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=process_worker, args=(s,)) for s in specs]
    started = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    out = _summarise(folder, [read_result(s) for s in specs], [s.ack_path for s in specs])
    out.update(
        processes=processes,
        exit_codes=sorted({p.exitcode for p in procs}),
        seconds=time.perf_counter() - started,
    )
    return out


def run_threads(folder: Path, threads: int, operations: int, seed: int) -> dict[str, Any]:
    specs = make_specs(folder, threads, operations, seed, prefix="t")
    kb = MemoBase(folder / "kb.db", embedder=embedder())
    memory = open_memory(folder / "memory.db")
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(threads) as pool:
            results = list(pool.map(lambda s: Workload(s, kb, memory).run(), specs))
    finally:
        kb.close()
        memory.close()
    out = _summarise(folder, results, [s.ack_path for s in specs])
    out.update(threads=threads, seconds=time.perf_counter() - started)
    return out


def run_kills(folder: Path, trials: int, seed: int) -> dict[str, Any]:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    out: dict[str, Any] = {}
    for kind in SCENARIOS:
        prepared = prepare(kind, folder / kind)
        done = run_trials(ctx, prepared, trials, folder / f"{kind}-trials", seed + len(out))
        problems = [p for t in done for p in t.problems]
        out[kind] = {
            "trials": len(done),
            "killed": sum(t.killed for t in done),
            "killed_at_a_statement": sum(t.killed for t in done if t.mode == "statement"),
            "killed_by_timer": sum(t.killed for t in done if t.mode == "timer"),
            "statements_in_operation": prepared.statements,
            "survived": sum(t.killed and not t.problems for t in done),
            "problems": len(problems),
            "first_problems": problems[:5],
        }
    return out


def run_hostile(folder: Path, count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    kb = hostile_kb(folder / "hostile-kb.db")
    memory = hostile_memory(folder / "hostile-memory.db")
    try:
        kb_tally = fuzz_kb(kb, rng, count)
        mem_tally = fuzz_memory(memory, rng, count // 2)
    finally:
        kb.close()
        memory.close()
    return {"knowledge_base": _tally(kb_tally), "memory": _tally(mem_tally)}


def run_isolation(folder: Path, queries: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    kb = isolation_kb(folder / "iso-kb.db", docs_per_owner=40)
    memory = isolation_memory(folder / "iso-memory.db")
    try:
        return {
            "knowledge_base": _tally(isolation_kb_run(kb, rng, queries)),
            "memory": _tally(isolation_memory_run(memory, rng, queries)),
            "memory by id, foreign namespace": _tally(
                foreign_id_attack(memory, rng, max(1, queries // 10))
            ),
        }
    finally:
        kb.close()
        memory.close()


def run_spend(folder: Path, processes: int, searches: int) -> dict[str, Any]:
    kb_path, spend, calls = folder / "spend-kb.db", folder / "spend.db", folder / "calls.log"
    with MemoBase(kb_path, embedder=embedder()) as kb:
        kb.add_texts([f"Contract budget note {i} about the harbour." for i in range(50)])
    SpendLedger(spend).db.close()
    price, room = 0.002, max(1, processes * searches // 3)
    ceiling = room * price + price / 2
    ctx = multiprocessing.get_context("spawn")
    args = (str(kb_path), str(spend), str(calls), ceiling, searches, time.time() + 5.0)
    procs = [ctx.Process(target=paid_search_worker, args=args) for _ in range(processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    ledger = SpendLedger(spend)
    try:
        spent = ledger.month_spend("cohere")
        recorded = int(ledger.db.query_one("SELECT count(*) FROM spend")[0])
    finally:
        ledger.db.close()
    paid = len(calls.read_text(encoding="utf-8").splitlines()) if calls.exists() else 0
    return {
        "processes": processes,
        "searches": processes * searches,
        "searches_answered": sum(searches for p in procs if p.exitcode == 0),
        "ceiling_usd": ceiling,
        "room_for_calls": room,
        "paid_calls": paid,
        "recorded_calls": recorded,
        "spent_usd": spent,
        "overspend_usd": max(0.0, spent - ceiling),
    }


def run_attacks(folder: Path, trials: int, seed: int) -> dict[str, Any]:
    """Issue 16's attacks on search aids and storage: each
    ``{trials, survived, lost, leaked, errors}``."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    attacks = {
        "foreign search aids copied beside a base": run_foreign,
        "search aids made after a backup, then restored": run_restored,
        "damaged search aids (bit rot, truncation, bad header)": run_bit_rot,
        "SIGKILL during memo backup (partial file)": lambda f, n, s: run_killed_backup(
            ctx, f, n, s
        ),
        "SIGKILL during a re-index (resume, pay once)": lambda f, n, s: run_killed_reindex(
            ctx, f, max(1, n // 4), s
        ),
        "base damaged in the middle": run_corrupt,
        "negative, NaN and infinite spend amounts": attack_spend,
        "secrets.env values with shell injections, sourced by bash": attack_secrets_env,
        "hostile query vectors (zero, NaN, strings, shapes)": attack_vectors,
        "credentials in URLs and loose AWS secret keys": attack_secret_text,
        "special-purpose address ranges in every spelling": attack_ssrf_ranges,
        "documents expanding past the text or chunk bound": attack_expanding_documents,
        "slow-loris web servers (silent, status, headers, body, redirects)": attack_slow_loris,
        "file names with newlines, escapes and bidi overrides": attack_control_names,
        "new documents ingested by 4 processes over overlapping folders": attack_overlapping_ingest,
        "a claimer SIGKILLed while embedding, then another ingest": attack_crashed_claimer,
        "a full disk during memo kb ingest": lambda f, n, s: attack_full_disk(f, max(1, n // 4), s),
    }
    if read_only_available(folder / "probe") is None:
        attacks["base on read-only media"] = lambda f, n, s: run_read_only(f, max(1, n // 4), s)
    return {
        name: run(folder / f"attack-{i}", trials, seed + i).as_dict()
        for i, (name, run) in enumerate(attacks.items())
    }


def _tally(t: Tally) -> dict[str, Any]:
    return {
        "tried": t.tried,
        "typed_errors": t.typed_errors,
        "safe_results": t.safe_results,
        "crashes": len(t.crashes),
        "first_crashes": t.crashes[:5],
        "base_changed": t.changed,
        "leaks": t.leaks,
        "answered": t.answered,
    }


def _report(payload: dict[str, Any]) -> str:
    proc, thr, kills = payload["processes"], payload["threads"], payload["kills"]
    hostile, iso, spend = payload["hostile"], payload["isolation"], payload["spend"]
    totals = payload["totals"]
    rows = [
        [
            "processes on one file",
            f"{proc['processes']} processes, {proc['operations']} operations "
            f"({proc['acknowledged_writes']} acknowledged writes)",
            f"lost {len(proc['lost'])}, locked {proc['locked_errors']}, errors {proc['errors']}",
        ],
        [
            "threads sharing one object",
            f"{thr['threads']} threads, {thr['operations']} operations",
            f"lost {len(thr['lost'])}, locked {thr['locked_errors']}, errors {thr['errors']}",
        ],
    ]
    for kind, k in kills.items():
        rows.append(
            [
                f"SIGKILL during {kind}",
                f"{k['killed']} kills in {k['trials']} trials "
                f"({k['killed_at_a_statement']} at a statement, {k['killed_by_timer']} by timer)",
                f"survived {k['survived']}, problems {k['problems']}",
            ]
        )
    for where, t in (*hostile.items(),):
        rows.append(
            [
                f"hostile input ({where})",
                f"{t['tried']} calls: {t['typed_errors']} typed errors, "
                f"{t['safe_results']} safe results",
                f"crashes {t['crashes']}, base changed {t['base_changed']}, leaks {t['leaks']}",
            ]
        )
    for where, t in iso.items():
        rows.append(
            [
                f"isolation ({where})",
                f"{t['tried']} queries ({t['answered']} with results)",
                f"leaks {t['leaks']}",
            ]
        )
    rows.append(
        [
            "spend ceiling",
            f"{spend['processes']} processes, {spend['searches']} paid searches tried, "
            f"room for {spend['room_for_calls']}",
            f"paid {spend['paid_calls']}, recorded {spend['recorded_calls']}, "
            f"overspend ${spend['overspend_usd']:.4f}, answered {spend['searches_answered']}",
        ]
    )
    for name, a in payload["attacks"].items():
        rows.append(
            [
                f"attack: {name}",
                f"{a['trials']} trials, {a['survived']} survived",
                f"lost {a['lost']}, leaked {a['leaked']}, errors {a['errors']}",
            ]
        )
    table = markdown_table(["what", "held", "outcome"], rows)
    summary = (
        f"**Items lost: {totals['items_lost']}** (target 0) · "
        f"**cross-namespace leaks: {totals['leaks']}** (target 0) · "
        f"kills survived: {totals['kills_survived']} of {totals['kills']} · "
        f"attacks survived: {totals['attacks_survived']} of {totals['attack_trials']} · "
        f"hostile inputs tried: {totals['hostile_tried']} · "
        f"processes and operations held: {proc['processes']} processes / "
        f"{proc['operations']} operations"
    )
    return f"# Stress\n\n{summary}\n\n{table}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--operations", type=int, default=200, help="per process and thread")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--kill-trials", type=int, default=50, help="per scenario")
    parser.add_argument("--hostile", type=int, default=2000)
    parser.add_argument("--isolation", type=int, default=5000)
    parser.add_argument("--attack-trials", type=int, default=20, help="per attack")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memo-stress-") as tmp:
        root = Path(tmp)
        payload: dict[str, Any] = {"settings": vars(args)}
        steps = (
            ("processes", lambda: run_processes(root / "proc", args.processes, args.operations, args.seed)),
            ("threads", lambda: run_threads(root / "threads", args.threads, args.operations, args.seed)),
            ("kills", lambda: run_kills(root / "kills", args.kill_trials, args.seed)),
            ("hostile", lambda: run_hostile(root, args.hostile, args.seed)),
            ("isolation", lambda: run_isolation(root, args.isolation, args.seed)),
            ("spend", lambda: run_spend(root, args.processes, 10)),
            ("attacks", lambda: run_attacks(root / "attacks", args.attack_trials, args.seed)),
        )  # fmt: skip
        for name, step in steps:
            t0 = time.perf_counter()
            payload[name] = step()
            print(f"{name}: done in {time.perf_counter() - t0:.0f} s", flush=True)
    proc, thr, kills = payload["processes"], payload["threads"], payload["kills"]
    hostile, iso, spend = payload["hostile"], payload["isolation"], payload["spend"]
    attacks = payload["attacks"].values()
    lost = len(proc["lost"]) + len(thr["lost"]) + sum(k["problems"] for k in kills.values())
    lost += sum(a["lost"] for a in attacks)
    payload["totals"] = {
        "items_lost": lost + len(proc["problems"]) + len(thr["problems"]),
        "leaks": proc["leaks"]
        + thr["leaks"]
        + sum(t["leaks"] for t in hostile.values())
        + sum(t["leaks"] for t in iso.values())
        + sum(a["leaked"] for a in attacks),
        "locked_errors": proc["locked_errors"] + thr["locked_errors"],
        "errors": proc["errors"] + thr["errors"],
        "kills": sum(k["killed"] for k in kills.values()),
        "kills_survived": sum(k["survived"] for k in kills.values()),
        "hostile_tried": sum(t["tried"] for t in hostile.values()),
        "hostile_crashes": sum(t["crashes"] for t in hostile.values()),
        "base_changed": sum(t["base_changed"] for t in hostile.values()),
        "overspend_usd": spend["overspend_usd"],
        "attack_trials": sum(a["trials"] for a in attacks),
        "attacks_survived": sum(a["survived"] for a in attacks),
        "seconds": time.perf_counter() - started,
    }
    report = _report(payload)
    write_results("stress", payload, report)
    print(report)
    totals = payload["totals"]
    failed = any(
        totals[k] for k in ("items_lost", "leaks", "locked_errors", "errors", "hostile_crashes")
    )
    failed = failed or totals["base_changed"] or totals["overspend_usd"] > 0
    failed = failed or totals["kills_survived"] != totals["kills"]
    failed = failed or totals["attacks_survived"] != totals["attack_trials"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
