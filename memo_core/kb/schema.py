"""The knowledge-base schema, as numbered migrations.

Tables (one SQLite file per base):

* ``kb_meta`` — key/value facts about the file: embedding fingerprint, active
  vector table, the base's random id (``base_id``).
* ``documents`` — one row per source, scoped by ``owner`` and ``collection``,
  holding the full normalised text (chunks point into it by character span).
* ``chunks`` — the retrievable units: text, span, locator (page / heading /
  timecode) and merged metadata (JSON), ``content_hash`` to reuse vectors.
* ``chunks_fts`` — FTS5 over (raw, stemmed) text, contentless (``kb/sqlite_keywords.py``);
  rowid = ``chunks.rowid``.
* ``vec_chunks_<generation>`` — sqlite-vec ``vec0`` table (cosine); created when
  the first embedder is attached, rebuilt beside the old one by a re-index.
* ``kb_ingest_claims`` — documents being embedded right now, and by whom
  (``kb/claims.py``); transient, so ``memo migrate`` does not copy it.
* ``sentence_vectors`` — the answer loop's sentence embeddings by (chunk id,
  offsets, embedder), written by the questions that needed them
  (``kb/sentence_vectors.py``); derived, so ``memo migrate`` does not copy it.
"""

from __future__ import annotations

from memo_core.kb.flags import backfill_chunk_flags
from memo_core.kb.repeats import (
    backfill_repeat_terms,
    backfill_repeats,
    shingle_rows_per_document,
)
from memo_core.kb.sqlite_keywords import (
    ANALYZER_TABLE,
    contentless_layout,
    set_keyword_hash_size,
)
from memo_core.search.text import DEFAULT_LANGUAGES
from memo_core.storage.base import SQLDatabase
from memo_core.storage.identity import BASE_ID_KEY, new_base_id
from memo_core.storage.migrations import Migrations

__all__ = ["kb_schema", "vec_table_ddl"]

kb_schema = Migrations("kb")


@kb_schema
def create_core_tables(db: SQLDatabase) -> None:
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS documents (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            owner TEXT NOT NULL,
            collection TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL DEFAULT 'text',
            content_hash TEXT NOT NULL,
            text TEXT NOT NULL,
            metadata TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (owner, id)
        );
        CREATE INDEX IF NOT EXISTS documents_scope ON documents (owner, collection);
        CREATE INDEX IF NOT EXISTS documents_hash ON documents (owner, content_hash);
        CREATE TABLE IF NOT EXISTS chunks (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            doc_rowid INTEGER NOT NULL REFERENCES documents (rowid) ON DELETE CASCADE,
            owner TEXT NOT NULL,
            collection TEXT NOT NULL,
            ord INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            locator TEXT NOT NULL DEFAULT '{}',
            metadata TEXT NOT NULL DEFAULT '{}',
            content_hash TEXT NOT NULL,
            UNIQUE (owner, id)
        );
        CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (doc_rowid, ord);
        CREATE INDEX IF NOT EXISTS chunks_scope ON chunks (owner, collection);
        CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
            raw, stemmed, tokenize = 'unicode61 remove_diacritics 2'
        );
        """
    )


def vec_table_ddl(name: str, dimensions: int) -> str:
    """DDL of a vector table; owner is a partition key so KNN filters inside the index."""
    return (
        f"CREATE VIRTUAL TABLE {name} USING vec0("
        " chunk_rowid INTEGER PRIMARY KEY,"
        " owner TEXT PARTITION KEY,"
        " collection TEXT,"
        f" embedding FLOAT[{int(dimensions)}] distance_metric=cosine)"
    )


@kb_schema
def add_search_aids(db: SQLDatabase) -> None:
    """Two read-path aids, neither written to by the store's own code.

    * ``chunks_fts_vocab`` — an ``fts5vocab`` view of the FTS index: the keyword
      leg reads document frequencies from it to leave the commonest words out of
      an expensive query (``search/keyword.py``).
    * ``kb_chunk_changes`` — every chunk insert or delete appends the chunk's rowid
      (by trigger, so no write path can forget it), so an approximate vector index
      kept beside the file (``search/ann_index.py``) catches up by replaying the
      changes since its snapshot instead of rebuilding. Only the last 100,000
      changes are kept; an index further behind rebuilds.
    """
    db.executescript(
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
        CREATE TABLE IF NOT EXISTS kb_chunk_changes (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            chunk_rowid INTEGER NOT NULL
        );
        CREATE TRIGGER IF NOT EXISTS kb_chunk_inserted AFTER INSERT ON chunks BEGIN
            INSERT INTO kb_chunk_changes (chunk_rowid) VALUES (new.rowid);
            DELETE FROM kb_chunk_changes
                WHERE seq <= (SELECT max(seq) FROM kb_chunk_changes) - 100000;
        END;
        CREATE TRIGGER IF NOT EXISTS kb_chunk_deleted AFTER DELETE ON chunks BEGIN
            INSERT INTO kb_chunk_changes (chunk_rowid) VALUES (old.rowid);
            DELETE FROM kb_chunk_changes
                WHERE seq <= (SELECT max(seq) FROM kb_chunk_changes) - 100000;
        END;
        """
    )


@kb_schema.skippable_by_readers
def add_base_identity(db: SQLDatabase) -> None:
    """A random id naming this base, so an index saved beside the file can tell
    that it was made for this very base (``storage/identity.py``). A read-only
    file without it is searched with its aids kept in RAM only."""
    db.execute(
        "INSERT OR IGNORE INTO kb_meta (key, value) VALUES (?, ?)", [BASE_ID_KEY, new_base_id()]
    )


@kb_schema
def add_chunk_flags(db: SQLDatabase) -> None:
    """``chunks.flags``: ingest-time flags (``kb/flags.py``), set on the chunks already stored."""
    columns = {row[1] for row in db.query("PRAGMA table_info(chunks)")}
    if "flags" not in columns:
        db.execute("ALTER TABLE chunks ADD COLUMN flags TEXT NOT NULL DEFAULT ''")
    backfill_chunk_flags(db)


@kb_schema
def add_ingest_claims(db: SQLDatabase) -> None:
    """Who is embedding which document now, so overlapping ingests embed it once."""
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS kb_ingest_claims (
            owner TEXT NOT NULL,
            document_id TEXT NOT NULL,
            holder TEXT NOT NULL,
            expires_at REAL NOT NULL,
            PRIMARY KEY (owner, document_id)
        );
        """
    )


@kb_schema
def add_chunk_repeats(db: SQLDatabase) -> None:
    """``chunks.repeated``: the share of a chunk's text repeated across documents
    (``kb/repeats.py``); its shingles are stored by ``rehash_chunk_shingles``."""
    columns = {row[1] for row in db.query("PRAGMA table_info(chunks)")}
    if "repeated" not in columns:
        db.execute("ALTER TABLE chunks ADD COLUMN repeated REAL NOT NULL DEFAULT 0")


@kb_schema
def rehash_chunk_shingles(db: SQLDatabase) -> None:
    """``chunk_shingles`` in one B-tree keyed (owner, shingle, doc_rowid, chunk_rowid),
    its hashes made per batch (``kb/repeats.py``): the stored chunks are shingled
    again and every share set anew. Only derived rows change; each chunk keeps its text."""
    _add_repeat_term_columns(db)  # backfill_repeats sets them
    db.executescript(
        f"""
        DROP INDEX IF EXISTS chunk_shingles_owner;
        DROP TABLE IF EXISTS chunk_shingles;
        DROP TABLE IF EXISTS chunk_shingle_owners;
        {_SHINGLE_TABLES}
        UPDATE chunks SET repeated = 0, own_terms = '', copied_terms = '' WHERE repeated != 0;
        """
    )
    backfill_repeats(db)


#: The shingle tables as the code writes them (``kb/repeats.py``): a migration that
#: makes them makes these (an older one's layout is converted by ``shingles_by_document``).
_SHINGLE_TABLES = """
        CREATE TABLE chunk_shingle_owners (
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL UNIQUE
        );
        CREATE TABLE chunk_shingles (
            owner_id INTEGER NOT NULL,
            shingle INTEGER NOT NULL,
            doc_rowid INTEGER NOT NULL,
            PRIMARY KEY (owner_id, shingle, doc_rowid)
        ) WITHOUT ROWID;
"""


def _add_repeat_term_columns(db: SQLDatabase) -> None:
    columns = {row[1] for row in db.query("PRAGMA table_info(chunks)")}
    for name in ("own_terms", "copied_terms"):
        if name not in columns:
            db.execute(f"ALTER TABLE chunks ADD COLUMN {name} TEXT NOT NULL DEFAULT ''")


@kb_schema
def add_chunk_repeat_terms(db: SQLDatabase) -> None:
    """``chunks.own_terms`` and ``copied_terms``: the terms a chunk partly made of
    repeated text holds outside it and only inside it (``kb/repeats.py``), so that
    search reads them instead of re-shingling the chunk's text on every query."""
    _add_repeat_term_columns(db)
    backfill_repeat_terms(db)


@kb_schema.skippable_by_readers
def contentless_keyword_index(db: SQLDatabase) -> None:
    """``chunks_fts`` keeps no copy of the texts (``kb/sqlite_keywords.py``): rebuilt
    contentless from ``chunks.text`` with the default languages (a process with
    others rebuilds it again at its first write). A read-only file keeps the old
    table, which every read of the new one also understands."""
    contentless_layout(db, DEFAULT_LANGUAGES)


@kb_schema.skippable_by_readers
def add_sentence_vectors(db: SQLDatabase) -> None:
    """``sentence_vectors``: the answer loop's sentence embeddings, kept by the
    questions that needed them (``kb/sentence_vectors.py``), keyed by chunk id,
    sentence offsets and embedder. A chunk deleted, or its text changed, takes its
    rows with it (triggers, so no write path can forget). A read-only file without
    the table answers as before, embedding every sentence."""
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS sentence_vectors (
            chunk_id TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            embedder TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (chunk_id, start, "end", embedder)
        ) WITHOUT ROWID;
        CREATE TRIGGER IF NOT EXISTS sentence_vectors_chunk_deleted AFTER DELETE ON chunks BEGIN
            DELETE FROM sentence_vectors WHERE chunk_id = old.id;
        END;
        CREATE TRIGGER IF NOT EXISTS sentence_vectors_chunk_changed
            AFTER UPDATE OF id, text ON chunks BEGIN
            DELETE FROM sentence_vectors WHERE chunk_id = old.id;
        END;
        """
    )


@kb_schema.skippable_by_readers
def keyword_analyzer_beside_index(db: SQLDatabase) -> None:
    """The keyword analyzer's record moves from ``kb_meta`` (which ``memo migrate``
    copies to any engine) to ``chunks_fts_analyzer``, beside the index it describes."""
    db.execute(f"CREATE TABLE IF NOT EXISTS {ANALYZER_TABLE} (analyzer TEXT NOT NULL)")
    row = db.query_one("SELECT value FROM kb_meta WHERE key = 'keyword_analyzer'")
    if row is not None and db.query_one(f"SELECT count(*) FROM {ANALYZER_TABLE}")[0] == 0:
        db.execute(f"INSERT INTO {ANALYZER_TABLE} (analyzer) VALUES (?)", [str(row[0])])
    db.execute("DELETE FROM kb_meta WHERE key = 'keyword_analyzer'")


@kb_schema.skippable_by_readers
def shingles_by_document(db: SQLDatabase) -> None:
    """``chunk_shingles`` keeps one row per document and shingle, its owner a number
    (``chunk_shingle_owners``): three integers a row instead of the owner's name and
    a chunk's rowid (``kb/repeats.py``). Converted in SQL from the rows stored per
    chunk (the same hashes: shares do not change). Only writes read the table: a
    read-only file keeps the old one."""
    columns = {str(row[1]) for row in db.query("PRAGMA table_info(chunk_shingles)")}
    if "chunk_rowid" not in columns:
        return  # made by rehash_chunk_shingles as the code writes it
    db.executescript(
        f"ALTER TABLE chunk_shingles RENAME TO chunk_shingles_by_chunk; {_SHINGLE_TABLES}"
    )
    shingle_rows_per_document(db, "chunk_shingles_by_chunk", "chunk_shingles")
    db.execute("DROP TABLE chunk_shingles_by_chunk")


@kb_schema.skippable_by_readers
def drop_document_hash_index(db: SQLDatabase) -> None:
    """``documents_hash`` (owner, content_hash) answered no query (a document's hash is
    read by its id): it cost every document a B-tree row (95 B a chunk when each text
    is its own document, ``bench/write_path.py``) and an insert."""
    db.execute("DROP INDEX IF EXISTS documents_hash")


@kb_schema.skippable_by_readers
def keyword_index_hash_size(db: SQLDatabase) -> None:
    """``chunks_fts`` holds up to 8 MB of postings in memory before writing a segment
    (``sqlite_keywords.KEYWORD_HASH_SIZE``): fewer segments to write and merge again
    per batch. Only writes use it: a read-only file keeps the default."""
    set_keyword_hash_size(db)
