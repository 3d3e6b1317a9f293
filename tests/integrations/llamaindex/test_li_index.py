"""End to end: a VectorStoreIndex built on memo, queried through LlamaIndex's own APIs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex import MemoBaseVectorStore, MemoEmbedding

DOCS = [
    Document(
        text="The lease term is 24 months. Rent is due on the first day of each month. "
        "The tenant may not sublet the flat without written consent.",
        doc_id="lease",
        metadata={"kind": "legal", "year": 2024},
    ),
    Document(
        text="Sourdough needs a mature starter. Bake the loaf at 230 degrees for 40 minutes.",
        doc_id="bread",
        metadata={"kind": "recipe", "year": 2021},
    ),
]


def splitter() -> SentenceSplitter:
    # Explicit, small chunks; the splitter counts tokens with tiktoken, whose encoding
    # ships inside llama-index-core (_static/tiktoken_cache): no download happens.
    return SentenceSplitter(chunk_size=24, chunk_overlap=0)


def build(path: Path, embedder: HashEmbedder) -> tuple[MemoBase, VectorStoreIndex]:
    kb = MemoBase(path, embedder=embedder)
    storage = StorageContext.from_defaults(vector_store=MemoBaseVectorStore(kb))
    index = VectorStoreIndex.from_documents(
        DOCS,
        storage_context=storage,
        embed_model=MemoEmbedding(embedder),
        transformations=[splitter()],
    )
    return kb, index


def test_from_documents_retriever_and_query_engine(tmp_path: Path, embedder: HashEmbedder) -> None:
    kb, index = build(tmp_path / "kb.db", embedder)
    counts = kb.store.counts()
    assert counts["chunks"] >= 3  # the splitter really split
    assert counts["chunks"] == counts["fts_rows"] == counts["vector_rows"]

    hits = index.as_retriever(similarity_top_k=2).retrieve("When is the rent due?")
    assert hits[0].node.ref_doc_id == "lease"
    assert "Rent is due" in hits[0].node.get_content()

    keyword = index.as_retriever(similarity_top_k=1, vector_store_query_mode="text_search")
    [hit] = keyword.retrieve("sourdough starter")
    assert hit.node.ref_doc_id == "bread"

    hybrid = index.as_retriever(similarity_top_k=3, vector_store_query_mode="hybrid", alpha=0.5)
    assert any(h.node.ref_doc_id == "bread" for h in hybrid.retrieve("bake loaf degrees"))

    filtered = index.as_retriever(
        similarity_top_k=5,
        filters=MetadataFilters(filters=[MetadataFilter(key="kind", value="recipe")]),
    )
    assert {h.node.ref_doc_id for h in filtered.retrieve("lease term rent")} == {"bread"}

    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=2)
    response = engine.query("How long is the lease term?")
    assert response.source_nodes
    assert "24 months" in str(response)  # MockLLM echoes the prompt it got: the context
    kb.close()


async def test_async_retrieval_and_query(tmp_path: Path, embedder: HashEmbedder) -> None:
    kb, index = build(tmp_path / "kb.db", embedder)
    hits = await index.as_retriever(similarity_top_k=1).aretrieve("sourdough starter loaf")
    assert hits[0].node.ref_doc_id == "bread"
    response = await index.as_query_engine(llm=MockLLM()).aquery("sublet consent")
    assert response.source_nodes
    kb.close()


def test_from_vector_store_reopens_the_file(tmp_path: Path, embedder: HashEmbedder) -> None:
    kb, _ = build(tmp_path / "kb.db", embedder)
    kb.close()
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64)) as reopened:
        index = VectorStoreIndex.from_vector_store(
            MemoBaseVectorStore(reopened),
            embed_model=MemoEmbedding(reopened.embedder),  # type: ignore[arg-type]
        )
        [hit] = index.as_retriever(similarity_top_k=1).retrieve("bake the loaf at 230 degrees")
        assert hit.node.ref_doc_id == "bread"


def test_index_from_nodes_insert_and_delete_ref_doc(
    tmp_path: Path, embedder: HashEmbedder, node_factory: Any
) -> None:
    kb = MemoBase(tmp_path / "kb.db", embedder=embedder)
    storage = StorageContext.from_defaults(vector_store=MemoBaseVectorStore(kb))
    nodes = [node_factory("p1", "Owls hunt at night.", "birds", embedded=False)]
    index = VectorStoreIndex(
        nodes,
        storage_context=storage,
        embed_model=MemoEmbedding(embedder),
        transformations=[splitter()],
    )
    index.insert(Document(text="Bats use echolocation.", doc_id="bats"))
    assert kb.store.counts()["chunks"] == 2
    index.delete_ref_doc("bats")
    assert kb.store.counts() == {"documents": 1, "chunks": 1, "fts_rows": 1, "vector_rows": 1}
    [hit] = index.as_retriever(similarity_top_k=3).retrieve("night owls")
    assert hit.node.node_id == "p1"
    kb.close()


def test_refresh_replaces_changed_documents(tmp_path: Path, embedder: HashEmbedder) -> None:
    kb, index = build(tmp_path / "kb.db", embedder)
    before = kb.store.counts()
    changed = Document(
        text="Sourdough needs rye flour.", doc_id="bread", metadata={"kind": "recipe"}
    )
    # refresh_ref_docs keeps hashes in the docstore; the vector store sees delete + add.
    index.refresh_ref_docs([changed])
    after = kb.store.counts()
    assert after["chunks"] < before["chunks"]
    texts = [n.get_content() for n in index.vector_store.get_nodes()]  # type: ignore[attr-defined]
    assert any("rye flour" in t for t in texts)
    assert not any("230 degrees" in t for t in texts)
    kb.close()


@pytest.mark.parametrize("mode", ["default", "text_search", "hybrid"])
def test_every_mode_through_the_retriever(
    tmp_path: Path, embedder: HashEmbedder, mode: str
) -> None:
    kb, index = build(tmp_path / "kb.db", embedder)
    hits = index.as_retriever(similarity_top_k=2, vector_store_query_mode=mode).retrieve(
        "sourdough starter bake loaf"
    )
    assert hits and hits[0].node.ref_doc_id == "bread"
    assert all(h.score is not None for h in hits)
    kb.close()
