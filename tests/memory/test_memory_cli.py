"""``memo memory ...``: replay (the schema independent checks read) and everyday commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memo_core.cli import main

OWN = Path(__file__).parent / "data" / "own_scenarios.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_replay_prints_one_json_line_per_probe(backend_url: str, capsys) -> None:
    db = backend_url
    code, out = run(
        capsys, "memory", "replay", str(OWN), "--db", db, "--json", "--embedder", "hash"
    )
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    scenarios = [json.loads(line) for line in OWN.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == sum(len(s["probes"]) for s in scenarios)
    for row in rows:
        assert set(row) == {"id", "probe", "gate", "facts", "history"}
        assert row["gate"] in ("recall", "skip")
        if row["gate"] == "skip":
            assert row["facts"] == []


def test_everyday_commands(
    tmp_path: Path, backend_url: str, base_url: Callable[[str], str], capsys
) -> None:
    db = backend_url
    base = ["--db", db, "--user", "u1", "--json", "--embedder", "hash"]
    code, out = run(
        capsys, "memory", "capture", "I live in Berlin.", *base, "--at", "2026-03-01T10:00:00Z"
    )
    assert code == 0 and json.loads(out)["decision"] == "keep"
    code, out = run(
        capsys, "memory", "capture", "I moved to Lisbon.", *base, "--at", "2026-03-10T10:00:00Z"
    )
    fact_id = json.loads(out)["added"][0]["id"]
    code, out = run(
        capsys, "memory", "recall", "where do I live?", *base, "--at", "2026-03-20T10:00:00Z"
    )
    recall = json.loads(out)
    assert "Lisbon" in recall["block"] and recall["gate"]["action"] == "recall"
    code, out = run(capsys, "memory", "history", fact_id, *base)
    assert [v["version"] for v in json.loads(out)] == [1, 2]
    export = tmp_path / "out.jsonl"
    code, out = run(capsys, "memory", "export", *base, "--out", str(export))
    assert json.loads(out)["records"] == 4
    code, out = run(capsys, "memory", "consolidate", *base, "--now", "2026-04-01T00:00:00Z")
    assert json.loads(out)["examined"] == 1
    code, out = run(capsys, "memory", "forget", fact_id, *base)
    assert json.loads(out) == {"deleted": 2}
    other = ["--db", base_url("other.db"), "--user", "u1", "--json", "--embedder", "hash"]
    code, out = run(capsys, "memory", "import", str(export), *other)
    assert json.loads(out)["facts"] == 2
    history = tmp_path / "history.jsonl"
    history.write_text(
        json.dumps({"t": "2026-01-01T00:00:00Z", "text": "I'm vegan."}) + "\n", encoding="utf-8"
    )
    code, out = run(capsys, "memory", "backfill", str(history), *other)
    assert json.loads(out)["facts_added"] == 1
    code, out = run(capsys, "memory", "list", *other)
    assert len(json.loads(out)) == 2


def test_user_is_required(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["memory", "recall", "hi", "--db", str(tmp_path / "x.db")])


def test_replay_answers_probes_as_of_a_date(tmp_path: Path, capsys) -> None:
    scenario = {
        "id": "asof-1",
        "user": "u-asof",
        "turns": [
            {"t": "2026-04-01T09:00:00Z", "role": "user", "text": "My dentist visit is on 3 May."},
            {
                "t": "2026-04-10T09:00:00Z",
                "role": "user",
                "text": "My dentist visit got moved to 10 May.",
            },
        ],
        "probes": [
            {"t": "2026-04-12T09:00:00Z", "text": "When is my dentist visit?"},
            {
                "t": "2026-04-12T09:00:00Z",
                "text": "When was my dentist visit planned?",
                "as_of": "2026-04-05T00:00:00Z",
            },
        ],
    }
    path = tmp_path / "asof.jsonl"
    path.write_text(json.dumps(scenario) + "\n", encoding="utf-8")

    def rows(*extra: str) -> list[dict[str, Any]]:
        db = str(tmp_path / f"replay{len(extra)}.db")
        code, out = run(
            capsys,
            "memory",
            "replay",
            str(path),
            "--db",
            db,
            "--json",
            "--embedder",
            "none",
            *extra,
        )
        assert code == 0
        return [json.loads(line) for line in out.splitlines()]

    now, own = rows()
    assert "as_of" not in now and any("10 May" in f for f in now["facts"])
    assert own["as_of"] == "2026-04-05T00:00:00+00:00"  # the probe's own as_of
    assert any("3 May" in f for f in own["facts"]) and not any("10 May" in f for f in own["facts"])
    for row in rows("--as-of", "2026-04-05"):  # the option answers every probe as of then
        assert str(row["as_of"]).startswith("2026-04-05")
        facts = " ".join(row["facts"])
        assert "3 May" in facts and "10 May" not in facts
