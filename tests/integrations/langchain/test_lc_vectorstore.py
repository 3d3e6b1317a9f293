"""MemoBaseVectorStore beyond the standard suite: filters, collections, MMR, scores."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

from memo_core.embedders import HashEmbedder
from memo_core.errors import EmbedderMismatchError, InvalidInputError
from memo_core.kb.base import MemoBase
from memo_integrations.langchain import MemoBaseVectorStore, MemoEmbeddings
from memo_integrations.langchain.embeddings import LangChainEmbedder


class TableEmbeddings(Embeddings):
    """Fixed vectors per text, so similarities are known by hand."""

    def __init__(self, table: dict[str, list[float]], model: str = "table-v1") -> None:
        self.table = table
        self.model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table.get(text, [0.0, 0.0, 1.0])


TABLE = {
    "query": [1.0, 0.0, 0.0],
    "apple one": [1.0, 0.0, 0.0],
    "apple two": [0.99, 0.14, 0.0],
    "cherry": [0.7, 0.0, 0.71],
    "dimension probe": [0.0, 1.0, 0.0],
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoBaseVectorStore]:
    vs = MemoBaseVectorStore(tmp_path / "vs.db", MemoEmbeddings(HashEmbedder(64)))
    vs.add_texts(
        ["red apples in autumn", "green apples in spring", "a blue whale", "apple pie recipe"],
        [
            {"color": "red", "n": 1, "tags": ["fruit", "autumn"]},
            {"color": "green", "n": 2, "tags": ["fruit"]},
            {"color": "blue", "n": 3, "tags": ["sea"]},
            {"color": "gold", "n": 4},
        ],
        ids=["r", "g", "w", "p"],
    )
    yield vs
    vs.kb.close()


def ids(docs: list[Document]) -> list[str]:
    return sorted(str(d.id) for d in docs)


def test_metadata_filters(store: MemoBaseVectorStore) -> None:
    assert ids(store.similarity_search("apples", k=4, filter={"color": "red"})) == ["r"]
    assert ids(store.similarity_search("apples", k=4, filter={"n": {"$gte": 3}})) == ["p", "w"]
    assert ids(store.similarity_search("apples", k=4, filter={"tags": {"$contains": "fruit"}})) == [
        "g",
        "r",
    ]
    either = {"$or": [{"color": "blue"}, {"n": {"$in": [4]}}]}
    assert ids(store.similarity_search("x", k=4, filter=either)) == ["p", "w"]


def test_collections_are_isolated(store: MemoBaseVectorStore) -> None:
    other = MemoBaseVectorStore(store.kb, collection="other")
    assert other.similarity_search("apples", k=4) == []
    assert other.get_by_ids(["r"]) == []
    other.delete(["r"])  # not in this collection: untouched
    assert [d.id for d in store.get_by_ids(["r"])] == ["r"]
    other.add_texts(["apples in another collection"], ids=["o"])
    assert "o" not in {d.id for d in store.similarity_search("apples", k=10)}
    store.delete()  # ids=None empties this collection only
    assert store.similarity_search("apples", k=4) == []
    assert [d.id for d in other.similarity_search("apples", k=4)] == ["o"]


def test_scores_and_relevance(store: MemoBaseVectorStore) -> None:
    pairs = store.similarity_search_with_score("green apples in spring", k=2)
    assert pairs[0][0].id == "g"
    assert math.isclose(pairs[0][1], 1.0, abs_tol=1e-5)  # cosine of a text with itself
    assert pairs[0][1] > pairs[1][1]
    relevant = store.similarity_search_with_relevance_scores("green apples in spring", k=4)
    assert all(0.0 <= s <= 1.0 for _, s in relevant)
    kept = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.99}
    ).invoke("green apples in spring")
    assert [d.id for d in kept] == ["g"]


def test_by_vector_and_hybrid_option(store: MemoBaseVectorStore) -> None:
    vec = HashEmbedder(64).embed_query("a blue whale")
    assert store.similarity_search_by_vector(vec, k=1)[0].id == "w"
    hybrid = store.similarity_search("pie", k=1, search_mode="keyword")
    assert [d.id for d in hybrid] == ["p"]


def test_mmr_prefers_diverse_results(tmp_path: Path) -> None:
    vs = MemoBaseVectorStore.from_texts(
        ["apple one", "apple two", "cherry"],
        TableEmbeddings(TABLE),
        ids=["a1", "a2", "c"],
        path=tmp_path / "mmr.db",
    )
    assert [d.id for d in vs.similarity_search("query", k=2)] == ["a1", "a2"]
    mmr = vs.max_marginal_relevance_search("query", k=2, fetch_k=3, lambda_mult=0.3)
    assert [d.id for d in mmr] == ["a1", "c"]
    via_retriever = vs.as_retriever(
        search_type="mmr", search_kwargs={"k": 2, "fetch_k": 3, "lambda_mult": 0.3}
    ).invoke("query")
    assert [d.id for d in via_retriever] == ["a1", "c"]
    vs.kb.close()


async def test_async_mmr_and_from_texts(tmp_path: Path) -> None:
    vs = await MemoBaseVectorStore.afrom_texts(
        ["apple one", "apple two", "cherry"], TableEmbeddings(TABLE), path=tmp_path / "a.db"
    )
    docs = await vs.amax_marginal_relevance_search("query", k=2, fetch_k=3, lambda_mult=0.3)
    assert [d.page_content for d in docs] == ["apple one", "cherry"]
    vs.kb.close()


def test_reopening_with_another_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "vs.db"
    first = MemoBaseVectorStore(path, TableEmbeddings(TABLE, model="table-v1"))
    first.add_texts(["cherry"])
    first.kb.close()
    with pytest.raises(EmbedderMismatchError):
        MemoBaseVectorStore(path, TableEmbeddings(TABLE, model="table-v2"))
    again = MemoBaseVectorStore(path, TableEmbeddings(TABLE, model="table-v1"))
    assert [d.page_content for d in again.similarity_search("cherry", k=1)] == ["cherry"]
    again.kb.close()


def test_embeddings_property_round_trips(tmp_path: Path) -> None:
    table = TableEmbeddings(TABLE)
    vs = MemoBaseVectorStore(tmp_path / "a.db", table)
    assert vs.embeddings is table
    assert isinstance(vs.kb.embedder, LangChainEmbedder)
    memo = MemoEmbeddings(HashEmbedder(32))
    vs2 = MemoBaseVectorStore(tmp_path / "b.db", memo)
    assert vs2.kb.embedder is memo.embedder  # unwrapped: the memo fingerprint is kept
    assert vs2.kb.status()["embedder"] == "hash:hash-v1-tri (32d)"
    vs.kb.close()
    vs2.kb.close()


def test_bad_arguments(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(16)) as kb:
        with pytest.raises(InvalidInputError):
            MemoBaseVectorStore(kb, MemoEmbeddings(HashEmbedder(16)))
        with pytest.raises(InvalidInputError):
            MemoBaseVectorStore(kb, search_mode="semantic")  # type: ignore[arg-type]
        vs = MemoBaseVectorStore(kb)
        with pytest.raises(TypeError):
            vs.similarity_search("x", k=1, nonsense=True)
        with pytest.raises(InvalidInputError):
            vs.max_marginal_relevance_search("x", lambda_mult=2.0)
        assert vs.add_documents([Document(page_content="kept", id="keep")]) == ["keep"]
        assert [d.page_content for d in vs.get_by_ids(["keep", "missing"])] == ["kept"]
