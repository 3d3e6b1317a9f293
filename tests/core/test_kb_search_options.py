"""MemoBase.search's per-leg options (weights, candidates, query_vector), MMR search,
filter listing, collection deletion and explicit transactions, on both backends.

The corpus has hand-placed vectors, so each leg's ranking is known without an
embedding model: the keyword leg finds only "walrus" (chunk w), the vector leg
ranks b (cosine 1.0), c (0.8), w (0.0) for the query vector.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memo_core.embedders import HashEmbedder
from memo_core.errors import DimensionMismatchError, InvalidInputError
from memo_core.kb import MemoBase
from memo_core.search.mmr import mmr_select

DIMS = 8


def vec(*head: float) -> list[float]:
    return [*head, *([0.0] * (DIMS - len(head)))]


QUERY = "walrus"
QUERY_VECTOR = vec(1.0, 0.0)
ROWS = [
    ("w", "A walrus hauls out on the beach.", vec(0.0, 1.0), {"topic": "animals"}),
    ("b", "Sea ice forms in the northern winter.", vec(1.0, 0.0), {"topic": "ice"}),
    ("c", "Glaciers calve icebergs into the fjord.", vec(0.8, 0.6), {"topic": "ice"}),
]


@pytest.fixture
def kb(backend_url: str) -> Iterator[MemoBase]:
    base = MemoBase(backend_url, embedder=HashEmbedder(DIMS))
    base.add_texts(
        [t for _, t, _, _ in ROWS],
        [m for *_, m in ROWS],
        ids=[i for i, *_ in ROWS],
        vectors=[v for _, _, v, _ in ROWS],
    )
    yield base
    base.close()


def hybrid(kb: MemoBase, **options: object) -> list[tuple[str, float]]:
    hits = kb.search(QUERY, k=5, mode="hybrid", query_vector=QUERY_VECTOR, **options)  # type: ignore[arg-type]
    return [(h.chunk_id, h.score) for h in hits]


def ids(pairs: list[tuple[str, float]]) -> list[str]:
    return [i for i, _ in pairs]


def same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> bool:
    """The same chunks in the same order, with the same scores (to float precision)."""
    return ids(got) == ids(want) and [s for _, s in got] == pytest.approx([s for _, s in want])


def test_the_legs_rank_as_the_fixture_says(kb: MemoBase) -> None:
    assert [h.chunk_id for h in kb.search(QUERY, k=5, mode="keyword")] == ["w"]
    found = kb.search(QUERY, k=5, mode="vector", query_vector=QUERY_VECTOR)
    assert [h.chunk_id for h in found] == ["b", "c", "w"]
    assert [h.score for h in found] == pytest.approx([1.0, 0.8, 0.0], abs=1e-5)


def test_weights_are_the_rrf_weights_of_the_legs(kb: MemoBase) -> None:
    # Equal weights: w is #1 by keyword and #3 by vector, b and c only by vector.
    assert same(hybrid(kb), [("w", 1 / 61 + 1 / 63), ("b", 1 / 61), ("c", 1 / 62)])
    heavy_keyword = hybrid(kb, weights={"keyword": 2.0, "vector": 1.0})
    assert same(heavy_keyword[:1], [("w", 2 / 61 + 1 / 63)])
    # A keyword weight this small cannot lift w above the vector leg's top two.
    light = hybrid(kb, weights={"keyword": 0.01})
    assert ids(light) == ["b", "c", "w"]
    assert light[2][1] == pytest.approx(0.01 / 61 + 1 / 63)


def test_a_leg_of_weight_zero_is_not_run(kb: MemoBase) -> None:
    assert same(hybrid(kb, weights={"vector": 0}), [("w", 1 / 61)])
    only_vector = hybrid(kb, weights={"keyword": 0.0, "vector": 2.0})
    assert same(only_vector, [("b", 2 / 61), ("c", 2 / 62), ("w", 2 / 63)])


def test_a_zero_weight_vector_leg_embeds_nothing(backend_url: str) -> None:
    class Counting(HashEmbedder):
        queries = 0

        def embed_query(self, text: str) -> list[float]:
            Counting.queries += 1
            return super().embed_query(text)

    with MemoBase(backend_url, embedder=Counting(DIMS)) as base:
        base.add_texts(["A walrus hauls out on the beach."])
        base.search(QUERY, mode="hybrid", weights={"vector": 0})
        assert Counting.queries == 0
        base.search(QUERY, mode="hybrid")
        assert Counting.queries == 1


def test_candidates_set_each_legs_depth(kb: MemoBase) -> None:
    # The vector leg cut to its best chunk: b ties with w at 1/61, w seen first.
    assert ids(hybrid(kb, candidates={"vector": 1})) == ["w", "b"]
    assert ids(hybrid(kb, candidates=1)) == ["w", "b"]
    assert ids(hybrid(kb, candidates={"keyword": 1, "vector": 2})) == ["w", "b", "c"]
    vector_only = kb.search(QUERY, k=5, mode="vector", query_vector=QUERY_VECTOR, candidates=2)
    assert [h.chunk_id for h in vector_only] == ["b", "c"]


def test_query_vector_replaces_embedding_the_query(kb: MemoBase) -> None:
    towards_w = kb.search("", k=1, mode="vector", query_vector=vec(0.0, 1.0))
    assert [h.chunk_id for h in towards_w] == ["w"]
    with pytest.raises(DimensionMismatchError):
        kb.search(QUERY, mode="vector", query_vector=[1.0, 0.0])


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "keyword", "weights": {"keyword": 1.0}},
        {"mode": "vector", "weights": {"vector": 1.0}},
        {"weights": {"bm25": 1.0}},
        {"weights": {"keyword": -1.0}},
        {"weights": {"keyword": float("nan")}},
        {"weights": {"keyword": True}},
        {"weights": {"keyword": "1"}},
        {"weights": {"keyword": 0, "vector": 0}},
        {"weights": [1.0, 1.0]},
        {"candidates": 0},
        {"candidates": {"sparse": 3}},
        {"candidates": 2.5},
        {"mode": "keyword", "query_vector": QUERY_VECTOR},
    ],
)
def test_bad_options_are_typed_errors(kb: MemoBase, options: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        kb.search(QUERY, **options)  # type: ignore[arg-type]


def test_weights_default_to_the_search_settings(backend_url: str) -> None:
    from memo_core.search.hybrid import SearchSettings

    base = MemoBase(
        backend_url, embedder=HashEmbedder(DIMS), settings=SearchSettings(keyword_weight=0.0)
    )
    base.add_texts(
        [t for _, t, _, _ in ROWS], ids=[i for i, *_ in ROWS], vectors=[r[2] for r in ROWS]
    )
    assert ids(hybrid(base)) == ["b", "c", "w"]  # the base's keyword weight is 0: not run
    assert ids(hybrid(base, weights={"keyword": 1.0})) == ["w", "b", "c"]
    base.close()


# -- MMR ---------------------------------------------------------------------


def test_mmr_select_hand_worked() -> None:
    q = [1.0, 0.0]
    cands = [[1.0, 0.0], [0.98, 0.2], [0.6, 0.8]]
    assert mmr_select(q, cands, 3, lambda_mult=1.0) == [0, 1, 2]
    # step 2: cand1 = .3*.98 - .7*.98 = -.39; cand2 = .3*.6 - .7*.6 = -.24 -> cand2
    assert mmr_select(q, cands, 2, lambda_mult=0.3) == [0, 2]
    assert mmr_select(q, cands, 0) == []
    with pytest.raises(InvalidInputError):
        mmr_select(q, cands, 2, lambda_mult=1.5)


@given(
    st.lists(
        st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3), min_size=1, max_size=8
    ),
    st.integers(0, 10),
    st.floats(0, 1),
)
def test_mmr_select_returns_distinct_indexes(cands: list[list[float]], k: int, lam: float) -> None:
    picked = mmr_select([0.3, -0.2, 0.9], cands, k, lam)
    assert len(picked) == min(k, len(cands))
    assert len(set(picked)) == len(picked)
    assert all(0 <= i < len(cands) for i in picked)


def test_search_mmr_trades_relevance_for_novelty(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=HashEmbedder(DIMS)) as base:
        base.add_texts(
            ["first", "twin of first", "different"],
            ids=["a1", "a2", "b"],
            vectors=[vec(1.0, 0.0), vec(0.98, 0.2), vec(0.6, 0.8)],
        )
        relevance = base.search_mmr(query_vector=vec(1.0, 0.0), k=2, lambda_mult=1.0)
        assert [h.chunk_id for h in relevance] == ["a1", "a2"]
        novel = base.search_mmr(query_vector=vec(1.0, 0.0), k=2, lambda_mult=0.3)
        assert [h.chunk_id for h in novel] == ["a1", "b"]
        assert [h.score for h in novel] == pytest.approx([1.0, 0.6], abs=1e-5)  # cosine
        narrowed = base.search_mmr(query_vector=vec(1.0, 0.0), k=2, fetch_k=2, lambda_mult=0.3)
        assert [h.chunk_id for h in narrowed] == ["a1", "a2"]  # b was not among the 2 nearest
        by_text = base.search_mmr("first", k=3)
        assert sorted(h.chunk_id for h in by_text) == ["a1", "a2", "b"]
        for bad in ({"lambda_mult": -0.1}, {}):
            with pytest.raises(InvalidInputError):
                base.search_mmr(**bad)  # type: ignore[arg-type]


def test_search_mmr_needs_vectors(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=None) as base:
        base.add_texts(["no vectors here"])
        assert base.has_vectors is False
        with pytest.raises(InvalidInputError, match="vectors"):
            base.search_mmr(query_vector=vec(1.0))


# -- listing, deleting, transactions ------------------------------------------------


def test_filter_chunks_lists_in_stored_order(kb: MemoBase) -> None:
    assert [h.chunk_id for h in kb.filter_chunks()] == ["w", "b", "c"]
    assert [h.chunk_id for h in kb.filter_chunks({"topic": "ice"})] == ["b", "c"]
    assert [h.chunk_id for h in kb.filter_chunks({"topic": "ice"}, limit=1)] == ["b"]
    assert kb.filter_chunks(collection="elsewhere") == []


def test_delete_collection_touches_only_that_collection(kb: MemoBase) -> None:
    kb.add_texts(["Kept elsewhere."], ids=["other"], collection="elsewhere", vectors=[vec(1.0)])
    assert kb.delete_collection("default") == 3
    assert [h.chunk_id for h in kb.filter_chunks()] == ["other"]
    assert [h.chunk_id for h in kb.filter_chunks(collection="elsewhere")] == ["other"]
    with pytest.raises(InvalidInputError):
        kb.delete_collection("")


def test_transaction_commits_together_or_not_at_all(kb: MemoBase) -> None:
    with pytest.raises(RuntimeError), kb.transaction():  # noqa: PT012 - the block is a transaction that must roll back
        kb.add_texts(["Rolled back."], ids=["gone"], vectors=[vec(1.0)])
        kb.delete_chunks(["w"])
        raise RuntimeError("stop")
    assert [h.chunk_id for h in kb.filter_chunks()] == ["w", "b", "c"]
    with kb.transaction():
        kb.add_texts(["Kept."], ids=["kept"], vectors=[vec(1.0)])
        with kb.transaction():  # nested: joins the outer one
            kb.delete_chunks(["w"])
    assert [h.chunk_id for h in kb.filter_chunks()] == ["b", "c", "kept"]


def test_has_vectors(kb: MemoBase) -> None:
    assert kb.has_vectors is True
