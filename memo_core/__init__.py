"""memo_core: local long-term memory and a quote-or-refuse knowledge base for AI agents.

The framework-neutral engine. Nothing here imports LangChain or LlamaIndex, and
heavy optional dependencies load lazily inside the provider that needs them.
"""

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
