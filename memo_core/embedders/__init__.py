"""Embedders: the protocol, a deterministic hash embedder, local ONNX and Cloudflare."""

from memo_core.embedders.base import Embedder, EmbedderFingerprint
from memo_core.embedders.cloudflare import CloudflareEmbedder
from memo_core.embedders.fastembed import (
    DEFAULT_LOCAL_MODEL,
    FastEmbedEmbedder,
    default_local_embedder,
)
from memo_core.embedders.hash import HashEmbedder

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "CloudflareEmbedder",
    "Embedder",
    "EmbedderFingerprint",
    "FastEmbedEmbedder",
    "HashEmbedder",
    "default_local_embedder",
]
