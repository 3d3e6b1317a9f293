"""The search aids a base switches on by itself once it is large enough, built off the query path.

Why: sqlite-vec's exact KNN and FTS5's ``bm25()`` ranking both cost time in
proportion to the base (about 24 ms a hybrid query at 10k chunks, 166 ms at 100k on
2 cores), while the aids (the HNSW index of ``ann_index.py`` and the in-RAM keyword
index of ``keyword_index.py``) stay at a few milliseconds. Below a few thousand
chunks the exact engines are fast enough and the aids would only cost a build and
RAM, so ``SearchSettings(vector_index="auto", keyword_index="auto")`` (the
defaults) resolves per base: the SQL engines below ``aids_from_chunks`` chunks, the
aids from there on (the threshold is measured by ``python bench/scale.py
--threshold``; see ``AIDS_FROM_CHUNKS``).

How they get built. The first query that finds the base past the threshold, or the
end of an ingest that took it there, starts one thread that loads the saved aids
beside the file (or builds them) over a connection of its own; queries keep running
in SQL meanwhile and use the aids once the thread hands them over. From then on
they follow writes incrementally, as an explicitly chosen aid does. A base in RAM
(``:memory:``, no second connection can see it) builds them on the query itself.
An aid that cannot be built (a dependency missing, a read-only folder is fine: it
then serves from RAM) leaves the base on the SQL engines, and says why in
``describe()`` (``memo kb status``).
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.errors import ConfigError
from memo_core.search.ann_graphs import installed, pick_engine
from memo_core.search.sidecar import BuildStopped

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore
    from memo_core.search.ann_index import AnnVectorIndex
    from memo_core.search.keyword_index import RamKeywordIndex

__all__ = ["AIDS_FROM_CHUNKS", "AutoAids"]

log = logging.getLogger(__name__)

#: Chunks from which ``"auto"`` switches the aids on. Measured with ``python
#: bench/scale.py --threshold`` on 2 shared cores (bench/README.md, "When the search
#: aids switch on"): a hybrid query takes 2.4 ms at 1,000 chunks with the SQL
#: engines against 1.3 with the aids (1.8x), 4.5 against 1.9 at 2,000 (2.3x), 11.2
#: against 2.8 at 5,000 (3.9x) and 20 against 5.3 at 10,000; building them takes
#: 1.7 s at 5,000 (in the background) and costs about 20 MiB of RAM. Below 5,000
#: a query is fast enough either way; from there on the aids save most of it.
AIDS_FROM_CHUNKS = 5_000

#: The two aids, by the ``SearchSettings`` field that names them.
KINDS = ("vector_index", "keyword_index")
#: What each aid is when ``"auto"`` switches it on.
ENGINES = {"vector_index": "hnsw", "keyword_index": "memory"}
_SUFFIX = {"vector_index": ".hnsw", "keyword_index": ".kwidx"}


#: Every AutoAids with a thread, stopped at interpreter exit: a daemon thread killed
#: inside usearch's C++ code at exit aborts the process ("terminate called ...").
_LIVE: weakref.WeakSet[AutoAids] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for aids in list(_LIVE):
        aids.close()


def _missing_dependency(kind: str) -> str | None:
    """The package an aid needs that is not installed, or None (looked up, not
    imported: ``memo kb status`` need not load them)."""
    if not installed("numpy"):
        return "numpy"
    if kind == "vector_index" and pick_engine("auto") is None:
        return "faiss-cpu"  # or usearch: either graph library serves (ann_graphs.py)
    return None


class AutoAids:
    """Decides, per base, whether the ``"auto"`` aids are on, and builds them in the background.

    ``kinds``: the settings fields that say ``"auto"``. ``open_reader``: a
    :class:`KnowledgeStore` over a new connection to the same file, for the
    background thread (None: build on the calling thread). ``install``: receives
    each built aid, rebound to ``store``.
    """

    def __init__(
        self,
        store: KnowledgeStore,
        kinds: tuple[str, ...],
        threshold: int,
        open_reader: Callable[[], KnowledgeStore] | None,
        install: Callable[[str, AnnVectorIndex | RamKeywordIndex], None],
    ) -> None:
        self.store = store
        self.threshold = threshold
        self._open_reader = open_reader
        self._install = install
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        #: Set by close(): a running build stops after its current batch, none starts.
        self._stop = threading.Event()
        self._ready: set[str] = set()
        self._failed: dict[str, str] = {}
        self._count_key: object = None
        self._count = 0
        # An aid replays the backend's chunk change log to stay in step; a backend
        # with none (PostgreSQL) serves from its own indexes.
        self.kinds = kinds if store.backend.changes is not None else ()
        self._unavailable = {k: dep for k in self.kinds if (dep := _missing_dependency(k))}
        #: Background builds started (for tests and benchmarks).
        self.started = 0

    # -- the decision ---------------------------------------------------------

    def chunks(self) -> int:
        """The base's chunk count, re-counted only after a write."""
        key = self.store.search_state().key
        if key != self._count_key:
            self._count = self.store.chunk_total()
            self._count_key = key
        return self._count

    def _wanted(self) -> list[str]:
        """The auto aids this base should have now (big enough, installable, not failed)."""
        if not self.kinds or self.chunks() < self.threshold:
            return []
        return [k for k in self.kinds if k not in self._unavailable and k not in self._failed]

    def active(self, kind: str) -> bool:
        """Whether the ``kind`` aid serves this query; starts building it when due."""
        if kind not in self.kinds:
            return False
        if kind in self._ready:
            return self.chunks() >= self.threshold
        if kind in self._wanted():
            self.start()
        return kind in self._ready

    # -- building ---------------------------------------------------------------

    def start(self, *, wait: bool = False) -> bool:
        """Start building the due aids (no-op when built, building or not due); with
        ``wait`` build them on this thread. True when something was started or built."""
        with self._lock:
            if self._stop.is_set():  # closed: its file may be gone
                return False
            due = [k for k in self._wanted() if k not in self._ready]
            if not due or self.building:
                return False
            if wait or self._open_reader is None:
                self._build(due, self.store)
                return True
            self._thread = threading.Thread(
                target=self._build_apart, args=(due,), name="memo-search-aids", daemon=True
            )
            self.started += 1
            _LIVE.add(self)
            self._thread.start()
            return True

    def close(self) -> None:
        """Stop a background build and wait for it (one batch at most): its base is
        closing, and the thread must not outlive the files it reads and writes."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        _LIVE.discard(self)

    @property
    def building(self) -> bool:
        """A background build is running."""
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background build; True when none is running any more."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _build_apart(self, kinds: list[str]) -> None:
        if self._open_reader is None:  # start() builds in place without a reader
            raise ConfigError("building search aids apart needs a reader connection")
        try:
            reader = self._open_reader()
        except Exception as exc:  # the file went away, or is locked for minutes
            log.warning("%s: search aids not built (%s)", self.store.db.path, exc)
            self._failed.update(dict.fromkeys(kinds, str(exc)))
            return
        try:
            self._build(kinds, reader)
        finally:
            reader.db.close()

    def _build(self, kinds: list[str], store: KnowledgeStore) -> None:
        """Load or build each aid over ``store``, then hand it over bound to ``self.store``."""
        from memo_core.search.ann_index import AnnVectorIndex
        from memo_core.search.keyword_index import RamKeywordIndex

        for kind in kinds:
            aid: AnnVectorIndex | RamKeywordIndex = (
                AnnVectorIndex(store, stop=self._stop)
                if kind == "vector_index"
                else RamKeywordIndex(store, stop=self._stop)
            )
            try:
                with store.reading():
                    usable = aid.refresh()
            except BuildStopped:  # the base is closing: nothing to hand over
                return
            except Exception as exc:  # an aid never makes a search fail
                log.warning("%s: the %s aid was not built (%s)", store.db.path, kind, exc)
                self._failed[kind] = str(exc)
                continue
            if not usable:  # no vectors (keyword-only base): nothing to serve
                self._failed[kind] = "the base holds no vectors"
                continue
            if self._stop.is_set():
                return
            aid.stop = None  # it now follows writes on the query path: never stopped
            aid.rebind(self.store)
            self._install(kind, aid)
            self._ready.add(kind)

    # -- reporting ------------------------------------------------------------

    def state(self, kind: str) -> dict[str, Any]:
        """What the ``"auto"`` ``kind`` aid does on this base, for ``memo kb status``."""
        chunks = self.chunks()
        out: dict[str, Any] = {"engine": ENGINES[kind], "from_chunks": self.threshold}
        if kind not in self.kinds:
            return {
                **out,
                "state": "off",
                "reason": "the backend keeps no change log to follow; its own indexes serve",
            }
        if kind in self._unavailable:
            return {
                **out,
                "state": "off",
                "reason": f"{self._unavailable[kind]} is not installed (pip install 'memo[local]')",
            }
        if chunks < self.threshold:
            return {**out, "state": "off", "reason": f"{chunks} chunks, below {self.threshold}"}
        if kind in self._failed:
            return {**out, "state": "off", "reason": f"not built: {self._failed[kind]}"}
        if kind in self._ready:
            return {**out, "state": "ready"}
        if self.building:
            return {**out, "state": "building"}
        local = self.store.db.local_file
        saved = (local or "") + _SUFFIX[kind]
        if local and Path(saved).is_file():
            return {**out, "state": "saved", "path": saved}
        return {**out, "state": "not built yet (on the first query, or `memo kb prepare`)"}
