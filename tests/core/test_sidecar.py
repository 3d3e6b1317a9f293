"""Saving and trusting indexes kept beside a SQLite file (``search/sidecar.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memo_core.search.sidecar import read_header, save_with_header, snapshot_usable


def test_a_header_is_trusted_only_beside_its_own_data(tmp_path: Path) -> None:
    data = tmp_path / "kb.db.idx"
    want = {"format": 1}
    assert save_with_header(data, lambda tmp: tmp.write_bytes(b"first"), {"index": want, "seq": 3})
    header = read_header(data, want)
    assert header is not None and header["seq"] == 3
    assert read_header(data, {"format": 2}) is None  # written for other parameters
    data.write_bytes(b"another writer's data")  # replaced behind the header's back
    assert read_header(data, want) is None
    assert not list(tmp_path.glob("*.tmp"))


def test_a_rename_racing_ours_leaves_no_trusted_mismatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process moves its data into place right after ours, before our header
    lands: our header must not vouch for their file."""
    data = tmp_path / "kb.db.idx"
    want = {"format": 1}
    real_replace = os.replace
    calls = []

    def replace_then_theirs(src: str | Path, dst: str | Path) -> None:
        real_replace(src, dst)
        if not calls:  # our data file: theirs lands just after it
            calls.append(dst)
            theirs = tmp_path / "theirs.tmp"
            theirs.write_bytes(b"their index, another size")
            real_replace(theirs, dst)

    monkeypatch.setattr("memo_core.search.sidecar.os.replace", replace_then_theirs)
    assert save_with_header(data, lambda tmp: tmp.write_bytes(b"ours"), {"index": want, "seq": 1})
    assert data.read_bytes() == b"their index, another size"
    assert read_header(data, want) is None


def test_an_unwritable_folder_is_not_an_error(tmp_path: Path) -> None:
    """A read-only folder (or a full disk): the save reports False, the index serves
    from RAM, and nothing half-written is left behind."""

    def refused(tmp: Path) -> None:
        tmp.write_bytes(b"partial")
        raise PermissionError(13, "Permission denied", str(tmp))

    data = tmp_path / "kb.db.idx"
    assert not save_with_header(data, refused, {"index": {}})
    assert not data.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("seq", "low", "high", "usable"),
    [
        (5, 1, 5, True),  # in step
        (3, 1, 5, True),  # behind, the entries after it kept
        (3, 4, 5, True),  # the next entry (4) is still there
        (3, 5, 9, False),  # entries 4.. pruned
        (9, 1, 5, False),  # ahead of the file: a restored backup
        (0, 0, 0, True),  # an empty log
        (-1, 0, 0, False),
    ],
)
def test_when_a_snapshot_can_catch_up(seq: int, low: int, high: int, usable: bool) -> None:
    assert snapshot_usable(seq, low, high) is usable
