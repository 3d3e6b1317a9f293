"""The public surface of memo_core.memory, pinned."""

from __future__ import annotations

import inspect

import memo_core.memory as memory_pkg
from memo_core.memory import MemoHood

EXPECTED = [
    "DEFAULT_GATE_MODEL",
    "BackfillReport",
    "CaptureResult",
    "ConsolidationReport",
    "Fact",
    "GateDecision",
    "GateExample",
    "ImportReport",
    "MemoHood",
    "MemoryConfig",
    "Message",
    "Namespace",
    "NamespaceLike",
    "Recall",
    "RecallGate",
    "Turn",
    "load_gate_examples",
    "normalize_namespace",
    "resolve_gate_model",
]


def test_exported_names_are_pinned_and_sorted() -> None:
    assert memory_pkg.__all__ == EXPECTED
    for name in EXPECTED:
        assert hasattr(memory_pkg, name)


def test_memohood_methods_the_integrations_use() -> None:
    for name in [
        "capture",
        "remember",
        "recall",
        "history",
        "get",
        "list_facts",
        "forget",
        "pin",
        "unpin",
        "consolidate",
        "export_jsonl",
        "import_jsonl",
        "backfill",
        "put_item",
        "get_item",
        "delete_item",
        "search_items",
        "list_namespaces",
        "add_message",
        "get_messages",
        "set_messages",
        "delete_messages",
        "delete_message",
        "delete_last_message",
        "list_session_keys",
        "close",
    ]:
        assert callable(getattr(MemoHood, name)), name
    params = inspect.signature(MemoHood.__init__).parameters
    assert list(params)[1:] == ["path", "embedder", "llm", "gate", "config", "tracer"]
    recall = inspect.signature(MemoHood.recall).parameters
    assert [p for p in recall if p != "self"] == [
        "message",
        "namespace",
        "k",
        "as_of",
        "token_budget",
        "use_gate",
        "at",
    ]
