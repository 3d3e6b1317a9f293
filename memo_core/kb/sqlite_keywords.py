"""The knowledge base's FTS5 keyword index on SQLite: rows without a copy of the text.

``chunks_fts (raw, stemmed)`` is a *contentless* FTS5 table (``content=''``): it
keeps the index, each row's token counts (``chunks_fts_docsize``, which the BM25 of
``kb/fts_rank.py`` reads) and the totals, but not the texts: the raw text is
``chunks.text`` already, and the stemmed one is made from it. A third copy of each
chunk's text cost more than the index itself (1.3 KB of 6 KB per chunk).

FTS5 removes a contentless row only when given the very values it indexed (the
``'delete'`` command), so memo recomputes them from ``chunks.text`` with the
analyzer that indexed them: ``search.text.tokenize``, the language detection over
the base's languages, PyStemmer. That analyzer is recorded beside the index, in
``chunks_fts_analyzer`` (:func:`~memo_core.search.text.keyword_analyzer`; a fact of
this engine's index, so ``memo migrate`` does not copy it); a write by
a process whose analyzer differs (other languages, another PyStemmer or Unicode
version) first rebuilds the whole index with its own, so every delete gives FTS5
the values it holds. (``contentless_delete=1`` would need no values, but it needs
SQLite 3.43, and a file that uses it cannot be read by an older SQLite.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memo_core.search.text import detect_language, keyword_analyzer, stem_text
from memo_core.storage.base import SQLDatabase

__all__ = [
    "ANALYZER_TABLE",
    "KEYWORD_INDEX_DDL",
    "add_keyword_rows",
    "contentless_layout",
    "delete_keyword_rows",
    "keyword_text",
    "rebuild_keyword_index",
    "set_keyword_hash_size",
    "stale_terms",
]

#: The one-row table recording the analyzer that made every row of ``chunks_fts``.
ANALYZER_TABLE = "chunks_fts_analyzer"

KEYWORD_INDEX_DDL = (
    "CREATE VIRTUAL TABLE chunks_fts USING fts5("
    " raw, stemmed, content = '', tokenize = 'unicode61 remove_diacritics 2')"
)
#: Bytes of pending postings FTS5 holds in memory before it writes them out as a
#: segment (its ``hashsize`` option, 1 MB by default): a 5,000-chunk batch then
#: goes out in a few segments instead of dozens, each merged again later (FTS rows
#: 50-57 -> 36-41 µs a chunk, ``bench/write_path.py``); a writer holds at most
#: this much more. Persistent: FTS5 keeps it in ``chunks_fts_config``.
KEYWORD_HASH_SIZE = 8 << 20
_VOCAB_DDL = "CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row')"
_INSERT = "INSERT INTO chunks_fts (rowid, raw, stemmed) VALUES (?, ?, ?)"
_DELETE = "INSERT INTO chunks_fts (chunks_fts, rowid, raw, stemmed) VALUES ('delete', ?, ?, ?)"
_BATCH = 2_000
_COUNTS = "SELECT term, doc, cnt FROM {}_vocab"


def keyword_text(
    text: str, languages: Sequence[str], words: Sequence[str] | None = None
) -> tuple[str, str]:
    """The ``(raw, stemmed)`` values of a chunk's row (``words``: ``tokenize(text)``)."""
    return text, stem_text(text, detect_language(text, languages), words)


def add_keyword_rows(
    db: SQLDatabase,
    languages: Sequence[str],
    rows: Sequence[tuple[int, str]],
    words: Sequence[Sequence[str] | None] | None = None,
) -> None:
    """Index ``(chunk rowid, text)`` rows (their chunks are stored, or about to be)."""
    if not rows:
        return
    _analyzer_current(db, languages, adding={rowid for rowid, _ in rows})
    given = words if words is not None else [None] * len(rows)
    db.executemany(
        _INSERT,
        [
            (rowid, *keyword_text(text, languages, mine))
            for (rowid, text), mine in zip(rows, given, strict=True)
        ],
    )


def delete_keyword_rows(db: SQLDatabase, languages: Sequence[str], rowids: Sequence[int]) -> None:
    """Remove the rows of these chunks, while their ``chunks`` rows still exist (their
    text gives the values to remove); a rowid the index does not hold is skipped."""
    if not rowids:
        return
    _analyzer_current(db, languages)
    for start in range(0, len(rowids), 500):
        part = [int(r) for r in rowids[start : start + 500]]
        held = db.query(
            "SELECT c.rowid, c.text FROM chunks c JOIN chunks_fts_docsize d ON d.id = c.rowid"
            f" WHERE c.rowid IN ({','.join('?' for _ in part)})",
            part,
        )
        db.executemany(_DELETE, [(int(r[0]), *keyword_text(str(r[1]), languages)) for r in held])


def rebuild_keyword_index(
    db: SQLDatabase, languages: Sequence[str], *, skip: frozenset[int] | set[int] = frozenset()
) -> None:
    """Index every stored chunk (but ``skip``) anew with this analyzer, and record it:
    the contentless layout's migration, and a write under another analyzer."""
    db.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all')")
    for rows in _stored_chunks(db):
        db.executemany(
            _INSERT,
            [(r, *keyword_text(t, languages)) for r, t in rows if r not in skip],
        )
    db.execute(f"DELETE FROM {ANALYZER_TABLE}")
    db.execute(
        f"INSERT INTO {ANALYZER_TABLE} (analyzer) VALUES (?)", [keyword_analyzer(tuple(languages))]
    )


def contentless_layout(db: SQLDatabase, languages: Sequence[str]) -> None:
    """Replace a ``chunks_fts`` that keeps its own copy of the text by the contentless
    one, indexed from ``chunks.text`` (a migration: ``kb/schema.py``)."""
    db.executescript("DROP TABLE IF EXISTS chunks_fts_vocab; DROP TABLE IF EXISTS chunks_fts;")
    db.execute(KEYWORD_INDEX_DDL)
    set_keyword_hash_size(db)
    db.execute(_VOCAB_DDL)
    db.execute(f"CREATE TABLE IF NOT EXISTS {ANALYZER_TABLE} (analyzer TEXT NOT NULL)")
    rebuild_keyword_index(db, languages)


def set_keyword_hash_size(db: SQLDatabase) -> None:
    """Give ``chunks_fts`` :data:`KEYWORD_HASH_SIZE` (kept in the file, for every writer)."""
    db.execute(
        "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('hashsize', ?)", [KEYWORD_HASH_SIZE]
    )


def stale_terms(db: SQLDatabase, languages: Sequence[str]) -> list[str]:
    """Terms whose counts in ``chunks_fts`` differ from those of an index built afresh
    from the stored chunks (none when every row was added and removed with the
    values it was indexed with): the check that no delete left postings behind."""
    db.executescript(
        f"""
        DROP TABLE IF EXISTS temp.fresh_fts_vocab;
        DROP TABLE IF EXISTS temp.fresh_fts;
        {KEYWORD_INDEX_DDL.replace("TABLE chunks_fts", "TABLE temp.fresh_fts")};
        CREATE VIRTUAL TABLE temp.fresh_fts_vocab USING fts5vocab(temp, fresh_fts, 'row');
        """
    )
    try:
        for rows in _stored_chunks(db):
            db.executemany(
                "INSERT INTO temp.fresh_fts (rowid, raw, stemmed) VALUES (?, ?, ?)",
                [(r, *keyword_text(t, languages)) for r, t in rows],
            )
        held = {str(t): (int(d), int(c)) for t, d, c in db.query(_COUNTS.format("chunks_fts"))}
        made = {str(t): (int(d), int(c)) for t, d, c in db.query(_COUNTS.format("fresh_fts"))}
    finally:
        db.executescript("DROP TABLE temp.fresh_fts_vocab; DROP TABLE temp.fresh_fts;")
    return sorted(t for t in held.keys() | made.keys() if held.get(t) != made.get(t))


def _stored_chunks(db: SQLDatabase) -> Iterator[list[tuple[int, str]]]:
    """Every stored chunk's ``(rowid, text)``, in rowid order, a batch at a time."""
    last = 0
    while rows := db.query(
        "SELECT rowid, text FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT ?", [last, _BATCH]
    ):
        yield [(int(r[0]), str(r[1])) for r in rows]
        last = int(rows[-1][0])


def _analyzer_current(
    db: SQLDatabase, languages: Sequence[str], *, adding: frozenset[int] | set[int] = frozenset()
) -> None:
    """Rebuild the index when this process would analyze text otherwise than the
    analyzer that indexed it (the rows being ``adding`` are left to the caller)."""
    row = db.query_one(f"SELECT analyzer FROM {ANALYZER_TABLE}")
    if row is None or str(row[0]) != keyword_analyzer(tuple(languages)):
        rebuild_keyword_index(db, languages, skip=adding)
