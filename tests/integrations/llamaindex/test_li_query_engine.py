"""GuardedQueryEngine: verified citations as source nodes, refusals flagged, async, streaming."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_index.core import Document, StorageContext, VectorStoreIndex
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex import GuardedQueryEngine, MemoBaseVectorStore, MemoEmbedding

LEASE = "The lease term is 24 months. Rent is due on the first day of each month."
BREAD = "Sourdough needs a mature starter. Bake the loaf at 230 degrees for 40 minutes."
QUESTION = "How long is the lease term?"


def reply(*claims: tuple[str, int, str]) -> str:
    return json.dumps(
        {
            "claims": [
                {"text": text, "citations": [{"passage": n, "quote": quote}]}
                for text, n, quote in claims
            ]
        }
    )


@pytest.fixture
def vs(store: MemoBaseVectorStore, node_factory: Any) -> MemoBaseVectorStore:
    store.add(
        [
            node_factory("lease-1", LEASE, "lease", {"source": "lease.pdf", "page_label": "3"}),
            node_factory("bread-1", BREAD, "bread", {"source": "bread.md"}),
        ]
    )
    return store


def passages_sent(llm: Any) -> str:
    return "\n".join(m.content or "" for m in llm.calls[0])


def test_extractive_answer_has_cited_source_nodes(vs: MemoBaseVectorStore) -> None:
    response = GuardedQueryEngine(vs).query(QUESTION)
    assert isinstance(response, Response)
    assert response.metadata is not None and response.metadata["refused"] is False
    assert "24 months" in str(response)
    assert [n.node.node_id for n in response.source_nodes] == ["lease-1"]
    [citation] = response.metadata["citations"]
    assert LEASE[citation["start"] : citation["end"]] == citation["quote"]
    assert citation["source"] == "lease.pdf"
    assert citation["node_id"] == "lease-1"
    assert citation["ref_doc_id"] == "lease"
    assert citation["node_metadata"]["page_label"] == "3"
    assert response.metadata["result"]["answer"] == response.response


def test_llm_answer_keeps_only_verified_claims(vs: MemoBaseVectorStore, scripted_llm: Any) -> None:
    llm = scripted_llm(
        reply(
            ("The lease lasts 24 months.", 1, "The lease term is 24 months."),
            ("The lease renews every year.", 1, "The lease renews automatically every year."),
        )
    )
    response = GuardedQueryEngine(vs, llm).query(QUESTION)
    assert response.metadata is not None and response.metadata["refused"] is False
    assert "24 months" in str(response)
    assert "renews" not in str(response)  # the invented quote was not in the source
    assert [c["quote"] for c in response.metadata["citations"]] == ["The lease term is 24 months."]
    assert [n.node.node_id for n in response.source_nodes] == ["lease-1"]
    assert len(llm.calls) == 1
    assert "tools" not in llm.kwargs_seen[0]
    assert LEASE in passages_sent(llm)  # the model saw the retrieved passage


def test_perturbed_number_is_refused(vs: MemoBaseVectorStore, scripted_llm: Any) -> None:
    llm = scripted_llm(reply(("The lease lasts 12 months.", 1, "The lease term is 12 months.")))
    response = GuardedQueryEngine(vs, llm).query(QUESTION)
    assert response.metadata is not None
    assert response.metadata["refused"] is True
    assert response.source_nodes == []
    assert response.metadata["citations"] == []
    # The nearest passages come along, as metadata only: never as source nodes.
    related = response.metadata["related"]
    assert related and all(r["answer"] is False and r["text"] for r in related)
    assert related == response.metadata["result"]["related"]
    assert "12 months" not in str(response)
    assert str(response) == response.metadata["reason"]
    assert response.metadata["result"]["refused"] is True


def test_gate_refuses_before_any_llm_call(vs: MemoBaseVectorStore, scripted_llm: Any) -> None:
    llm = scripted_llm()  # any call would fail the test
    response = GuardedQueryEngine(vs, llm).query("What is the capital of Mongolia?")
    assert response.metadata is not None and response.metadata["refused"] is True
    assert "not in the knowledge base" in response.metadata["reason"]
    assert llm.calls == []


def test_mock_llm_can_never_produce_an_unverified_citation(vs: MemoBaseVectorStore) -> None:
    response = GuardedQueryEngine(vs, MockLLM()).query(QUESTION)
    assert response.metadata is not None
    texts = {n.node.node_id: n.node.get_content() for n in response.source_nodes}
    for c in response.metadata["citations"]:
        assert c["quote"] in texts[c["chunk_id"]]


def test_streaming_verifies_first_then_streams_the_verified_text(
    vs: MemoBaseVectorStore, scripted_llm: Any
) -> None:
    answer = reply(
        ("The lease lasts 24 months.", 1, "The lease term is 24 months."),
        ("Pets are allowed.", 1, "Pets are allowed in the flat."),
    )
    plain = GuardedQueryEngine(vs, scripted_llm(answer)).query(QUESTION)
    llm = scripted_llm(answer)
    streamed = GuardedQueryEngine(vs, llm, streaming=True).query(QUESTION)
    assert isinstance(streamed, StreamingResponse)
    assert len(llm.calls) == 1  # the answer was produced and checked before any token
    assert streamed.metadata is not None and streamed.metadata["refused"] is False
    pieces = list(streamed.response_gen)
    assert len(pieces) > 1
    assert "".join(pieces) == plain.response
    assert "Pets" not in "".join(pieces)
    assert [n.node.node_id for n in streamed.source_nodes] == ["lease-1"]


def test_streaming_a_refusal(vs: MemoBaseVectorStore) -> None:
    streamed = GuardedQueryEngine(vs, streaming=True).query("What is the capital of Mongolia?")
    assert isinstance(streamed, StreamingResponse)
    assert streamed.metadata is not None and streamed.metadata["refused"] is True
    assert str(streamed) == streamed.metadata["reason"]


async def test_async_query_and_async_streaming(vs: MemoBaseVectorStore, scripted_llm: Any) -> None:
    answer = reply(("The lease lasts 24 months.", 1, "The lease term is 24 months."))
    response = await GuardedQueryEngine(vs, scripted_llm(answer)).aquery(QUESTION)
    assert isinstance(response, Response)
    assert response.metadata is not None and response.metadata["refused"] is False
    streamed = await GuardedQueryEngine(vs, scripted_llm(answer), streaming=True).aquery(QUESTION)
    assert isinstance(streamed, AsyncStreamingResponse)
    text = "".join([piece async for piece in streamed.async_response_gen()])
    assert text == response.response


def test_filters_and_collection_scope_the_search(
    vs: MemoBaseVectorStore, kb: MemoBase, node_factory: Any
) -> None:
    only_bread = MetadataFilters(filters=[MetadataFilter(key="source", value="bread.md")])
    response = GuardedQueryEngine(vs, filters=only_bread).query(QUESTION)
    assert response.metadata is not None and response.metadata["refused"] is True
    other = MemoBaseVectorStore(kb, collection="other")
    other.add([node_factory("x", "Nothing about housing here, only about kites.")])
    scoped = GuardedQueryEngine(other).query(QUESTION)
    assert scoped.metadata is not None and scoped.metadata["refused"] is True
    whole_base = GuardedQueryEngine(kb).query(QUESTION)  # a MemoBase: every collection
    assert whole_base.metadata is not None and whole_base.metadata["refused"] is False


def test_citation_spans_point_into_the_llamaindex_document(
    tmp_path: Any, embedder: HashEmbedder, scripted_llm: Any
) -> None:
    text = (
        "Welcome to the tenancy pack. Keep it somewhere safe. "
        "The lease term is 24 months. Rent is due on the first day of each month. "
        "The deposit is returned within 30 days after the tenancy ends."
    )
    kb = MemoBase(tmp_path / "kb.db", embedder=embedder)
    store = MemoBaseVectorStore(kb)
    VectorStoreIndex.from_documents(
        [Document(text=text, doc_id="pack")],
        storage_context=StorageContext.from_defaults(vector_store=store),
        embed_model=MemoEmbedding(embedder),
        transformations=[SentenceSplitter(chunk_size=20, chunk_overlap=0)],
    )
    assert kb.store.counts()["chunks"] > 1
    response = GuardedQueryEngine(store).query("When is the deposit returned?")
    assert response.metadata is not None and response.metadata["refused"] is False
    for c in response.metadata["citations"]:
        assert c["ref_doc_id"] == "pack"
        assert text[c["ref_doc_start"] : c["ref_doc_end"]] == c["quote"]
    kb.close()


def test_constructor_validates(kb: MemoBase) -> None:
    with pytest.raises(InvalidInputError):
        GuardedQueryEngine("kb.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        GuardedQueryEngine(kb, k=0)
    engine = GuardedQueryEngine(kb, k=3, mode="keyword")
    assert engine.k == 3 and engine.answerer.mode == "keyword"
