"""The caller's page reaches GuardedQueryEngine's citation through the LlamaIndex store."""

from __future__ import annotations

from typing import Any

from memo_integrations.llamaindex import GuardedQueryEngine, MemoBaseVectorStore


def test_guarded_query_engine_cites_the_page_label(
    store: MemoBaseVectorStore, node_factory: Any
) -> None:
    store.add(
        [
            node_factory(
                "deposit-1",
                "The deposit is two months of rent.",
                "lease",
                {"source": "lease.pdf", "page_label": "7"},
            ),
            node_factory(
                "talk-1",
                "The ferry leaves at dawn on Sundays.",
                "talk",
                {"source": "talk.mp3", "timecode": "00:14:05"},
            ),
        ]
    )
    response = GuardedQueryEngine(store).query("How many months of rent is the deposit?")
    assert response.metadata is not None and response.metadata["refused"] is False
    [citation] = response.metadata["citations"]
    assert citation["page"] == 7 and citation["locator"] == {"page": 7}
    response = GuardedQueryEngine(store).query("When does the ferry leave on Sundays?")
    assert response.metadata is not None
    [citation] = response.metadata["citations"]
    assert citation["locator"] == {"start_time": 845.0, "timecode": "00:14:05"}
