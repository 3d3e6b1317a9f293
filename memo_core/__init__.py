"""memo_core: local long-term memory and a quote-or-refuse knowledge base for AI agents.

The framework-neutral engine. Nothing here imports LangChain or LlamaIndex, and
heavy optional dependencies load lazily inside the provider that needs them.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from memo_core.answer import Answer, Citation, CitationVerifier, Refusal, verify_quote
    from memo_core.answer.engine import GuardedAnswerer
    from memo_core.answer.gate import SufficiencyGate
    from memo_core.embedders import Embedder, EmbedderFingerprint, HashEmbedder
    from memo_core.errors import MemoError
    from memo_core.kb import MemoBase
    from memo_core.memory import MemoHood
    from memo_core.search.rrf import rrf
    from memo_core.types import Hit, SearchMode
    from memo_core.unified import UnifiedRecall, recall_all

#: Where each public name lives. A name's module is imported on first use, not with
#: the package: ``memo kb ask`` (which imports ``memo_core.cli``, hence this package)
#: must not pay for MemoHood's capture models and patterns, nor a MemoHood user for
#: the answer engine.
_HOMES = {
    "Answer": "memo_core.answer",
    "Citation": "memo_core.answer",
    "CitationVerifier": "memo_core.answer",
    "Refusal": "memo_core.answer",
    "verify_quote": "memo_core.answer",
    "GuardedAnswerer": "memo_core.answer.engine",
    "SufficiencyGate": "memo_core.answer.gate",
    "Embedder": "memo_core.embedders",
    "EmbedderFingerprint": "memo_core.embedders",
    "HashEmbedder": "memo_core.embedders",
    "MemoError": "memo_core.errors",
    "MemoBase": "memo_core.kb",
    "MemoHood": "memo_core.memory",
    "rrf": "memo_core.search.rrf",
    "Hit": "memo_core.types",
    "SearchMode": "memo_core.types",
    "UnifiedRecall": "memo_core.unified",
    "recall_all": "memo_core.unified",
}


def __getattr__(name: str) -> _typing.Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memo_core' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Citation",
    "CitationVerifier",
    "Embedder",
    "EmbedderFingerprint",
    "GuardedAnswerer",
    "HashEmbedder",
    "Hit",
    "MemoBase",
    "MemoError",
    "MemoHood",
    "Refusal",
    "SearchMode",
    "SufficiencyGate",
    "UnifiedRecall",
    "__version__",
    "recall_all",
    "rrf",
    "verify_quote",
]
