"""Configuration: ``config.yaml`` plus environment variables, read in this one place.

The file keeps the shape users of the original plugins know::

    memobase:
      embedder: {provider: local, model: memo/all-MiniLM-L6-v2-int8, dims: 384}
      roots: [~/Documents]
      rerank: {provider: cohere}          # or {provider: local, model: ..., path: ...}
      llm: {base_url: http://localhost:11434/v1, model: llama3.1, api_key_env: OLLAMA_KEY}
    memohood:
      embedder: same                      # share memobase's embedder definition
    spend:
      ceilings: {cloudflare: 5.0, cohere: 5.0}   # USD per month

Keys never live in the file: ``CLOUDFLARE_ACCOUNT_ID``, ``CLOUDFLARE_API_TOKEN``,
``COHERE_API_KEY`` and the LLM's ``api_key_env`` come from the environment (or the
file written by ``memo setup``, which the environment overrides).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memo_core.embedders.base import Embedder
from memo_core.errors import ConfigError

__all__ = ["EmbedderSpec", "Settings", "build_embedder", "load_settings"]

#: Where config.yaml is looked for when no path is given (first hit wins).
CONFIG_ENV = "MEMO_CONFIG"


def _default_config_paths() -> list[Path]:
    return [Path("config.yaml"), Path.home() / ".config" / "memo" / "config.yaml"]


@dataclass(frozen=True)
class EmbedderSpec:
    """``provider``: local (fastembed; default model = the offline MiniLM), hash, cloudflare, none."""

    provider: str = "local"
    model: str | None = None
    dims: int | None = None
    path: str | None = None


@dataclass(frozen=True)
class Settings:
    kb_embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    memory_embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    roots: tuple[str, ...] = ()
    rerank: Mapping[str, Any] = field(default_factory=dict)
    llm: Mapping[str, Any] = field(default_factory=dict)
    ceilings: Mapping[str, float] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)

    def secret(self, name: str) -> str | None:
        value = self.env.get(name)
        return value or None


def _spec(raw: Any, fallback: EmbedderSpec | None = None) -> EmbedderSpec:
    if raw in (None, "same") and fallback is not None:
        return fallback
    if raw is None:
        return EmbedderSpec()
    if isinstance(raw, str):
        return EmbedderSpec(provider=raw)
    if not isinstance(raw, Mapping):
        raise ConfigError(f"embedder must be a mapping, not {raw!r}")
    unknown = set(raw) - {"provider", "model", "dims", "path"}
    if unknown:
        raise ConfigError(f"unknown embedder keys: {sorted(unknown)}")
    return EmbedderSpec(
        provider=str(raw.get("provider", "local")),
        model=raw.get("model"),
        dims=raw.get("dims"),
        path=raw.get("path"),
    )


def load_settings(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Read config.yaml (if any) and the environment into :class:`Settings`."""
    env = dict(os.environ if env is None else env)
    candidates = (
        [Path(path)]
        if path
        else ([Path(env[CONFIG_ENV])] if env.get(CONFIG_ENV) else _default_config_paths())
    )
    data: dict[str, Any] = {}
    for candidate in candidates:
        if candidate.is_file():
            import yaml

            try:
                loaded = yaml.safe_load(candidate.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError as exc:
                raise ConfigError(f"{candidate}: invalid YAML: {exc}") from exc
            if not isinstance(loaded, dict):
                raise ConfigError(f"{candidate}: the top level must be a mapping")
            data = loaded
            break
        if path:
            raise ConfigError(f"config file not found: {candidate}")
    kb = data.get("memobase") or {}
    memory = data.get("memohood") or {}
    kb_spec = _spec(kb.get("embedder"))
    return Settings(
        kb_embedder=kb_spec,
        memory_embedder=_spec(memory.get("embedder"), kb_spec),
        roots=tuple(str(Path(r).expanduser()) for r in kb.get("roots", ()) or ()),
        rerank=dict(kb.get("rerank") or {}),
        llm=dict(kb.get("llm") or {}),
        ceilings={
            str(k): float(v) for k, v in ((data.get("spend") or {}).get("ceilings") or {}).items()
        },
        env=env,
    )


def build_embedder(spec: EmbedderSpec, settings: Settings | None = None) -> Embedder | None:
    """The embedder a spec names (None for keyword-only)."""
    provider = spec.provider.lower()
    if provider == "none":
        return None
    if provider == "hash":
        from memo_core.embedders.hash import HashEmbedder

        return HashEmbedder(spec.dims or 256)
    if provider == "local":
        from memo_core.embedders.fastembed import (
            DEFAULT_LOCAL_MODEL,
            FastEmbedEmbedder,
            default_local_embedder,
        )

        if spec.model in (None, DEFAULT_LOCAL_MODEL) and not spec.path:
            return default_local_embedder()
        assert spec.model is not None
        return FastEmbedEmbedder(spec.model, model_path=spec.path, dimensions=spec.dims)
    if provider == "cloudflare":
        from memo_core.embedders.cloudflare import CloudflareEmbedder

        settings = settings or load_settings()
        account, token = (
            settings.secret("CLOUDFLARE_ACCOUNT_ID"),
            settings.secret("CLOUDFLARE_API_TOKEN"),
        )
        if not account or not token:
            raise ConfigError(
                "cloudflare embeddings need CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN"
            )
        return CloudflareEmbedder(
            account, token, model=spec.model or "@cf/baai/bge-m3", dimensions=spec.dims
        )
    raise ConfigError(
        f"unknown embedder provider {spec.provider!r} (local, hash, cloudflare, none)"
    )
