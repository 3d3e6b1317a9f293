"""Optional rerank pass: Cohere with a key, a local cross-encoder, else RRF order."""

from memo_core.rerank.base import Reranker, SafeReranker
from memo_core.rerank.providers import CohereReranker, CrossEncoderReranker

__all__ = ["CohereReranker", "CrossEncoderReranker", "Reranker", "SafeReranker"]
