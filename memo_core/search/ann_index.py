"""An opt-in approximate nearest-neighbour (HNSW) index of a base's vectors, kept beside it.

Why: sqlite-vec answers KNN by brute force, about 1.2 us per stored vector on a
2-core machine (120 ms at 100k chunks, 1 s at 1M), and its quantised columns pay
the same per-row cost. An HNSW graph (the ``usearch`` library, Apache-2.0) finds
the neighbours of real text embeddings in a millisecond or two at 100k, at the
price of recall a little under 1 (measured in ``bench/scale.py``), RAM (float16:
2 x dimensions bytes per chunk, plus the graph), and a one-time build.

Persistence and staleness. The index is saved as ``<db>.hnsw`` with a JSON
header ``<db>.hnsw.json`` naming the base (its random id), the embedder fingerprint, the active vector
table (it changes on re-index) and the last entry of the file's change log
(``kb_chunk_changes``, filled by triggers on ``chunks``) that the index holds.
On first use, and whenever the file changed, the index replays the log entries
after that one (removing and re-adding those chunks' vectors), so a write costs
its own vectors, not a rebuild; it rebuilds when the header does not match (another
base or a restored one, other embedder, re-index, log pruned past it, a checksum
or vector count that disagrees) or the file fails to load. It saves itself after
a build and after enough replayed changes.

Scoping. Every result is a chunk the caller may see: with other owners or
collections in the file, or a metadata filter, the index is searched deeper in
proportion to the scope's share of the file and the results are checked in SQL
(post-filtering); a scope too small for that (or a deep search that still comes
up short) answers ``None`` and the caller runs the exact search instead. The
caller still re-checks every chunk's owner and collection in the table
(``HybridSearcher``), so even a wrong index cannot hand out another's chunk.
Similarities are the index's own (float16 storage: within about 1e-3 of exact).

The graph library is faiss when installed, usearch otherwise (``ann_graphs.py``):
at 100k chunks faiss's walk finds the same neighbours (recall@10 0.997 against
exact) for about a quarter of usearch's CPU (bench/README.md, issue 21.1).
"""

from __future__ import annotations

import logging
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.errors import MissingDependencyError, StorageError
from memo_core.search.ann_graphs import (
    Graph,
    load_cpp_runtime_first,
    new_graph,
    pick_engine,
    restore_graph,
)
from memo_core.search.sidecar import (
    check_stop,
    read_header,
    save_with_header,
    snapshot_usable,
)

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = ["AnnParameters", "AnnVectorIndex", "load_cpp_runtime_first"]

log = logging.getLogger(__name__)

#: 2: the header names the graph library (``engine``); a format-1 file (usearch) is rebuilt.
_FORMAT = 2


@dataclass(frozen=True)
class AnnParameters:
    """HNSW knobs. ``connectivity`` (M) and ``expansion_add`` (efConstruction) trade
    build time and RAM for recall; ``expansion_search`` (ef) is the search's breadth,
    raised to five times the depth asked when that is more. Measured at 100k chunks
    (bench/scale.py's distractors, float16, the vector leg's depth of 40, recall@10
    against exact search on its 200 questions; CPU per search on 2 shared cores under
    load 10-13): M=16, efConstruction=64 finds 0.986 at ef 200 (2.1 ms) and needs
    ef 600 for 0.996 (5.2 ms); M=24/128 finds 0.994 at ef 250; M=32/128 finds 0.993
    at ef 200 and 0.996 at ef 250 (4.0 ms), for 2.8 times the build CPU (180 s
    against 63 at 100k) and 177 MiB of RAM against 145. At 1M chunks and depth 40,
    recall@40 with M=16 was 0.906 at ef 80 and 0.944 at ef 200. Those figures are
    usearch's; faiss's graph with the same M = 32 / efConstruction 128 at 100k is
    built in 54 s of CPU. Counted as a search counts (``bench/query_time.py
    --recall``: vector mode, k=10, the repeated-text demotion applied to both sides),
    recall@10 against sqlite-vec's exact answer is 0.9930 at ef 256 (usearch: 0.9935),
    0.9955 at 320, 0.9975 at 384 and 0.9985 at 512, for 1.4, 1.7-2.0, 1.8 and 2.1 ms
    of CPU a leg under load 15 (usearch at 256: 4.1 ms), hence ef 384 (bench/README.md,
    issue 21.1). ``dtype`` is the
    stored precision ("f16" halves RAM against "f32" at no measurable recall cost;
    at 20k chunks "i8" loses 0.05 of recall@10 and "bf16" saves a tenth of the time;
    faiss stores "f16" only). ``engine``: the graph library, ``"auto"`` (faiss when
    installed, else usearch), ``"faiss"`` or ``"usearch"`` (``ann_graphs.py``).
    Scopes holding less than ``exact_below_share`` of the file, or fewer than
    ``exact_below_rows`` chunks, use the exact search.
    ``save_every`` replayed changes (or a tenth of the index) trigger a save. Up to
    ``exact_up_to`` vectors the index is scanned exactly rather than walked: small
    bases get exact answers where a scan costs about what a walk does (0.8 ms at
    10k chunks on 2 shared cores; at 20k a scan takes 1.6 ms, a walk at ef 200 1.1)."""

    connectivity: int = 32
    expansion_add: int = 128
    expansion_search: int = 384
    dtype: str = "f16"
    exact_below_share: float = 0.05
    exact_below_rows: int = 2_000
    save_every: int = 5_000
    exact_up_to: int = 10_000
    build_batch: int = 20_000
    engine: str = "auto"


class AnnVectorIndex:
    """HNSW KNN over a :class:`~memo_core.kb.store.KnowledgeStore`'s active vector table."""

    def __init__(
        self,
        store: KnowledgeStore,
        *,
        path: str | os.PathLike[str] | None = None,
        parameters: AnnParameters | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.parameters = parameters or AnnParameters()
        wanted = self.parameters.engine
        if wanted == "auto" and self.parameters.dtype != "f16":
            wanted = "usearch"  # faiss stores float16 only
        try:
            import numpy
        except ImportError as exc:
            raise MissingDependencyError("numpy", "local", "the HNSW vector index") from exc
        engine = pick_engine(wanted)
        if engine is None:
            raise MissingDependencyError(
                "faiss-cpu" if wanted != "usearch" else "usearch", "local", "the HNSW vector index"
            )
        self.engine = engine
        self._np: Any = numpy
        self.store = store
        #: Set when the base closes mid-build (``auto_aids.py``): the build stops.
        self.stop = stop
        local = store.db.local_file  # None on a server or in RAM: nothing to save beside
        self.path: Path | None = (
            Path(path) if path is not None else Path(local + ".hnsw") if local else None
        )
        self._lock = threading.RLock()
        self._index: Graph | None = None
        self._distrusted = False  # the saved file proved wrong: build, do not load
        self._header: dict[str, Any] = {}
        self._key: object = None
        self._seq = 0
        self._unsaved = 0
        self._scope_counts: dict[tuple[object, str, tuple[str, ...]], int] = {}
        #: Counters for tests and benchmarks: full builds, loads from disk, replayed changes.
        self.builds = 0
        self.loads = 0
        self.replayed = 0

    # -- keeping the index in step with the file --------------------------------

    def _want_header(self) -> dict[str, Any] | None:
        state = self.store.search_state()
        if state.vector_table is None or state.fingerprint is None:
            return None
        p = self.parameters
        return {
            "format": _FORMAT,
            "engine": self.engine,
            "base": state.base_id,
            "fingerprint": state.fingerprint.to_json(),
            "vector_table": state.vector_table,
            "dimensions": state.fingerprint.dimensions,
            "connectivity": p.connectivity,
            "expansion_add": p.expansion_add,
            "dtype": p.dtype,
        }

    def refresh(self) -> bool:
        """Bring the index in step with the file; False when there are no vectors, or
        the backend keeps no change log to follow (PostgreSQL: its own HNSW serves)."""
        changes = self.store.backend.changes
        if changes is None:
            return False
        with self._lock:
            state = self.store.search_state()
            if self._index is not None and self._key == state.key:
                return True
            want = self._want_header()
            if want is None:
                return False
            low, high = changes.range()
            if self._index is None or self._header != want:
                self._index = None
                if not self._load(want, low, high):
                    self._build(want, high)
            if self._seq < high:
                if low > self._seq + 1:  # the log was pruned past our snapshot
                    self._build(want, high)
                else:
                    self._replay(changes.changed(self._seq, high), high)
            elif self._seq > high:  # the file went back in time (restored): rebuild
                self._build(want, high)
            self._key = state.key
            self._scope_counts = {}
            return True

    def _new_index(self, dims: int) -> Graph:
        p = self.parameters
        return new_graph(self.engine, dims, p.connectivity, p.expansion_add, p.dtype)

    def _vector_rows(self, table: str) -> int:
        return int(self.store.db.query_one(f"SELECT count(*) FROM {table}")[0])

    def _load(self, want: dict[str, Any], low: int, high: int) -> bool:
        """Take the saved index if it is this base's and sound; False (build) otherwise."""
        if self.path is None or want["base"] is None or self._distrusted:
            return False
        header = read_header(self.path, want)
        if header is None or not snapshot_usable(header["seq"], low, high):
            return False
        try:
            index = restore_graph(self.engine, self.path)
            sound = (
                index is not None
                and len(index) == header.get("count")
                and index.dimensions == int(want["dimensions"])
            )
        except Exception as exc:
            log.warning("%s: cannot be loaded (%s); rebuilding it", self.path, exc)
            return False
        if not sound or index is None:
            log.warning("%s: does not match its header; rebuilding it", self.path)
            return False
        self._index, self._header, self._seq, self._unsaved = index, want, header["seq"], 0
        self.loads += 1
        if self._seq == high and len(index) != self._vector_rows(want["vector_table"]):
            self._index = None
            return False
        return True

    def rebind(self, store: KnowledgeStore) -> None:
        """Serve ``store`` (another connection to the same file) from now on: the index
        was built over a connection of its own, off the query path (``auto_aids.py``).
        The next query re-checks it against ``store``'s state and catches up."""
        with self._lock:
            self.store = store
            self._key = None
            self._scope_counts = {}

    def invalidate(self) -> None:
        """Rebuild from the table on the next query, as ``RamKeywordIndex.invalidate``."""
        with self._lock:
            self._index = None
            self._distrusted = True
            self._key = None

    def _build(self, want: dict[str, Any], high: int) -> None:
        np = self._np
        dims = int(want["dimensions"])
        index = self._new_index(dims)
        batches = self.store.backend.vector_rows(
            want["vector_table"], batch=self.parameters.build_batch
        )
        for rows in batches:
            check_stop(self.stop)
            keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            matrix = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
            index.add(keys, matrix.reshape(len(rows), dims))
        self._index, self._header, self._seq = index, want, high
        self._distrusted = False
        self.builds += 1
        self._save()

    def _replay(self, rowids: list[int], high: int) -> None:
        np = self._np
        index = self._graph
        stored = self.store.backend.vectors_by_rowid(rowids)
        index.remove(rowids)
        added = [r for r in rowids if r in stored]
        if added:
            matrix = np.asarray([stored[r] for r in added], dtype=np.float32)
            index.add(np.asarray(added, dtype=np.int64), matrix)
        self._seq = high
        self._unsaved += len(rowids)
        self.replayed += len(rowids)
        if self._unsaved >= min(self.parameters.save_every, max(100, len(index) // 10)):
            self._save()

    def _save(self) -> None:
        if self.path is None or self._index is None or self._header.get("base") is None:
            return
        index = self._index
        header = {"index": self._header, "seq": self._seq, "count": len(index)}
        if save_with_header(self.path, index.save, header):
            self._unsaved = 0

    # -- searching ----------------------------------------------------------------

    def _scope_rows(self, owner: str, collections: Sequence[str] | None) -> int:
        key = (self._key, owner, tuple(collections or ()))
        if key not in self._scope_counts:
            params: list[Any] = [owner]
            sql = "SELECT count(*) FROM chunks WHERE owner = ?"
            if collections:
                sql += f" AND collection IN ({','.join('?' for _ in collections)})"
                params.extend(collections)
            self._scope_counts[key] = int(self.store.db.query_one(sql, params)[0])
        return self._scope_counts[key]

    @property
    def _graph(self) -> Graph:
        """The loaded graph: every caller runs after a ``refresh()`` that returned True."""
        if self._index is None:  # not reached: refresh() loads or builds it
            raise StorageError(f"{self.path}: the HNSW index is not loaded")
        return self._index

    def _search(self, vector: Any, count: int) -> list[tuple[int, float]]:
        index = self._graph
        count = min(count, len(index))
        if count <= 0:
            return []
        ef = max(self.parameters.expansion_search, 5 * count)
        exact = len(index) <= self.parameters.exact_up_to
        keys, sims = index.search(vector, count, ef, exact)
        return list(zip(keys, sims, strict=True))

    def candidates(
        self,
        owner: str,
        vector: Sequence[float],
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]] | None:
        """``[(chunk rowid, cosine)]`` best first; None means "run the exact search"."""
        if limit <= 0:
            return []
        with self._lock:
            if not self.refresh():
                return None
            np = self._np
            query = np.asarray(vector, dtype=np.float32)
            total = len(self._graph)
            if total == 0:
                return []
            if not filter and self.store.only_scope(owner, collections):
                return self._search(query, limit)
            rows = self._scope_rows(owner, collections)
            share = rows / total
            p = self.parameters
            if rows < p.exact_below_rows or share < p.exact_below_share:
                return None
            depth = min(total, math.ceil(2 * limit / share) + limit)
            found: list[tuple[int, float]] = []
            for _ in range(2):
                found = self._visible(self._search(query, depth), owner, collections, filter)
                if len(found) >= limit or depth >= total:
                    return found[:limit]
                depth = min(total, depth * 4)
            return None

    def similarities(
        self, rowids: Sequence[int], vector: Sequence[float]
    ) -> dict[int, float] | None:
        """Cosine of ``vector`` to each listed chunk, from the index's stored vectors
        (at its precision); None when there are no vectors. Missing chunks are left out."""
        with self._lock:
            if not self.refresh():
                return None
            np = self._np
            index = self._graph
            wanted = [int(r) for r in dict.fromkeys(rowids) if index.contains(int(r))]
            if not wanted:
                return {}
            stored = index.get(wanted)
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(stored, axis=1) * float(np.linalg.norm(query))
        sims = (stored @ query) / np.where(norms > 0, norms, 1.0)
        return {r: float(v) for r, v in zip(wanted, sims, strict=True)}

    def _visible(
        self,
        found: list[tuple[int, float]],
        owner: str,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
    ) -> list[tuple[int, float]]:
        """The listed chunks that ``owner`` (collections, filter) may see, in order."""
        seen = self.store.visible_rowids(owner, [r for r, _ in found], collections, filter)
        return [item for item in found if item[0] in seen]

    def describe(self) -> dict[str, Any]:
        """Size, parameters and counters (for benchmarks and ``memo kb stats``-like tools)."""
        return {
            "path": str(self.path) if self.path else None,
            "vectors": len(self._index) if self._index is not None else 0,
            "parameters": asdict(self.parameters),
            "builds": self.builds,
            "loads": self.loads,
            "replayed": self.replayed,
            "engine": self.engine,
            "memory_bytes": self._index.memory_usage if self._index is not None else 0,
        }
