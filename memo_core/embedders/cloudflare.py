"""Cloudflare Workers AI embeddings (``@cf/baai/bge-m3``, 1024 d) over httpx.

Only the texts being embedded leave the machine. Every call is charged to the
spend ledger first (when one is given), so the monthly ceiling stops it before
any request is sent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from memo_core.embedders.base import EmbedderFingerprint, batched
from memo_core.errors import ConfigError, MissingDependencyError, ProviderError
from memo_core.ledger import SpendLedger

__all__ = ["CloudflareEmbedder"]

_DIMS = {
    "@cf/baai/bge-m3": 1024,
    "@cf/baai/bge-base-en-v1.5": 768,
    "@cf/baai/bge-small-en-v1.5": 384,
}


class CloudflareEmbedder:
    """Embeddings from Cloudflare Workers AI's REST API."""

    def __init__(
        self,
        account_id: str,
        api_token: str,
        *,
        model: str = "@cf/baai/bge-m3",
        base_url: str = "https://api.cloudflare.com/client/v4",
        batch_size: int = 50,
        timeout: float = 30.0,
        ledger: SpendLedger | None = None,
        dimensions: int | None = None,
    ) -> None:
        if not account_id or not api_token:
            raise ConfigError("Cloudflare embeddings need an account id and an API token")
        self.model = model
        self.url = f"{base_url.rstrip('/')}/accounts/{account_id}/ai/run/{model}"
        self._token = api_token
        self.batch_size = batch_size
        self.timeout = timeout
        self.ledger = ledger
        dims = dimensions or _DIMS.get(model)
        if dims is None:
            raise ConfigError(f"unknown dimensions for {model}: pass dimensions=")
        self._dims = dims

    @property
    def dimensions(self) -> int:
        return self._dims

    @property
    def fingerprint(self) -> EmbedderFingerprint:
        return EmbedderFingerprint("cloudflare", self.model, self._dims, True)

    def _post(self, texts: Sequence[str]) -> list[list[float]]:
        try:
            import httpx
        except ImportError as exc:
            raise MissingDependencyError("httpx", "cloud", "Cloudflare embeddings") from exc
        if self.ledger is not None:
            tokens = sum(max(1, len(t) // 4) for t in texts)  # ~4 chars a token
            self.ledger.charge("cloudflare", "embedding", tokens, note=self.model)
        try:
            response = httpx.post(
                self.url,
                json={"text": list(texts)},
                headers={"Authorization": f"Bearer {self._token}"},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:
            raise ProviderError(f"Cloudflare embeddings request failed: {exc}") from exc
        if response.status_code != 200:
            raise ProviderError(
                f"Cloudflare embeddings returned HTTP {response.status_code}: {response.text[:200]}"
            )
        body: Any = response.json()
        if not body.get("success", True):
            raise ProviderError(f"Cloudflare embeddings failed: {body.get('errors')}")
        data = body.get("result", {}).get("data")
        if not isinstance(data, list) or len(data) != len(texts):
            raise ProviderError("Cloudflare embeddings returned an unexpected payload")
        return [_normalize([float(x) for x in row]) for row in data]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for batch in batched(list(texts), self.batch_size):
            out.extend(self._post(batch))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._post([text])[0]


def _normalize(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec
