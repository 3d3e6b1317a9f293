"""``memo setup``: an interactive wizard that writes ``config.yaml`` and ``secrets.env``.

Local or cloud first; then, one at a time, each service's key, checked with one
live request before it is kept (a rejected key is asked again, an empty answer
skips the service and its feature falls back quietly: the local embedder, the
fused order instead of rerank, extractive answers, local transcription).

Keys are typed through :func:`getpass.getpass` (never echoed), shown back masked,
and stored in ``secrets.env``, created with mode 0600 so only the user can read
it; ``config.yaml`` names *which* environment variable holds each key, never the
key. Where both live is :func:`memo_core.config.config_dir` (``$MEMO_CONFIG``'s
folder or ``~/.config/memo``), or ``config_dir=`` for tests. Every input, the
HTTP transport and every base URL are injectable, so the whole flow is tested
against local servers with no terminal.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memo_core.config import (
    MULTILINGUAL_DIMS,
    MULTILINGUAL_DOWNLOAD,
    MULTILINGUAL_MODEL,
    read_secrets,
)
from memo_core.config import config_dir as default_config_dir
from memo_core.errors import ConfigError, MissingDependencyError
from memo_core.ledger import SpendLedger, provider_for_url

__all__ = [
    "Check",
    "Endpoints",
    "SetupResult",
    "SetupWizard",
    "write_secrets",
]

#: Environment variables the wizard writes (read back by :func:`memo_core.config.load_settings`).
LLM_KEY_ENV = "MEMO_LLM_API_KEY"
CLOUDFLARE_MODEL = "@cf/baai/bge-m3"
COHERE_MODEL = "rerank-v3.5"
DEFAULT_CEILING_USD = 5.0
MAX_ATTEMPTS = 3
#: The local embedders ``memo setup`` offers.
EMBEDDINGS = ("english", "multilingual")

#: Hosted Whisper endpoints: name -> (base URL, key variable, price-table provider).
WHISPER_ENDPOINTS: Mapping[str, tuple[str, str]] = {
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
}


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the services the wizard checks (overridable: proxies, tests)."""

    cloudflare: str = "https://api.cloudflare.com/client/v4"
    cohere: str = "https://api.cohere.com"
    whisper: str | None = None  # None: ask (groq / openai / a URL)
    llm_default: str = "https://api.openai.com/v1"
    local_llm_default: str = "http://localhost:11434/v1"


@dataclass(frozen=True)
class Check:
    """The outcome of one live request: accepted, or why not (never showing the key)."""

    ok: bool
    reason: str = ""


@dataclass
class SetupResult:
    """What the wizard configured, where it wrote, and which features fall back."""

    mode: str
    config_path: Path
    secrets_path: Path
    configured: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def mask(secret: str) -> str:
    """``••••1234``: enough to recognise a key, not to use it."""
    return "••••" + secret[-4:] if len(secret) > 8 else "••••"


def write_secrets(path: Path, values: Mapping[str, str]) -> None:
    r"""Write ``KEY=value`` lines to ``path`` with mode 0600, atomically.

    The temp file is *created* 0600 (``os.open`` with ``O_EXCL``), so the keys are
    never readable by others, not even for an instant; it then replaces ``path``.
    Values are quoted with :func:`shlex.quote`, so a POSIX shell that ``source``\ s
    the file assigns each value literally (a ``'``, ``$(...)`` or backquote in a
    key runs nothing), and :func:`~memo_core.config.read_secrets` gives back exactly
    what was written. A value that no shell variable can hold (a line break, NUL)
    is refused.
    """
    for key, value in values.items():
        if not key or any(c in key for c in "= \t\r\n#'\"") or key.startswith("export"):
            raise ConfigError(f"not a usable variable name for a secret: {key!r}")
        if "\n" in value or "\r" in value:
            raise ConfigError(f"the value of {key} spans several lines")
        if "\x00" in value:
            raise ConfigError(f"the value of {key} holds a NUL character")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask said
        body = "# memo secrets (written by `memo setup`); keep this file private\n"
        body += "".join(f"{key}={shlex.quote(value)}\n" for key, value in sorted(values.items()))
        os.write(fd, body.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


def _write_yaml(path: Path, data: Mapping[str, Any]) -> None:
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(yaml.safe_dump(dict(data), sort_keys=False), encoding="utf-8")
    os.replace(temp, path)


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import yaml

    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path}: the top level must be a mapping")
    return loaded


class SetupWizard:
    """Asks, checks and writes; see the module docstring.

    ``ask(prompt) -> str`` reads a visible answer, ``ask_secret(prompt) -> str`` a
    hidden one, ``say(text)`` prints; ``transport`` is an httpx transport for tests.
    """

    def __init__(
        self,
        config_dir: str | Path | None = None,
        *,
        ask: Callable[[str], str] = input,
        ask_secret: Callable[[str], str] = getpass.getpass,
        say: Callable[[str], None] = print,
        endpoints: Endpoints | None = None,
        transport: Any = None,
        timeout: float = 20.0,
        env: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        self.dir = Path(config_dir).expanduser() if config_dir else default_config_dir(env)
        if config_dir is None and env.get("MEMO_CONFIG"):
            self.config_path = Path(env["MEMO_CONFIG"]).expanduser()
        else:
            self.config_path = self.dir / "config.yaml"
        self.secrets_path = self.dir / "secrets.env"
        self._ask = ask
        self._ask_secret = ask_secret
        self.say = say
        self.endpoints = endpoints or Endpoints()
        self.transport = transport
        self.timeout = timeout
        self.ledger_path = Path(env.get("MEMO_SPEND_DB") or self.dir / "spend.db").expanduser()
        self._ledger: SpendLedger | None = None

    # -- prompts ------------------------------------------------------------

    def ask(self, prompt: str, default: str = "") -> str:
        suffix = f" [{default}]" if default else ""
        try:
            answer = self._ask(f"{prompt}{suffix}: ").strip()
        except EOFError:
            answer = ""
        return answer or default

    def ask_secret(self, prompt: str, stored: str | None = None) -> str | None:
        """A hidden answer; None means skip. With a stored value, Enter keeps it, '-' drops it."""
        hint = " (Enter: keep the stored one, '-': remove)" if stored else " (Enter: skip)"
        try:
            answer = self._ask_secret(f"{prompt}{hint}: ").strip()
        except EOFError:
            answer = ""
        if answer == "-" or (not answer and not stored):
            return None
        return answer or stored

    # -- live checks ----------------------------------------------------------

    def _http(self) -> Any:
        try:
            import httpx
        except ImportError as exc:
            raise MissingDependencyError("httpx", "cloud", "memo setup's key checks") from exc
        return httpx.Client(timeout=self.timeout, transport=self.transport)

    def _request(
        self,
        method: str,
        url: str,
        key: str,
        *,
        accept: Callable[[dict[str, Any]], bool] = lambda body: True,
        **kwargs: Any,
    ) -> Check:
        """One request with the key as a bearer token; ``accept`` judges a JSON reply."""
        import httpx

        try:
            with self._http() as client:
                response = client.request(
                    method, url, headers={"Authorization": f"Bearer {key}"}, **kwargs
                )
        except httpx.HTTPError as exc:
            return Check(False, f"cannot reach {url}: {type(exc).__name__}")
        if response.status_code in (401, 403):
            return Check(False, f"the key was rejected (HTTP {response.status_code})")
        if response.status_code >= 400:
            return Check(False, f"{url} answered HTTP {response.status_code}")
        try:
            body = response.json()
        except ValueError:
            return Check(False, f"{url} did not answer JSON")
        if not isinstance(body, dict) or not accept(body):
            return Check(False, f"{url} gave an unexpected reply")
        return Check(True)

    def _charge(self, provider: str, kind: str, units: float) -> None:
        """Checks that cost money are recorded too (never blocked: no ceilings here)."""
        if self._ledger is None:
            self._ledger = SpendLedger(self.ledger_path)
        self._ledger.charge(provider, kind, units, note="memo setup check")

    def check_cloudflare(self, account: str, token: str) -> Check:
        """One short text through the embeddings endpoint."""
        base = self.endpoints.cloudflare.rstrip("/")
        url = f"{base}/accounts/{account}/ai/run/{CLOUDFLARE_MODEL}"
        self._charge("cloudflare", "embedding", 4)
        return self._request(
            "POST",
            url,
            token,
            json={"text": ["memo setup check"]},
            accept=lambda body: (
                body.get("success", True) is not False
                and isinstance((body.get("result") or {}).get("data"), list)
            ),
        )

    def check_cohere(self, key: str) -> Check:
        """A one-document rerank over the REST API (no SDK needed)."""
        url = f"{self.endpoints.cohere.rstrip('/')}/v2/rerank"
        self._charge("cohere", "rerank", 1)
        body = {"model": COHERE_MODEL, "query": "memo", "documents": ["memo setup"], "top_n": 1}
        return self._request(
            "POST", url, key, json=body, accept=lambda r: isinstance(r.get("results"), list)
        )

    def check_llm(self, base_url: str, model: str, key: str) -> Check:
        """``GET /models`` (free); if the server lacks it, a 1-token chat completion."""
        base = base_url.rstrip("/")
        check = self._request("GET", f"{base}/models", key)
        if check.ok or "rejected" in check.reason:
            return check
        self._charge(provider_for_url(base), "llm", 2)
        body = {"model": model, "messages": [{"role": "user", "content": "ok"}], "max_tokens": 1}
        return self._request(
            "POST",
            f"{base}/chat/completions",
            key,
            json=body,
            accept=lambda r: isinstance(r.get("choices"), list),
        )

    def check_whisper(self, base_url: str, key: str) -> Check:
        return self._request("GET", f"{base_url.rstrip('/')}/models", key)

    def _until_accepted(
        self, label: str, attempt: Callable[[], tuple[Check, Any] | None]
    ) -> Any | None:
        """Run ``attempt`` (asks, then checks) until accepted, skipped or out of tries."""
        for _ in range(MAX_ATTEMPTS):
            outcome = attempt()
            if outcome is None:
                self.say(f"  {label}: skipped")
                return None
            check, value = outcome
            if check.ok:
                self.say(f"  {label}: accepted")
                return value
            self.say(f"  {label}: {check.reason}; try again (Enter to skip)")
        self.say(f"  {label}: skipped after {MAX_ATTEMPTS} failed checks")
        return None

    # -- the flow -----------------------------------------------------------

    def run(
        self, mode: str | None = None, *, llm: bool = True, embedding: str | None = None
    ) -> SetupResult:
        """Ask everything, then write both files; returns what was configured.

        ``mode`` answers the first question; ``embedding`` ("english" or
        "multilingual") the local embedder's; ``llm=False`` skips the LLM questions
        (answers stay extractive). Nothing is written until every answer is in.
        """
        config = _read_yaml(self.config_path)
        secrets = read_secrets(self.secrets_path)
        self.say(f"memo setup: the answers go to {self.config_path} and {self.secrets_path}")
        while mode not in ("local", "cloud"):
            mode = self.ask("Mode, local (no key, nothing leaves this machine) or cloud", "local")
            if mode not in ("local", "cloud"):
                self.say("  please answer local or cloud")
        result = SetupResult(mode, self.config_path, self.secrets_path)
        memobase = dict(config.get("memobase") or {})
        if mode == "cloud":
            self._cloudflare(memobase, secrets, result)
            self._cohere(memobase, secrets, result)
        else:
            memobase["embedder"] = self._local_embedder(embedding, result)
            memobase.pop("rerank", None)
        if llm:
            self._llm(memobase, secrets, result, mode)
        else:
            self._drop_llm(memobase, secrets, result)
        if mode == "cloud":
            self._whisper(secrets, result)
        config["memobase"] = memobase
        config.setdefault("memohood", {"embedder": "same"})
        if mode == "cloud":
            self._ceilings(config, result)
        write_secrets(self.secrets_path, secrets)
        _write_yaml(self.config_path, config)
        if self._ledger is not None:
            self._ledger.db.close()
        self.say(f"configured: {', '.join(result.configured) or 'nothing paid'}")
        if result.skipped:
            self.say(f"falling back: {', '.join(result.skipped)}")
        return result

    def _cloudflare(
        self, memobase: dict[str, Any], secrets: dict[str, str], result: SetupResult
    ) -> None:
        self.say("Cloudflare Workers AI embeddings (bge-m3)")

        def attempt() -> tuple[Check, tuple[str, str]] | None:
            account = self.ask("  Cloudflare account id", secrets.get("CLOUDFLARE_ACCOUNT_ID", ""))
            if not account or account == "-":
                return None
            token = self.ask_secret("  Cloudflare API token", secrets.get("CLOUDFLARE_API_TOKEN"))
            if token is None:
                return None
            return self.check_cloudflare(account, token), (account, token)

        accepted = self._until_accepted("Cloudflare", attempt)
        if accepted is None:
            for key in ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_API_TOKEN"):
                secrets.pop(key, None)
            memobase["embedder"] = {"provider": "local"}
            result.skipped.append("embeddings: local model")
            return
        secrets["CLOUDFLARE_ACCOUNT_ID"], secrets["CLOUDFLARE_API_TOKEN"] = accepted
        memobase["embedder"] = {"provider": "cloudflare", "model": CLOUDFLARE_MODEL, "dims": 1024}
        result.configured.append(f"cloudflare ({mask(accepted[1])})")

    def _cohere(
        self, memobase: dict[str, Any], secrets: dict[str, str], result: SetupResult
    ) -> None:
        self.say("Cohere rerank")

        def attempt() -> tuple[Check, str] | None:
            key = self.ask_secret("  Cohere API key", secrets.get("COHERE_API_KEY"))
            return None if key is None else (self.check_cohere(key), key)

        key = self._until_accepted("Cohere", attempt)
        if key is None:
            secrets.pop("COHERE_API_KEY", None)
            memobase.pop("rerank", None)
            result.skipped.append("rerank: fused order")
            return
        secrets["COHERE_API_KEY"] = key
        memobase["rerank"] = {"provider": "cohere", "model": COHERE_MODEL}
        result.configured.append(f"cohere ({mask(key)})")

    def _llm(
        self, memobase: dict[str, Any], secrets: dict[str, str], result: SetupResult, mode: str
    ) -> None:
        self.say("An OpenAI-compatible LLM for answers (OpenAI, Groq, Gemini, Ollama...)")
        previous = dict(memobase.get("llm") or {})
        suggested = previous.get("base_url") or (
            self.endpoints.llm_default if mode == "cloud" else self.endpoints.local_llm_default
        )

        def attempt() -> tuple[Check, tuple[str, str, str] | None] | None:
            base = self.ask("  LLM base URL ('-' to skip)", str(suggested))
            if not base or base == "-":
                return None
            if not base.startswith(("http://", "https://")):
                return Check(False, "the base URL must start with http:// or https://"), None
            model = self.ask("  model", str(previous.get("model") or "gpt-4o-mini"))
            key = self.ask_secret("  API key (none for a local server)", secrets.get(LLM_KEY_ENV))
            return self.check_llm(base, model, key or ""), (base, model, key or "")

        accepted = self._until_accepted("LLM", attempt)
        if accepted is None:
            self._drop_llm(memobase, secrets, result)
            return
        base, model, key = accepted
        llm: dict[str, Any] = {"base_url": base, "model": model}
        if key:
            secrets[LLM_KEY_ENV] = key
            llm["api_key_env"] = LLM_KEY_ENV
        else:
            secrets.pop(LLM_KEY_ENV, None)
        memobase["llm"] = llm
        result.configured.append(f"llm {model} at {base}" + (f" ({mask(key)})" if key else ""))

    def _local_embedder(self, choice: str | None, result: SetupResult) -> dict[str, Any]:
        """English (ships with memo, no download) or multilingual (one download)."""
        while choice not in EMBEDDINGS:
            if choice is not None:
                self.say("  please answer english or multilingual")
            choice = self.ask(
                "Embeddings: english (all-MiniLM-L6-v2, ships with memo, no download) or "
                f"multilingual ({MULTILINGUAL_MODEL}, Russian and 90+ languages, one download "
                f"of {MULTILINGUAL_DOWNLOAD})",
                "english",
            ).lower()
        if choice == "multilingual":
            result.configured.append(
                f"local multilingual embeddings ({MULTILINGUAL_MODEL}, downloaded once, "
                f"{MULTILINGUAL_DOWNLOAD})"
            )
            return {"provider": "local", "model": MULTILINGUAL_MODEL, "dims": MULTILINGUAL_DIMS}
        return {"provider": "local"}

    @staticmethod
    def _drop_llm(memobase: dict[str, Any], secrets: dict[str, str], result: SetupResult) -> None:
        secrets.pop(LLM_KEY_ENV, None)
        memobase.pop("llm", None)
        result.skipped.append("answers: extractive (verified sentences, no LLM)")

    def _whisper(self, secrets: dict[str, str], result: SetupResult) -> None:
        self.say("Hosted Whisper transcription (Groq or OpenAI)")
        base = self.endpoints.whisper
        if base is None:
            choice = self.ask("  provider: groq, openai or a base URL ('-' to skip)", "groq")
            if choice in ("", "-"):
                self._drop_whisper(secrets, result)
                return
            base = WHISPER_ENDPOINTS[choice][0] if choice in WHISPER_ENDPOINTS else choice
        known = {url: var for url, var in WHISPER_ENDPOINTS.values()}
        variable = known.get(base.rstrip("/"), "MEMO_WHISPER_API_KEY")
        endpoint = base

        def attempt() -> tuple[Check, str] | None:
            key = self.ask_secret("  transcription API key", secrets.get(variable))
            return None if key is None else (self.check_whisper(endpoint, key), key)

        key = self._until_accepted("transcription", attempt)
        if key is None:
            self._drop_whisper(secrets, result)
            return
        secrets[variable] = key
        if variable == "MEMO_WHISPER_API_KEY":
            secrets["MEMO_WHISPER_API_BASE"] = base
        result.configured.append(f"transcription at {base} ({mask(key)})")

    @staticmethod
    def _drop_whisper(secrets: dict[str, str], result: SetupResult) -> None:
        for variable in (
            "GROQ_API_KEY",
            "OPENAI_API_KEY",
            "MEMO_WHISPER_API_KEY",
            "MEMO_WHISPER_API_BASE",
        ):
            secrets.pop(variable, None)
        result.skipped.append("transcription: local faster-whisper")

    def _ceilings(self, config: dict[str, Any], result: SetupResult) -> None:
        spend = dict(config.get("spend") or {})
        ceilings = dict(spend.get("ceilings") or {})
        paid = [p for p in ("cloudflare", "cohere", "openai", "groq") if p not in ceilings]
        if not paid:
            return
        while True:
            answer = self.ask("Monthly spend ceiling per provider, USD", f"{DEFAULT_CEILING_USD}")
            try:
                value = float(answer)
            except ValueError:
                self.say("  please answer a number")
                continue
            if value >= 0:
                break
            self.say("  please answer a number >= 0")
        for provider in paid:
            ceilings[provider] = value
        spend["ceilings"] = ceilings
        config["spend"] = spend
