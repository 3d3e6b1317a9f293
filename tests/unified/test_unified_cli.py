"""``memo recall``: the --json shape, the rendered block, and fail-closed errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.embedders.hash import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.memory import MemoHood, RecallGate

from .conftest import add_grant, tell_hollis

QUESTION = "When is the Hollis report due?"


@pytest.fixture(params=["sqlite", "postgres"])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """A memory and a knowledge base: two files, or both in one PostgreSQL schema."""
    if request.param == "sqlite":
        mem_path, kb_path = str(tmp_path / "memory.db"), str(tmp_path / "kb.db")
    else:
        mem_path = kb_path = str(request.getfixturevalue("postgres_url"))
    with MemoHood(mem_path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        tell_hollis(memory)
    with MemoBase(kb_path, embedder=HashEmbedder()) as kb:
        add_grant(kb)
    return mem_path, kb_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_shape(files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    mem_path, kb_path = files
    code, out, err = run(
        capsys, "recall", QUESTION, "--kb", kb_path, "--memory", mem_path, "--user", "alice",
        "--at", "2026-03-09T09:00:00Z", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {
        "message", "gate", "items", "conflicts", "token_budget", "tokens", "dropped",
        "weights", "context",
    }  # fmt: skip
    assert data["message"] == QUESTION and data["gate"]["action"] == "recall"
    assert data["token_budget"] == 1500 and 0 < data["tokens"] <= 1500
    assert data["weights"] == {"memory": 1.0, "kb": 1.0}
    memory_item = next(i for i in data["items"] if i["source"] == "memory")
    assert {"ref", "kind", "rank", "source_rank", "score", "label", "text"} <= set(memory_item)
    assert memory_item["valid_from"].startswith("2026-03-08") and memory_item["version"] == 3
    kb_item = next(i for i in data["items"] if i["source"] == "kb")
    assert (
        kb_item["locator"] == {"heading": "Hollis grant"} and kb_item["title"] == "Grant schedule"
    )
    [conflict] = data["conflicts"]
    assert conflict["kind"] == "date" and len(conflict["sides"]) == 2
    assert {s["ref"] for s in conflict["sides"]} == {memory_item["ref"], kb_item["ref"]}
    assert data["context"].startswith("<context>") and data["context"].endswith("</context>")


def test_human_output_and_options(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    mem_path, kb_path = files
    code, out, _ = run(
        capsys, "recall", QUESTION, "--kb", kb_path, "--memory", mem_path, "--user", "alice",
        "--kb-weight", "2", "--budget", "400",
    )  # fmt: skip
    assert code == 0 and out.startswith("<context>") and "Conflicts" in out
    assert out.splitlines()[2].startswith("[1] [document: Grant schedule")  # kb weighted up
    code, out, _ = run(capsys, "recall", QUESTION, "--kb", kb_path, "--json")
    assert code == 0 and {i["source"] for i in json.loads(out)["items"]} == {"kb"}
    code, out, _ = run(capsys, "recall", "ok thanks", "--memory", mem_path, "--user", "alice")
    assert code == 0 and "nothing recalled" in out and "gate: skip" in out


def test_errors_fail_closed(
    files: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mem_path, _ = files
    code, _, err = run(capsys, "recall", QUESTION, "--memory", mem_path)
    assert code == 2 and "--user" in err
    code, _, err = run(capsys, "recall", QUESTION)
    assert code == 2 and "--kb" in err
    missing = str(tmp_path / "nope.db")
    code, _, err = run(capsys, "recall", QUESTION, "--kb", missing)
    assert code == 2 and "no knowledge base at" in err and not Path(missing).exists()
