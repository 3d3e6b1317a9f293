"""A first ingest's shingle counts kept in memory, so that no batch reads them back.

Each batch of new documents learns, for every shingle it holds, in how many of the
owner's documents it now occurs (``kb/repeats.py``: a shingle in
:data:`~memo_core.kb.repeats.REPEAT_DOCUMENTS` documents is boilerplate). The
truth is the table ``chunk_shingles``, read by one count query per batch (~15-25
µs a chunk). An owner with no shingle at all when a batch starts, the case of a
base's first ingest, has counts this process knows without asking: those of the
batches it wrote itself. :class:`ShingleTally` keeps them (sorted arrays, 12
bytes a shingle) and answers in their place.

It may answer only while the table holds exactly what it wrote, so it is dropped
when anything else may have changed the table:

* another connection committed (this process's or another's):
  :meth:`ShingleTally.seal` notes ``commits_by_others()`` (SQLite's ``PRAGMA
  data_version``) at the end of a batch's writes, under the write lock, and
  :meth:`ShingleTally.resume` compares it at the start of the next batch's, under
  the lock again. An engine without such a number (PostgreSQL, whose generation
  counter moves with this connection's commits too) answers None: there the tally
  serves only the batch that found the owner new;
* a transaction around the batch was rolled back: the documents' highest rowid,
  noted with it, falls back (``PRAGMA data_version`` does not move for that);
* this connection deleted shingles (a document replaced or deleted): the store
  calls :meth:`ShingleTally.forget`; a failed write drops it too.

The connection's own count of changed rows cannot stand for the last two: FTS5
writes its pending postings at commit, which moves that count after the seal.
Without numpy the counts are always read from the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memo_core.kb.repeats import _ShingleCounts
    from memo_core.storage.base import SQLDatabase

__all__ = ["ShingleTally"]

#: Shingles kept at most (12 bytes each, ~50 MB; ~22 a chunk of 90 words): past
#: that the counts are read from the table again.
TALLY_MOST = 1 << 22


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # the base install: every count is read from the table
        return None
    return numpy


class ShingleTally:
    """Per owner number, each shingle of its documents and in how many it occurs,
    for owners whose every shingle row this connection wrote (see the module)."""

    def __init__(self) -> None:
        #: owner number -> (shingles, sorted int64; document counts, int32)
        self._owners: dict[int, tuple[Any, Any]] = {}
        self._sealed: tuple[int, int] | None = None

    def resume(self, db: SQLDatabase) -> None:
        """Keep the counts only if ``db`` is as :meth:`seal` left it (inside the next
        write transaction, before any of its writes)."""
        if self._owners and (self._sealed is None or self._sealed != _state(db)):
            self.forget()

    def seal(self, db: SQLDatabase) -> None:
        """Note ``db``'s state at the end of a batch's writes (inside its transaction)."""
        self._sealed = _state(db) if self._owners else None

    def forget(self) -> None:
        """Drop every count (a write failed, or something else changed the table)."""
        self._owners.clear()
        self._sealed = None

    def start(self, number: int) -> None:
        """Tally owner ``number``, which has no shingle row yet (under the write lock)."""
        np = _numpy()
        if np is not None:
            self._owners[number] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32))

    def add(self, number: int, batch: _ShingleCounts, *, least: int) -> dict[int, int] | None:
        """Count the documents of a batch just inserted for owner ``number`` (``batch``:
        each shingle's documents in it); the owner's count of each of the batch's
        shingles held by ``least`` documents or more, as the table would give it, or
        None when this owner is not tallied (read the table)."""
        if number not in self._owners:
            return None
        np = _numpy()
        held, counts = self._owners[number]
        listed, counted = batch.columns()
        shingles = np.array(listed, dtype=np.int64)
        added = np.array(counted, dtype=np.int32)
        at = np.searchsorted(held, shingles)
        known = at < len(held)
        known[known] = held[at[known]] == shingles[known]
        counts[at[known]] += added[known]  # the batch's shingles are distinct
        totals = added.copy()
        totals[known] = counts[at[known]]
        new = ~known
        if len(held) + int(new.sum()) > TALLY_MOST:
            del self._owners[number]
        else:  # new shingles inserted where they sort (at, taken before any insert)
            self._owners[number] = (
                np.insert(held, at[new], shingles[new]),
                np.insert(counts, at[new], added[new]),
            )
        enough = totals >= least
        return dict(zip(shingles[enough].tolist(), totals[enough].tolist(), strict=True))


def _state(db: SQLDatabase) -> tuple[int, int] | None:
    """Other connections' commits and the documents' highest rowid (None: unknowable)."""
    others = db.commits_by_others()
    if others is None:
        return None
    row = db.query_one("SELECT max(rowid) FROM documents")
    return others, int(row[0] or 0) if row else 0
