"""The memo CLI: ingest, search --json, ask --json, status, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.search.ann_graphs import pick_engine

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "kb.db")
    code, _, err = run(
        capsys,
        "kb",
        "ingest",
        str(SAMPLES),
        "--db",
        path,
        "--root",
        str(SAMPLES),
        "--embedder",
        "hash",
        "--json",
    )
    assert code == 0, err
    return path


def test_ingest_reports_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "kb",
        "ingest",
        str(SAMPLES),
        "--db",
        str(tmp_path / "k.db"),
        "--root",
        str(SAMPLES),
        "--embedder",
        "hash",
        "--json",
    )
    report = json.loads(out)
    assert code == 0 and report["added"] and not report["failed"]
    code, out, _ = run(
        capsys,
        "kb",
        "ingest",
        str(SAMPLES),
        "--db",
        str(tmp_path / "k.db"),
        "--root",
        str(SAMPLES),
        "--json",
    )
    again = json.loads(out)
    assert again["added"] == [] and len(again["unchanged"]) == len(report["added"])


def test_search_json_shape(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kb", "search", "initial term", "--db", db, "-k", "2", "--json")
    hits = json.loads(out)
    assert code == 0 and len(hits) == 2
    assert set(hits[0]) == {
        "chunk_id",
        "document_id",
        "source",
        "title",
        "locator",
        "score",
        "text",
    }


def test_ask_json_answer_and_refusal(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "kb", "ask", "How long is the initial term of the agreement?", "--db", db, "--json"
    )
    answer = json.loads(out)
    assert code == 0 and answer["refused"] is False
    assert {"quote", "chunk_id", "source", "page", "start", "end"} <= set(answer["citations"][0])
    code, out, _ = run(
        capsys,
        "kb",
        "ask",
        "What is the warranty period of the espresso machine?",
        "--db",
        db,
        "--json",
        "--explain",
    )
    refusal = json.loads(out)
    assert refusal["refused"] is True and refusal["answer"] is None and "explain" in refusal
    assert isinstance(refusal["related"], list)
    assert all({"text", "chunk_id", "source", "locator"} <= set(r) for r in refusal["related"])


def test_named_paths_are_allowed_and_walks_stay_inside_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")  # the old default root: nothing named lies in it
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = elsewhere / "chosen.txt"
    named.write_text("The harbour crane lifts forty tonnes.", encoding="utf-8")
    private = tmp_path / "private"
    private.mkdir()
    (private / "diary.txt").write_text("Private thoughts about the garden.", encoding="utf-8")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "kept.txt").write_text("Ferry timetables for the winter.", encoding="utf-8")
    (folder / "escape").symlink_to(private / "diary.txt")
    # No --root: what the user named is allowed, though it lies outside the current folder.
    code, out, _ = run(
        capsys,
        "kb",
        "ingest",
        str(named),
        str(folder),
        "--db",
        str(tmp_path / "k.db"),
        "--embedder",
        "hash",
        "--json",
    )
    report = json.loads(out)
    assert code == 1 and sorted(Path(p).name for p in report["added"]) == ["chosen.txt", "kept.txt"]
    (refused,) = report["failed"]  # the walk of `folder` does not follow a link out of it
    assert refused["type"] == "PathNotAllowedError" and "--root" in refused["error"]
    code, out, _ = run(
        capsys,
        "kb",
        "ingest",
        str(folder),
        "--db",
        str(tmp_path / "k.db"),
        "--root",
        str(private),
        "--embedder",
        "hash",
        "--json",
    )
    assert code == 0 and [Path(p).name for p in json.loads(out)["added"]] == ["diary.txt"]


def test_errors_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 200)
    code, _, err = run(capsys, "kb", "status", "--db", str(junk))
    assert code == 2 and err.startswith("memo: error:") and err.count("\n") == 1


def test_status_and_list(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "kb", "status", "--db", db, "--json")
    status = json.loads(out)
    assert code == 0 and status["documents"] >= 5 and status["embedder"].startswith("hash")
    code, out, _ = run(capsys, "kb", "list", "--db", db, "--json")
    assert code == 0 and len(json.loads(out)) == status["documents"]


def test_demo_without_its_samples_says_where_it_looked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "demo", "--samples", str(tmp_path / "missing"))
    assert code == 2
    assert "no sample documents" in err and "--samples" in err


def test_search_settings_from_config_yaml(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``memobase: search:`` reaches the CLI's base: the in-RAM keyword index answers
    like FTS5, and is saved beside the file."""
    plain = json.loads(run(capsys, "kb", "search", "initial term", "--db", db, "--json")[1])
    config = tmp_path / "config.yaml"
    config.write_text("memobase:\n  search: {keyword_index: memory}\n")
    code, out, err = run(
        capsys, "kb", "search", "initial term", "--db", db, "--config", str(config), "--json"
    )
    assert code == 0, err
    assert [h["chunk_id"] for h in json.loads(out)] == [h["chunk_id"] for h in plain]
    assert Path(db + ".kwidx").exists()
    config.write_text("memobase:\n  search: {keyword_index: lucene}\n")
    code, _, err = run(capsys, "kb", "search", "x", "--db", db, "--config", str(config))
    assert code == 2 and "keyword_index" in err


def test_prepare_builds_the_search_aids_once(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    if pick_engine("auto") is None:
        pytest.skip("the HNSW index needs faiss-cpu or usearch (memo[ann])")
    argv = ["kb", "prepare", "--db", db, "--vector-index", "hnsw", "--keyword-index", "memory"]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["vector_index"]["builds"] == 1 and first["keyword_index"]["builds"] == 1
    assert first["keyword_index"]["chunks"] > 0 and first["vector_index"]["vectors"] > 0
    again = json.loads(run(capsys, *argv, "--json")[1])  # saved beside the file: loaded
    assert again["vector_index"]["loads"] == 1 and again["keyword_index"]["loads"] == 1
    assert again["vector_index"]["builds"] == 0 and again["keyword_index"]["builds"] == 0
    code, out, _ = run(capsys, "kb", "prepare", "--db", db)
    assert code == 0 and "nothing to prepare" in out
