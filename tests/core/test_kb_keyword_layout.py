"""The SQLite keyword index keeps no copy of the text (``kb/sqlite_keywords.py``).

FTS5 removes a contentless row only when given the values it indexed; a wrong
value leaves postings behind that FTS5's own integrity check does not see. So
each test here ends by comparing every term's counts with an index built afresh
from the stored chunks (``stale_terms``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.kb.schema import kb_schema
from memo_core.kb.sqlite_keywords import (
    ANALYZER_TABLE,
    KEYWORD_HASH_SIZE,
    keyword_text,
    stale_terms,
)
from memo_core.search.text import DEFAULT_LANGUAGES

TEXTS = {
    "harbour": "The harbour master counted forty boats moored along the northern quay.",
    "orchard": "Apple trees in the orchard were pruned before the frost arrived.",
    "kiln": "The potters fired their glazed bowls in the wood kiln overnight.",
    "ledger": "Счёт за ремонт крыши оплатили в пятницу, квитанция лежит в папке.",
    "mixed": "Ремонт of the harbour crane was paid on Friday by the council.",
}


def _fill(kb: MemoBase) -> None:
    kb.add_texts(list(TEXTS.values()), ids=list(TEXTS))


def _keyword_ids(kb: MemoBase, query: str) -> list[str]:
    return sorted(h.chunk_id for h in kb.search(query, k=10, mode="keyword"))


def test_the_index_holds_no_text_and_ranks_from_its_own_counts(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        tables = {str(r[0]) for r in kb.db.query("SELECT name FROM sqlite_master")}
        assert "chunks_fts_content" not in tables and "chunks_fts_docsize" in tables
        assert kb.db.query_one("SELECT raw FROM chunks_fts WHERE rowid = 1")[0] is None
        assert _keyword_ids(kb, "boats quay") == ["harbour"]
        assert _keyword_ids(kb, "pruning") == ["orchard"]  # the stemmed column
        assert _keyword_ids(kb, "ремонта") == ["ledger", "mixed"]
        rows = [r for batch in kb.store.backend.keyword_rows() for r in batch]
        assert [r[1] for r in rows] == list(TEXTS.values())
        assert stale_terms(kb.db, DEFAULT_LANGUAGES) == []


def test_deletes_and_replacements_leave_no_postings_behind(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        kb.delete(["kiln", "ledger"])
        kb.add_texts(["The quay was repaved in granite last spring."], ids=["harbour"])
        kb.add_texts(["Glazed tiles cover the kiln roof."], ids=["tiles"])  # may reuse a rowid
        assert _keyword_ids(kb, "potters bowls") == []
        assert _keyword_ids(kb, "boats") == []
        assert _keyword_ids(kb, "granite") == ["harbour"]
        assert _keyword_ids(kb, "glazed") == ["tiles"]
        assert stale_terms(kb.db, DEFAULT_LANGUAGES) == []


def test_a_wrong_value_on_delete_would_be_caught(tmp_path: Path) -> None:
    # The check itself can fail: remove a row as a careless delete would.
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        with kb.db.transaction():
            kb.db.execute(
                "INSERT INTO chunks_fts (chunks_fts, rowid, raw, stemmed)"
                " SELECT 'delete', rowid, text, '' FROM chunks WHERE id = 'orchard'"
            )
        assert "orchard" in stale_terms(kb.db, DEFAULT_LANGUAGES)


def test_another_analyzer_rebuilds_the_index_before_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        _fill(kb)
    # German stems for Latin text: a delete with those stems would miss the English
    # ones stored, unless the index is first rebuilt with them.
    with MemoBase(path, embedder=HashEmbedder(32), languages=("german",)) as kb:
        before = kb.db.query_one(f"SELECT analyzer FROM {ANALYZER_TABLE}")[0]
        assert _keyword_ids(kb, "moored") == ["harbour"]  # reading changes nothing
        kb.delete(["orchard"])
        after = kb.db.query_one(f"SELECT analyzer FROM {ANALYZER_TABLE}")[0]
        assert before != after and '["german"]' in after
        assert stale_terms(kb.db, ("german",)) == []
        assert _keyword_ids(kb, "pruned") == []
        assert _keyword_ids(kb, "harbour") == ["harbour", "mixed"]


def _old_layout(path: Path) -> None:
    """The keyword index as earlier versions wrote it: FTS5 with its own text copy."""
    con = sqlite3.connect(path)
    rows = [
        (int(rowid), *keyword_text(str(text), DEFAULT_LANGUAGES))
        for rowid, text in con.execute("SELECT rowid, text FROM chunks")
    ]
    con.executescript(
        """
        DROP TABLE chunks_fts_vocab;
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            raw, stemmed, tokenize = 'unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
        """
    )
    con.executemany("INSERT INTO chunks_fts (rowid, raw, stemmed) VALUES (?, ?, ?)", rows)
    con.execute(f"DROP TABLE {ANALYZER_TABLE}")
    version = next(
        i for i, m in enumerate(kb_schema.steps, 1) if m.name == "contentless_keyword_index"
    )
    con.execute("DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version])
    con.commit()
    con.close()


@pytest.mark.parametrize("query", ["boats quay", "pruning", "ремонта", "harbour friday"])
def test_a_base_with_the_old_layout_is_migrated(tmp_path: Path, query: str) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        expected = [(h.chunk_id, h.score) for h in kb.search(query, k=10, mode="keyword")]
    _old_layout(path)
    con = sqlite3.connect(path)
    assert con.execute("SELECT count(*) FROM chunks_fts_content").fetchone()[0] == len(TEXTS)
    con.close()
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        tables = {str(r[0]) for r in kb.db.query("SELECT name FROM sqlite_master")}
        assert "chunks_fts_content" not in tables
        got = [(h.chunk_id, h.score) for h in kb.search(query, k=10, mode="keyword")]
        assert got == expected
        kb.delete(["harbour"])
        assert stale_terms(kb.db, DEFAULT_LANGUAGES) == []


def test_a_base_with_the_analyzer_in_kb_meta_moves_it_beside_the_index(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        recorded = kb.db.query_one(f"SELECT analyzer FROM {ANALYZER_TABLE}")[0]
    con = sqlite3.connect(path)  # as the first contentless version kept it
    con.execute(f"DROP TABLE {ANALYZER_TABLE}")
    con.execute("INSERT INTO kb_meta (key, value) VALUES ('keyword_analyzer', ?)", [recorded])
    version = next(
        i for i, m in enumerate(kb_schema.steps, 1) if m.name == "keyword_analyzer_beside_index"
    )
    con.execute("DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version])
    con.commit()
    con.close()
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        assert kb.db.query_one(f"SELECT analyzer FROM {ANALYZER_TABLE}")[0] == recorded
        assert kb.store.meta("keyword_analyzer") is None
        kb.delete(["kiln"])
        assert stale_terms(kb.db, DEFAULT_LANGUAGES) == []


def _hash_size(kb: MemoBase) -> int | None:
    row = kb.db.query_one("SELECT v FROM chunks_fts_config WHERE k = 'hashsize'")
    return None if row is None else int(row[0])


def test_the_index_holds_more_postings_in_memory_before_a_segment(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        assert _hash_size(kb) == KEYWORD_HASH_SIZE > 1 << 20  # FTS5's default: 1 MB
        _fill(kb)
        assert _keyword_ids(kb, "boats quay") == ["harbour"]


def test_an_older_base_gets_the_hash_size_by_a_migration(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        _fill(kb)
        steps = kb.store.backend.migrations.steps
        version = next(i for i, m in enumerate(steps, 1) if m.name == "keyword_index_hash_size")
        with kb.db.transaction():  # the base as the code before the migration left it
            kb.db.execute("DELETE FROM chunks_fts_config WHERE k = 'hashsize'")
            kb.db.execute(
                "DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version]
            )
        assert _hash_size(kb) is None
    with MemoBase(path, embedder=HashEmbedder(32)) as kb:
        assert _hash_size(kb) == KEYWORD_HASH_SIZE
        kb.add_texts(["Ferry tickets are sold at the quay kiosk."], ids=["kiosk"])
        assert _keyword_ids(kb, "boats quay") == ["harbour", "kiosk"]
        assert stale_terms(kb.db, DEFAULT_LANGUAGES) == []
