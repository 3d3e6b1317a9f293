"""MemoHood: long-term conversation memory (capture, SUPERSEDE versions, decay, gated recall)."""

from memo_core.memory.config import DEFAULT_GATE_MODEL, MemoryConfig, resolve_gate_model
from memo_core.memory.gate import GateExample, RecallGate, load_gate_examples
from memo_core.memory.hood import MemoHood
from memo_core.memory.namespace import Namespace, NamespaceLike, normalize_namespace
from memo_core.memory.types import (
    BackfillReport,
    CaptureResult,
    ConsolidationReport,
    Fact,
    GateDecision,
    ImportReport,
    Message,
    Recall,
    Turn,
)

__all__ = [
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
