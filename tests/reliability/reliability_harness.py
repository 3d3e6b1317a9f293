"""Invariant checks and text builders shared by tests/reliability and bench/stress.py.

The checks open a file *read-only in spirit* (they never write) and return a
list of human-readable problems; an empty list means the invariant holds. They
look at the raw tables rather than the public API on purpose: what matters after
a crash or a race is what is really on disk, index rows included.

Child processes import this module by name (``multiprocessing`` passes the
parent's ``sys.path``), so it must stay importable without pytest.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import shutil
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from memo_core.embedders.hash import HashEmbedder
from memo_core.kb.sqlite_keywords import stale_terms
from memo_core.kb.store import DOCUMENT_TEXT_SQL
from memo_core.memory import MemoHood, RecallGate
from memo_core.search.text import DEFAULT_LANGUAGES
from memo_core.storage.connection import Database
from memo_core.storage.identity import BASE_ID_KEY

#: Dimensions of the hash embedder every reliability workload uses.
DIMS = 32
#: CI-sized counts (bench/stress.py passes larger ones); overridable from the environment.
KILL_TRIALS = int(os.environ.get("MEMO_RELIABILITY_KILL_TRIALS", 4))
CONCURRENT_OPS = int(os.environ.get("MEMO_RELIABILITY_OPS", 25))

WORDS = [
    "contract",
    "invoice",
    "budget",
    "harbour",
    "lantern",
    "meadow",
    "orbit",
    "pepper",
    "quartz",
    "river",
    "saddle",
    "timber",
    "velvet",
    "walnut",
    "yonder",
    "zephyr",
    "anchor",
    "beacon",
    "cobalt",
    "delta",
    "ember",
    "falcon",
    "granite",
    "hazel",
    "island",
    "juniper",
    "kettle",
    "lagoon",
    "marble",
    "nectar",
    "oyster",
    "prairie",
]
CITIES = ("Berlin", "Paris", "Rome", "Madrid", "Oslo", "Vienna", "Lisbon", "Prague", "Dublin")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embedder() -> HashEmbedder:
    return HashEmbedder(DIMS)


def lexical_gate() -> RecallGate:
    """The gate without a model: no download, deterministic."""
    return RecallGate()


def open_memory(path: str | Path, **kwargs: Any) -> MemoHood:
    return MemoHood(path, embedder=embedder(), gate=lexical_gate(), **kwargs)


def doc_text(tag: str, version: int, paragraphs: int = 6, seed: int = 0) -> str:
    """A Markdown document that chunks into several pieces; ``tag`` marks each paragraph."""
    rng = random.Random(f"{tag}/{version}/{seed}")
    parts = [f"# Document {tag} version {version}"]
    for p in range(paragraphs):
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        parts.append(f"## Part {p}\n\nMarker {tag} v{version} p{p}. {words}.")
    return "\n\n".join(parts) + "\n"


def remove_db(path: str | Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")


def copy_db(src: str | Path, dst: str | Path) -> None:
    """Copy a *closed* database file (its WAL was checkpointed away on close)."""
    remove_db(dst)
    shutil.copyfile(src, dst)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(f"{src}{suffix}"):
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


# -- acknowledgements ---------------------------------------------------------------


class Acks:
    """Append-only JSON lines, one per *acknowledged* write (written after it returned).

    A line reaches the kernel on ``flush``; SIGKILL cannot take it back, so what
    the file lists is exactly what the caller was told had succeeded.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fh = self.path.open("a", encoding="utf-8")

    def write(self, **record: Any) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def read_acks(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.endswith("\n"):  # a torn last line was never acknowledged
                    out.append(json.loads(line))
    return out


# -- kill points --------------------------------------------------------------------


class StatementCounter:
    """A ``Database`` tracer that counts statements, and can SIGKILL its own process.

    Counting starts at :meth:`arm` (after the file is opened). With ``kill_at=n``
    the process dies right before the n-th statement after that: inside a
    transaction this leaves it uncommitted, which is the point.
    """

    def __init__(self, kill_at: int | None = None) -> None:
        self.count = 0
        self.kill_at = kill_at
        self.armed = False
        self.on_arm: Callable[[], None] | None = None

    def arm(self) -> None:
        self.count = 0
        self.armed = True
        if self.on_arm is not None:
            self.on_arm()

    def __call__(self, sql: str, params: Sequence[Any] | None) -> None:
        if not self.armed:
            return
        self.count += 1
        if self.kill_at is not None and self.count >= self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def raw(path: str | Path) -> Iterator[Database]:
    db = Database(path)
    try:
        yield db
    finally:
        db.close()


# -- knowledge-base invariants ------------------------------------------------------


def _ids(db: Database, sql: str) -> set[int]:
    return {int(r[0]) for r in db.query(sql)}


def kb_problems(path: str | Path) -> list[str]:
    """Integrity, index rows == chunk rows, chunk spans == document text, ords contiguous."""
    problems: list[str] = []
    with raw(path) as db:
        if not db.integrity_check():
            problems.append("PRAGMA integrity_check failed")
        chunks = _ids(db, "SELECT rowid FROM chunks")
        fts = _ids(db, "SELECT rowid FROM chunks_fts")
        if fts != chunks:
            problems.append(f"FTS rows differ from chunk rows: {len(fts ^ chunks)} differ")
        stale = stale_terms(db, DEFAULT_LANGUAGES)
        if stale:  # a row deleted with other values than it was indexed with
            problems.append(f"FTS postings of {len(stale)} terms differ from the chunks' texts")
        table = db.query_one("SELECT value FROM kb_meta WHERE key = 'vector_table'")
        if table is not None:
            vecs = _ids(db, f"SELECT chunk_rowid FROM {table[0]}")
            if vecs != chunks:
                problems.append(f"vector rows differ from chunk rows: {len(vecs ^ chunks)} differ")
        texts = {
            int(r[0]): str(r[1])
            for r in db.query(f"SELECT d.rowid, {DOCUMENT_TEXT_SQL} FROM documents d")
        }
        ords: dict[int, list[int]] = {}
        for doc_rowid, ord_, start, end, text, digest in db.query(
            'SELECT doc_rowid, ord, start, "end", text, content_hash FROM chunks'
            " ORDER BY doc_rowid, ord"
        ):
            ords.setdefault(int(doc_rowid), []).append(int(ord_))
            if hashlib.sha256(str(text).encode()).hexdigest() != digest:
                problems.append(
                    f"a chunk of document {doc_rowid} is not the text it was stored with"
                )
            if int(doc_rowid) not in texts:
                problems.append(f"chunk of missing document {doc_rowid}")
            elif texts[int(doc_rowid)][int(start) : int(end)] != text:
                problems.append(f"chunk span of document {doc_rowid} does not match its text")
        for doc_rowid, seen in ords.items():
            if seen != list(range(len(seen))):
                problems.append(f"document {doc_rowid} has chunk ords {seen}")
        empty = set(texts) - set(ords)
        if empty:
            problems.append(f"{len(empty)} documents without chunks")
    return problems


def kb_documents(path: str | Path) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """``{(owner, id): (text, chunk texts)}`` of every stored document."""
    out: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
    with raw(path) as db:
        chunks: dict[int, list[str]] = {}
        for doc_rowid, text in db.query("SELECT doc_rowid, text FROM chunks ORDER BY ord"):
            chunks.setdefault(int(doc_rowid), []).append(str(text))
        for rowid, owner, doc_id, text in db.query(
            f"SELECT d.rowid, d.owner, d.id, {DOCUMENT_TEXT_SQL} FROM documents d"
        ):
            out[(str(owner), str(doc_id))] = (str(text), tuple(chunks.get(int(rowid), [])))
    return out


def content_digest(path: str | Path) -> str:
    """A digest of every row of every table (shadow tables included), order-independent,
    but the base's id: every copy gets a fresh one on purpose (storage/identity.py)."""
    digest = hashlib.sha256()
    with raw(path) as db:
        tables = db.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        )
        for (name,) in tables:
            found = db.query(f'SELECT * FROM "{name}"')
            if name == "kb_meta":
                found = [r for r in found if r[0] != BASE_ID_KEY]
            rows = sorted(repr(tuple(r)) for r in found)
            digest.update(f"{name}:{len(rows)}".encode())
            for row in rows:
                digest.update(row.encode("utf-8", "backslashreplace"))
    return digest.hexdigest()


def vec_tables(path: str | Path) -> list[str]:
    with raw(path) as db:
        rows = db.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vec_chunks_%'"
            " AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        )
    return sorted(str(r[0]) for r in rows)


# -- memory invariants --------------------------------------------------------------


def memory_problems(path: str | Path) -> list[str]:
    """Integrity, one current version per chain and key, version links, index rows."""
    problems: list[str] = []
    with raw(path) as db:
        if not db.integrity_check():
            problems.append("PRAGMA integrity_check failed")
        chains: dict[str, list[Any]] = {}
        for row in db.query(
            "SELECT chain_id, version, id, valid_to, superseded_by, ns, key FROM mem_facts"
            " ORDER BY chain_id, version"
        ):
            chains.setdefault(str(row[0]), []).append(row)
        for chain_id, rows in chains.items():
            current = [r for r in rows if r[3] is None]
            if len(current) != 1:
                problems.append(f"chain {chain_id} has {len(current)} current versions")
            if [int(r[1]) for r in rows] != list(range(1, len(rows) + 1)):
                problems.append(f"chain {chain_id} versions {[r[1] for r in rows]}")
            for older, newer in itertools.pairwise(rows):
                if older[4] != newer[2] or older[3] is None:
                    problems.append(f"chain {chain_id}: version {older[1]} not linked to next")
        keys = db.query(
            "SELECT ns, key, count(*) FROM mem_facts WHERE valid_to IS NULL"
            " GROUP BY ns, key HAVING count(*) > 1"
        )
        problems.extend(f"key {k!r} in {ns!r} has {n} current versions" for ns, k, n in keys)
        facts = _ids(db, "SELECT rowid FROM mem_facts WHERE indexed = 1")
        if _ids(db, "SELECT rowid FROM mem_facts_fts") != facts:
            problems.append("fact FTS rows differ from facts")
        turns = _ids(db, "SELECT rowid FROM mem_turns")
        if _ids(db, "SELECT rowid FROM mem_turns_fts") != turns:
            problems.append("turn FTS rows differ from turns")
        has_vec = db.query_one(
            "SELECT 1 FROM sqlite_master WHERE name = 'mem_facts_vec' AND type = 'table'"
        )
        if has_vec:
            if _ids(db, "SELECT row_id FROM mem_facts_vec") != facts:
                problems.append("fact vector rows differ from facts")
            if _ids(db, "SELECT row_id FROM mem_turns_vec") != turns:
                problems.append("turn vector rows differ from turns")
        orphans = db.query_one(
            "SELECT count(*) FROM mem_facts f WHERE f.source_turn IS NOT NULL AND NOT EXISTS"
            " (SELECT 1 FROM mem_turns t WHERE t.id = f.source_turn)"
        )[0]
        if int(orphans):
            problems.append(f"{orphans} facts point to a missing source turn")
    return problems


def current_statements(path: str | Path) -> dict[tuple[str, str], str]:
    """``{(encoded ns, key): statement}`` of current versions."""
    with raw(path) as db:
        rows = db.query("SELECT ns, key, statement FROM mem_facts WHERE valid_to IS NULL")
    return {(str(ns), str(key)): str(s) for ns, key, s in rows}
