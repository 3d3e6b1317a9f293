"""Shared helpers for the benchmark scripts: data paths, loading, timing, reporting."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def shared_dir() -> Path:
    """../shared next to the repo (or MEMO_SHARED_DIR)."""
    return Path(os.environ.get("MEMO_SHARED_DIR", REPO.parent / "shared"))


def qa_dir() -> Path:
    path = shared_dir() / "eval" / "qa"
    if not (path / "corpus.jsonl").exists():
        sys.exit(f"evaluation data not found at {path}: nothing to measure (set MEMO_SHARED_DIR)")
    return path


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - start) * 1000.0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }


def write_results(name: str, payload: dict[str, Any], table: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "machine": machine(), **payload}
    out = RESULTS / f"{name}.json"
    out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    (RESULTS / f"{name}.md").write_text(table + "\n")
    return out


def markdown_table(headers: list[str], rows: list[list[Any]]) -> str:
    def fmt(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
