"""The first question of a process: what a cold ``memo kb ask`` costs, and where it goes.

A command-line question is a process of its own, so it pays every import and every
lazy load (the embedding model, the word-frequency lists) for one answer. This runs
``memo kb ask --json`` in fresh processes on a small base (the repository's
``samples/``, ingested once into a temporary folder, or ``--db``) and reports per
question the median CPU time of the process (user + system, from ``wait4``: load on
the machine disturbs it far less than wall-clock time) and its wall clock, then one
run under ``python -X importtime`` split by top-level package (cumulative import
time, wall clock).

    python bench/cold_ask.py [--runs 7] [--embedder local|hash] [--db kb.db]
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


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _ask(db: Path, question: str, *flags: str) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and stderr of one ``memo kb ask`` in a fresh process."""
    command = [sys.executable, *flags, "-m", "memo_core", "kb", "ask", question]
    start = time.perf_counter()
    with subprocess.Popen(
        [*command, "--db", str(db), "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=_env(),
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


def _small_base(folder: Path, embedder: str) -> Path:
    db = folder / "kb.db"
    command = [sys.executable, "-m", "memo_core", "kb", "ingest", str(REPO / "samples")]
    subprocess.run(
        [*command, "--db", str(db), "--embedder", embedder],
        check=True,
        capture_output=True,
        env=_env(),
    )
    return db


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        db = Path(args.db) if args.db else _small_base(Path(folder), args.embedder)
        _ask(db, QUESTIONS[0])  # compiles the bytecode once: no run pays for that
        rows = []
        for question in QUESTIONS:
            runs = [_ask(db, question) for _ in range(args.runs)]
            rows.append(
                {
                    "question": question,
                    "cpu_s": median([cpu for cpu, _, _ in runs]),
                    "wall_s": median([wall for _, wall, _ in runs]),
                    "cpu_runs_s": [round(cpu, 3) for cpu, _, _ in runs],
                }
            )
        imports = _import_split(_ask(db, QUESTIONS[1], "-X", "importtime")[2])
    return {"runs": args.runs, "embedder": args.embedder, "questions": rows, "imports": imports}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per question")
    parser.add_argument("--embedder", choices=("local", "hash"), default="local")
    parser.add_argument("--db", help="an existing base to ask instead of samples/")
    parser.add_argument("--name", default="cold_ask", help="results file name")
    args = parser.parse_args(argv)
    result = run(args)
    table = markdown_table(
        ["question", "CPU s (median)", "wall s (median)"],
        [[r["question"], r["cpu_s"], r["wall_s"]] for r in result["questions"]],
    )
    table += "\n\nImport time of one cold ask, by package (wall clock, cumulative):\n\n"
    table += markdown_table(["package", "s"], [[k, v] for k, v in result["imports"].items()])
    load = os.getloadavg()[0]
    table += f"\n\nload average {load:.1f} on {os.cpu_count()} CPUs"
    write_results(args.name, {**result, "load_average": load}, table)
    print(table)
    return result


if __name__ == "__main__":
    main()
