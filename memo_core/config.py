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
      ledger: ~/.config/memo/spend.db           # the default; MEMO_SPEND_DB overrides

Keys never live in the file: ``CLOUDFLARE_ACCOUNT_ID``, ``CLOUDFLARE_API_TOKEN``,
``COHERE_API_KEY`` and the LLM's ``api_key_env`` come from the environment or from
``secrets.env`` beside the config (written by ``memo setup``, mode 0600); the
environment wins. The config folder is the folder of ``$MEMO_CONFIG`` when set,
else ``~/.config/memo``; ``$MEMO_SECRETS`` names another secrets file.

The spend ledger is one file per user (``spend.db`` in the config folder), not
one per base: a ceiling is a monthly budget for a provider *account*, which every
knowledge base and memory file of that user draws on.
"""

from __future__ import annotations

import logging
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.embedders.base import Embedder
from memo_core.errors import ConfigError, ProviderError
from memo_core.ledger import SpendLedger

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from memo_core.search.hybrid import SearchSettings

__all__ = [
    "EmbedderSpec",
    "Settings",
    "build_embedder",
    "build_ledger",
    "build_search_settings",
    "config_dir",
    "load_settings",
    "model_cache_dir",
    "read_secrets",
    "secrets_path",
]

#: Where config.yaml is looked for when no path is given (first hit wins).
CONFIG_ENV = "MEMO_CONFIG"
#: Another location for the secrets file (default: ``secrets.env`` in the config folder).
SECRETS_ENV = "MEMO_SECRETS"
#: Another location for the spend ledger (default: ``spend.db`` in the config folder).
SPEND_DB_ENV = "MEMO_SPEND_DB"
#: Another Cloudflare API base (default: https://api.cloudflare.com/client/v4).
CLOUDFLARE_BASE_ENV = "MEMO_CLOUDFLARE_BASE_URL"


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The folder of ``$MEMO_CONFIG`` when set, else ``$HOME/.config/memo``."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV]).expanduser().parent
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".config" / "memo"


#: Where downloaded local models are kept (default: ``$XDG_CACHE_HOME/memo/models``).
MODEL_CACHE_ENV = "MEMO_MODEL_CACHE"

#: The multilingual local model ``memo setup`` offers (fastembed's ONNX export, one download).
MULTILINGUAL_MODEL = "intfloat/multilingual-e5-large"
MULTILINGUAL_DIMS = 1024
MULTILINGUAL_DOWNLOAD = "about 2.2 GB"


def model_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$MEMO_MODEL_CACHE``, else ``$XDG_CACHE_HOME/memo/models``, else ``~/.cache/memo/models``:
    a lasting folder, so a model downloaded once is not fetched again after a reboot (fastembed's
    own default is a temporary folder)."""
    env = os.environ if env is None else env
    if env.get(MODEL_CACHE_ENV):
        return Path(env[MODEL_CACHE_ENV]).expanduser()
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]).expanduser() / "memo" / "models"
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".cache" / "memo" / "models"


def secrets_path(env: Mapping[str, str] | None = None) -> Path:
    """Where ``memo setup`` keeps keys: ``$MEMO_SECRETS`` or ``<config dir>/secrets.env``."""
    env = os.environ if env is None else env
    if env.get(SECRETS_ENV):
        return Path(env[SECRETS_ENV]).expanduser()
    return config_dir(env) / "secrets.env"


def read_secrets(path: str | Path) -> dict[str, str]:
    """``KEY=value`` lines (``#`` comments, optional quotes); {} when the file is absent."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read the secrets file {path}: {exc}") from exc
    values: dict[str, str] = {}
    for line in text.split("\n"):  # not splitlines(): a value may hold \x0c, \u2028...
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip().removeprefix("export ").strip()] = _shell_value(value.strip())
    return values


def _shell_value(value: str) -> str:
    """The value a POSIX shell would assign, for the quoting ``memo setup`` writes.

    ``shlex`` undoes any mix of single and double quotes and backslashes, as
    ``write_secrets``' :func:`shlex.quote` output needs; a value it cannot read as
    one word (unbalanced quotes, unquoted spaces in a hand-written file) is kept
    as written, minus one pair of surrounding quotes.
    """
    try:
        words = shlex.split(value, posix=True)
    except ValueError:
        words = None
    if words is not None and len(words) <= 1:
        return words[0] if words else ""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


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
    #: The ``memobase: search:`` section: :class:`~memo_core.search.hybrid.SearchSettings` fields.
    search: Mapping[str, Any] = field(default_factory=dict)
    llm: Mapping[str, Any] = field(default_factory=dict)
    ceilings: Mapping[str, float] = field(default_factory=dict)
    spend_db: str = ""
    #: The raw ``memohood:`` section (MemoryConfig.from_dict reads its knobs).
    memory: Mapping[str, Any] = field(default_factory=dict)
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
    """Read config.yaml (if any), the secrets file and the environment into :class:`Settings`.

    ``env`` (default: the process environment) also decides where the secrets
    file is (see :func:`secrets_path`); its own values win over the file's.
    """
    env = dict(os.environ if env is None else env)
    if env.get(SECRETS_ENV) or env.get(CONFIG_ENV) or env.get("HOME"):
        env = {**read_secrets(secrets_path(env)), **env}
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
    spend = data.get("spend") or {}
    spend_db = env.get(SPEND_DB_ENV) or spend.get("ledger") or str(config_dir(env) / "spend.db")
    return Settings(
        kb_embedder=kb_spec,
        memory_embedder=_spec(memory.get("embedder"), kb_spec),
        roots=tuple(str(Path(r).expanduser()) for r in kb.get("roots", ()) or ()),
        rerank=dict(kb.get("rerank") or {}),
        search=dict(kb.get("search") or {}),
        llm=dict(kb.get("llm") or {}),
        ceilings={str(k): float(v) for k, v in (spend.get("ceilings") or {}).items()},
        spend_db=str(Path(spend_db).expanduser()),
        memory=dict(memory),
        env=env,
    )


def build_search_settings(settings: Settings) -> SearchSettings:
    """The knowledge base's retrieval knobs from ``memobase: search:`` (defaults if absent),
    e.g. ``{vector_index: hnsw, keyword_index: memory}`` for a base of 100k+ chunks."""
    from memo_core.search.hybrid import SearchSettings

    known = {f.name for f in fields(SearchSettings)}
    unknown = set(settings.search) - known
    if unknown:
        raise ConfigError(f"unknown search keys: {sorted(unknown)} (known: {sorted(known)})")
    try:
        return SearchSettings(**settings.search)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"memobase.search: {exc}") from exc


def build_ledger(settings: Settings) -> SpendLedger:
    """The user's spend ledger (``settings.spend_db``) with the configured ceilings."""
    return SpendLedger(settings.spend_db, ceilings=settings.ceilings)


def build_embedder(
    spec: EmbedderSpec, settings: Settings | None = None, ledger: SpendLedger | None = None
) -> Embedder | None:
    """The embedder a spec names (None for keyword-only); paid ones charge ``ledger``."""
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
        if spec.model is None:
            raise ConfigError("a local embedder with a path needs its model name (model:)")
        cache = model_cache_dir((settings or load_settings()).env)
        embedder = FastEmbedEmbedder(
            spec.model, model_path=spec.path, dimensions=spec.dims, cache_dir=cache
        )
        if spec.path:
            return embedder  # a local folder: nothing to download
        try:
            embedder.load()  # the one download happens here, not halfway through an ingest
        except ProviderError as exc:
            fallback = default_local_embedder()
            log.warning(
                "could not load %s into %s (%s); falling back to the English default %s "
                "(no download)",
                spec.model,
                cache,
                _first_line(exc.__cause__ or exc),
                fallback.fingerprint.describe(),
            )
            return fallback
        return embedder
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
        options: dict[str, Any] = {"ledger": ledger}
        if settings.env.get(CLOUDFLARE_BASE_ENV):  # a proxy, or a local server in tests
            options["base_url"] = settings.env[CLOUDFLARE_BASE_ENV]
        return CloudflareEmbedder(
            account, token, model=spec.model or "@cf/baai/bge-m3", dimensions=spec.dims, **options
        )
    raise ConfigError(
        f"unknown embedder provider {spec.provider!r} (local, hash, cloudflare, none)"
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.splitlines()[0].split())[:200]
