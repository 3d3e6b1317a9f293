"""MemoBaseRetriever beyond the standard suite: per-call options, metadata, LCEL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import ParrotFakeChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.kb.store import ChunkInput
from memo_integrations.langchain import MemoBaseRetriever, hit_to_document

CONTRACT = (
    "Section 1. The notice period is thirty days.\n\n"
    "Section 2. The lease term is twenty four months and renews automatically."
)


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    split = CONTRACT.index("Section 2")
    base.add_document(
        CONTRACT,
        document_id="lease",
        source="/docs/lease.pdf",
        title="Lease",
        chunks=[
            ChunkInput(CONTRACT[:split].strip(), 0, len(CONTRACT[:split].strip()), {"page": 1}),
            ChunkInput(CONTRACT[split:], split, len(CONTRACT), {"page": 2}),
        ],
        metadata={"kind": "contract", "year": 2023},
        collection="legal",
    )
    base.add_texts(
        ["The cafeteria menu changes every Monday.", "Lease parking spots cost ten euros."],
        [{"kind": "memo", "year": 2024}, {"kind": "memo", "year": 2022}],
        ids=["menu", "parking"],
        collection="office",
    )
    yield base
    base.close()


def test_documents_carry_citation_metadata(kb: MemoBase) -> None:
    docs = MemoBaseRetriever(kb=kb, k=1, collection="legal").invoke("lease term months")
    assert len(docs) == 1
    doc = docs[0]
    assert doc.page_content.startswith("Section 2.")
    meta = doc.metadata
    assert meta["page"] == 2
    assert meta["source"] == "/docs/lease.pdf"
    assert meta["title"] == "Lease"
    assert meta["document_id"] == "lease"
    assert doc.id == meta["chunk_id"]
    assert meta["collection"] == "legal"
    assert CONTRACT[meta["start"] : meta["end"]] == doc.page_content
    assert meta["kind"] == "contract"
    assert isinstance(meta["score"], float) and meta["score"] > 0


def test_k_per_call_overrides_constructor(kb: MemoBase) -> None:
    retriever = MemoBaseRetriever(kb=kb, k=1)
    assert len(retriever.invoke("lease")) == 1
    assert len(retriever.invoke("lease", k=3)) == 3
    assert retriever.invoke("lease", k=0) == []


def test_collection_filter_and_per_call_filter_are_anded(kb: MemoBase) -> None:
    office = MemoBaseRetriever(kb=kb, k=5, collection="office")
    assert {d.metadata["document_id"] for d in office.invoke("lease menu")} <= {"menu", "parking"}
    recent = MemoBaseRetriever(kb=kb, k=5, filter={"year": {"$gte": 2023}})
    ids = {d.metadata["document_id"] for d in recent.invoke("lease parking menu")}
    assert "parking" not in ids and ids
    # A per-call filter narrows the constructor's filter; it cannot widen it.
    narrowed = recent.invoke("lease parking menu", filter={"kind": "memo"})
    assert [d.metadata["document_id"] for d in narrowed] == ["menu"]
    widened = recent.invoke("lease parking menu", filter={"year": 2022})
    assert widened == []


def test_modes_are_honoured(kb: MemoBase) -> None:
    retriever = MemoBaseRetriever(kb=kb, k=3, mode="keyword")
    keyword = retriever.invoke("cafeteria")
    assert [d.metadata["document_id"] for d in keyword] == ["menu"]
    assert keyword[0].metadata["vector_rank"] is None
    vector = retriever.invoke("cafeteria", mode="vector")
    assert len(vector) == 3  # the vector leg ranks every chunk
    assert all(d.metadata["keyword_rank"] is None for d in vector)
    hybrid = MemoBaseRetriever(kb=kb, k=3).invoke("cafeteria")
    assert hybrid[0].metadata["keyword_rank"] == 1 and hybrid[0].metadata["vector_rank"] == 1


def test_owner_scoping_fails_closed(kb: MemoBase) -> None:
    other = MemoBaseRetriever(kb=kb, k=3, owner="someone-else")
    assert other.invoke("lease") == []


async def test_async_matches_sync(kb: MemoBase) -> None:
    retriever = MemoBaseRetriever(kb=kb, k=2)
    sync_docs = retriever.invoke("notice period", filter={"kind": "contract"})
    async_docs = await retriever.ainvoke("notice period", filter={"kind": "contract"})
    assert sync_docs == async_docs
    assert async_docs[0].metadata["page"] == 1
    batch = await retriever.abatch(["notice period", "cafeteria"])
    assert [len(b) for b in batch] == [2, 2]


def test_lcel_chain_puts_retrieved_text_in_the_prompt(kb: MemoBase) -> None:
    def format_docs(docs: list[Document]) -> str:
        return "\n".join(f"[p.{d.metadata.get('page', '-')}] {d.page_content}" for d in docs)

    prompt = ChatPromptTemplate.from_messages(
        [("human", "Context:\n{context}\n\nQuestion: {question}")]
    )
    retriever = MemoBaseRetriever(kb=kb, k=1, collection="legal")
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | prompt
        | ParrotFakeChatModel()
        | StrOutputParser()
    )
    out = chain.invoke("How long is the notice period?")
    assert "[p.1] Section 1. The notice period is thirty days." in out
    assert "Question: How long is the notice period?" in out
    assert "twenty four months" not in out


def test_memo_fields_override_user_metadata_keys(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=None) as base:
        base.add_texts(["alpha beta"], [{"score": "user", "chunk_id": "fake"}], ids=["a"])
        hit = base.search("alpha", mode="keyword")[0]
        doc = hit_to_document(hit)
        assert doc.metadata["chunk_id"] == "a"
        assert isinstance(doc.metadata["score"], float)


def test_search_kwargs_and_search_type_as_as_retriever_takes_them(kb: MemoBase) -> None:
    retriever = MemoBaseRetriever(
        kb=kb,
        search_type="similarity",
        search_kwargs={"k": 1, "filter": {"kind": "memo"}, "collection": "office"},
    )
    assert (retriever.k, retriever.mode, retriever.collection) == (1, "vector", "office")
    assert retriever.filter == {"kind": "memo"}
    docs = retriever.invoke("cafeteria menu Monday")
    assert [d.metadata["document_id"] for d in docs] == ["menu"]
    assert docs[0].metadata["keyword_rank"] is None  # the vector leg only
    keyword = MemoBaseRetriever(kb=kb, search_type="keyword", search_kwargs={"k": 5})
    assert [d.metadata["document_id"] for d in keyword.invoke("cafeteria")] == ["menu"]


@pytest.mark.parametrize(
    "options",
    [
        {"search_type": "similarity_score_threshold"},
        {"search_kwargs": {"score_threshold": 0.5}},
        {"search_kwargs": {"fetch_k": 0}},
        {"search_kwargs": {"lambda_mult": 1.5}},
        {"search_kwargs": {"kk": 3}},
        {"search_kwargs": {"k": 2}, "k": 3},
        {"search_type": "keyword", "mode": "vector"},
    ],
)
def test_unknown_search_options_are_refused_loudly(kb: MemoBase, options: dict) -> None:
    with pytest.raises(InvalidInputError):
        MemoBaseRetriever(kb=kb, **options)


def test_mmr_and_weights_as_as_retriever_takes_them(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "mmr.db", embedder=HashEmbedder(64)) as base:
        base.add_texts(
            [
                "walrus colony on the arctic ice shelf",
                "walrus colony on the arctic ice shelf today",
                "walrus tusks are long teeth",
            ],
            ids=["a1", "a2", "b1"],
        )
        query = "walrus colony arctic ice"
        plain = MemoBaseRetriever(
            kb=base, search_type="mmr", search_kwargs={"k": 2, "lambda_mult": 1.0}
        )
        assert [d.id for d in plain.invoke(query)] == ["a1", "a2"]  # relevance only
        novel = MemoBaseRetriever(
            kb=base, search_type="mmr", search_kwargs={"k": 2, "fetch_k": 3, "lambda_mult": 0.3}
        )
        assert [d.id for d in novel.invoke(query)] == ["a1", "b1"]  # the duplicate gives way
        assert [h.chunk_id for h in novel.search_hits(query)] == [
            h.chunk_id for h in base.search_mmr(query, k=2, fetch_k=3, lambda_mult=0.3)
        ]
        weighted = MemoBaseRetriever(
            kb=base, search_type="hybrid", search_kwargs={"k": 3, "weights": {"vector": 0}}
        )
        keyword_only = [h.chunk_id for h in base.search(query, k=3, mode="keyword")]
        assert [d.id for d in weighted.invoke(query)] == keyword_only
        with pytest.raises(InvalidInputError):
            MemoBaseRetriever(kb=base, search_kwargs={"weights": {"bm25": 1.0}}).invoke(query)
