"""The caller's page reaches GuardedQA's citation through the LangChain vector store."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")

from langchain_core.documents import Document

from memo_core.embedders import HashEmbedder
from memo_core.kb.base import MemoBase
from memo_integrations.langchain import MemoBaseVectorStore
from memo_integrations.langchain.qa import GuardedQA


def test_guarded_qa_cites_the_page_from_the_documents_metadata(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        store = MemoBaseVectorStore(kb)
        store.add_documents(
            [
                Document(
                    "The deposit is two months of rent.",
                    metadata={"source": "lease.pdf", "page": 7},
                ),
                Document(
                    "Bread rises best in a warm kitchen.",
                    metadata={"source": "bread.md", "heading": "Baking"},
                ),
            ]
        )
        out = GuardedQA(kb).invoke("How many months of rent is the deposit?")
    assert out["refused"] is False
    [citation] = out["citations"]
    assert citation["page"] == 7 and citation["locator"] == {"page": 7}
