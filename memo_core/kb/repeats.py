"""Text repeated across documents: boilerplate, found at ingest and kept on the chunk.

A notice pasted into many files (a licence header, a disclaimer, "see the retention
policy for details") matches every question about its subject in every file that
carries it, and so outranks the one document the notice is about. To rank it below
that document, each chunk records ``chunks.repeated``: the share of its text that
also occurs in at least :data:`REPEAT_DOCUMENTS` documents of the same owner (the
share of its words inside a repeated shingle). Search (``search/repeats.py``) lowers
a chunk's fused score by the share of the question's words that it matches only in
repeated text (by ``repeated`` when it matches none of them literally).

How text is compared: near-duplicate detection by *shingles*, the classic way
(Broder's resemblance): every run of :data:`SHINGLE_WORDS` consecutive words,
lower-cased and stripped of punctuation (``search.text.tokenize``), hashed to 64
bits. Only the hashes divisible by :data:`SAMPLE` are kept, a choice made by the
text itself, so the same passage keeps the same shingles in every document however
the chunker cut it; a chunk too short to keep any keeps its smallest hash. A notice
with a changed year or name still shares most of its shingles with its copies.

The table ``chunk_shingles (owner, shingle, chunk_rowid, doc_rowid)`` holds the
kept hashes. A write touches only what it changes: the new chunks' shares are
computed from the counts of their own shingles, and another document's chunk is
recomputed only when a shingle it shares crosses the threshold (a third copy
arrives, or one of three leaves); a notice already in a hundred files costs a new
copy one count query, not a hundred updates.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from memo_core.search.text import tokenize

if TYPE_CHECKING:
    from memo_core.storage.base import SQLDatabase

__all__ = [
    "REPEAT_DOCUMENTS",
    "SAMPLE",
    "SHINGLE_WORDS",
    "add_chunk_shingles",
    "backfill_repeats",
    "remove_chunk_shingles",
    "repeated_masks",
    "shingles",
]

#: Words per shingle: long enough that ordinary phrases ("in accordance with the
#: terms of") do not make two texts look copied, short enough that one changed word
#: leaves most of a notice's shingles intact.
SHINGLE_WORDS = 8
#: One shingle in ``SAMPLE`` is kept (those whose hash is divisible by it).
SAMPLE = 4
#: Text is boilerplate once it occurs in this many documents of one owner; a
#: passage quoted once elsewhere (a summary, a reply) is not.
REPEAT_DOCUMENTS = 3
_BATCH = 500


def shingles(text: str) -> frozenset[int]:
    """The kept shingle hashes of ``text`` (see the module docstring)."""
    return frozenset(h for _, h in _runs(tokenize(text)))


def _runs(words: Sequence[str]) -> list[tuple[int, int]]:
    """``(first word, hash)`` of the kept shingles of ``words``."""
    if not words:
        return []
    if len(words) < SHINGLE_WORDS:
        return [(0, _hash(words))]
    runs = [(i, _hash(words[i : i + SHINGLE_WORDS])) for i in range(len(words) - SHINGLE_WORDS + 1)]
    kept = [(i, h) for i, h in runs if h % SAMPLE == 0]
    return kept or [min(runs, key=lambda run: run[1])]


def _mask(words: Sequence[str], repeated: set[int] | frozenset[int]) -> list[bool]:
    """Which of ``words`` lie inside a kept shingle that is ``repeated``."""
    covered = [False] * len(words)
    for start, h in _runs(words):
        if h in repeated:
            for i in range(start, min(len(words), start + SHINGLE_WORDS)):
                covered[i] = True
    return covered


def _hash(words: Sequence[str]) -> int:
    digest = hashlib.blake2b(" ".join(words).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)  # fits SQLite INTEGER and BIGINT


def add_chunk_shingles(
    db: SQLDatabase, owner: str, doc_rowid: int, chunks: Sequence[tuple[int, str]]
) -> None:
    """Record the shingles of a document's new ``(chunk rowid, text)`` rows and set
    ``repeated`` on them, and on other chunks whose shingles reach the threshold."""
    own = {rowid: shingles(text) for rowid, text in chunks}
    rows = [[owner, s, rowid, doc_rowid] for rowid, found in own.items() for s in found]
    if not rows:
        return
    db.executemany(
        "INSERT INTO chunk_shingles (owner, shingle, chunk_rowid, doc_rowid) VALUES (?, ?, ?, ?)",
        rows,
    )
    counts = _document_counts(db, owner, {s for found in own.values() for s in found})
    _set_shares(db, dict(chunks), counts)
    # Exactly at the threshold: this document made them boilerplate in the others.
    crossed = {s for s, n in counts.items() if n == REPEAT_DOCUMENTS}
    _recompute(db, owner, crossed, skip=set(own))


def remove_chunk_shingles(db: SQLDatabase, chunk_rowids: Sequence[int]) -> None:
    """Forget the shingles of chunks about to be deleted; chunks elsewhere whose
    shared text falls below the threshold get their ``repeated`` share lowered."""
    gone: dict[str, set[int]] = defaultdict(set)
    for part in _batches(chunk_rowids):
        marks = ",".join("?" for _ in part)
        for owner, shingle in db.query(
            f"SELECT owner, shingle FROM chunk_shingles WHERE chunk_rowid IN ({marks})", part
        ):
            gone[str(owner)].add(int(shingle))
        db.execute(f"DELETE FROM chunk_shingles WHERE chunk_rowid IN ({marks})", part)
    for owner, found in gone.items():
        counts = _document_counts(db, owner, found)
        below = {s for s in found if counts.get(s, 0) == REPEAT_DOCUMENTS - 1}
        _recompute(db, owner, below, skip=set(chunk_rowids))


def backfill_repeats(db: SQLDatabase, *, after_rowid: int = 0) -> None:
    """Shingle the stored chunks (those past ``after_rowid``: rows a bulk loader just
    wrote) and set every share (the ``add_chunk_repeats`` migrations, a copied base
    and bulk loaders run it)."""
    last = after_rowid
    while True:
        rows = db.query(
            "SELECT rowid, owner, doc_rowid, text FROM chunks WHERE rowid > ?"
            " ORDER BY rowid LIMIT 1000",
            [last],
        )
        if not rows:
            break
        db.executemany(
            "INSERT INTO chunk_shingles (owner, shingle, chunk_rowid, doc_rowid)"
            " VALUES (?, ?, ?, ?)",
            [
                [owner, s, int(rowid), int(doc_rowid)]
                for rowid, owner, doc_rowid, text in rows
                for s in shingles(text)
            ],
        )
        last = int(rows[-1][0])
    repeated = {
        (str(owner), int(s))
        for owner, s in db.query(
            "SELECT owner, shingle FROM chunk_shingles GROUP BY owner, shingle"
            " HAVING count(DISTINCT doc_rowid) >= ?",
            [REPEAT_DOCUMENTS],
        )
    }
    for owner in sorted({owner for owner, _ in repeated}):
        mine = {s for o, s in repeated if o == owner}
        texts = _texts(db, _chunks_holding(db, owner, mine))
        _set_shares(db, texts, dict.fromkeys(mine, REPEAT_DOCUMENTS))


def repeated_masks(
    db: SQLDatabase, chunk_rowids: Sequence[int]
) -> dict[int, tuple[list[str], list[bool]]]:
    """Each chunk's words (``search.text.tokenize``) and which of them are repeated
    text: what search needs to tell a match in the notice from one in the chunk's own words."""
    out: dict[int, tuple[list[str], list[bool]]] = {}
    by_owner: dict[str, dict[int, list[str]]] = defaultdict(dict)
    for part in _batches(chunk_rowids):
        marks = ",".join("?" for _ in part)
        for rowid, owner, text in db.query(
            f"SELECT rowid, owner, text FROM chunks WHERE rowid IN ({marks})", part
        ):
            by_owner[str(owner)][int(rowid)] = tokenize(text)
    for owner, words_of in by_owner.items():
        hashes = {h for words in words_of.values() for _, h in _runs(words)}
        counts = _document_counts(db, owner, hashes)
        repeated = {h for h, n in counts.items() if n >= REPEAT_DOCUMENTS}
        for rowid, words in words_of.items():
            out[rowid] = (words, _mask(words, repeated))
    return out


def _document_counts(db: SQLDatabase, owner: str, found: Iterable[int]) -> dict[int, int]:
    """In how many documents of ``owner`` each shingle occurs."""
    out: dict[int, int] = {}
    for part in _batches(sorted(found)):
        marks = ",".join("?" for _ in part)
        for shingle, n in db.query(
            "SELECT shingle, count(DISTINCT doc_rowid) FROM chunk_shingles"
            f" WHERE owner = ? AND shingle IN ({marks}) GROUP BY shingle",
            [owner, *part],
        ):
            out[int(shingle)] = int(n)
    return out


def _chunks_holding(db: SQLDatabase, owner: str, found: Iterable[int]) -> list[int]:
    rowids: set[int] = set()
    for part in _batches(sorted(found)):
        marks = ",".join("?" for _ in part)
        rowids.update(
            int(r[0])
            for r in db.query(
                "SELECT DISTINCT chunk_rowid FROM chunk_shingles"
                f" WHERE owner = ? AND shingle IN ({marks})",
                [owner, *part],
            )
        )
    return sorted(rowids)


def _texts(db: SQLDatabase, chunk_rowids: Sequence[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for part in _batches(chunk_rowids):
        marks = ",".join("?" for _ in part)
        for rowid, text in db.query(
            f"SELECT rowid, text FROM chunks WHERE rowid IN ({marks})", part
        ):
            out[int(rowid)] = str(text)
    return out


def _recompute(db: SQLDatabase, owner: str, changed: set[int], skip: set[int]) -> None:
    """Set the shares of ``owner``'s chunks holding a ``changed`` shingle, but ``skip``."""
    if not changed:
        return
    texts = _texts(db, [r for r in _chunks_holding(db, owner, changed) if r not in skip])
    counts = _document_counts(db, owner, {s for text in texts.values() for s in shingles(text)})
    _set_shares(db, texts, counts)


def _set_shares(db: SQLDatabase, texts: dict[int, str], counts: dict[int, int]) -> None:
    """``chunks.repeated``: the share of each chunk's words inside a kept shingle
    found in :data:`REPEAT_DOCUMENTS` documents or more."""
    repeated = {s for s, n in counts.items() if n >= REPEAT_DOCUMENTS}
    updates = []
    for rowid, text in texts.items():
        words = tokenize(text)
        if words:
            updates.append([sum(_mask(words, repeated)) / len(words), rowid])
    db.executemany("UPDATE chunks SET repeated = ? WHERE rowid = ?", updates)


def _batches(values: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(values), _BATCH):
        yield list(values[start : start + _BATCH])
