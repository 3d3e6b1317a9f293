"""Contract tests of MemoBaseVectorStore: every method, every query mode."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.schema import NodeRelationship, TextNode
from llama_index.core.vector_stores.types import (
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
)

from memo_core.embedders import HashEmbedder
from memo_core.errors import DimensionMismatchError, InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.kb.store import ChunkInput
from memo_core.search.rrf import rrf
from memo_integrations.llamaindex import MemoBaseVectorStore, MemoEmbedding

CORPUS = [
    ("n1", "The contract term is 24 months and renews automatically.", "docA"),
    ("n2", "Payment is due within 30 days of the invoice date.", "docA"),
    ("n3", "Bananas are yellow fruit rich in potassium.", "docB"),
    ("n4", "Apples and pears grow in temperate orchards.", "docB"),
    ("n5", "Error code ZX-4471 means the sensor is disconnected.", "docC"),
]


@pytest.fixture
def filled(store: MemoBaseVectorStore, node_factory: Any) -> MemoBaseVectorStore:
    store.add([node_factory(i, t, d, {"doc": d}) for i, t, d in CORPUS])
    return store


def ids(result: Any) -> list[str]:
    return [n.node_id for n in result.nodes]


def counts(store: MemoBaseVectorStore) -> dict[str, int]:
    return store.kb.store.counts()


def assert_no_orphans(store: MemoBaseVectorStore, chunks: int) -> None:
    c = counts(store)
    assert c == {"documents": chunks, "chunks": chunks, "fts_rows": chunks, "vector_rows": chunks}


# -- add / get_nodes -------------------------------------------------------------


def test_add_returns_node_ids_and_writes_one_row_per_index(filled: MemoBaseVectorStore) -> None:
    assert_no_orphans(filled, len(CORPUS))


def test_get_nodes_round_trips_text_metadata_and_relationships(
    store: MemoBaseVectorStore, node_factory: Any
) -> None:
    node = node_factory("x1", "Round trip text.", "parent", {"author": "ann", "tags": ["a", "b"]})
    node.relationships[NodeRelationship.NEXT] = node_factory("x2", "next").as_related_node_info()
    assert store.add([node]) == ["x1"]
    [back] = store.get_nodes(["x1"])
    assert isinstance(back, TextNode)
    assert back.node_id == "x1"
    assert back.text == "Round trip text."
    assert back.metadata == {"author": "ann", "tags": ["a", "b"]}
    assert back.ref_doc_id == "parent"
    assert back.relationships[NodeRelationship.NEXT].node_id == "x2"
    assert back.embedding is None


def test_get_nodes_order_ids_filters_and_empty_list(filled: MemoBaseVectorStore) -> None:
    assert [n.node_id for n in filled.get_nodes(["n4", "n1", "missing"])] == ["n4", "n1"]
    assert [n.node_id for n in filled.get_nodes()] == ["n1", "n2", "n3", "n4", "n5"]
    assert len(filled.get_nodes([])) == len(CORPUS)  # empty list: no restriction
    only_b = MetadataFilters(filters=[MetadataFilter(key="doc", value="docB")])
    assert [n.node_id for n in filled.get_nodes(filters=only_b)] == ["n3", "n4"]
    assert [n.node_id for n in filled.get_nodes(["n1", "n3"], filters=only_b)] == ["n3"]


def test_readding_a_node_replaces_it(filled: MemoBaseVectorStore, node_factory: Any) -> None:
    filled.add([node_factory("n3", "Cherries are red.", "docB", {"doc": "docB", "v": 2})])
    assert_no_orphans(filled, len(CORPUS))
    [node] = filled.get_nodes(["n3"])
    assert node.text == "Cherries are red."
    assert node.metadata["v"] == 2
    old = filled.query(VectorStoreQuery(query_str="bananas potassium", mode="text_search"))
    assert ids(old) == []
    new = filled.query(VectorStoreQuery(query_str="cherries", mode="text_search"))
    assert ids(new) == ["n3"]


def test_add_embeds_nodes_without_embedding_with_the_base_embedder(
    store: MemoBaseVectorStore, node_factory: Any, embedder: HashEmbedder
) -> None:
    store.add([node_factory("e1", "Unembedded node about volcanoes.", embedded=False)])
    assert counts(store)["vector_rows"] == 1
    q = VectorStoreQuery(query_embedding=embedder.embed_query("volcanoes"), similarity_top_k=1)
    assert ids(store.query(q)) == ["e1"]


def test_add_rejects_a_wrong_dimension_embedding(store: MemoBaseVectorStore) -> None:
    node = TextNode(id_="bad", text="wrong size", embedding=[0.1] * 7)
    with pytest.raises(DimensionMismatchError):
        store.add([node])
    assert counts(store)["chunks"] == 0


def test_add_is_one_transaction(store: MemoBaseVectorStore, node_factory: Any) -> None:
    good = node_factory("ok", "A valid node.")
    bad = TextNode(id_="bad", text="wrong size", embedding=[0.1] * 7)
    with pytest.raises(DimensionMismatchError):
        store.add([good, bad])
    assert counts(store)["chunks"] == 0  # the valid node was rolled back too


# -- delete / delete_nodes / clear -----------------------------------------------


def test_delete_by_ref_doc_id_leaves_no_orphan_rows(filled: MemoBaseVectorStore) -> None:
    filled.delete("docA")
    assert_no_orphans(filled, 3)
    assert {n.node_id for n in filled.get_nodes()} == {"n3", "n4", "n5"}
    gone = filled.query(VectorStoreQuery(query_str="contract payment", mode="text_search"))
    assert ids(gone) == []
    filled.delete("no-such-doc")
    assert_no_orphans(filled, 3)


def test_delete_removes_a_memo_ingested_document(store: MemoBaseVectorStore, kb: MemoBase) -> None:
    text = "First part about owls. Second part about bats."
    kb.add_document(
        text,
        document_id="ingested",
        chunks=[ChunkInput(text[:22], 0, 22), ChunkInput(text[23:], 23, len(text))],
    )
    nodes = store.get_nodes()
    assert len(nodes) == 2
    assert all(n.ref_doc_id == "ingested" for n in nodes)
    hits = store.query(VectorStoreQuery(query_str="owls", mode="text_search"))
    assert [n.text for n in hits.nodes] == ["First part about owls."]
    store.delete("ingested")
    assert counts(store) == {"documents": 0, "chunks": 0, "fts_rows": 0, "vector_rows": 0}


def test_delete_nodes_by_ids_filters_and_both(filled: MemoBaseVectorStore) -> None:
    filled.delete_nodes(["n1"])
    assert_no_orphans(filled, 4)
    only_b = MetadataFilters(filters=[MetadataFilter(key="doc", value="docB")])
    filled.delete_nodes(["n2", "n3"], filters=only_b)  # n2 is not docB: kept
    assert {n.node_id for n in filled.get_nodes()} == {"n2", "n4", "n5"}
    filled.delete_nodes(filters=only_b)
    assert {n.node_id for n in filled.get_nodes()} == {"n2", "n5"}
    filled.delete_nodes([])  # an empty id list deletes nothing
    assert_no_orphans(filled, 2)
    filled.delete_nodes()  # no ids and no filters: everything, like SimpleVectorStore
    assert_no_orphans(filled, 0)


def test_clear_only_touches_its_collection(
    filled: MemoBaseVectorStore, kb: MemoBase, node_factory: Any
) -> None:
    other = MemoBaseVectorStore(kb, collection="other")
    other.add([node_factory("o1", "Other collection text about contracts.")])
    assert other.query(VectorStoreQuery(query_str="contract", mode="text_search")).ids == ["o1"]
    filled.clear()
    assert filled.get_nodes() == []
    assert [n.node_id for n in other.get_nodes()] == ["o1"]
    assert_no_orphans(filled, 1)


# -- query modes -----------------------------------------------------------------


def test_default_query_ranks_by_cosine(filled: MemoBaseVectorStore, embedder: HashEmbedder) -> None:
    vec = embedder.embed_documents([CORPUS[2][1]])[0]
    result = filled.query(VectorStoreQuery(query_embedding=vec, similarity_top_k=3))
    assert ids(result)[0] == "n3"
    assert result.similarities is not None
    assert result.similarities[0] == pytest.approx(1.0, abs=1e-5)
    assert result.similarities == sorted(result.similarities, reverse=True)
    assert len(ids(result)) == 3
    assert result.ids == ids(result)


def test_default_query_embeds_query_str_when_no_embedding(filled: MemoBaseVectorStore) -> None:
    result = filled.query(
        VectorStoreQuery(query_str="yellow bananas potassium", similarity_top_k=1)
    )
    assert ids(result) == ["n3"]


def test_text_search_is_keyword_and_scores_higher_is_better(filled: MemoBaseVectorStore) -> None:
    result = filled.query(
        VectorStoreQuery(
            query_str="ZX-4471", mode=VectorStoreQueryMode.TEXT_SEARCH, similarity_top_k=5
        )
    )
    assert ids(result) == ["n5"]
    two = filled.query(
        VectorStoreQuery(query_str="contract payment", mode="text_search", similarity_top_k=5)
    )
    assert set(ids(two)) == {"n1", "n2"}
    assert two.similarities == sorted(two.similarities or [], reverse=True)
    sparse = filled.query(VectorStoreQuery(query_str="ZX-4471", mode="sparse"))
    assert ids(sparse) == ["n5"]
    with pytest.raises(InvalidInputError):
        filled.query(VectorStoreQuery(mode="text_search"))


def _legs(
    store: MemoBaseVectorStore, q: str, vec: list[float], k: int
) -> tuple[list[str], list[str]]:
    kw = store.query(VectorStoreQuery(query_str=q, mode="text_search", similarity_top_k=k))
    dense = store.query(VectorStoreQuery(query_embedding=vec, similarity_top_k=k))
    return ids(kw), ids(dense)


def test_hybrid_is_one_weighted_search_of_the_base(
    filled: MemoBaseVectorStore, embedder: HashEmbedder
) -> None:
    """A hybrid query is MemoBase.search(mode="hybrid") with alpha as the leg weights
    (the fusion itself is tested in tests/core/test_kb_search_options.py)."""
    q = "contract invoice payment"
    vec = embedder.embed_query(q)
    for alpha in (None, 0.3, 0.8):
        result = filled.query(
            VectorStoreQuery(
                query_str=q, query_embedding=vec, mode="hybrid", alpha=alpha, similarity_top_k=5
            )
        )
        weights = None if alpha is None else {"keyword": 1 - alpha, "vector": alpha}
        want = filled.kb.search(
            q, k=5, mode="hybrid", weights=weights, query_vector=vec, candidates=5
        )
        assert ids(result) == [h.chunk_id for h in want] and ids(result)
        assert result.similarities == pytest.approx([h.score for h in want])
    kw, dense = _legs(filled, q, vec, 5)
    top = filled.query(
        VectorStoreQuery(query_str=q, query_embedding=vec, mode="hybrid", similarity_top_k=5)
    )
    both = set(kw) & set(dense)
    assert top.ids and top.ids[0] in both  # found by both legs: first
    assert top.similarities and top.similarities[0] > 1 / 61  # more than one leg's best


def test_hybrid_alpha_extremes_equal_single_legs(
    filled: MemoBaseVectorStore, embedder: HashEmbedder
) -> None:
    q = "contract invoice payment"
    vec = embedder.embed_query(q)
    kw, dense = _legs(filled, q, vec, 3)
    only_vec = filled.query(
        VectorStoreQuery(
            query_str=q, query_embedding=vec, mode="hybrid", alpha=1.0, similarity_top_k=3
        )
    )
    only_kw = filled.query(
        VectorStoreQuery(
            query_str=q, query_embedding=vec, mode="hybrid", alpha=0.0, similarity_top_k=3
        )
    )
    assert ids(only_vec) == dense
    assert ids(only_kw) == kw
    with pytest.raises(InvalidInputError):
        filled.query(VectorStoreQuery(query_str=q, query_embedding=vec, mode="hybrid", alpha=1.5))


def test_hybrid_sparse_top_k_and_hybrid_top_k(
    filled: MemoBaseVectorStore, embedder: HashEmbedder
) -> None:
    q = "contract payment"
    vec = embedder.embed_query("bananas apples orchards")  # the legs disagree on purpose
    kw, dense = _legs(filled, q, vec, 5)
    assert set(kw) == {"n1", "n2"}
    base = dict(query_str=q, query_embedding=vec, mode="hybrid", alpha=0.5)
    one_sparse = filled.query(
        VectorStoreQuery(similarity_top_k=2, sparse_top_k=1, hybrid_top_k=5, **base)
    )
    expected = rrf([kw[:1], dense[:2]], weights=[0.5, 0.5])
    assert ids(one_sparse) == [i for i, _ in expected]
    assert kw[1] not in ids(one_sparse)  # the keyword leg was cut to sparse_top_k=1
    cut = filled.query(VectorStoreQuery(similarity_top_k=3, sparse_top_k=3, hybrid_top_k=2, **base))
    assert len(ids(cut)) == 2
    wide = filled.query(VectorStoreQuery(similarity_top_k=2, sparse_top_k=2, **base))
    assert len(ids(wide)) == 2  # without hybrid_top_k the output is similarity_top_k


def test_hybrid_weights_default_to_search_settings(
    tmp_path: Path, embedder: HashEmbedder, node_factory: Any
) -> None:
    from memo_core.search.hybrid import SearchSettings

    kb = MemoBase(
        tmp_path / "w.db", embedder=embedder, settings=SearchSettings(rrf_k=10, keyword_weight=0.0)
    )
    store = MemoBaseVectorStore(kb)
    store.add([node_factory(i, t, d) for i, t, d in CORPUS])
    vec = embedder.embed_query("bananas")
    dense = ids(store.query(VectorStoreQuery(query_embedding=vec, similarity_top_k=4)))
    hybrid = store.query(
        VectorStoreQuery(
            query_str="contract", query_embedding=vec, mode="hybrid", similarity_top_k=4
        )
    )
    assert ids(hybrid) == dense  # keyword weight 0 in the base's settings: vector leg only
    assert hybrid.similarities is not None
    assert hybrid.similarities[0] == pytest.approx(1 / 11)  # rrf_k=10 from the settings
    kb.close()


def test_unsupported_mode_is_a_clear_error(filled: MemoBaseVectorStore) -> None:
    with pytest.raises(InvalidInputError, match="mmr"):
        filled.query(VectorStoreQuery(query_str="x", query_embedding=[0.0] * 64, mode="svm"))


def test_mmr_trades_relevance_for_novelty(
    store: MemoBaseVectorStore, node_factory: Any, embedder: HashEmbedder
) -> None:
    store.add(
        [
            node_factory("a1", "walrus colony on the arctic ice shelf"),
            node_factory("a2", "walrus colony on the arctic ice shelf today"),
            node_factory("b1", "walrus tusks are long teeth"),
        ]
    )
    query_embedding = embedder.embed_query("walrus colony arctic ice")

    def run(threshold: float | None) -> list[str]:
        found = store.query(
            VectorStoreQuery(
                query_embedding=query_embedding,
                similarity_top_k=2,
                mode="mmr",
                mmr_threshold=threshold,
            )
        )
        return ids(found)

    assert run(1.0) == ["a1", "a2"]  # relevance only: the near-duplicate comes second
    assert run(0.3) == ["a1", "b1"]  # novelty counts: the duplicate gives way
    with pytest.raises(InvalidInputError):
        run(1.5)


def test_a_path_opens_a_base_with_the_given_or_local_embedder(
    tmp_path: Path, embed_model: MemoEmbedding, node_factory: Any
) -> None:
    store = MemoBaseVectorStore(str(tmp_path / "li.db"), embed_model=embed_model)
    store.add([node_factory("n1", "a node stored through a path")])
    assert store.kb.embedder is embed_model.embedder
    assert ids(store.query(VectorStoreQuery(query_str="node stored path", similarity_top_k=1))) == [
        "n1"
    ]
    store.kb.close()
    with pytest.raises(InvalidInputError):
        MemoBaseVectorStore(store.kb, embed_model=embed_model)
    pytest.importorskip("fastembed", reason="the local embedder needs memo[local]")
    default = MemoBaseVectorStore(tmp_path / "local.db")
    assert default.kb.embedder is not None and default.kb.embedder.dimensions == 384
    default.kb.close()
    assert MemoEmbedding().embedder.dimensions == 384


def test_top_k_zero_returns_nothing(filled: MemoBaseVectorStore) -> None:
    assert ids(filled.query(VectorStoreQuery(query_str="contract", similarity_top_k=0))) == []


@pytest.mark.parametrize("mode", ["default", "text_search", "hybrid"])
def test_doc_ids_and_node_ids_restrict_every_mode(
    filled: MemoBaseVectorStore, embedder: HashEmbedder, mode: str
) -> None:
    q = "contract payment bananas apples sensor"
    vec = embedder.embed_query(q)

    def run(**kw: Any) -> set[str]:
        return set(
            ids(
                filled.query(
                    VectorStoreQuery(
                        query_str=q, query_embedding=vec, mode=mode, similarity_top_k=5, **kw
                    )
                )
            )
        )

    everything = run()
    assert run(doc_ids=["docB"]) == everything & {"n3", "n4"}
    assert run(node_ids=["n1", "n5"]) == everything & {"n1", "n5"}
    assert run(doc_ids=["docA"], node_ids=["n1", "n3"]) == everything & {"n1"}
    assert run(doc_ids=[], node_ids=[]) == everything  # empty lists: no restriction


# -- keyword-only base -------------------------------------------------------------


def test_base_without_vectors_degrades_to_keyword_and_says_so_once(
    tmp_path: Path, node_factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    kb = MemoBase(tmp_path / "kw.db", embedder=None)
    store = MemoBaseVectorStore(kb)
    with caplog.at_level(logging.WARNING, logger="memo_integrations.llamaindex.vector_store"):
        store.add([node_factory(i, t, d) for i, t, d in CORPUS])  # embeddings are dropped
        default = store.query(VectorStoreQuery(query_str="bananas", query_embedding=[0.1] * 64))
        hybrid = store.query(VectorStoreQuery(query_str="bananas", mode="hybrid", alpha=0.5))
    assert ids(default) == ["n3"]
    assert ids(hybrid) == ["n3"]
    assert len([r for r in caplog.records if "no vector index" in r.getMessage()]) == 1
    with pytest.raises(InvalidInputError):
        store.query(VectorStoreQuery(query_embedding=[0.1] * 64))
    kb.close()


# -- async twins -------------------------------------------------------------------


async def test_async_twins(store: MemoBaseVectorStore, node_factory: Any) -> None:
    added = await store.async_add([node_factory(i, t, d, {"doc": d}) for i, t, d in CORPUS])
    assert added == [i for i, _, _ in CORPUS]
    result = await store.aquery(VectorStoreQuery(query_str="bananas", mode="text_search"))
    assert ids(result) == ["n3"]
    assert [n.node_id for n in await store.aget_nodes(["n2"])] == ["n2"]
    await store.adelete("docA")
    assert {n.node_id for n in await store.aget_nodes()} == {"n3", "n4", "n5"}
    await store.adelete_nodes(["n3"])
    assert {n.node_id for n in await store.aget_nodes()} == {"n4", "n5"}
    await store.aclear()
    assert await store.aget_nodes() == []
    assert_no_orphans(store, 0)


def test_constructor_validates(kb: MemoBase) -> None:
    with pytest.raises(InvalidInputError):
        MemoBaseVectorStore(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        MemoBaseVectorStore(kb, collection="")
    store = MemoBaseVectorStore(kb, collection="c1")
    assert store.client is kb
    assert store.stores_text is True
    assert MemoBaseVectorStore.class_name() == "MemoBaseVectorStore"


def test_queries_use_the_bases_search_aids(
    tmp_path: Path, embedder: HashEmbedder, node_factory: Any
) -> None:
    """The store's legs run on the base's configured indexes (here the in-RAM keyword
    index), with the same answers as the default SQL legs."""
    from memo_core.search.hybrid import SearchSettings

    plain = MemoBaseVectorStore(MemoBase(tmp_path / "kb.db", embedder=embedder))
    plain.add([node_factory(i, t, d, {"doc": d}) for i, t, d in CORPUS])
    aided_kb = MemoBase(
        tmp_path / "kb.db", embedder=embedder, settings=SearchSettings(keyword_index="memory")
    )
    aided = MemoBaseVectorStore(aided_kb)
    vec = embedder.embed_query("contract invoice payment")
    for query in (
        VectorStoreQuery(query_str="contract payment ZX-4471", mode="text_search"),
        VectorStoreQuery(query_str="contract invoice payment", query_embedding=vec, mode="hybrid"),
    ):
        want, got = plain.query(query), aided.query(query)
        assert ids(got) == ids(want) and ids(got)
        assert got.similarities == pytest.approx(want.similarities)
    assert aided_kb.searcher._keywords is not None and aided_kb.searcher._keywords.builds == 1
    plain.kb.close()
    aided_kb.close()
