"""Sentence vectors kept in the knowledge base, so a repeated question embeds nothing new.

The answer loop embeds the sentences of the best evidence windows of the top
chunks (``answer/semantic.py``): the costly part of a question. Those vectors
depend on the sentence and the embedder only, so they are kept in the
``sentence_vectors`` table keyed by ``(chunk id, start, end, embedder)``: the
chunk's id is derived from its content (``kb/records.chunk_id``), so a key can
never name other text. Rows are written lazily, by the questions that needed
them, never at ingest (ingest stays as cheap as the bare embedder).

Stale rows are dropped by the schema itself: deleting a chunk (every delete and
re-ingest path) or changing its text deletes its rows by trigger
(``kb/schema.py``, ``kb/pg_schema.py``), and swapping in another embedder
(``kb/reindex.py``) drops the rows of every other one.

Writes are buffered and committed in batches (and on :meth:`flush`, which
``MemoBase.close`` calls): any commit moves the base's data version, which the
read path's caches and search aids key on, so a write per question would make
them re-check on every query. A base that cannot be written (read-only media,
a read-only role) or that lacks the table is read as far as it can be and
otherwise left alone: this is a cache, and a question never fails for it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from array import array
from collections.abc import Mapping, Sequence

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.errors import MemoError
from memo_core.storage.base import SQLDatabase

__all__ = ["SentenceKey", "SentenceVectorCache", "embedder_key"]

log = logging.getLogger(__name__)

#: A sentence of a stored chunk: ``(chunk id, start, end)``, offsets into the chunk's text.
SentenceKey = tuple[str, int, int]

TABLE = "sentence_vectors"
#: Rows buffered before they are committed (a few dozen questions' worth).
FLUSH_EVERY = 512
#: Chunk ids per look-up statement (well under every engine's parameter limit).
_LOOKUP_BATCH = 200


def embedder_key(fingerprint: EmbedderFingerprint) -> str:
    """A short, stable name of an embedder's vector space for the key column."""
    return hashlib.sha256(fingerprint.to_json().encode()).hexdigest()[:16]


def forget_other_embedders(db: SQLDatabase, fingerprint: EmbedderFingerprint) -> None:
    """Drop the sentence vectors of every embedder but ``fingerprint``'s (inside the
    caller's transaction): called when a re-index swaps the base's embedder."""
    if db.table_exists(TABLE):
        db.execute(f"DELETE FROM {TABLE} WHERE embedder <> ?", [embedder_key(fingerprint)])


class SentenceVectorCache:
    """Read and (buffered) write access to one base's ``sentence_vectors`` rows."""

    def __init__(self, db: SQLDatabase, *, flush_every: int = FLUSH_EVERY) -> None:
        self.db = db
        self.flush_every = flush_every
        self._pending: dict[tuple[SentenceKey, str], bytes] = {}
        self._lock = threading.Lock()
        self._readable: bool | None = None  # checked on first use
        self._writable = not getattr(db, "read_only", False)

    def _usable(self) -> bool:
        if self._readable is None:
            try:
                self._readable = self.db.table_exists(TABLE)
            except MemoError as exc:
                log.info("sentence vector cache unavailable (%s)", exc)
                self._readable = False
            if not self._readable:
                self._writable = False
        return self._readable

    def get(
        self, keys: Sequence[SentenceKey], fingerprint: EmbedderFingerprint
    ) -> dict[SentenceKey, list[float]]:
        """The stored (unit) vectors of those of ``keys`` that have one for ``fingerprint``."""
        wanted = set(keys)
        if not wanted or not self._usable():
            return {}
        space = embedder_key(fingerprint)
        found: dict[SentenceKey, list[float]] = {}
        with self._lock:
            for (key, emb), blob in self._pending.items():
                if emb == space and key in wanted:
                    found[key] = _floats(blob)
        chunk_ids = sorted({k[0] for k in wanted if k not in found})
        try:
            for i in range(0, len(chunk_ids), _LOOKUP_BATCH):
                part = chunk_ids[i : i + _LOOKUP_BATCH]
                rows = self.db.query(
                    f'SELECT chunk_id, start, "end", vector FROM {TABLE} '
                    f"WHERE embedder = ? AND chunk_id IN ({', '.join('?' * len(part))})",
                    [space, *part],
                )
                for chunk_id, start, end, blob in rows:
                    key = (str(chunk_id), int(start), int(end))
                    if key in wanted:
                        found[key] = _floats(bytes(blob))
        except MemoError as exc:
            log.info("sentence vector cache not read (%s)", exc)
        return found

    def put(
        self, vectors: Mapping[SentenceKey, Sequence[float]], fingerprint: EmbedderFingerprint
    ) -> None:
        """Keep ``vectors`` (unit vectors of those sentences); committed in batches."""
        if not vectors or not self._usable() or not self._writable:
            return
        space = embedder_key(fingerprint)
        with self._lock:
            for key, vector in vectors.items():
                self._pending[(key, space)] = array("f", vector).tobytes()
            due = len(self._pending) >= self.flush_every
        if due:
            self.flush()

    def flush(self) -> None:
        """Commit the buffered rows (a row already there is kept)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending or not self._writable:
            return
        rows = [[k[0], k[1], k[2], emb, blob] for (k, emb), blob in pending.items()]
        try:
            with self.db.transaction():
                self.db.executemany(
                    f'INSERT INTO {TABLE} (chunk_id, start, "end", embedder, vector) '
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    rows,
                )
        except MemoError as exc:  # a busy or read-only base: this batch is dropped (a cache)
            log.info("sentence vector cache: %d rows not written (%s)", len(rows), exc)

    def pending(self) -> int:
        """How many rows wait for the next :meth:`flush`."""
        with self._lock:
            return len(self._pending)


def _floats(blob: bytes) -> list[float]:
    values = array("f")
    values.frombytes(blob)
    return values.tolist()
