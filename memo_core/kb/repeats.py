"""Text repeated across documents: boilerplate, found at ingest and kept on the chunk.

A notice pasted into many files (a licence header, a disclaimer, "see the retention
policy for details") matches every question about its subject in every file that
carries it, and so outranks the one document the notice is about. To rank it below
that document, each chunk records ``chunks.repeated``: the share of its text that
also occurs in at least :data:`REPEAT_DOCUMENTS` documents of the same owner (the
share of its words inside a repeated shingle). Search (``search/repeats.py``) lowers
a chunk's fused score by the share of the question's words that it matches only in
repeated text (by ``repeated`` when it matches none of them literally). So that a
query never re-reads and re-shingles text, a chunk partly made of repeated text
also keeps its terms (``search.repeats.repeat_term``): ``chunks.own_terms``, those
it holds outside repeated text, and ``chunks.copied_terms``, those only inside it
(space-separated; both empty when none or all of it is repeated).

How text is compared: near-duplicate detection by *shingles*, the classic way
(Broder's resemblance): every run of :data:`SHINGLE_WORDS` consecutive words,
lower-cased and stripped of punctuation (``search.text.tokenize``), hashed to 64
bits. Which ones are kept is chosen by *winnowing* (Schleimer, Wilkerson and Aiken,
2003): of every :data:`WINDOW` consecutive shingles, the one with the smallest hash.
The choice is made by the text itself, so a passage keeps the same shingles in
every document however the chunker cut it (its own windows lie inside it), about
one shingle in four is kept, and two kept shingles are never more than
:data:`WINDOW` words apart: as that is less than a shingle's length, the kept
shingles of a repeated passage cover all of it. A text shorter than a window keeps
its smallest hash. A notice with a changed year or name still shares most of its
shingles with its copies.

The hash of a run is a polynomial of its words' hashes (each word hashed once, with
BLAKE2b, and remembered), mixed by SplitMix64's finaliser, all modulo 2**64: a
batch's runs are hashed and winnowed in a few array operations (numpy, when
installed) instead of one digest per run, and pure-Python loops give the same
numbers without numpy. Changing this function changes every stored shingle: it
needs a migration that shingles the stored chunks again (``rehash_chunk_shingles``).

The table ``chunk_shingles (owner_id, shingle, doc_rowid)`` holds the kept hashes
of each document (a shingle held by several of its chunks, once), keyed in that
order (one B-tree: the counts read it by owner and shingle); ``owner_id`` is the
owner's number in ``chunk_shingle_owners``, so a row is three integers (about 20
bytes) and not a copy of the owner's name. Which of a document's chunks hold a
shingle is found again from their text, as is what a delete removes. A write
touches only what it changes: the new chunks' shares are computed from the counts
of their own shingles, and another document's chunk is recomputed only when a
shingle it shares crosses the threshold (a third copy arrives, or one of three
leaves); a notice already in a hundred files costs a new copy one count query, not
a hundred updates.
A batch of documents is shingled, inserted and counted at once.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any

from memo_core.search.repeats import repeat_terms
from memo_core.search.text import tokenize

if TYPE_CHECKING:
    from memo_core.kb.shingle_tally import ShingleTally
    from memo_core.storage.base import SQLDatabase

__all__ = [
    "REPEAT_DOCUMENTS",
    "SHINGLE_WORDS",
    "WINDOW",
    "ShingledChunk",
    "add_chunk_shingles",
    "backfill_repeat_terms",
    "backfill_repeats",
    "owner_id",
    "remove_chunk_shingles",
    "shingle_rows_per_document",
    "shingles",
]

#: Words per shingle: long enough that ordinary phrases ("in accordance with the
#: terms of") do not make two texts look copied, short enough that one changed word
#: leaves most of a notice's shingles intact.
SHINGLE_WORDS = 8
#: Winnowing window: the smallest hash of every ``WINDOW`` consecutive shingles is
#: kept (about 2 / (WINDOW + 1) of them); less than SHINGLE_WORDS, so kept shingles overlap.
WINDOW = 6
#: Text is boilerplate once it occurs in this many documents of one owner; a
#: passage quoted once elsewhere (a summary, a reply) is not.
REPEAT_DOCUMENTS = 3
_BATCH = 500

_MASK = (1 << 64) - 1
_BASE = 0x9E3779B97F4A7C15  # odd: every power is a distinct multiplier modulo 2**64
_POWERS = [pow(_BASE, SHINGLE_WORDS - 1 - j, 1 << 64) for j in range(SHINGLE_WORDS)]
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


@dataclass(frozen=True)
class ShingledChunk:
    """A chunk to shingle: who owns it, its document, its rowid and its text (and
    ``tokenize(text)``, when the writer has it already)."""

    owner: str
    doc_rowid: int
    chunk_rowid: int
    text: str
    words: list[str] | None = None


def shingles(text: str) -> frozenset[int]:
    """The kept shingle hashes of ``text`` (see the module docstring)."""
    return frozenset(_runs_of([tokenize(text)]).hashes)


def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "big")


#: Hashes of the words seen lately: a dictionary look-up per word on the write path
#: instead of a digest (or a cached call); bounded, started afresh when full.
_WORD_HASHES: dict[str, int] = {}
_WORD_HASHES_KEPT = 1 << 17


def _word_hashes(words: Sequence[str]) -> list[int]:
    """``[_word_hash(w) for w in words]``."""
    known = _WORD_HASHES
    if len(known) > _WORD_HASHES_KEPT:
        known.clear()
    out = list(map(known.get, words))
    if None in out:
        for i, (word, h) in enumerate(zip(words, out, strict=True)):
            if h is None:
                out[i] = known[word] = _word_hash(word)
    return out  # type: ignore[return-value]  # every None was replaced


@dataclass(frozen=True)
class _Kept:
    """The kept shingles of several word lists, laid end to end: list ``k``'s are
    ``first[cuts[k]:cuts[k + 1]]`` (its first word) and ``hashes[...]``, by first word."""

    first: list[int]
    hashes: list[int]
    cuts: list[int]
    #: ``hashes`` as an int64 array, when made with numpy (no conversion back).
    array: Any = None

    def runs(self, k: int) -> list[tuple[int, int]]:
        """``(first word, hash)`` of list ``k``'s kept shingles."""
        a, b = self.cuts[k], self.cuts[k + 1]
        return list(zip(self.first[a:b], self.hashes[a:b], strict=True))

    def of(self, k: int) -> list[int]:
        return self.hashes[self.cuts[k] : self.cuts[k + 1]]


def _mix(x: int) -> int:
    x = ((x ^ (x >> 30)) * _MIX1) & _MASK
    x = ((x ^ (x >> 27)) * _MIX2) & _MASK
    return x ^ (x >> 31)


def _signed(x: int) -> int:
    return x - (1 << 64) if x >= 1 << 63 else x  # fits SQLite INTEGER and BIGINT


def _runs_of(texts: Sequence[Sequence[str]]) -> _Kept:
    """The kept shingles of each word list (:class:`_Kept`)."""
    try:
        import numpy as np
    except ImportError:  # the base install: the same numbers, one run at a time
        return _laid_out([_python_runs(_word_hashes(words)) for words in texts])
    # The batch's words hashed in one pass (each word new to the table hashed once),
    # straight into an array: no list of hashes per text.
    known = _WORD_HASHES
    if len(known) > _WORD_HASHES_KEPT:
        known.clear()
    words = list(chain.from_iterable(texts))
    for word in set(words).difference(known):
        known[word] = _word_hash(word)
    flat = np.fromiter(map(known.__getitem__, words), dtype=np.uint64, count=len(words))
    return _kept_of_flat(np, flat, [len(t) for t in texts])


def _laid_out(runs: Sequence[Sequence[tuple[int, int]]]) -> _Kept:
    first = [i for r in runs for i, _ in r]
    hashes = [h for r in runs for _, h in r]
    return _Kept(first, hashes, list(accumulate((len(r) for r in runs), initial=0)))


def _python_runs(hashes: Sequence[int]) -> list[tuple[int, int]]:
    if not hashes:
        return []
    if len(hashes) < SHINGLE_WORDS:
        return [(0, _short_hash(hashes))]
    runs = []
    for i in range(len(hashes) - SHINGLE_WORDS + 1):
        x = 0
        for p, h in zip(_POWERS, hashes[i : i + SHINGLE_WORDS], strict=True):
            x = (x + p * h) & _MASK
        runs.append(_signed(_mix(x)))
    # The smallest of each window (the first on a tie), or of all when fewer.
    starts = range(max(1, len(runs) - WINDOW + 1))
    kept = {min(range(i, min(i + WINDOW, len(runs))), key=runs.__getitem__) for i in starts}
    return [(i, runs[i]) for i in sorted(kept)]


def _short_hash(hashes: Sequence[int]) -> int:
    """The hash of a text shorter than a shingle: its words, the same polynomial."""
    x = 0
    for h in hashes:
        x = (x * _BASE + h) & _MASK
    return _signed(_mix(x))


def _numpy_runs(np: Any, words_hashed: Sequence[Sequence[int]]) -> list[list[tuple[int, int]]]:
    """:func:`_python_runs` of every list at once (see :func:`_numpy_kept`)."""
    kept = _numpy_kept(np, words_hashed)
    return [kept.runs(k) for k in range(len(words_hashed))]


def _numpy_kept(np: Any, words_hashed: Sequence[Sequence[int]]) -> _Kept:
    """The runs of the lists laid end to end, hashed and winnowed together; runs and
    windows that cross lists are dropped. Lists with fewer runs than a window (and
    texts shorter than a shingle) are winnowed one by one (:func:`_python_runs`)."""
    lengths = [len(h) for h in words_hashed]
    flat = np.fromiter(chain.from_iterable(words_hashed), dtype=np.uint64, count=sum(lengths))
    return _kept_of_flat(np, flat, lengths)


def _kept_of_flat(np: Any, flat: Any, lengths: Sequence[int]) -> _Kept:
    """:func:`_numpy_kept` of the word hashes ``flat`` (uint64), the lists laid end to
    end, list ``k`` of ``lengths[k]`` words."""
    total = len(flat)
    n = total - SHINGLE_WORDS + 1
    short = WINDOW + SHINGLE_WORDS - 1
    offsets = np.cumsum([0, *lengths])
    if n < WINDOW:
        return _laid_out([_python_runs(_list_of(flat, offsets, k)) for k in range(len(lengths))])
    with np.errstate(over="ignore"):
        x = flat[:n] * np.uint64(_POWERS[0])
        for j in range(1, SHINGLE_WORDS):
            x += flat[j : j + n] * np.uint64(_POWERS[j])
        x ^= x >> np.uint64(30)
        x *= np.uint64(_MIX1)
        x ^= x >> np.uint64(27)
        x *= np.uint64(_MIX2)
        x ^= x >> np.uint64(31)
    hashes = x.view(np.int64)
    starts = np.arange(n - WINDOW + 1)
    owner = np.searchsorted(offsets, starts, side="right") - 1
    # A window is its list's when the last word of its last run is.
    inside = starts + short <= offsets[owner + 1]
    windows = np.lib.stride_tricks.sliding_window_view(hashes, WINDOW)
    # Each window's smallest (the first on a tie) never lies left of the one before
    # it, so the chosen runs come in order: each once is each unlike the one before.
    picked = (starts + windows.argmin(axis=1))[inside]
    first_of_its_kind = np.ones(len(picked), dtype=bool)
    first_of_its_kind[1:] = picked[1:] != picked[:-1]
    chosen = picked[first_of_its_kind]
    first = (chosen - offsets[np.searchsorted(offsets, chosen, side="right") - 1]).tolist()
    values = hashes[chosen].tolist()
    cuts = np.searchsorted(chosen, offsets).tolist()
    if not any(0 < length < short for length in lengths):
        return _Kept(first, values, cuts, hashes[chosen])
    runs = [
        _python_runs(_list_of(flat, offsets, k))
        if 0 < length < short
        else list(zip(first[cuts[k] : cuts[k + 1]], values[cuts[k] : cuts[k + 1]], strict=True))
        for k, length in enumerate(lengths)
    ]
    return _laid_out(runs)


def _list_of(flat: Any, offsets: Any, k: int) -> list[int]:
    """List ``k``'s word hashes as Python ints (for :func:`_python_runs`)."""
    return list(flat[offsets[k] : offsets[k + 1]].tolist())


def _mask(words: Sequence[str], runs: Sequence[tuple[int, int]], repeated: set[int]) -> list[bool]:
    """Which of ``words`` lie inside a kept shingle (``runs``) that is ``repeated``."""
    covered = [False] * len(words)
    for start, h in runs:
        if h in repeated:
            for i in range(start, min(len(words), start + SHINGLE_WORDS)):
                covered[i] = True
    return covered


class _Shingled:
    """Words and kept shingles of a few chunks, computed once."""

    def __init__(self, texts: dict[int, str], words: dict[int, list[str]] | None = None) -> None:
        """``words``: ``tokenize(text)`` of some of them, when the caller has it."""
        given = words or {}
        self.words = {
            rowid: given[rowid] if rowid in given else tokenize(text)
            for rowid, text in texts.items()
        }
        self.rowids = list(self.words)
        self.kept = _runs_of(list(self.words.values()))

    def hashes(self) -> set[int]:
        return set(self.kept.hashes)

    def of(self, k: int) -> set[int]:
        """The kept hashes of the ``k``-th chunk."""
        return set(self.kept.of(k))

    def shares(self, repeated: set[int]) -> list[list[Any]]:
        """``[share, own terms, copied terms, rowid]`` (``_set_shares``) of the chunks
        holding a ``repeated`` shingle."""
        out: list[list[Any]] = []
        if not repeated:
            return out
        for k, rowid in enumerate(self.rowids):
            if not repeated.isdisjoint(self.kept.of(k)):
                words = self.words[rowid]
                mask = _mask(words, self.kept.runs(k), repeated)
                share = sum(mask) / len(words)
                own, copied = repeat_terms(words, mask) if share < 1.0 else ((), ())
                out.append([share, " ".join(sorted(own)), " ".join(sorted(copied)), rowid])
        return out

    def new_rows(
        self, number: int, doc_of: Sequence[int]
    ) -> tuple[list[tuple[int, int, int]], _ShingleCounts]:
        """The ``(owner_id, shingle, doc_rowid)`` rows of owner ``number``'s chunks (``doc_of``:
        each one's document), each once and in key order (each page of the B-tree is
        then visited once per batch), and how many of their documents hold each shingle."""
        kept = self.kept
        try:
            import numpy as np
        except ImportError:  # the base install: the same rows, sorted in Python
            rows = sorted({(number, h, doc) for k, doc in enumerate(doc_of) for h in kept.of(k)})
            docs: dict[int, int] = defaultdict(int)
            for _, h, _ in rows:
                docs[h] += 1
            held = sorted(docs)
            return rows, _ShingleCounts(held, [docs[h] for h in held])
        cuts = np.array(kept.cuts, dtype=np.int64)
        shingle = kept.array if kept.array is not None else np.array(kept.hashes, dtype=np.int64)
        doc = np.repeat(np.array(doc_of, dtype=np.int64), cuts[1:] - cuts[:-1])
        order = np.lexsort((doc, shingle))
        shingle, doc = shingle[order], doc[order]
        if len(shingle) > 1:  # a row unlike the one before it
            fresh = np.ones(len(shingle), dtype=bool)
            fresh[1:] = (shingle[1:] != shingle[:-1]) | (doc[1:] != doc[:-1])
            shingle, doc = shingle[fresh], doc[fresh]
        if not len(shingle):
            return [], _ShingleCounts([], [])
        rows = list(zip(repeat(number), shingle.tolist(), doc.tolist()))
        # Rows are sorted by shingle, one per document: a shingle's count is its run.
        starts = np.flatnonzero(np.r_[True, shingle[1:] != shingle[:-1]])
        runs = np.diff(np.r_[starts, len(shingle)])
        return rows, _ShingleCounts(shingle[starts].tolist(), runs.tolist())


class _ShingleCounts:
    """In how many of a batch's documents each of its shingles occurs, by shingle in
    increasing order: two lists rather than a dictionary (a batch of 1,000 chunks has
    ~22,000 shingles, and only those that reach the threshold are ever looked up)."""

    def __init__(self, shingles: list[int], counts: list[int]) -> None:
        """``shingles`` in increasing order, each once; ``counts[i]`` is ``shingles[i]``'s."""
        self._shingles, self._counts = shingles, counts

    def __getitem__(self, shingle: int) -> int:
        """The count of ``shingle`` (0: no document of the batch holds it)."""
        i = bisect_left(self._shingles, shingle)
        held = i < len(self._shingles) and self._shingles[i] == shingle
        return self._counts[i] if held else 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._shingles)

    def columns(self) -> tuple[list[int], list[int]]:
        """The shingles in increasing order, and each one's count."""
        return self._shingles, self._counts

    def __len__(self) -> int:
        return len(self._shingles)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _ShingleCounts):
            return NotImplemented
        return (self._shingles, self._counts) == (other._shingles, other._counts)

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside: not hashable


def owner_id(db: SQLDatabase, owner: str) -> int | None:
    """``owner``'s number in ``chunk_shingle_owners``, or None when it has none (no
    shingle of it was ever stored)."""
    row = db.query_one("SELECT id FROM chunk_shingle_owners WHERE owner = ?", [owner])
    return None if row is None else int(row[0])


def _numbered(db: SQLDatabase, owner: str) -> int:
    """``owner``'s number, given one if it has none (inside the write's transaction)."""
    number = owner_id(db, owner)
    if number is not None:
        return number
    db.execute("INSERT INTO chunk_shingle_owners (owner) VALUES (?)", [owner])
    return int(db.query_one("SELECT id FROM chunk_shingle_owners WHERE owner = ?", [owner])[0])


_INSERT = "INSERT INTO chunk_shingles (owner_id, shingle, doc_rowid) VALUES (?, ?, ?)"


def add_chunk_shingles(
    db: SQLDatabase, chunks: Sequence[ShingledChunk], tally: ShingleTally | None = None
) -> None:
    """Record the shingles of newly inserted chunks (their ``repeated`` is 0), set
    ``repeated`` on them, and on other chunks whose shingles reach the threshold.
    Each chunk's document is new: all its chunks are among ``chunks``. ``tally``
    (``kb/shingle_tally.py``) gives the counts of owners it holds, and starts on an
    owner with no shingle yet, instead of the count query."""
    by_owner: dict[str, list[ShingledChunk]] = defaultdict(list)
    for chunk in chunks:
        by_owner[chunk.owner].append(chunk)
    for owner, mine in by_owner.items():
        shingled = _Shingled(
            {c.chunk_rowid: c.text for c in mine},
            {c.chunk_rowid: c.words for c in mine if c.words is not None},
        )
        known = owner_id(db, owner)
        number = known if known is not None else _numbered(db, owner)
        if known is None and tally is not None:
            tally.start(number)
        rows, new_docs = shingled.new_rows(number, [c.doc_rowid for c in mine])
        if not rows:
            continue
        db.executemany(_INSERT, rows)
        counts = tally.add(number, new_docs, least=REPEAT_DOCUMENTS) if tally else None
        if counts is None:
            counts = _document_counts(db, number, new_docs, least=REPEAT_DOCUMENTS)
        _set_shares(db, shingled.shares(set(counts)))
        # Below the threshold before these documents came, at or above it now: they
        # made that text boilerplate in the others.
        crossed = {s for s, n in counts.items() if n - new_docs[s] < REPEAT_DOCUMENTS}
        _recompute(db, number, crossed, skip=set(shingled.words))


def remove_chunk_shingles(db: SQLDatabase, chunk_rowids: Sequence[int]) -> None:
    """Forget the shingles of chunks about to be deleted (still stored: a document's
    rows are found again from its chunks' text) that no other chunk of their document
    holds; chunks elsewhere whose shared text falls below the threshold get their
    ``repeated`` share lowered."""
    leaving = set(chunk_rowids)
    docs: set[int] = set()
    for part in _batches(chunk_rowids):
        docs.update(
            int(r[0])
            for r in db.query(
                "SELECT DISTINCT doc_rowid FROM chunks"
                f" WHERE rowid IN ({','.join('?' for _ in part)})",
                part,
            )
        )
    gone: dict[int, set[int]] = defaultdict(set)
    numbers: dict[str, int | None] = {}
    for part in _batches(sorted(docs)):
        rows = db.query(
            "SELECT rowid, owner, doc_rowid, text FROM chunks"
            f" WHERE doc_rowid IN ({','.join('?' for _ in part)})",
            part,
        )
        shingled = _Shingled({int(r[0]): str(r[3]) for r in rows})
        held: dict[int, set[int]] = defaultdict(set)  # by the chunks that stay
        lost: dict[int, set[int]] = defaultdict(set)  # by the chunks that leave
        owner_of: dict[int, str] = {}
        for k, (rowid, owner, doc_rowid, _) in enumerate(rows):
            owner_of[int(doc_rowid)] = str(owner)
            mine = held if int(rowid) not in leaving else lost
            mine[int(doc_rowid)].update(shingled.of(k))
        keys: list[tuple[int, int, int]] = []
        for doc_rowid, found in lost.items():
            owner = owner_of[doc_rowid]
            if owner not in numbers:
                numbers[owner] = owner_id(db, owner)
            number = numbers[owner]
            if number is None:
                continue  # never shingled
            found -= held.get(doc_rowid, set())
            gone[number].update(found)
            keys.extend((number, s, doc_rowid) for s in found)
        db.executemany(
            "DELETE FROM chunk_shingles WHERE owner_id = ? AND shingle = ? AND doc_rowid = ?",
            keys,
        )
    for number, found in gone.items():
        counts = _document_counts(db, number, found, least=REPEAT_DOCUMENTS - 1)
        below = {s for s, n in counts.items() if n == REPEAT_DOCUMENTS - 1}
        _recompute(db, number, below, skip=leaving)


def backfill_repeats(db: SQLDatabase, *, after_rowid: int = 0) -> None:
    """Shingle the stored chunks (those past ``after_rowid``: rows a bulk loader just
    wrote) and set every share (the ``rehash_chunk_shingles`` migration, a copied base
    and bulk loaders run it)."""
    last = after_rowid
    numbers: dict[str, int] = {}
    while True:
        rows = db.query(
            "SELECT rowid, owner, doc_rowid, text FROM chunks WHERE rowid > ?"
            " ORDER BY rowid LIMIT 1000",
            [last],
        )
        if not rows:
            break
        by_owner: dict[str, list[Any]] = defaultdict(list)
        for row in rows:
            by_owner[str(row[1])].append(row)
        for owner, mine in by_owner.items():
            if owner not in numbers:
                numbers[owner] = _numbered(db, owner)
            shingled = _Shingled({int(r[0]): str(r[3]) for r in mine})
            found, _ = shingled.new_rows(numbers[owner], [int(r[2]) for r in mine])
            # A document's chunks may lie in two batches: its row is then found twice.
            db.executemany(_INSERT + " ON CONFLICT DO NOTHING", found)
        last = int(rows[-1][0])
    repeated: dict[int, set[int]] = defaultdict(set)
    for number, s in db.query(
        "SELECT owner_id, shingle FROM chunk_shingles GROUP BY owner_id, shingle"
        " HAVING count(*) >= ?",
        [REPEAT_DOCUMENTS],
    ):
        repeated[int(number)].add(int(s))
    for number, held in sorted(repeated.items()):
        _set_shares(db, _chunks_holding(db, number, held).shares(held))


def shingle_rows_per_document(db: SQLDatabase, per_chunk: str, per_document: str) -> None:
    """Fill the empty ``per_document`` table (and ``chunk_shingle_owners``) from the
    rows of ``per_chunk``, laid out ``(owner, shingle, doc_rowid, chunk_rowid)`` as
    before the ``shingles_by_document`` migration: the same hashes, once per document."""
    db.execute(
        f"INSERT INTO chunk_shingle_owners (owner) SELECT DISTINCT owner FROM {per_chunk}"
        " ORDER BY owner"
    )
    db.execute(
        f"INSERT INTO {per_document} (owner_id, shingle, doc_rowid)"
        f" SELECT DISTINCT o.id, s.shingle, s.doc_rowid FROM {per_chunk} s"
        " JOIN chunk_shingle_owners o ON o.owner = s.owner ORDER BY 1, 2, 3"
    )


def backfill_repeat_terms(db: SQLDatabase) -> None:
    """Set the terms of every chunk holding repeated text from its stored shingles
    (the ``add_chunk_repeat_terms`` migration: shares stay as they were)."""
    owners = [str(r[0]) for r in db.query("SELECT DISTINCT owner FROM chunks WHERE repeated > 0")]
    for owner in owners:
        number = owner_id(db, owner)
        last = 0
        while True:
            rowids = [
                int(r[0])
                for r in db.query(
                    "SELECT rowid FROM chunks WHERE owner = ? AND repeated > 0 AND rowid > ?"
                    " ORDER BY rowid LIMIT 1000",
                    [owner, last],
                )
            ]
            if not rowids:
                break
            _set_from_scratch(db, number, _Shingled(_texts(db, rowids)))
            last = rowids[-1]


def _document_counts(
    db: SQLDatabase, number: int | None, found: Iterable[int], *, least: int
) -> dict[int, int]:
    """In how many documents of owner ``number`` each shingle occurs, for those in
    ``least`` documents or more (the rest are left out)."""
    out: dict[int, int] = {}
    if number is None:
        return out
    for part in _batches(sorted(found)):
        marks = ",".join("?" for _ in part)
        for shingle, n in db.query(
            "SELECT shingle, count(*) FROM chunk_shingles"
            f" WHERE owner_id = ? AND shingle IN ({marks}) GROUP BY shingle"
            " HAVING count(*) >= ?",
            [number, *part, least],
        ):
            out[int(shingle)] = int(n)
    return out


def _chunks_holding(
    db: SQLDatabase, number: int, found: set[int], skip: set[int] | frozenset[int] = frozenset()
) -> _Shingled:
    """The chunks (but ``skip``) of owner ``number`` holding one of the ``found`` shingles:
    those of the documents the table lists for them whose own text holds one."""
    docs: set[int] = set()
    for part in _batches(sorted(found)):
        marks = ",".join("?" for _ in part)
        docs.update(
            int(r[0])
            for r in db.query(
                "SELECT DISTINCT doc_rowid FROM chunk_shingles"
                f" WHERE owner_id = ? AND shingle IN ({marks})",
                [number, *part],
            )
        )
    texts: dict[int, str] = {}
    for part in _batches(sorted(docs)):
        marks = ",".join("?" for _ in part)
        for rowid, text in db.query(
            f"SELECT rowid, text FROM chunks WHERE doc_rowid IN ({marks}) ORDER BY rowid", part
        ):
            if int(rowid) not in skip:
                texts[int(rowid)] = str(text)
    shingled = _Shingled(texts)
    holding = {
        rowid: texts[rowid]
        for k, rowid in enumerate(shingled.rowids)
        if not found.isdisjoint(shingled.kept.of(k))
    }
    if len(holding) == len(texts):
        return shingled
    return _Shingled(holding, {rowid: shingled.words[rowid] for rowid in holding})


def _texts(db: SQLDatabase, chunk_rowids: Sequence[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for part in _batches(chunk_rowids):
        marks = ",".join("?" for _ in part)
        for rowid, text in db.query(
            f"SELECT rowid, text FROM chunks WHERE rowid IN ({marks})", part
        ):
            out[int(rowid)] = str(text)
    return out


def _recompute(db: SQLDatabase, number: int, changed: set[int], skip: set[int]) -> None:
    """Set the shares of owner ``number``'s chunks holding a ``changed`` shingle, but
    ``skip``; each is set from scratch (0 where nothing of it is repeated any more)."""
    if changed:
        _set_from_scratch(db, number, _chunks_holding(db, number, changed, skip))


def _set_from_scratch(db: SQLDatabase, number: int | None, shingled: _Shingled) -> None:
    """Set the shares and terms of owner ``number``'s ``shingled`` chunks from their
    shingles' counts (0 and none where nothing of a chunk is repeated)."""
    repeated = set(_document_counts(db, number, shingled.hashes(), least=REPEAT_DOCUMENTS))
    found = {row[-1]: row for row in shingled.shares(repeated)}
    _set_shares(db, [found.get(rowid, [0.0, "", "", rowid]) for rowid in shingled.words])


def _set_shares(db: SQLDatabase, updates: Sequence[Sequence[Any]]) -> None:
    """``chunks.repeated``, ``own_terms`` and ``copied_terms`` from ``[share, own,
    copied, rowid]`` rows (:meth:`_Shingled.shares`): the share of each chunk's words
    inside a kept shingle found in :data:`REPEAT_DOCUMENTS` documents or more."""
    if updates:
        db.executemany(
            "UPDATE chunks SET repeated = ?, own_terms = ?, copied_terms = ? WHERE rowid = ?",
            updates,
        )


def _batches(values: Sequence[int]) -> Iterable[list[int]]:
    for start in range(0, len(values), _BATCH):
        yield list(values[start : start + _BATCH])
