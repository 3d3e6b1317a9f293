"""An in-RAM copy of the keyword index that ranks exactly as the SQL keyword leg does.

Why: FTS5 finds the chunks matching a query quickly, but an ``OR`` query ranked
by ``bm25()`` calls the ranking function on every one of them and sorts them
all. At 100k chunks a typical question matches 16,000 chunks: finding them takes
6 ms, ranking them 40 ms, and both grow with the base (bench/README.md, Scale).
Here each query word's postings are slices of NumPy arrays, and BM25 for every
matched chunk is a handful of vector operations.

Same answer as the SQL leg (``kb/fts_rank.py``). The index holds, per column (raw and stemmed), each
token's chunks and in-chunk frequency, and per chunk its token count; tokens are
memo's tokenizer output folded as ``unicode61 remove_diacritics 2`` folds them
(:func:`~memo_core.search.pg_text.fold`, the folding that makes PostgreSQL's
scores equal FTS5's). The score is FTS5's BM25 formula with the knowledge base's
constants (:mod:`memo_core.search.bm25`; N and the mean length taken over the whole table),
over the same phrases :func:`~memo_core.search.text.fts_match_expression`
sends, with FTS5's sign (negative, lower is better). A test compares scores and
order with FTS5's on real text.

Where it answers None and the caller runs the FTS5 query instead: a query word
that splits into several tokens (``A-4471``, ``U.S.``) is a phrase, and this index
keeps no positions; metadata filters (the caller's check); PostgreSQL (no
change log to follow).

Freshness and persistence, as for the HNSW index (``search/sidecar.py``): saved
as ``<db>.kwidx`` (NumPy arrays) with a JSON header naming the base (its random
id) and the change-log entry it holds; another base's file, a restored base's or
a damaged one (checksum, shapes) is rebuilt. Chunks changed since are replayed
into a small in-RAM delta (deleted chunks masked out, added ones tokenized), and
once the delta passes a tenth of the index it is folded in (a re-sort of the
postings, no re-reading) and saved. Every hit is still re-checked against the
table by the caller (``HybridSearcher``).
RAM: about 6 bytes per distinct token per chunk and column, roughly 80 MB per
100k chunks of a few sentences (bench/README.md, Scale).
"""

from __future__ import annotations

import logging
import re
import threading
from array import array
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.errors import MissingDependencyError
from memo_core.search.bm25 import COLUMN_WEIGHTS, COLUMNS, K1, KB_B, idf, length_norm
from memo_core.search.pg_text import fold
from memo_core.search.sidecar import (
    check_stop,
    read_header,
    save_with_header,
    snapshot_usable,
)
from memo_core.search.text import query_words, tokenize

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = ["RamKeywordIndex", "index_tokens"]

log = logging.getLogger(__name__)

_FORMAT = 1
_WEIGHTS = tuple(COLUMN_WEIGHTS[c] for c in COLUMNS)


# tokenize()'s pattern, applied to a whole lower-cased ASCII text at once.
_SPLIT = re.compile(r"[^\W_]+").findall


def index_tokens(text: str) -> list[str]:
    """The tokens FTS5 (``unicode61 remove_diacritics 2``) stores for ``text``."""
    if text.isascii():  # the common case: lower-casing first splits alike, and is faster
        return _SPLIT(text.lower())
    return [fold(t) for t in tokenize(text)]


class _Delta:
    """Chunks added since the saved snapshot: postings in dictionaries, per column."""

    def __init__(self) -> None:
        self.postings: tuple[dict[str, list[int]], ...] = ({}, {})
        self.freqs: tuple[dict[str, list[int]], ...] = ({}, {})
        self.positions: dict[int, int] = {}  # chunk rowid -> document position

    def add(self, position: int, rowid: int, columns: Sequence[Counter[str]]) -> None:
        self.positions[rowid] = position
        for col, counts in enumerate(columns):
            for token, count in counts.items():
                self.postings[col].setdefault(token, []).append(position)
                self.freqs[col].setdefault(token, []).append(count)


class RamKeywordIndex:
    """BM25 top-k over an in-RAM copy of a :class:`KnowledgeStore`'s keyword index."""

    def __init__(
        self,
        store: KnowledgeStore,
        *,
        path: str | Path | None = None,
        compact_share: float = 0.1,
        compact_min: int = 5_000,
        stop: threading.Event | None = None,
    ) -> None:
        try:
            import numpy
        except ImportError as exc:  # numpy: the local (or ann) extra
            raise MissingDependencyError("numpy", "local", "the in-RAM keyword index") from exc
        self._np: Any = numpy
        self.store = store
        local = store.db.local_file  # None on a server or in RAM: nothing to save beside
        self.path: Path | None = (
            Path(path) if path is not None else Path(local + ".kwidx") if local else None
        )
        self.compact_share = compact_share
        self.compact_min = compact_min
        #: Set when the base closes mid-build (``auto_aids.py``): the build stops.
        self.stop = stop
        self._lock = threading.RLock()
        self._ready = False
        self._distrusted = False  # the saved file proved wrong: build, do not load
        self._key: object = None
        self._seq = 0
        self._norm_at: object = None
        self._owner_codes: dict[str, int] = {}
        self._collection_codes: dict[str, int] = {}
        self._scores: Any = None  # the per-query score buffer (``_scores_buffer``)
        #: Counters for tests and benchmarks: full builds, loads from disk, replayed chunks,
        #: deltas folded in.
        self.builds = 0
        self.compactions = 0
        self.loads = 0
        self.replayed = 0

    # -- keeping the index in step with the file --------------------------------

    def refresh(self) -> bool:
        """Bring the index in step with the file; False where it cannot serve: the
        backend keeps no change log to follow (PostgreSQL: its own indexes serve)."""
        changes = self.store.backend.changes
        if changes is None:
            return False
        with self._lock:
            state = self.store.search_state()
            if self._ready and self._key == state.key:
                return True
            low, high = changes.range()
            if not self._ready and (self._distrusted or not self._load(low, high)):
                self._build(high)
            if not snapshot_usable(self._seq, low, high):
                self._build(high)
            elif self._seq < high:
                self._replay(changes.changed(self._seq, high), high)
            self._key = state.key
            return True

    def rebind(self, store: KnowledgeStore) -> None:
        """Serve ``store`` (another connection to the same file) from now on, as
        ``AnnVectorIndex.rebind``."""
        with self._lock:
            self.store = store
            self._key = None
            self._norm_at = None

    def invalidate(self) -> None:
        """Forget this index; the next query rebuilds it from the table (not from the
        saved file, which is overwritten). For a caller that caught it answering
        wrong."""
        with self._lock:
            self._ready = False
            self._distrusted = True
            self._key = None

    def _code(self, codes: dict[str, int], name: str | None) -> int:
        return -1 if name is None else codes.setdefault(name, len(codes))

    def _build(self, high: int) -> None:
        np = self._np
        self._owner_codes, self._collection_codes = {}, {}
        vocab: tuple[dict[str, int], dict[str, int]] = ({}, {})
        terms = (array("q"), array("q"))
        docs = (array("i"), array("i"))
        rowids, lengths, owners, collections = array("q"), array("q"), array("i"), array("i")
        position = 0
        for rows in self.store.backend.keyword_rows():
            check_stop(self.stop)
            for rowid, raw, stemmed, owner, collection in rows:
                length = 0
                for col, text in enumerate((raw, stemmed)):
                    tokens = index_tokens(text)
                    length += len(tokens)
                    ids = vocab[col]
                    terms[col].extend([ids.setdefault(t, len(ids)) for t in tokens])
                    docs[col].extend([position] * len(tokens))
                rowids.append(int(rowid))
                lengths.append(length)
                owners.append(self._code(self._owner_codes, owner))
                collections.append(self._code(self._collection_codes, collection))
                position += 1
        self._rowids = np.asarray(rowids, dtype=np.int64)
        self._lengths = np.asarray(lengths, dtype=np.int64)
        self._owners = np.asarray(owners, dtype=np.int32)
        self._collections = np.asarray(collections, dtype=np.int32)
        self._vocab = vocab
        self._ptr, self._docs, self._freqs = [], [], []
        for col in range(2):
            ptr, postings, freqs = _postings(
                np, np.asarray(terms[col], dtype=np.int64), docs[col], len(vocab[col]), position
            )
            self._ptr.append(ptr)
            self._docs.append(postings)
            self._freqs.append(freqs)
        self._reset_delta()
        self._seq = high
        self._ready = True
        self._distrusted = False
        self.builds += 1
        self._save()

    def _reset_delta(self) -> None:
        np = self._np
        self._base = len(self._rowids)
        self._alive = np.ones(self._base, dtype=bool)
        self._dead = 0
        self._total = int(self._lengths.sum())
        self._delta = _Delta()
        self._norm_at = None

    def _position(self, rowid: int) -> int | None:
        found = self._delta.positions.get(rowid)
        if found is not None:
            return found
        at = int(self._np.searchsorted(self._rowids[: self._base], rowid))
        if at < self._base and int(self._rowids[at]) == rowid:
            return at
        return None

    def _positions(self, rowids: Any) -> Any | None:
        """:meth:`_position` of each of ``rowids`` (a NumPy array) at once; None when
        one is not in the index."""
        np = self._np
        base = self._rowids[: self._base]
        at = np.minimum(np.searchsorted(base, rowids), max(self._base - 1, 0))
        known = base[at] == rowids if self._base else np.zeros(len(rowids), dtype=bool)
        if known.all():
            return at
        for i in np.flatnonzero(~known).tolist():
            found = self._delta.positions.get(int(rowids[i]))
            if found is None:
                return None
            at[i] = found
        return at

    def _replay(self, rowids: list[int], high: int) -> None:
        np = self._np
        current = {r[0]: r for rows in self.store.backend.keyword_rows(rowids) for r in rows}
        added: list[tuple[int, str, str, int, int]] = []
        for rowid in rowids:
            at = self._position(rowid)
            if at is not None and self._alive[at]:
                self._alive[at] = False
                self._dead += 1
                self._total -= int(self._lengths[at])
            row = current.get(rowid)
            if row is not None:
                owner = self._code(self._owner_codes, row[3])
                collection = self._code(self._collection_codes, row[4])
                added.append((rowid, row[1], row[2], owner, collection))
        start = len(self._rowids)
        lengths: list[int] = []
        for i, (rowid, raw, stemmed, _, _) in enumerate(added):
            columns = [Counter(index_tokens(raw)), Counter(index_tokens(stemmed))]
            lengths.append(sum(sum(c.values()) for c in columns))
            self._delta.add(start + i, rowid, columns)
        if added:
            self._rowids = np.concatenate([self._rowids, [a[0] for a in added]]).astype(np.int64)
            self._lengths = np.concatenate([self._lengths, lengths]).astype(np.int64)
            self._owners = np.concatenate([self._owners, [a[3] for a in added]]).astype(np.int32)
            self._collections = np.concatenate([self._collections, [a[4] for a in added]]).astype(
                np.int32
            )
            self._alive = np.concatenate([self._alive, np.ones(len(added), dtype=bool)])
            self._total += sum(lengths)
        self._seq = high
        self._norm_at = None
        self.replayed += len(rowids)
        if self._dead + len(self._delta.positions) > max(
            self.compact_min, self.compact_share * self._base
        ):
            self._compact()

    def _compact(self) -> None:
        """Fold the delta into the arrays and drop deleted chunks, then save.

        Only the postings are re-sorted; no chunk is re-read or re-tokenized (a full
        build takes minutes at a million chunks, this a few seconds). Positions follow
        rowid order again, as after a build. Tokens whose chunks are all gone keep an
        empty slot in the vocabulary until the next full build.
        """
        np = self._np
        kept = np.flatnonzero(self._alive)
        order = kept[np.argsort(self._rowids[kept], kind="stable")]
        moved = np.full(len(self._rowids), -1, dtype=np.int64)
        moved[order] = np.arange(len(order))
        span = max(len(order), 1)
        for col in range(2):
            vocab, ptr = self._vocab[col], self._ptr[col]
            terms = [np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))]
            docs = [self._docs[col].astype(np.int64)]
            counts = [self._freqs[col].astype(np.int64)]
            for token, positions in self._delta.postings[col].items():
                terms.append(np.full(len(positions), vocab.setdefault(token, len(vocab))))
                docs.append(np.asarray(positions, dtype=np.int64))
                counts.append(np.asarray(self._delta.freqs[col][token], dtype=np.int64))
            term, doc, count = (
                np.concatenate(terms),
                moved[np.concatenate(docs)],
                np.concatenate(counts),
            )
            live = doc >= 0
            term, doc, count = term[live], doc[live], count[live]
            by_term_then_doc = np.argsort(term * span + doc)
            self._ptr[col], self._docs[col], self._freqs[col] = _csr(
                np,
                term[by_term_then_doc],
                doc[by_term_then_doc],
                count[by_term_then_doc],
                len(vocab),
            )
        self._rowids, self._lengths = self._rowids[order], self._lengths[order]
        self._owners, self._collections = self._owners[order], self._collections[order]
        self._reset_delta()
        self.compactions += 1
        self._save()

    # -- saving and loading -------------------------------------------------------

    def _want_header(self) -> dict[str, Any] | None:
        """What a saved index must have been made with; None: this base has no id
        (opened read-only before its migration), so nothing is saved or trusted."""
        base = self.store.search_state().base_id
        if base is None:
            return None
        return {"format": _FORMAT, "base": base, "k1": K1, "b": KB_B, "weights": list(_WEIGHTS)}

    def _save(self) -> None:
        want = self._want_header()
        if self.path is None or want is None:
            return
        np = self._np
        arrays = {
            "rowids": self._rowids,
            "lengths": self._lengths,
            "owners": self._owners,
            "collections": self._collections,
        }
        for col in range(2):
            arrays[f"ptr{col}"] = self._ptr[col]
            arrays[f"docs{col}"] = self._docs[col]
            arrays[f"freqs{col}"] = self._freqs[col]
            # Tokens are runs of letters and digits: a newline never occurs in one.
            arrays[f"vocab{col}"] = np.frombuffer(
                "\n".join(self._vocab[col]).encode("utf-8"), dtype=np.uint8
            )

        def write(tmp: Path) -> None:
            with tmp.open("wb") as out:  # a file object: np.savez would append ".npz"
                np.savez(out, **arrays)

        header = {
            "index": want,
            "seq": self._seq,
            "count": len(self._rowids),
            "owners": list(self._owner_codes),
            "collections": list(self._collection_codes),
        }
        save_with_header(self.path, write, header)

    def _load(self, low: int, high: int) -> bool:
        """Take the saved index if it is this base's and sound; False (build) otherwise."""
        want = self._want_header()
        if self.path is None or want is None:
            return False
        header = read_header(self.path, want)
        if header is None or not snapshot_usable(header["seq"], low, high):
            return False
        try:
            loaded = self._read_arrays(self.path, header)
        except Exception as exc:
            log.warning("%s: cannot be loaded (%s); rebuilding it", self.path, exc)
            return False
        if loaded is None:
            log.warning("%s: inconsistent arrays; rebuilding it", self.path)
            return False
        (self._rowids, self._lengths, self._owners, self._collections) = loaded[:4]
        self._ptr, self._docs, self._freqs, self._vocab = loaded[4:]
        self._owner_codes = {name: i for i, name in enumerate(header["owners"])}
        self._collection_codes = {name: i for i, name in enumerate(header["collections"])}
        self._reset_delta()
        self._seq = header["seq"]
        self._ready = True
        self.loads += 1
        if self._seq == high and len(self._rowids) != self._fts_rows():
            self._ready = False
            return False
        return True

    def _read_arrays(self, path: Path, header: dict[str, Any]) -> tuple[Any, ...] | None:
        """The arrays of a saved index, or None when their shapes disagree (a file
        that passed its checksum but was written wrong, or by other code)."""
        np = self._np
        # Our own handle: np.load leaves the file it opened open when a damaged
        # archive makes NpzFile fail.
        with path.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        rowids, lengths = arrays["rowids"], arrays["lengths"]
        owners, collections = arrays["owners"], arrays["collections"]
        owner_names, collection_names = header.get("owners"), header.get("collections")
        if not isinstance(owner_names, list) or not isinstance(collection_names, list):
            return None
        count = len(rowids)
        columns = (rowids, lengths, owners, collections)
        if header.get("count") != count or any(a.ndim != 1 or len(a) != count for a in columns):
            return None
        if count and (
            owners.min() < -1
            or owners.max() >= len(owner_names)
            or collections.min() < -1
            or collections.max() >= len(collection_names)
            or (np.diff(rowids) <= 0).any()
        ):
            return None
        ptr, docs, freqs, vocab = [], [], [], []
        for col in range(2):
            text = arrays[f"vocab{col}"].tobytes().decode("utf-8")
            tokens = text.split("\n") if text else []
            p, d, f = arrays[f"ptr{col}"], arrays[f"docs{col}"], arrays[f"freqs{col}"]
            if p.ndim != 1 or len(p) != len(tokens) + 1 or d.shape != f.shape or d.ndim != 1:
                return None
            if p[0] != 0 or p[-1] != len(d) or (np.diff(p) < 0).any():
                return None
            if len(d) and (d.min() < 0 or d.max() >= count):
                return None
            ptr.append(p)
            docs.append(d)
            freqs.append(f)
            vocab.append({t: i for i, t in enumerate(tokens)})
        return (rowids, lengths, owners, collections, ptr, docs, freqs, (vocab[0], vocab[1]))

    def _fts_rows(self) -> int:
        return self.store.backend.keyword_row_count()

    # -- searching ----------------------------------------------------------------

    def _phrases(self, query: str) -> list[tuple[int, tuple[str, ...]]]:
        """``(column, tokens)`` of each phrase :func:`fts_match_expression` sends FTS5."""
        words, stems = query_words(query, languages=self.store.languages)
        phrases = [(0, w) for w in words]
        phrases += [(1, s) for s in {" ".join(s): s for s in stems}.values()]
        out: list[tuple[int, tuple[str, ...]]] = []
        for col, tokens in phrases:
            folded = tuple(t for token in tokens for t in index_tokens(token))
            if folded:
                out.append((col, folded))
        return out

    def _postings(self, col: int, token: str) -> tuple[Any, Any]:
        """Positions and frequencies of the live chunks holding ``token`` in ``col``."""
        np = self._np
        docs = freqs = np.empty(0, dtype=np.int64)
        term = self._vocab[col].get(token)
        if term is not None:
            start, end = self._ptr[col][term], self._ptr[col][term + 1]
            docs, freqs = self._docs[col][start:end], self._freqs[col][start:end]
        extra = self._delta.postings[col].get(token)
        if extra:
            docs = np.concatenate([docs, extra])
            freqs = np.concatenate([freqs, self._delta.freqs[col][token]])
        if self._dead and len(docs):
            live = self._alive[docs]
            docs, freqs = docs[live], freqs[live]
        return docs, freqs

    def _phrase_postings(self, col: int, tokens: Sequence[str]) -> tuple[Any, Any] | None:
        """Positions and frequencies of the chunks holding a multi-token phrase in ``col``.

        This index keeps no positions, so the backend finds the chunks, and the BM25 of
        the phrase alone (unit weights, ``KnowledgeBackend.phrase_bm25``) gives back each chunk's phrase count ``f``:
        the score is ``-idf * f (k1 + 1) / (f + norm)`` with ``idf`` and ``norm`` known
        here, so ``f = s norm / (k1 + 1 - s)`` with ``s = -score / idf``. None (run
        the whole query in FTS5) if a chunk is unknown here or a count is not whole.
        """
        np = self._np
        rows = self.store.backend.phrase_bm25(COLUMNS[col], tokens)
        if not rows:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        docs = self._positions(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        if docs is None:
            return None
        if not self._alive[docs].all():
            return None
        live = len(self._rowids) - self._dead
        share = -np.asarray([float(r[1]) for r in rows]) / idf(len(rows), live)
        counts = share * self._norm[docs] / (K1 + 1.0 - share)
        freqs = np.rint(counts)
        if not np.allclose(counts, freqs, rtol=1e-6, atol=1e-6) or (freqs < 1).any():
            return None
        return docs, freqs

    def candidates(
        self,
        owner: str,
        query: str,
        limit: int,
        *,
        collections: Sequence[str] | None = None,
    ) -> list[tuple[int, float]] | None:
        """``[(chunk rowid, bm25)]`` best first, as the FTS5 leg returns them, or None
        when this index cannot answer ``query`` (run the FTS5 query instead)."""
        phrases = self._phrases(query)
        if not phrases or limit <= 0:
            return []
        np = self._np
        with self._lock:
            if not self.refresh():
                return None
            rows = len(self._rowids) - self._dead
            if rows <= 0:
                return []
            if self._norm_at != self._key:
                mean_length = self._total / rows
                self._norm = length_norm(self._lengths, mean_length)
                self._norm_at = self._key
            scores = self._scores_buffer()
            matched: list[Any] = []  # each phrase's chunks
            for col, tokens in phrases:
                if len(tokens) == 1:
                    docs, freqs = self._postings(col, tokens[0])
                else:
                    found_phrase = self._phrase_postings(col, tokens)
                    if found_phrase is None:
                        return None
                    docs, freqs = found_phrase
                if not len(docs):
                    continue
                # idf * w f (K1 + 1) / (w f + norm), evaluated in that order, in place:
                # a 100k-chunk query adds some 30,000 postings, and each temporary
                # array costs a pass over them.
                weighted = freqs * _WEIGHTS[col]
                denominator = self._norm[docs]
                denominator += weighted
                weighted *= K1 + 1.0
                weighted *= idf(len(docs), rows)
                weighted /= denominator
                scores[docs] += weighted
                matched.append(docs)
            scoped = len(self._owner_codes) > 1 or bool(collections)
            # Every posting adds more than 0 (idf >= IDF_FLOOR, f >= 1): the matched
            # chunks are those scored (a boolean mask: nonzero() on floats is 7x slower).
            # Over the whole file, only those at or above a floor under the limit-th
            # best score can be in the top: the rest are never listed or partitioned.
            floor = 0.0 if scoped else _floor(np, scores, matched, limit)
            found = np.flatnonzero(scores >= floor if floor > 0.0 else scores > 0.0)
            if scoped:
                code = self._owner_codes.get(owner)
                if code is None:
                    return []
                keep = self._owners[found] == code
                if collections:
                    wanted = [
                        self._collection_codes[c]
                        for c in collections
                        if c in self._collection_codes
                    ]
                    keep &= np.isin(self._collections[found], wanted)
                found = found[keep]
            elif owner not in self._owner_codes:
                return []
            best = scores[found]
            if len(found) > limit:
                found, best = _best(np, found, best, self._rowids, limit)
            rowids = self._rowids[found]
            order = np.lexsort((rowids, -best))
            return list(zip(rowids[order].tolist(), (-best[order]).tolist(), strict=True))

    def _scores_buffer(self) -> Any:
        """A zeroed score per chunk, reused from query to query (under the lock): a fresh
        array of 100k floats each time costs the page faults of its first touch."""
        size = len(self._rowids)
        buffer = self._scores
        if buffer is None or len(buffer) != size:
            buffer = self._scores = self._np.zeros(size)
        else:
            buffer.fill(0.0)
        return buffer

    def describe(self) -> dict[str, Any]:
        """Size and counters (for benchmarks)."""
        with self._lock:
            if not self._ready:
                return {"path": str(self.path) if self.path else None, "chunks": 0}
            postings = sum(len(d) for d in self._docs)
            arrays = [*self._docs, *self._freqs, *self._ptr, self._rowids, self._lengths]
            arrays += [self._owners, self._collections, self._alive]
            size = sum(a.nbytes for a in arrays) + 8 * len(self._rowids)  # + BM25 norms
            return {
                "path": str(self.path) if self.path else None,
                "chunks": len(self._rowids) - self._dead,
                "postings": postings,
                "memory_bytes": int(size),
                "builds": self.builds,
                "loads": self.loads,
                "replayed": self.replayed,
                "compactions": self.compactions,
            }


def _postings(np: Any, terms: Any, docs: Any, vocabulary: int, documents: int) -> tuple[Any, ...]:
    """CSR postings from parallel (term, document) arrays, one entry per token: for
    each term, ``ptr[t]:ptr[t + 1]`` slices its documents (ascending) and counts."""
    span = max(documents, 1)
    unique, counts = np.unique(terms * span + np.asarray(docs, dtype=np.int64), return_counts=True)
    return _csr(np, unique // span, unique % span, counts, vocabulary)


def _csr(np: Any, terms: Any, docs: Any, counts: Any, vocabulary: int) -> tuple[Any, ...]:
    """``(ptr, documents, counts)`` from postings already sorted by term, then document."""
    ptr = np.zeros(vocabulary + 1, dtype=np.int64)
    np.cumsum(np.bincount(terms, minlength=vocabulary), out=ptr[1:])
    freq_type = np.uint16 if counts.max(initial=0) < 2**16 else np.uint32
    return ptr, docs.astype(np.int32), counts.astype(freq_type)


def _best(np: Any, found: Any, scores: Any, rowids: Any, limit: int) -> tuple[Any, Any]:
    """The ``limit`` best of ``found`` (positions) by score, ties at the boundary going
    to the lower rowid as in the SQL leg (``kb/fts_rank.py``): chunks of the same text
    tie, and a partition alone would keep any of them."""
    kth = np.partition(scores, len(scores) - limit)[-limit]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)
    tied = tied[np.argsort(rowids[found[tied]], kind="stable")[: limit - len(above)]]
    keep = np.concatenate([above, tied])
    return found[keep], scores[keep]


#: How many of a query's rarest phrases (of at least ``limit`` chunks) ``_floor`` reads.
_FLOOR_PHRASES = 3


def _floor(np: Any, scores: Any, matched: Sequence[Any], limit: int) -> float:
    """A score at or below the ``limit``-th best of ``scores`` (0: none found): the
    highest ``limit``-th best among the chunks of each of the query's rarest phrases
    that match ``limit`` chunks or more (the best chunks usually hold them). The
    ``limit``-th best of any ``limit`` chunks is at most the file's, so every chunk of
    the top scores at least this, ties included. One phrase's chunks are distinct:
    no ``unique()`` is needed (it cost more than the partition it saves)."""
    floor = 0.0
    wide = sorted((docs for docs in matched if len(docs) >= limit), key=len)
    for docs in wide[:_FLOOR_PHRASES]:
        floor = max(floor, float(np.partition(scores[docs], len(docs) - limit)[-limit]))
    return floor
