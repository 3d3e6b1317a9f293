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


def test_the_facade_passes_every_argument_its_collaborators_take() -> None:
    """Each public method of a collaborator is on MemoHood with the same signature, so a
    parameter added to one (say to ``Recaller.recall``) cannot be left unreachable."""
    from memo_core.memory.capture import Capture
    from memo_core.memory.consolidate import Consolidation
    from memo_core.memory.items import Items
    from memo_core.memory.lifecycle import Lifecycle
    from memo_core.memory.recall import Recaller
    from memo_core.memory.transcript import Transcripts
    from memo_core.memory.transfer import Transfer

    owners: dict[str, str] = {}
    for part in (Capture, Recaller, Lifecycle, Consolidation, Items, Transcripts, Transfer):
        for name, method in inspect.getmembers(part, inspect.isfunction):
            if name.startswith("_"):
                continue
            assert name not in owners, f"{name} is on {owners[name]} and {part.__name__}"
            owners[name] = part.__name__
            assert inspect.signature(getattr(MemoHood, name)) == inspect.signature(method), name
    own = {"close", "gate", "llm", "has_vectors"}
    public = {n for n in vars(MemoHood) if not n.startswith("_")}
    assert public == set(owners) | own
