"""Export / import (every version with dates) and back-fill in time order."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory import MemoHood, RecallGate

from .conftest import MONDAY, day


def _fill(memory: MemoHood) -> None:
    memory.capture("I live in Berlin.", namespace="u1", at=MONDAY, session_id="a")
    memory.capture("I moved to Lisbon.", namespace="u1", at=day(10), session_id="b")
    memory.capture("Actually I moved to Porto.", namespace="u1", at=day(20), session_id="b")
    memory.capture("I'm allergic to penicillin.", namespace="u2", at=day(1))
    memory.add_message("u1", "chat", "user", "hello there", capture=False, at=day(2))


def test_export_import_round_trip_keeps_every_version(
    memory: MemoHood, tmp_path: Path, base_url: Callable[[str], str]
) -> None:
    _fill(memory)
    out = tmp_path / "export.jsonl"
    count = memory.export_jsonl(out)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "memohood-export" and count == len(lines) - 1
    facts = [r for r in lines if r["type"] == "fact"]
    assert len(facts) == 4
    chain = sorted((r for r in facts if r["namespace"] == ["u1"]), key=lambda r: r["version"])
    assert [r["valid_to"] is None for r in chain] == [False, False, True]
    assert chain[0]["superseded_by"] == chain[1]["id"]

    with MemoHood(base_url("copy.db"), embedder=HashEmbedder(), gate=RecallGate()) as copy:
        report = copy.import_jsonl(out)
        assert (report.facts, report.turns, report.messages) == (4, 4, 1)
        assert copy.import_jsonl(out).skipped == count  # importing twice adds nothing
        original = memory.list_facts("u1", include_superseded=True)
        copied = copy.list_facts("u1", include_superseded=True)
        assert [
            (f.id, f.statement, f.valid_from, f.valid_to, f.superseded_by, f.version)
            for f in copied
        ] == [
            (f.id, f.statement, f.valid_from, f.valid_to, f.superseded_by, f.version)
            for f in original
        ]
        recall = copy.recall("where do I live?", namespace="u1", at=day(30))
        assert "Porto" in recall.block
        assert copy.get_messages("chat", "u1")[0].content == "hello there"


def test_export_of_one_namespace(memory: MemoHood) -> None:
    _fill(memory)
    buffer = io.StringIO()
    memory.export_jsonl(buffer, namespace="u2")
    records = [json.loads(line) for line in buffer.getvalue().splitlines()[1:]]
    assert records and all(r["namespace"] == ["u2"] for r in records)


def test_backfill_captures_in_time_order(memory: MemoHood, tmp_path: Path) -> None:
    history = tmp_path / "history.jsonl"
    rows = [
        {"t": "2026-03-20T10:00:00Z", "role": "user", "text": "Actually I moved to Porto."},
        {"t": "2026-03-01T10:00:00Z", "role": "user", "text": "I live in Berlin."},
        {"t": "2026-03-01T10:01:00Z", "role": "assistant", "text": "You should move to Rome!"},
        {"t": "2026-03-10T10:00:00Z", "role": "user", "text": "I moved to Lisbon."},
    ]
    history.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    report = memory.backfill(history, namespace="u1")
    assert report.turns == 4 and report.facts_added == 3 and report.superseded == 2
    versions = memory.list_facts("u1", include_superseded=True)
    assert [v.statement for v in versions] == [
        "I live in Berlin.",
        "I moved to Lisbon.",
        "I moved to Porto.",
    ]
    assert all("Rome" not in v.statement for v in versions)


def test_backfill_fails_closed_and_rejects_bad_lines(memory: MemoHood) -> None:
    with pytest.raises(NamespaceRequiredError):
        memory.backfill([{"t": "2026-03-01T10:00:00Z", "text": "I live in Berlin."}])
    with pytest.raises(InvalidInputError):
        memory.backfill(["not json"], namespace="u1")
    with pytest.raises(InvalidInputError):
        memory.backfill([{"text": "no time"}], namespace="u1")
    report = memory.backfill(
        [{"at": "2026-03-01T10:00:00Z", "content": "I live in Oslo.", "user": "u9"}]
    )
    assert report.facts_added == 1 and memory.list_facts("u9")
