"""Backups under concurrent writes, rotation, and restores that verify before replacing."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ops_workers import PARAGRAPHS, document_text

import memo_core.backup as backup_mod
from memo_core.backup import backup_database, list_backups, restore_database, verify_memo_file
from memo_core.cli import main
from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import ConfigError, CorruptDatabaseError, NotFoundError, StorageError
from memo_core.kb.base import MemoBase
from memo_core.storage.connection import Database, pick_driver
from memo_core.storage.identity import BASE_ID_KEY

WORKERS = Path(__file__).with_name("ops_workers.py")


def _count_documents(path: Path) -> int:
    conn = pick_driver().module.connect(str(path), timeout=30)
    try:
        row = conn.execute("SELECT count(*) FROM documents").fetchone()
    except Exception:  # the writer has not created the schema yet
        return 0
    finally:
        conn.close()
    return int(row[0])


def _wait_for(predicate: Any, what: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit  # a safety net against hangs, not a speed assertion
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


def _table_dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every ordinary table (virtual tables' shadow tables included),
    but the base's id: every copy gets a fresh one on purpose (storage/identity.py)."""
    conn = pick_driver().module.connect(str(path))
    try:
        tables = [
            name
            for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
            if not str(sql).upper().startswith("CREATE VIRTUAL")
        ]
        dump = {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in tables}
        if "kb_meta" in dump:
            dump["kb_meta"] = [r for r in dump["kb_meta"] if r[0] != BASE_ID_KEY]
        return dump
    finally:
        conn.close()


def _assert_consistent_prefix(backup: Path) -> int:
    """The backup holds documents 0..m-1 exactly, each with all its chunks, FTS and vector rows."""
    verify_memo_file(backup)
    with MemoBase(backup, embedder=HashEmbedder(32)) as kb:
        docs = kb.list_documents(limit=100_000)
        m = len(docs)
        assert sorted(d.source for d in docs) == [f"doc-{n:05d}" for n in range(m)]
        assert all(d.chunk_count == PARAGRAPHS for d in docs)
        db = kb.db
        assert db.query_one("SELECT count(*) FROM chunks")[0] == PARAGRAPHS * m
        assert db.query_one("SELECT count(*) FROM chunks_fts")[0] == PARAGRAPHS * m
        assert kb.store.vector_table is not None
        vec_rows = db.query_one(f"SELECT count(*) FROM {kb.store.vector_table}")[0]
        assert vec_rows == PARAGRAPHS * m
        if m:
            hits = kb.search(f"fox number {(m - 1) * 10 + 1}", k=3, mode="keyword")
            assert hits and hits[0].source == f"doc-{m - 1:05d}"
    return m


@pytest.mark.slow
def test_backup_while_another_process_writes(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, str(WORKERS), str(db), str(stop)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(lambda: _count_documents(db) >= 5, "the writer's first documents")
        backups = [backup_database(db, tmp_path / "backups") for _ in range(3)]
        counts = [_assert_consistent_prefix(b) for b in backups]
        # The writer was still going: it commits more after the last backup was taken.
        _wait_for(lambda: _count_documents(db) > counts[-1] + 2, "writes after the backups")
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    written = int(out.strip())
    assert counts == sorted(counts) and counts[0] >= 5 and counts[-1] < written
    assert _count_documents(db) == written
    assert [p.name for p in list_backups(db, tmp_path / "backups")] == [b.name for b in backups]
    assert not [p for p in (tmp_path / "backups").iterdir() if p.name.startswith(".")]


def _small_kb(path: Path, texts: list[str]) -> None:
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        for i, text in enumerate(texts):
            kb.add_document(text, source=f"note-{i}")


def test_backup_name_rotation_and_independence(tmp_path: Path) -> None:
    kb, other = tmp_path / "kb.db", tmp_path / "kb-old.db"
    _small_kb(kb, ["alpha beta", "gamma delta"])
    _small_kb(other, ["epsilon"])
    out = tmp_path / "out"
    made = [backup_database(kb, out, keep=3) for _ in range(5)]
    other_backup = backup_database(other, out, keep=1)
    assert made[0].name.startswith("kb-") and made[0].suffix == ".db"
    assert made[0].name.endswith("Z.db") and len(set(made)) == 5
    kept = list_backups(kb, out)
    assert kept == made[-3:]  # the newest three, oldest first
    assert not any(p.exists() for p in made[:2])
    assert list_backups(other, out) == [other_backup]  # "kb-old" is not rotated with "kb"
    for path in kept:
        verify_memo_file(path)
        assert not Path(f"{path}-wal").exists()  # a backup is one self-contained file
    with pytest.raises(StorageError):
        backup_database(kb, out, keep=0)


def test_backup_of_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        backup_database(tmp_path / "nope.db", tmp_path / "out")
    assert not (tmp_path / "nope.db").exists()


def test_restore_round_trip_is_exact(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    _small_kb(db, [document_text(n) for n in range(4)])
    before = _table_dump(db)
    backup = backup_database(db, tmp_path / "out")
    with MemoBase(db, embedder=HashEmbedder(32)) as kb:  # change it after the backup
        kb.add_document("a later note about zebras", source="later")
        kb.delete([kb.list_documents()[0].id])
    changed = _table_dump(db)
    assert changed != before

    kept = restore_database(db, backup)

    assert _table_dump(db) == before
    assert kept is not None and kept.name.startswith("kb.db.replaced-")
    assert _table_dump(kept) == changed  # the replaced file is kept whole
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["kb.db", kept.name, "out"])
    with MemoBase(db, embedder=HashEmbedder(32)) as kb:  # and it opens and searches
        assert kb.search("zebras", k=3, mode="keyword") == []
        assert kb.search("paragraph", k=3, mode="keyword")


def test_restore_into_a_new_path(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    _small_kb(db, ["one note"])
    backup = backup_database(db, tmp_path / "out")
    target = tmp_path / "fresh" / "kb.db"
    assert restore_database(target, backup) is None
    assert _table_dump(target) == _table_dump(db)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _corrupt(path: Path) -> None:
    """Scribble over the middle pages, leaving the header intact."""
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    for offset in range(page, len(data) - page, page):
        data[offset + 8 : offset + 600] = os.urandom(592)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("kind", ["corrupt", "not-sqlite", "not-memo", "empty"])
def test_restore_refuses_a_bad_backup_and_leaves_the_original(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "kb.db"
    _small_kb(db, [document_text(n) for n in range(20)])
    bad = tmp_path / "bad.db"
    if kind == "corrupt":
        good = backup_database(db, tmp_path / "out")
        bad.write_bytes(good.read_bytes())
        _corrupt(bad)
    elif kind == "not-sqlite":
        bad.write_bytes(b"this is not a database, " * 400)
    elif kind == "not-memo":
        conn = pick_driver().module.connect(str(bad))
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
        conn.close()
    else:
        bad.write_bytes(b"")
    before = _digest(db)
    listing = sorted(p.name for p in tmp_path.iterdir())

    with pytest.raises(CorruptDatabaseError) as info:
        restore_database(db, bad)

    assert str(bad) in str(info.value)
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing  # no temp, no replaced copy


def test_restore_refuses_a_backup_whose_damage_reads_as_undecodable_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scribbled pages can reach the driver as bytes that are no UTF-8 (a name, an error
    message): rare with random damage, so the driver's answer is stood in for here."""
    db = tmp_path / "kb.db"
    _small_kb(db, ["first"])
    backup = backup_database(db, tmp_path / "out")
    before = _digest(db)
    real = backup_mod._connect

    class Undecodable:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def backup(self, target: Any, pages: int = -1) -> None:
            raise UnicodeDecodeError("utf-8", b"\xac", 0, 1, "invalid start byte")

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

    def connect(path: Path, **kwargs: Any) -> Any:
        conn = real(path, **kwargs)
        return Undecodable(conn) if Path(path) == backup else conn

    monkeypatch.setattr(backup_mod, "_connect", connect)
    with pytest.raises(CorruptDatabaseError) as info:
        restore_database(db, backup)
    assert str(backup) in str(info.value)
    assert _digest(db) == before


def test_restore_refuses_while_the_file_is_open(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    _small_kb(db, ["first"])
    backup = backup_database(db, tmp_path / "out")
    with MemoBase(db, embedder=HashEmbedder(32)) as kb:
        kb.add_document("second", source="second")
        with pytest.raises(StorageError, match="in use"):
            restore_database(db, backup)
        assert len(kb.list_documents()) == 2  # the open base kept working
    assert not list(tmp_path.glob("*.replaced-*"))
    assert not list(tmp_path.glob(".*.tmp"))


def test_backup_and_restore_a_memory_file(tmp_path: Path) -> None:
    from memo_core.memory import MemoHood, RecallGate

    path = tmp_path / "memory.db"
    with MemoHood(path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        memory.remember("I am allergic to penicillin", namespace="u1")
    backup = backup_database(path, tmp_path / "out")
    with MemoHood(path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        memory.remember("I live in Lisbon", namespace="u1")
        assert len(memory.list_facts("u1")) == 2
    restore_database(path, backup)
    with MemoHood(path, embedder=HashEmbedder(), gate=RecallGate()) as memory:
        facts = memory.list_facts("u1")
    assert [f.statement for f in facts] == ["I am allergic to penicillin"]


def test_backup_and_restore_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "kb.db"
    _small_kb(db, ["command line note"])
    out = tmp_path / "out"
    for _ in range(3):
        assert main(["backup", "--db", str(db), "--out", str(out), "--keep", "2", "--json"]) == 0
    made = json.loads(capsys.readouterr().out.strip().split("\n}\n")[-1] or "{}")
    assert len(made["kept"]) == 2 and made["backup"] == made["kept"][-1]
    _small_kb(db, ["another note"])
    code = main(["restore", "--db", str(db), "--from", made["backup"], "--json"])
    restored = json.loads(capsys.readouterr().out)
    assert code == 0 and Path(restored["replaced"]).is_file()
    with Database(db) as conn:
        assert conn.query_one("SELECT count(*) FROM documents")[0] == 1

    junk = tmp_path / "junk.db"
    junk.write_bytes(b"junk" * 1000)
    code = main(["restore", "--db", str(db), "--from", str(junk)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("memo: error:") and len(err.strip().splitlines()) == 1
    code = main(["backup", "--db", str(tmp_path / "missing.db"), "--out", str(out)])
    assert code == 2 and "no database file" in capsys.readouterr().err


def test_a_postgresql_base_is_pointed_to_pg_dump(tmp_path: Path) -> None:
    url = "postgresql://memo@db.internal/memo?schema=team"
    with pytest.raises(ConfigError, match="pg_dump"):
        backup_database(url, tmp_path / "out")
    with pytest.raises(ConfigError, match="pg_dump"):
        restore_database(url, tmp_path / "a.db")


def test_a_sqlite_url_is_backed_up_like_its_path(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        kb.add_texts(["a sentence to keep"])
    made = backup_database(f"sqlite:///{path}", tmp_path / "out")
    assert made.is_file() and made.parent == tmp_path / "out"
