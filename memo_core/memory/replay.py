"""Scenario replay: feed conversations into a memory at their timestamps, then recall probes.

The one implementation behind ``memo memory replay`` and ``bench/memory_eval.py``.
A scenario file follows ``eval/memory/README.md``: one JSON object a line with an
``id``, a ``user`` (its namespace, so users in one file stay apart), ``turns``
(``t``, ``role``, ``text``) and ``probes`` (``t``, ``text``, and optionally
``as_of``: a temporal question, answered from the versions current at that date).
Turns on the same day form one session.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.memory.hood import MemoHood
from memo_core.memory.timeutil import parse_when

__all__ = ["load_scenarios", "replay"]


def load_scenarios(path: str | Path) -> list[dict[str, Any]]:
    """Scenarios in the schema of ``eval/memory/README.md`` (one JSON object a line)."""
    out: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                scenario = json.loads(line)
            except ValueError as exc:
                raise InvalidInputError(f"{path}:{number}: not JSON ({exc})") from exc
            for name in ("id", "user", "turns", "probes"):
                if name not in scenario:
                    raise InvalidInputError(f"{path}:{number}: scenario lacks {name!r}")
            out.append(scenario)
    return out


def replay(
    memory: MemoHood, scenarios: Iterable[dict[str, Any]], *, as_of: datetime | None = None
) -> Iterator[dict[str, Any]]:
    """Feed each scenario's turns at their timestamps, then recall each probe.

    A probe is answered as of its own ``as_of`` when it has one; ``as_of`` here
    answers every probe as of that moment instead. Yields one row a probe: ``id``,
    ``probe`` (its index), ``gate``, ``facts``, ``unmatched`` and ``history`` (statements), the
    ``block``, ``as_of`` (ISO 8601 or None) and ``ms``, the gate + recall time.
    """
    for scenario in scenarios:
        user = str(scenario["user"])
        for turn in scenario["turns"]:
            when = parse_when(turn["t"])
            memory.capture(
                turn["text"],
                namespace=(user,),
                role=turn.get("role", "user"),
                at=when,
                session_id=f"{scenario['id']}:{when.date().isoformat()}",
            )
        for index, probe in enumerate(scenario["probes"]):
            view = as_of or (parse_when(probe["as_of"]) if probe.get("as_of") else None)
            t0 = time.perf_counter()
            result = memory.recall(
                probe["text"], namespace=(user,), at=parse_when(probe["t"]), as_of=view
            )
            ms = (time.perf_counter() - t0) * 1000
            yield {
                "id": scenario["id"],
                "probe": index,
                "gate": result.gate.action,
                "facts": [f.statement for f in result.facts],
                "unmatched": [f.statement for f in result.unmatched],
                "history": [f.statement for f in result.history],
                "block": result.block,
                "as_of": result.as_of.isoformat() if result.as_of else None,
                "ms": ms,
            }
