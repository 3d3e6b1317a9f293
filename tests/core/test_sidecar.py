"""Saving and trusting indexes kept beside a SQLite file (``search/sidecar.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.search.hybrid import SearchSettings
from memo_core.search.sidecar import read_header, save_with_header, snapshot_usable
from memo_core.storage.identity import BASE_ID_KEY


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


# -- binding to the base, and the table as the authority ------------------------------


def _two_owner_base(path: Path, **settings: str) -> MemoBase:
    kb = MemoBase(path, embedder=HashEmbedder(16), settings=SearchSettings(**settings))
    for owner in ("bob", "alice"):
        kb.add_texts(
            [f"harbour lantern note {i} of {owner}" for i in range(6)],
            [{"who": owner}] * 6,
            owner=owner,
        )
    return kb


def test_every_base_has_an_id_and_an_older_file_gets_one_on_open(tmp_path: Path) -> None:
    first = _two_owner_base(tmp_path / "a.db")
    other = _two_owner_base(tmp_path / "b.db")
    ids = {first.store.meta(BASE_ID_KEY), other.store.meta(BASE_ID_KEY)}
    assert len(ids) == 2 and None not in ids
    # A file made before the migration: no id, and its migration not recorded yet.
    first.db.execute("DELETE FROM kb_meta WHERE key = ?", [BASE_ID_KEY])
    first.db.execute(  # and the later ones, which re-run on open (they are idempotent)
        "DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= (SELECT version"
        " FROM _memo_migrations WHERE schema = 'kb' AND name = 'add_base_identity')"
    )
    first.close()
    other.close()
    reopened = MemoBase(tmp_path / "a.db", embedder=HashEmbedder(16))
    assert reopened.store.meta(BASE_ID_KEY) not in (None, *ids)
    reopened.close()


@pytest.mark.parametrize(
    ("settings", "aid"),
    [
        ({"keyword_index": "memory"}, "_keywords"),
        ({"vector_index": "memory"}, "_ram"),
    ],
)
def test_a_wrong_aid_never_hands_out_another_owners_chunk(
    tmp_path: Path, settings: dict[str, str], aid: str
) -> None:
    """An aid that slipped past its checks thinks bob's chunks are alice's: the
    table says otherwise, the hit is dropped, and the aid is rebuilt from the table."""
    kb = _two_owner_base(tmp_path / "kb.db", **settings)
    mode = "keyword" if "keyword_index" in settings else "vector"
    assert {
        h.metadata["who"] for h in kb.search("harbour lantern", owner="alice", k=12, mode=mode)
    } == {"alice"}
    index = getattr(kb.searcher, aid)
    index._owners[:] = index._owner_codes["alice"]  # every chunk "alice's"
    hits = kb.search("harbour lantern note of bob", owner="alice", k=12, mode=mode)
    assert hits and {h.metadata["who"] for h in hits} == {"alice"}
    assert len(hits) == 6  # the SQL leg answered: nothing of alice's is missing
    again = kb.search("harbour lantern note of bob", owner="alice", k=12, mode=mode)
    assert {h.chunk_id for h in again} == {h.chunk_id for h in hits}
    assert not (index._owners == index._owner_codes["alice"]).all()  # rebuilt from the table
    kb.close()


def test_a_file_holding_one_scope_is_not_rechecked_per_query(tmp_path: Path) -> None:
    """The table confirms an aid's answer only where the file holds other scopes
    (another owner or collection): with one scope every chunk is in it."""
    settings = {"keyword_index": "memory", "vector_index": "memory"}
    checks: list[str] = []

    def scope_checks(kb: MemoBase, owner: str, mode: str) -> int:
        kb.db.tracer = lambda sql, params: checks.append(sql)
        checks.clear()
        assert kb.search("harbour lantern", owner=owner, k=3, mode=mode)
        kb.db.tracer = None
        return sum("c.owner, c.collection FROM chunks c WHERE c.rowid IN" in s for s in checks)

    alone = MemoBase(
        tmp_path / "one.db", embedder=HashEmbedder(16), settings=SearchSettings(**settings)
    )
    alone.add_texts([f"harbour lantern note {i}" for i in range(6)], owner="bob")
    both = _two_owner_base(tmp_path / "two.db", **settings)
    for mode in ("keyword", "vector"):
        assert scope_checks(alone, "bob", mode) == 0
        assert scope_checks(both, "alice", mode) == 1
    alone.close()
    both.close()
