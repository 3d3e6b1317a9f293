"""Hybrid retrieval: a keyword leg (FTS5/BM25) and a vector leg (sqlite-vec KNN),
fused by Reciprocal Rank Fusion, optionally reranked.

Keyword search is literal (exact codes, names), vector search is semantic
("agreement" ~ "contract"); each covers the other's blind spot, and RRF rewards
a chunk found by both. With no embedder, hybrid and vector modes degrade to
keyword-only and say so once per searcher, not per call.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError
from memo_core.rerank.base import Reranker, SafeReranker
from memo_core.search.ann_index import AnnVectorIndex
from memo_core.search.auto_aids import AIDS_FROM_CHUNKS, KINDS, AutoAids
from memo_core.search.keyword_index import RamKeywordIndex
from memo_core.search.ram_index import RamVectorIndex
from memo_core.search.repeats import DEFAULT_REPEATED_PENALTY, demote_repeated, query_shares
from memo_core.search.rrf import DEFAULT_RRF_K, rrf
from memo_core.types import Hit, SearchMode

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = ["KEYWORD_INDEXES", "LEGS", "VECTOR_INDEXES", "HybridSearcher", "SearchSettings"]

log = logging.getLogger(__name__)


#: The vector leg's engines: sqlite-vec until the base is large, then HNSW ("auto");
#: exact sqlite-vec KNN, exact NumPy in RAM, approximate HNSW.
VECTOR_INDEXES = ("auto", "sqlite", "memory", "hnsw")
#: The keyword leg's engines: FTS5 until the base is large, then the in-RAM copy
#: ("auto"); the SQL full-text index, or its exact copy in RAM.
KEYWORD_INDEXES = ("auto", "sqlite", "memory")
#: The search legs, by the names ``weights=`` and ``candidates=`` take.
LEGS = ("keyword", "vector")


@dataclass(frozen=True)
class SearchSettings:
    """Retrieval knobs, in one place.

    ``candidates``: how deep each leg looks (at least ``k``); deeper lists give RRF
    more to agree on. ``keyword_weight``/``vector_weight``: RRF weights of the legs.
    ``rerank_top``: how many fused candidates a reranker sees.
    ``vector_index``: ``"auto"`` (default) runs the vector leg in sqlite-vec while the
    base holds fewer than ``aids_from_chunks`` chunks and on the HNSW index from
    there on, built in the background (``search/auto_aids.py``; ``memo kb status``
    says which); ``"sqlite"`` always runs it as a sqlite-vec KNN query (the opt-out:
    nothing is built or saved beside the file); ``"memory"`` keeps a NumPy copy of the vectors in RAM for exact KNN by
    one matrix product (much faster from ~10k chunks, costs 4 x dimensions bytes
    per chunk and a reload after any write; see ``search/ram_index.py``);
    ``"hnsw"`` uses an approximate HNSW index saved beside the file (``<db>.hnsw``,
    the ``ann`` extra; a millisecond or two at 100k chunks, recall a little under 1,
    kept in step with writes incrementally; see ``search/ann_index.py``).
    ``keyword_index``: ``"auto"`` (default) ranks keyword matches in SQL below
    ``aids_from_chunks`` chunks and with the in-RAM index from there on, as
    ``vector_index="auto"``; ``"sqlite"`` always ranks them in SQL (FTS5
    finds them, memo's BM25 of ``search/bm25.py`` ranks them, as on PostgreSQL; the opt-out); ``"memory"`` ranks them with the
    same BM25 from an in-RAM copy of the index (NumPy, saved beside a SQLite file
    as ``<db>.kwidx``, kept in step with writes): same chunks, same scores, and
    several times faster from ~10k chunks, where FTS5 spends its time scoring every
    matching chunk. It costs about 50 MB of RAM per 100k chunks and a one-time
    build; queries it cannot answer (a word that splits into a phrase, such as
    ``A-4471``; PostgreSQL) run in SQL. See ``search/keyword_index.py``.
    ``aids_from_chunks``: the size from which ``"auto"`` switches the aids on
    (``search.auto_aids.AIDS_FROM_CHUNKS``, measured by ``bench/scale.py
    --threshold``). A PostgreSQL base keeps its own indexes whatever these say.
    ``keyword_postings_budget``: None (default) queries every word of the question;
    a number caps what the keyword query reads: when the words' document
    frequencies add up to more, only the rarest words are queried (the commonest
    dominate an FTS5 query's cost). It makes 100k+ chunk bases cheaper to search
    but costs quality where common words carry the topic (see bench/README.md,
    Scale); ``search.keyword.POSTINGS_BUDGET`` is the value measured there. It
    applies to the SQL keyword leg only: the in-RAM index reads every word cheaply.
    ``keyword_cutoff``: in hybrid mode, keyword candidates whose BM25 is below this
    fraction of the best one are left out of the fusion: they matched only minor
    query terms, and RRF (which sees ranks, not scores) would otherwise let them
    outvote the vector leg. Calibrated on ../shared/eval/qa with
    ``python bench/retrieval.py`` (0.8: hybrid MRR@10 0.936 vs 0.919 without).
    Among 99,500 near-duplicate distractors (bench/README.md, Scale) a lower
    cut-off does better (0.6: 0.936 vs 0.924 at 0.8) because distractors outscore
    the right paragraph in BM25, but it costs the plain corpus more (0.926), so 0.8
    stays.
    ``repeated_penalty``: how much of its score a chunk whose text is repeated
    across documents (boilerplate, ``kb/repeats.py``) gives up, in every mode, so
    the document the notice is about outranks its copies (``search/repeats.py``);
    0 ranks copies like any other text.
    """

    rrf_k: int = DEFAULT_RRF_K
    keyword_weight: float = 1.0
    vector_weight: float = 1.0
    candidates: int = 40
    rerank_top: int = 20
    keyword_cutoff: float = 0.8
    vector_index: str = "auto"
    keyword_postings_budget: int | None = None
    keyword_index: str = "auto"
    aids_from_chunks: int = AIDS_FROM_CHUNKS
    repeated_penalty: float = DEFAULT_REPEATED_PENALTY

    def __post_init__(self) -> None:
        if not 0.0 <= self.repeated_penalty <= 1.0:
            raise InvalidInputError(
                f"repeated_penalty must be between 0 and 1, not {self.repeated_penalty!r}"
            )
        if self.keyword_index not in KEYWORD_INDEXES:
            raise InvalidInputError(
                f"keyword_index must be one of {', '.join(map(repr, KEYWORD_INDEXES))},"
                f" not {self.keyword_index!r}"
            )
        if self.vector_index not in VECTOR_INDEXES:
            raise InvalidInputError(
                f"vector_index must be one of {', '.join(map(repr, VECTOR_INDEXES))},"
                f" not {self.vector_index!r}"
            )


class HybridSearcher:
    """Runs the legs over a :class:`~memo_core.kb.store.KnowledgeStore` and fuses them."""

    def __init__(
        self,
        store: KnowledgeStore,
        embedder: Embedder | None,
        *,
        reranker: Reranker | None = None,
        settings: SearchSettings | None = None,
        open_reader: Callable[[], KnowledgeStore] | None = None,
    ) -> None:
        """``open_reader``: a store over a new connection to the same file, on which the
        ``"auto"`` aids are built off the query path (None: on the query itself)."""
        self.store = store
        self.embedder = embedder
        self.reranker = SafeReranker(reranker) if reranker is not None else None
        self.settings = settings or SearchSettings()
        self._degraded_noted = False
        self._ram: RamVectorIndex | None = None
        self._ann: AnnVectorIndex | None = None
        self._keywords: RamKeywordIndex | None = None
        self._open_reader = open_reader
        self._auto_aids: AutoAids | None = None
        self._auto_for: tuple[object, ...] = ()

    # -- which engine serves each leg -------------------------------------------

    @property
    def aids(self) -> AutoAids:
        """The ``"auto"`` aids of the current settings (settings may be replaced)."""
        s = self.settings
        auto = tuple(k for k in KINDS if getattr(s, k) == "auto")
        if self._auto_aids is None or self._auto_for != (auto, s.aids_from_chunks):
            if self._auto_aids is not None:  # settings changed: the old build's aids are unwanted
                self._auto_aids.close()
            self._auto_aids = AutoAids(
                self.store, auto, s.aids_from_chunks, self._open_reader, self._install
            )
            self._auto_for = (auto, s.aids_from_chunks)
        return self._auto_aids

    def _install(self, kind: str, aid: AnnVectorIndex | RamKeywordIndex) -> None:
        if isinstance(aid, AnnVectorIndex):
            self._ann = aid
        else:
            self._keywords = aid

    def vector_engine(self) -> str:
        """The engine the vector leg runs on now: ``"sqlite"``, ``"memory"`` or ``"hnsw"``."""
        chosen = self.settings.vector_index
        if chosen == "auto":
            return "hnsw" if self.aids.active("vector_index") else "sqlite"
        return chosen

    def keyword_engine(self) -> str:
        """The engine the keyword leg runs on now: ``"sqlite"`` or ``"memory"``."""
        chosen = self.settings.keyword_index
        if chosen == "auto":
            return "memory" if self.aids.active("keyword_index") else "sqlite"
        return chosen

    def close(self) -> None:
        """Stop any background build of the search aids (the base is closing)."""
        if self._auto_aids is not None:
            self._auto_aids.close()

    def after_ingest(self) -> None:
        """An ingest ended: start building the ``"auto"`` aids if it made them due."""
        self.aids.start()

    def describe_aids(self) -> dict[str, Any]:
        """Each aid's setting and state on this base (``memo kb status``)."""
        out: dict[str, Any] = {}
        for kind in KINDS:
            chosen = getattr(self.settings, kind)
            if chosen == "auto":
                out[kind] = {"setting": "auto", **self.aids.state(kind)}
            else:
                loaded: object = self._ann if kind == "vector_index" else self._keywords
                if chosen == "memory" and kind == "vector_index":
                    loaded = self._ram
                aid = chosen in ("hnsw", "memory")  # else the legs run in the database
                state = "off" if not aid else "ready" if loaded else "on first query"
                out[kind] = {"setting": chosen, "engine": chosen, "state": state}
        return out

    # -- preparing the aids now ---------------------------------------------------

    def _prepare_auto(self, kind: str) -> bool:
        """Build a due ``"auto"`` aid now (waiting for a background build); True when ready."""
        aids = self.aids
        aids.wait()
        if not aids.active(kind):
            aids.wait()
            aids.start(wait=True)
        return aids.active(kind)

    def prepare_vector_index(self) -> dict[str, Any] | None:
        """Load or build the configured HNSW / in-RAM vector index now, not on the
        first query (a 1M-chunk HNSW build takes minutes). None for ``"sqlite"``, and
        for ``"auto"`` while the base is below ``aids_from_chunks``."""
        engine = self.settings.vector_index
        if engine == "auto":
            engine = "hnsw" if self._prepare_auto("vector_index") else "sqlite"
        if engine == "hnsw":
            if self._ann is None:
                self._ann = AnnVectorIndex(self.store)
            with self.store.reading():
                if not self._ann.refresh():
                    return None  # no vectors, or a backend whose own HNSW serves
            return self._ann.describe()
        if engine == "memory":
            if self._ram is None:
                self._ram = RamVectorIndex(self.store)
            with self.store.reading():
                self._ram.similarities([], [])
            return {"loads": self._ram.loads}
        return None

    def prepare_keyword_index(self) -> dict[str, Any] | None:
        """Load or build the in-RAM keyword index now, not on the first query.
        None unless ``keyword_index="memory"`` (or ``"auto"`` on a base past
        ``aids_from_chunks``) on a SQLite base."""
        engine = self.settings.keyword_index
        if engine == "auto":
            engine = "memory" if self._prepare_auto("keyword_index") else "sqlite"
        if engine != "memory":
            return None
        if self._keywords is None:
            self._keywords = RamKeywordIndex(self.store)
        with self.store.reading():
            if not self._keywords.refresh():
                return None  # a backend with no change log to follow serves from its own
        return self._keywords.describe()

    def keyword_leg(
        self,
        owner: str,
        query: str,
        depth: int,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """The keyword leg alone, on the configured index: ``[(chunk rowid, bm25)]``
        best first (FTS5's sign: lower is better). For adapters that fuse legs their own way."""
        if self.keyword_engine() == "memory":
            found = self._ram_keyword_leg(owner, query, depth, collections, filter)
            if found is not None:
                return found
        budget = self.settings.keyword_postings_budget
        extra: dict[str, Any] = {} if budget is None else {"max_postings": budget}
        return self.store.keyword_candidates(
            owner, query, depth, collections=collections, filter=filter, **extra
        )

    def _ram_keyword_leg(
        self,
        owner: str,
        query: str,
        depth: int,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
    ) -> list[tuple[int, float]] | None:
        """The keyword leg from the in-RAM index; None: run it in SQL.

        With a metadata filter the index ranks deeper and the table keeps the chunks
        that match, in rank order: BM25's statistics are the whole table's either way,
        so the answer is FTS5's. A filter so narrow that a few rounds find too few
        goes to SQL, where the filter narrows the match itself.
        """
        if self._keywords is None:
            self._keywords = RamKeywordIndex(self.store)
        index = self._keywords
        ask = depth if not filter else 4 * depth
        for _ in range(3):
            ranked = self._in_scope(
                index,
                index.candidates(owner, query, ask, collections=collections),
                owner,
                collections,
            )
            if ranked is None or not filter:
                return ranked
            passing = self.store.visible_rowids(owner, [r for r, _ in ranked], collections, filter)
            kept = [item for item in ranked if item[0] in passing]
            if len(kept) >= depth or len(ranked) < ask:
                return kept[:depth]
            ask *= 8
        return None

    def _in_scope(
        self,
        aid: RamKeywordIndex | AnnVectorIndex | RamVectorIndex,
        found: list[tuple[int, float]] | None,
        owner: str,
        collections: Sequence[str] | None,
    ) -> list[tuple[int, float]] | None:
        """An aid's answer, once every chunk in it is confirmed in the table to be
        ``owner``'s (and in ``collections``).

        An aid scopes by its own copy of owners and collections; the table is the
        authority. A chunk outside the scope means the copy is wrong (a damaged or
        foreign file that slipped past its checks): the aid is dropped, to be rebuilt
        from the table, and None sends this query to SQL.
        """
        if not found:
            return found
        if self.store.only_scope(owner, collections):
            # Every chunk of the file is in scope (cached per file state): nothing to
            # check per query, and a chunk the table no longer holds has no row to fetch.
            return found
        visible = self.store.visible_rowids(owner, [rowid for rowid, _ in found], collections)
        if len(visible) == len(found):
            return found
        log.warning(
            "%s: the %s index answered chunks outside the caller's scope;"
            " rebuilding it from the tables",
            self.store.db.path,
            type(aid).__name__,
        )
        aid.invalidate()
        return None

    @property
    def vectors_available(self) -> bool:
        return self.embedder is not None and self.store.search_state().vector_table is not None

    def vector_leg(
        self,
        owner: str,
        qvec: Sequence[float],
        depth: int,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]:
        """The vector leg alone, on the configured index: ``[(chunk rowid, cosine)]``
        best first. For adapters that fuse legs their own way."""
        engine = self.vector_engine()
        if engine == "hnsw":
            if self._ann is None:
                self._ann = AnnVectorIndex(self.store)
            approximate = self._ann.candidates(
                owner, qvec, depth, collections=collections, filter=filter
            )
            approximate = self._in_scope(self._ann, approximate, owner, collections)
            if approximate is not None:
                return approximate
        if engine == "memory" and not filter:
            if self._ram is None:
                self._ram = RamVectorIndex(self.store)
            found = self._ram.candidates(owner, qvec, depth, collections=collections)
            found = self._in_scope(self._ram, found, owner, collections)
            if found is not None:
                return found
        return self.store.vector_candidates(
            owner, qvec, depth, collections=collections, filter=filter
        )

    def effective_mode(
        self, mode: SearchMode | str, *, query_vector: Sequence[float] | None = None
    ) -> SearchMode:
        """The mode actually run: vector legs need a vector table, and an embedder
        unless the caller brings the query vector."""
        mode = SearchMode(mode)
        if mode is SearchMode.KEYWORD or self.vectors_available:
            return mode
        if query_vector is not None and self.store.search_state().vector_table is not None:
            return mode
        if not self._degraded_noted:
            self._degraded_noted = True
            log.warning(
                "no embedder or vector index for %s: %s search runs keyword-only",
                self.store.db.path,
                mode.value,
            )
        return SearchMode.KEYWORD

    def search(
        self,
        query: str,
        *,
        owner: str,
        k: int = 5,
        mode: SearchMode | str = SearchMode.HYBRID,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        query_vector: Sequence[float] | None = None,
        rerank: bool = True,
        weights: Mapping[str, float] | None = None,
        candidates: int | Mapping[str, int] | None = None,
    ) -> list[Hit]:
        """The ``k`` best hits for ``query`` within ``owner`` (and collections/filter).

        ``weights`` (hybrid): per-leg RRF weights by leg name (:data:`LEGS`), a leg
        left out keeping its ``SearchSettings`` weight; a leg of weight 0 is not run.
        ``candidates``: how many candidates each leg ranks (one number, or per leg);
        default ``max(k, settings.candidates)``. See :meth:`MemoBase.search`.
        """
        leg_weights = self._leg_weights(weights)
        depths = self._leg_depths(k, candidates)
        if k <= 0:
            return []
        with self.store.reading():
            return self._search(
                query,
                owner,
                k,
                mode,
                collections,
                filter,
                query_vector,
                rerank,
                leg_weights,
                depths,
            )

    def _leg_weights(self, weights: Mapping[str, float] | None) -> dict[str, float]:
        out = {"keyword": self.settings.keyword_weight, "vector": self.settings.vector_weight}
        for leg, weight in _per_leg(weights, "weights").items():
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                raise InvalidInputError(f"the {leg} weight must be a number, not {weight!r}")
            if not math.isfinite(weight) or weight < 0:
                raise InvalidInputError(f"the {leg} weight must be finite and >= 0, not {weight}")
            out[leg] = float(weight)
        if not any(w > 0 for w in out.values()):
            raise InvalidInputError("at least one search leg needs a weight above 0")
        return out

    def _leg_depths(self, k: int, candidates: int | Mapping[str, int] | None) -> dict[str, int]:
        default = max(k, self.settings.candidates)
        if candidates is None:
            return dict.fromkeys(LEGS, default)
        given = (
            dict.fromkeys(LEGS, candidates)
            if not isinstance(candidates, Mapping)
            else _per_leg(candidates, "candidates")
        )
        out = dict.fromkeys(LEGS, default)
        for leg, depth in given.items():
            if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 1_000_000:
                raise InvalidInputError(
                    f"the {leg} candidates must be an integer from 1 to 1,000,000, not {depth!r}"
                )
            out[leg] = depth
        return out

    def _search(
        self,
        query: str,
        owner: str,
        k: int,
        mode: SearchMode | str,
        collections: Sequence[str] | None,
        filter: Mapping[str, Any] | None,
        query_vector: Sequence[float] | None,
        rerank: bool,
        weights: Mapping[str, float],
        depths: Mapping[str, int],
    ) -> list[Hit]:
        run = self.effective_mode(mode, query_vector=query_vector)
        hybrid = run is SearchMode.HYBRID
        # In hybrid mode a leg of weight 0 is not run at all (no query embedding for it).
        run_keyword = run is SearchMode.KEYWORD or (hybrid and weights["keyword"] > 0)
        run_vector = run is SearchMode.VECTOR or (hybrid and weights["vector"] > 0)
        keyword: list[tuple[int, float]] = []
        vector: list[tuple[int, float]] = []
        qvec: Sequence[float] | None = None
        if run_keyword:
            keyword = self.keyword_leg(owner, query, depths["keyword"], collections, filter)
        if run_vector:
            qvec = query_vector if query_vector is not None else self._embed_query(query)
            vector = self.vector_leg(owner, qvec, depths["vector"], collections, filter)
        kw_rank = {rowid: i for i, (rowid, _) in enumerate(keyword, start=1)}
        kw_score = {rowid: -s for rowid, s in keyword}  # FTS5 bm25: lower is better
        vec_rank = {rowid: i for i, (rowid, _) in enumerate(vector, start=1)}
        vec_sim = dict(vector)

        if run is SearchMode.KEYWORD:
            ranked = [(rowid, kw_score[rowid]) for rowid, _ in keyword]
        elif run is SearchMode.VECTOR:
            ranked = list(vector)
        else:
            legs: list[list[int]] = []
            leg_weights: list[float] = []
            if run_keyword:
                strong = [r for r, _ in keyword]
                if run_vector:  # the cut-off keeps weak keyword matches from outvoting vectors
                    best = kw_score[keyword[0][0]] if keyword else 0.0
                    strong = [
                        r for r in strong if kw_score[r] >= best * self.settings.keyword_cutoff
                    ]
                legs.append(strong)
                leg_weights.append(weights["keyword"])
            if run_vector:
                legs.append([r for r, _ in vector])
                leg_weights.append(weights["vector"])
            ranked = rrf(legs, k=self.settings.rrf_k, weights=leg_weights)
        keep = max(k, self.settings.rerank_top) if self.reranker and rerank else k
        if self.settings.repeated_penalty > 0 and ranked:
            stored = self.store.repeated_texts([rowid for rowid, _ in ranked])
            shares = query_shares(query, stored) if stored else {}
            ranked = demote_repeated(ranked, shares, self.settings.repeated_penalty)
        ranked = ranked[:keep]
        rowids = [rowid for rowid, _ in ranked]
        if qvec is not None:  # similarity for keyword-only finds too: the gate needs it
            missing = [r for r in rowids if r not in vec_sim]
            if missing:
                found = None
                if self._ann is not None:
                    found = self._ann.similarities(missing, qvec)
                elif self._ram is not None and not filter:
                    found = self._ram.similarities(missing, qvec)
                vec_sim.update(
                    found if found is not None else self.store.similarities(missing, qvec)
                )
        rows = self.store.hits_by_rowid(rowids)
        hits = [
            replace(
                rows[rowid],
                score=float(score),
                keyword_rank=kw_rank.get(rowid),
                vector_rank=vec_rank.get(rowid),
                keyword_score=kw_score.get(rowid),
                vector_similarity=vec_sim.get(rowid),
            )
            for rowid, score in ranked
            if rowid in rows
        ]
        if self.reranker is not None and rerank and hits and query.strip():
            hits = self._rerank(query, hits)
        return hits[:k]

    def _embed_query(self, query: str) -> Sequence[float]:
        if self.embedder is None:  # effective_mode() sends such searches to keyword
            raise InvalidInputError("a vector search needs an embedder or a query vector")
        return self.embedder.embed_query(query)

    def _rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        if self.reranker is None:
            return hits
        scores = self.reranker.rerank(query, [h.text for h in hits])
        if scores is None:
            return hits
        rescored = [replace(h, score=s, rerank_score=s) for h, s in zip(hits, scores, strict=True)]
        return sorted(rescored, key=lambda h: -h.score)


def _per_leg(values: Mapping[str, Any] | None, what: str) -> dict[str, Any]:
    """``values`` keyed by leg name; an unknown leg is an error, never ignored."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise InvalidInputError(f"{what} must map leg names ({', '.join(LEGS)}) to values")
    unknown = sorted(str(leg) for leg in values if leg not in LEGS)
    if unknown:
        raise InvalidInputError(
            f"unknown search leg(s) in {what}: {', '.join(unknown)}; use {' and '.join(LEGS)}"
        )
    return dict(values)
