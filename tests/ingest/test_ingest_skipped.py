"""Ingest says what it did: text of unknown type goes in, every skip is listed with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.embedders.hash import HashEmbedder
from memo_core.ingest import IngestPolicy, iter_sources
from memo_core.kb import MemoBase

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


def _mixed(folder: Path) -> Path:
    """A folder as people have them: text with odd names, binaries, hidden things."""
    folder.mkdir()
    (folder / "LICENSE").write_text(
        "Anyone may borrow the canoe on weekdays if they return it dry.\n", encoding="utf-8"
    )
    (folder / "NOTES").write_text("Buy rope, check the oarlocks, call Irma.\n", "utf-8")
    (folder / "README").write_text("This folder holds the boat club's papers.\n", "utf-8")
    (folder / "club.cfg").write_text("members = 14\nfee = 20 euros\n", encoding="utf-8")
    (folder / "minutes.md").write_text("# Minutes\nThe club voted to paint the shed.\n", "utf-8")
    (folder / "photo").write_bytes(PNG)  # no suffix, binary
    (folder / "logo.png").write_bytes(PNG)
    (folder / "blank").write_bytes(b"")
    (folder / ".DS_Store").write_bytes(b"\x00\x01junk")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return folder


def test_text_of_unknown_type_is_walked_and_binary_is_skipped_with_a_reason(
    tmp_path: Path,
) -> None:
    folder = _mixed(tmp_path / "club")
    skipped: list[tuple[str, str]] = []
    found = list(
        iter_sources(
            [folder],
            IngestPolicy(allowed_roots=[tmp_path]),
            on_skip=lambda p, r: skipped.append((Path(p).name, r)),
        )
    )
    assert [p.name for p in found] == ["LICENSE", "NOTES", "README", "club.cfg", "minutes.md"]
    assert sorted(skipped) == [
        (".DS_Store", "hidden file"),
        (".git", "hidden folder"),
        ("blank", "empty file"),
        ("logo.png", "unsupported format (.png)"),
        ("photo", "binary file (png)"),
    ]


def test_ingest_reports_every_skip_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _mixed(tmp_path / "club")
    argv = ["kb", "ingest", str(folder), "--db", str(tmp_path / "kb.db"), "--embedder", "hash"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("added 5, updated 0, unchanged 0, failed 0, skipped 5;")
    assert f"skipped {folder / 'photo'}: binary file (png)" in out
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["unchanged"]) == 5
    assert {"path": str(folder / "blank"), "reason": "empty file"} in report["skipped"]
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        hits = kb.search("who may borrow the canoe", k=1, mode="keyword")
    assert hits and hits[0].title == "LICENSE"


def test_an_empty_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["kb", "ingest", str(empty), "--db", str(tmp_path / "kb.db"), "--embedder", "hash"])
    out = capsys.readouterr().out
    assert code == 0 and f"skipped {empty}: empty folder" in out


def test_python_ingest_returns_the_cli_report(tmp_path: Path) -> None:
    folder = _mixed(tmp_path / "club")
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        report = kb.ingest(folder, roots=[folder])
        assert len(report.added) == 5 and len(report.skipped) == 5 and report.chunks >= 5
        again = kb.ingest([folder / "NOTES"], roots=[folder])
        assert again.unchanged == [str((folder / "NOTES").resolve())]
        refused = kb.ingest(folder, roots=[tmp_path / "elsewhere"])  # code keeps the guard
    (failure,) = refused.failed
    assert failure["type"] == "PathNotAllowedError" and "roots=" in failure["error"]
