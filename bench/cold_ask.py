"""The first question of a process: what a cold ``memo kb ask`` costs, and where it goes.

A command-line question is a process of its own, so it pays every import and every
lazy load (the embedding model, the word-frequency lists) for one answer. This runs
``memo kb ask --json`` in fresh processes on a small base (the repository's
``samples/``, ingested once into a temporary folder, or ``--db``) and reports per
question the median CPU time of the process (user + system, from ``wait4``: load on
the machine disturbs it far less than wall-clock time) and its wall clock, then one
run under ``python -X importtime`` split by top-level package (cumulative import
time, wall clock). ``--before DIR`` (a checkout of older code, e.g. ``git worktree
add /tmp/before REV``) asks the same questions with that code too, in turn with this
one, question by question, each on a base its own code ingested: both see the same
load.

    python bench/cold_ask.py [--runs 7] [--embedder local|hash] [--db kb.db] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import REPO, markdown_table, median, write_results

#: Questions of our own on samples/: one the base answers, one naming a term that
#: the word-frequency lists must judge ("the retry clause"), one in Russian.
QUESTIONS = (
    "What is the notice period?",
    "What does the retry clause do?",
    "Какой срок уведомления?",
)
#: Packages whose import time the report splits out (the rest is "other").
PACKAGES = ("memo_core", "fastembed", "onnxruntime", "numpy", "sqlite_vec", "wordfreq")


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code)}


def _ask(code: Path, db: Path, question: str, *flags: str) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and stderr of one ``memo kb ask`` in a fresh process."""
    command = [sys.executable, *flags, "-m", "memo_core", "kb", "ask", question]
    start = time.perf_counter()
    with subprocess.Popen(
        [*command, "--db", str(db), "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(code),
        cwd=code,  # `python -m` puts the working folder first on the path
        text=True,
    ) as child:
        assert child.stderr is not None
        stderr = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        sys.exit(f"memo kb ask failed ({child.returncode}): {stderr.strip()}")
    return usage.ru_utime + usage.ru_stime, wall, stderr


def _import_split(stderr: str) -> dict[str, float]:
    """Seconds of cumulative import time per top-level package (``-X importtime``)."""
    out = dict.fromkeys((*PACKAGES, "other"), 0.0)
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if name.startswith("  "):
            continue  # imported by another module: counted in that one's cumulative time
        package = name.strip().split(".")[0]
        out[package if package in out else "other"] += int(cumulative) / 1e6
    return out


def _small_base(code: Path, folder: Path, embedder: str) -> Path:
    db = folder / "kb.db"
    command = [sys.executable, "-m", "memo_core", "kb", "ingest", str(REPO / "samples")]
    subprocess.run(
        [*command, "--db", str(db), "--embedder", embedder],
        check=True,
        capture_output=True,
        env=_env(code),
        cwd=code,
    )
    return db


def run(args: argparse.Namespace) -> dict[str, Any]:
    codes = {"now": REPO, **({"before": Path(args.before)} if args.before else {})}
    with tempfile.TemporaryDirectory() as folder:
        bases = {}
        for name, code in codes.items():
            (Path(folder) / name).mkdir()
            given = Path(args.db) if args.db and name == "now" else None
            bases[name] = given or _small_base(code, Path(folder) / name, args.embedder)
            _ask(code, bases[name], QUESTIONS[0])  # compiles the bytecode: no run pays for it
        runs: dict[tuple[str, str], list[tuple[float, float, str]]] = {}
        for question in QUESTIONS:
            for _ in range(args.runs):
                for name, code in codes.items():
                    runs.setdefault((name, question), []).append(_ask(code, bases[name], question))
        rows = [
            {
                "code": name,
                "question": question,
                "cpu_s": median([cpu for cpu, _, _ in runs[(name, question)]]),
                "wall_s": median([wall for _, wall, _ in runs[(name, question)]]),
                "cpu_runs_s": [round(cpu, 3) for cpu, _, _ in runs[(name, question)]],
            }
            for question in QUESTIONS
            for name in codes
        ]
        imports = {
            name: _import_split(_ask(code, bases[name], QUESTIONS[1], "-X", "importtime")[2])
            for name, code in codes.items()
        }
    return {"runs": args.runs, "embedder": args.embedder, "questions": rows, "imports": imports}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per question")
    parser.add_argument("--embedder", choices=("local", "hash"), default="local")
    parser.add_argument("--db", help="an existing base to ask instead of samples/")
    parser.add_argument("--before", help="a checkout of older code to ask in turn with this one")
    parser.add_argument("--name", default="cold_ask", help="results file name")
    args = parser.parse_args(argv)
    result = run(args)
    table = markdown_table(
        ["code", "question", "CPU s (median)", "wall s (median)"],
        [[r["code"], r["question"], r["cpu_s"], r["wall_s"]] for r in result["questions"]],
    )
    table += "\n\nImport time of one cold ask, by package (wall clock, cumulative):\n\n"
    names = list(result["imports"])
    table += markdown_table(
        ["package", *names],
        [[p, *(result["imports"][n][p] for n in names)] for p in (*PACKAGES, "other")],
    )
    load = os.getloadavg()[0]
    table += f"\n\nload average {load:.1f} on {os.cpu_count()} CPUs"
    write_results(args.name, {**result, "load_average": load}, table)
    print(table)
    return result


if __name__ == "__main__":
    main()
