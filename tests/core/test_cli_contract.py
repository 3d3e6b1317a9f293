"""The command line's contract: what the README promises about exit codes and output.

Read commands never create a base; every error is one line on stderr with exit 2;
a partly failed ingest is a summary with exit 1, each failure said once; a storage
error stops an ingest at once; ``kb status`` says whether the base searches by
vector; output into a closed pipe ends quietly.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.ingest.prefetch import DEPTH as PREFETCH_DEPTH

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _notes(folder: Path, count: int, words: int = 40) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        body = " ".join(f"note{i} word{j} about the river ferry timetable" for j in range(words))
        (folder / f"note{i:03}.txt").write_text(body + "\n", encoding="utf-8")
    return folder


def _ingest(
    capsys: pytest.CaptureFixture[str], db: Path, *sources: Path, extra: tuple = ()
) -> tuple[int, str, str]:
    return run(
        capsys,
        "kb",
        "ingest",
        *map(str, sources),
        "--db",
        str(db),
        "--embedder",
        "hash",
        *extra,
    )


KB_READS = [
    ["kb", "search", "ferry"],
    ["kb", "ask", "When does the ferry leave?"],
    ["kb", "list"],
    ["kb", "status"],
    ["kb", "delete", "abc"],
    ["kb", "prepare"],
    ["kb", "reindex", "--embedder", "hash"],
]
MEMORY_READS = [
    ["memory", "recall", "what do I like?"],
    ["memory", "history", "fact_1"],
    ["memory", "list"],
    ["memory", "pin", "fact_1"],
    ["memory", "unpin", "fact_1"],
    ["memory", "forget", "fact_1"],
    ["memory", "export"],
    ["memory", "consolidate"],
]


@pytest.mark.parametrize("argv", KB_READS + MEMORY_READS, ids=lambda a: " ".join(a[:2]))
def test_read_commands_never_create_a_base(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nothere.db"
    user = ["--user", "alice"] if argv[0] == "memory" else []
    code, out, err = run(capsys, *argv, "--db", str(missing), *user, "--embedder", "hash")
    assert code == 2 and out == ""
    assert err.startswith("memo: error: no ") and err.count("\n") == 1 and str(missing) in err
    assert not missing.exists() and list(tmp_path.iterdir()) == []


def test_partly_failed_ingest_exits_1_and_says_each_failure_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _notes(tmp_path / "notes", 2)
    (folder / "broken.txt").write_bytes(b"\x81\x98" * 100)  # no encoding reads it
    code, out, err = _ingest(capsys, tmp_path / "kb.db", folder, extra=("--root", str(folder)))
    assert code == 1
    assert (
        out.startswith("added 2, updated 0, unchanged 0, failed 1, skipped 0;")
        and "broken" not in out
    )
    assert err.count("broken.txt") == 1 and err.count("\n") == 1
    assert err.startswith("memo: failed: ")
    code, out, _ = _ingest(
        capsys, tmp_path / "kb.db", folder, extra=("--root", str(folder), "--json")
    )
    report = json.loads(out)
    assert code == 1 and len(report["unchanged"]) == 2 and len(report["failed"]) == 1


def test_a_storage_error_stops_the_ingest_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import memo_core.ingest as ingest
    from memo_core.errors import StorageError
    from memo_core.kb.store import KnowledgeStore

    folder = _notes(tmp_path / "notes", 6)
    extracted: list[str] = []
    real_extract = ingest.extract

    def counting_extract(source, **options):  # type: ignore[no-untyped-def]
        extracted.append(str(source))
        return real_extract(source, **options)

    stored: list[str] = []
    attempts: list[str] = []
    real_replace = KnowledgeStore.replace_document

    def full_disk(self, **kwargs):  # type: ignore[no-untyped-def]
        attempts.append(kwargs["source"])
        if stored:
            raise StorageError("database or disk is full")
        stored.append(kwargs["source"])
        return real_replace(self, **kwargs)

    monkeypatch.setattr(ingest, "extract", counting_extract)
    monkeypatch.setattr(KnowledgeStore, "replace_document", full_disk)
    code, out, err = _ingest(capsys, tmp_path / "kb.db", folder, extra=("--root", str(folder)))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "disk is full" in err and "1 stored before it; 4 not stored" in err
    # Nothing is written after the failure; reading ahead is bounded (ingest/prefetch.py).
    assert len(attempts) == 2 and len(extracted) <= 2 + PREFETCH_DEPTH


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_full_disk_stops_a_real_ingest_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "kb.db"
    first = _notes(tmp_path / "first", 1)
    assert _ingest(capsys, db, first, extra=("--root", str(first)))[0] == 0
    folder = _notes(tmp_path / "many", 40, words=400)
    limit = db.stat().st_size + 64 * 1024  # the files may grow by a few pages, not more
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memo_core",
            "kb",
            "ingest",
            str(folder),
            "--db",
            str(db),
            "--embedder",
            "hash",
            "--root",
            str(folder),
        ],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=lambda: _limit_file_size(limit),
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "ingest stopped at" in done.stderr
    assert "Traceback" not in done.stderr
    stopped = int(done.stderr.split("; ")[-1].split(" not stored")[0])
    assert stopped > 30  # most files were never stored
    code, out, _ = run(capsys, "kb", "list", "--db", str(db), "--json")
    assert code == 0 and 1 <= len(json.loads(out)) < 10  # consistent: the first base survives


def test_status_reports_the_real_vector_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _notes(tmp_path / "notes", 1)
    for name, embedder, expected in (("vec.db", "hash", True), ("kw.db", "none", False)):
        db = tmp_path / name
        run(
            capsys,
            "kb",
            "ingest",
            str(folder),
            "--db",
            str(db),
            "--root",
            str(folder),
            "--embedder",
            embedder,
        )
        code, out, _ = run(capsys, "kb", "status", "--db", str(db), "--json")
        status = json.loads(out)
        assert code == 0 and status["vector_search"] is expected
        assert ("vector_search_off" in status) is not expected


def test_memory_pin_and_unpin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "mem.db")
    common = ("--db", db, "--user", "alice", "--embedder", "hash", "--json")
    code, out, err = run(capsys, "memory", "capture", "My sister Vera lives in Porto.", *common)
    assert code == 0, err
    fact = json.loads(out)["added"][0]
    assert fact["pinned"] is False
    code, out, _ = run(capsys, "memory", "pin", fact["id"], *common)
    assert code == 0 and json.loads(out)["pinned"] is True
    code, out, _ = run(capsys, "memory", "list", *common)
    assert [f["pinned"] for f in json.loads(out)] == [True]
    code, _, err = run(
        capsys, "memory", "unpin", fact["id"], "--db", db, "--user", "bob", "--embedder", "hash"
    )
    assert code == 2 and err.count("\n") == 1  # another user's fact is not found
    code, out, _ = run(capsys, "memory", "unpin", fact["id"], *common)
    assert code == 0 and json.loads(out)["pinned"] is False


def test_output_into_a_closed_pipe_ends_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _notes(tmp_path / "notes", 30)
    db = tmp_path / "kb.db"
    assert _ingest(capsys, db, folder, extra=("--root", str(folder)))[0] == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    reader, writer = os.pipe()
    os.close(reader)  # `| head` that has already gone away
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memo_core", "kb", "list", "--db", str(db), "--json"],
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(writer)
    assert done.stderr == "" and done.returncode == 141


@pytest.mark.parametrize(
    "argv",
    [["kb", "search"], ["kb", "ingest", "x", "--db", "k.db", "--secrets", "bogus"], ["nope"]],
)
def test_a_usage_mistake_is_one_line_too(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    out, err = capsys.readouterr()
    assert stopped.value.code == 2 and out == ""
    assert err.startswith("memo: error: ") and err.count("\n") == 1 and "--help" in err
