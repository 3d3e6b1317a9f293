"""Re-indexing a knowledge base with another embedder, beside the vectors in use.

Every chunk is embedded into a NEW vector table while searches keep using the old
one; the new table is swapped in by one transaction. The table statements are the
backend's (``kb/backend.py``); where the backend keeps a chunk change log, an
interrupted re-index resumes and chunks written meanwhile are embedded again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memo_core.embedders.base import EmbedderFingerprint
from memo_core.errors import StorageError
from memo_core.kb.records import vector_blob
from memo_core.kb.sentence_vectors import forget_other_embedders

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = ["VectorReindexer"]

#: ``kb_meta`` keys of a re-index under way: the table it builds, for which
#: embedder, and the change-log position up to which that table is in step.
_REBUILD_TABLE, _REBUILD_EMBEDDER, _REBUILD_SEQ = "reindex_table", "reindex_embedder", "reindex_seq"
#: A re-index embeds what was written meanwhile this many times before giving up.
_REBUILD_ROUNDS = 5


class VectorReindexer:
    """Re-indexes one :class:`~memo_core.kb.store.KnowledgeStore`."""

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store
        self.db = store.db
        self.backend = store.backend

    def rebuild(
        self,
        fingerprint: EmbedderFingerprint,
        embed: Any,
        *,
        batch_size: int = 64,
        progress: Any = None,
    ) -> int:
        """Re-index: embed every chunk into a NEW vector table, then swap in one transaction.

        Until the swap, searches keep using the old vectors. A re-index that was
        interrupted (killed, or stopped by an embedder error) resumes: the vectors it
        already built for the same embedder are kept and only the rest are embedded
        (a paid re-index does not pay twice). Chunks written meanwhile are found in
        the change log (``kb_chunk_changes``) and embedded again. Returns how many
        chunks were embedded by this call.
        """
        if not self.store.db.has_vec:
            raise StorageError("vector search is unavailable on this SQLite driver")
        name, seen = self._start_rebuild(fingerprint)
        total = int(self.db.query_one("SELECT count(*) FROM chunks")[0])
        done = 0
        for _ in range(_REBUILD_ROUNDS):
            seen = self._forget_changed(name, seen)
            done += self._embed_missing(name, fingerprint, embed, batch_size, progress, total)
            if self._swap_rebuilt(name, fingerprint, seen):
                return done
        raise StorageError("chunks kept changing during the re-index; run it again")

    def _start_rebuild(self, fingerprint: EmbedderFingerprint) -> tuple[str, int | None]:
        """The table to build into and the change-log position it is known good at:
        the half-built table of an interrupted re-index with the same embedder, or a
        new one (None: no change log here, so nothing can be resumed)."""
        building = self.store.meta(_REBUILD_TABLE)
        seen = self._log_position()
        if (
            building is not None
            and seen is not None
            and self.store.meta(_REBUILD_EMBEDDER) == fingerprint.to_json()
            and building != self.store.vector_table
        ):
            at = int(self.store.meta(_REBUILD_SEQ) or "-1")
            low = self._log_low()
            if 0 <= at <= seen and (low is None or low <= at + 1 or at == seen):
                return building, at  # resume: vectors made for this embedder are kept
        generation = int(self.store.meta("vector_generation") or "0") + 1
        name = f"vec_chunks_{generation}"
        with self.db.transaction():
            if building is not None and building != self.store.vector_table:
                self.db.execute(f"DROP TABLE IF EXISTS {building}")
            self.db.execute(f"DROP TABLE IF EXISTS {name}")
            self.backend.create_vector_table(name, fingerprint.dimensions, bulk=True)
            seen = self._log_position()
            if seen is not None:  # recorded with the table: a kill leaves both or neither
                self.store.set_meta(_REBUILD_TABLE, name)
                self.store.set_meta(_REBUILD_EMBEDDER, fingerprint.to_json())
                self.store.set_meta(_REBUILD_SEQ, str(seen))
        return name, seen

    def _forget_changed(self, name: str, seen: int | None) -> int | None:
        """Drop the vectors of chunks written since ``seen`` (they are embedded again);
        returns the new position."""
        if seen is None:
            return None
        with self.db.transaction():
            now = int(self._log_position() or 0)
            changes = self.backend.changes
            rowids = [] if changes is None else changes.changed(seen, now)
            self.db.executemany(f"DELETE FROM {name} WHERE chunk_rowid = ?", [[r] for r in rowids])
            self.store.set_meta(_REBUILD_SEQ, str(now))
        return now

    def _embed_missing(
        self,
        name: str,
        fingerprint: EmbedderFingerprint,
        embed: Any,
        batch_size: int,
        progress: Any,
        total: int,
    ) -> int:
        """Embed the chunks with no vector in ``name`` yet, a batch per transaction."""
        have = int(self.db.query_one(f"SELECT count(*) FROM {name}")[0])
        done, last = 0, 0
        while True:
            rows = self.db.query(
                "SELECT c.rowid, c.owner, c.collection, c.text FROM chunks c WHERE c.rowid > ?"
                f" AND NOT EXISTS (SELECT 1 FROM {name} v WHERE v.chunk_rowid = c.rowid)"
                " ORDER BY c.rowid LIMIT ?",
                [last, batch_size],
            )
            if not rows:
                return done
            vectors = embed([str(r[3]) for r in rows])
            with self.db.transaction():
                dims = fingerprint.dimensions
                self.backend.insert_vectors(
                    name,
                    [
                        (int(r[0]), str(r[1]), str(r[2]), vector_blob(v, dims))
                        for r, v in zip(rows, vectors, strict=True)
                    ],
                )
            last = int(rows[-1][0])
            done += len(rows)
            if progress is not None:
                progress(min(have + done, total), total)

    def _swap_rebuilt(self, name: str, fingerprint: EmbedderFingerprint, seen: int | None) -> bool:
        """Make ``name`` the active table, unless chunks were written since ``seen``
        (False: another round embeds them)."""
        with self.db.transaction():
            self.backend.finish_vector_table(name, fingerprint.dimensions)
        with self.db.transaction():
            if seen is not None and self._log_position() != seen:
                return False
            # Chunks written while we were embedding have no vector yet: refuse to swap
            # a table that would silently miss them.
            missing = self.db.query_one(
                f"SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                f"(SELECT 1 FROM {name} v WHERE v.chunk_rowid = c.rowid)"
            )[0]
            if int(missing):
                if seen is not None:
                    return False
                raise StorageError(f"{missing} chunks changed during re-index; run it again")
            self.db.execute(
                f"DELETE FROM {name} WHERE chunk_rowid NOT IN (SELECT rowid FROM chunks)"
            )
            old = self.store.vector_table
            self.store.set_meta("embedder", fingerprint.to_json())
            self.store.set_meta("vector_table", name)
            self.store.set_meta("vector_generation", name.rsplit("_", 1)[1])
            self.db.execute(
                "DELETE FROM kb_meta WHERE key IN (?, ?, ?)",
                [_REBUILD_TABLE, _REBUILD_EMBEDDER, _REBUILD_SEQ],
            )
            if old and old != name:
                self.db.execute(f"DROP TABLE IF EXISTS {old}")
            forget_other_embedders(self.db, fingerprint)
        return True

    def _log_position(self) -> int | None:
        """The last entry of the change log (None where the backend keeps none)."""
        changes = self.backend.changes
        return None if changes is None else changes.range()[1]

    def _log_low(self) -> int | None:
        """The first entry still held in the change log (older ones were pruned)."""
        changes = self.backend.changes
        return None if changes is None else changes.range()[0]
