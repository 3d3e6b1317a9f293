"""memo_core: local long-term memory and a quote-or-refuse knowledge base for AI agents.

The framework-neutral engine. Nothing here imports LangChain or LlamaIndex, and
heavy optional dependencies load lazily inside the provider that needs them.
"""

from __future__ import annotations

import typing as _typing

from memo_core.lazy import lazy_exports as _lazy_exports

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

#: Where each public name lives (a module of memo_core, imported on first use, not
#: with the package): ``memo kb ask`` (which imports ``memo_core.cli``, hence this
#: package) must not pay for MemoHood's capture models and patterns, nor a MemoHood
#: user for the answer engine.
_HOMES = {
    "Answer": "answer",
    "Citation": "answer",
    "CitationVerifier": "answer",
    "Refusal": "answer",
    "verify_quote": "answer",
    "GuardedAnswerer": "answer.engine",
    "SufficiencyGate": "answer.gate",
    "Embedder": "embedders",
    "EmbedderFingerprint": "embedders",
    "HashEmbedder": "embedders",
    "MemoError": "errors",
    "MemoBase": "kb",
    "MemoHood": "memory",
    "rrf": "search.rrf",
    "Hit": "types",
    "SearchMode": "types",
    "UnifiedRecall": "unified",
    "recall_all": "unified",
}


__getattr__, __dir__ = _lazy_exports(__name__, _HOMES, globals())

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
