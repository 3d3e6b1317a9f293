"""Any OpenAI-compatible chat endpoint: Ollama, llama.cpp server, vLLM, OpenAI, Groq, Gemini.

One ``POST {base_url}/chat/completions`` per call over httpx (the ``cloud``
extra, imported lazily). The request carries the messages, the model, a
temperature and, in JSON mode, ``response_format: {"type": "json_object"}``;
it never carries ``tools``: the answering model sees text and returns text.
Every failure (network, HTTP status, malformed reply) becomes a
:class:`~memo_core.errors.ProviderError` whose message never includes the key.
With a spend ``ledger``, each call is charged *before* it is sent (an estimate:
prompt characters / 4 plus ``max_tokens``), so a provider over its monthly
ceiling raises :class:`~memo_core.errors.BudgetExceededError` with no request made.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any

from memo_core.errors import ConfigError, MissingDependencyError, ProviderError
from memo_core.ledger import SpendLedger, provider_for_url
from memo_core.llm.base import ChatMessage
from memo_core.prompt import estimate_tokens

__all__ = ["PRESETS", "EndpointPreset", "OpenAICompatibleLLM"]

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_MAX_WAIT = 30.0
_SNIPPET = 300
#: Reply tokens assumed for the spend estimate when a call sets no ``max_tokens``.
DEFAULT_REPLY_TOKENS = 1024


@dataclass(frozen=True)
class EndpointPreset:
    """Where a known provider serves its OpenAI-compatible API and where its key lives."""

    base_url: str
    api_key_env: str | None = None


#: Named endpoints for :meth:`OpenAICompatibleLLM.from_preset`.
PRESETS: Mapping[str, EndpointPreset] = {
    "ollama": EndpointPreset("http://localhost:11434/v1"),
    "llamacpp": EndpointPreset("http://localhost:8080/v1"),
    "vllm": EndpointPreset("http://localhost:8000/v1"),
    "openai": EndpointPreset("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "groq": EndpointPreset("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "gemini": EndpointPreset(
        "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"
    ),
}


def _httpx() -> ModuleType:
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("httpx", "cloud", "OpenAI-compatible LLMs") from exc
    return httpx


class OpenAICompatibleLLM:
    """An :class:`~memo_core.llm.base.LLM` over an OpenAI-compatible ``/chat/completions``.

    The key comes from ``api_key`` or, when ``api_key_env`` names a variable,
    from the environment at construction (local servers need none). ``json_mode``
    says whether the endpoint accepts ``response_format``; if it rejects it with
    HTTP 400, the call is retried once without it and JSON mode is switched off.
    Status 408/429/5xx and network errors are retried ``max_retries`` times with
    exponential backoff (``Retry-After`` is honoured, capped at 30 s).
    ``ledger`` charges every call to ``provider`` (default: named from the host,
    see :func:`~memo_core.ledger.provider_for_url`), once per :meth:`complete`.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 60.0,
        json_mode: bool = True,
        temperature: float | None = 0.0,
        max_retries: int = 2,
        retry_backoff: float = 1.0,
        headers: Mapping[str, str] | None = None,
        ledger: SpendLedger | None = None,
        provider: str | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"LLM base_url must start with http:// or https://: {base_url!r}")
        if not model:
            raise ConfigError("LLM model name is empty")
        if api_key is None and api_key_env:
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise ConfigError(f"environment variable {api_key_env} (the LLM key) is not set")
        self._httpx = _httpx()
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self.supports_json_mode = json_mode
        self.temperature = temperature
        self.max_retries = max(0, max_retries)
        self.retry_backoff = retry_backoff
        self._headers = {"Content-Type": "application/json", **(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._client: Any = None
        self.ledger = ledger
        self.provider = provider or provider_for_url(self.base_url)

    @classmethod
    def from_preset(cls, name: str, model: str, **kwargs: Any) -> OpenAICompatibleLLM:
        """Build from a named endpoint in :data:`PRESETS` (``"ollama"``, ``"groq"``...)."""
        try:
            preset = PRESETS[name]
        except KeyError:
            raise ConfigError(
                f"unknown LLM preset {name!r}; known: {', '.join(sorted(PRESETS))}"
            ) from None
        kwargs.setdefault("api_key_env", preset.api_key_env)
        return cls(preset.base_url, model, **kwargs)

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    # -- the protocol --------------------------------------------------------

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        body = self.request_body(messages, json_mode=json_mode, max_tokens=max_tokens)
        if self.ledger is not None:
            self.ledger.charge(
                self.provider, "llm", _call_tokens(messages, max_tokens), note=self.model
            )
        response = self._post(body)
        if (
            response.status_code == 400
            and "response_format" in body
            and "response_format" in response.text
        ):
            self.supports_json_mode = False
            body.pop("response_format")
            response = self._post(body)
        if response.status_code >= 400:
            raise ProviderError(
                f"LLM endpoint {self.url} answered HTTP {response.status_code}: "
                f"{response.text[:_SNIPPET]}"
            )
        return _reply_text(response, self.url)

    def request_body(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The JSON body sent for these messages (no ``tools``, ever)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_dict() for m in messages],
            "stream": False,
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if json_mode and self.supports_json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    # -- transport -----------------------------------------------------------

    def _http(self) -> Any:
        if self._client is None:
            self._client = self._httpx.Client(timeout=self.timeout, headers=self._headers)
        return self._client

    def _post(self, body: dict[str, Any]) -> Any:
        httpx = self._httpx
        attempt = 0
        while True:
            response: Any = None
            try:
                response = self._http().post(self.url, json=body)
            except httpx.HTTPError as exc:
                if attempt >= self.max_retries:
                    raise ProviderError(
                        f"LLM endpoint {self.url} failed: {type(exc).__name__}: {exc}"
                    ) from exc
            else:
                if response.status_code not in _RETRY_STATUS or attempt >= self.max_retries:
                    return response
            time.sleep(self._wait(attempt, response))
            attempt += 1

    def _wait(self, attempt: int, response: Any) -> float:
        wait: float = self.retry_backoff * 2.0**attempt
        retry_after = None if response is None else response.headers.get("retry-after")
        if retry_after:
            with contextlib.suppress(ValueError):
                wait = max(wait, float(retry_after))
        return min(wait, _MAX_WAIT)

    def close(self) -> None:
        """Close the underlying HTTP connection pool."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> OpenAICompatibleLLM:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _call_tokens(messages: Sequence[ChatMessage], max_tokens: int | None) -> int:
    """Tokens a call may use: the prompt's estimate (at least 1), plus the reply's allowance."""
    prompt = estimate_tokens("".join(m.content for m in messages))
    reply = DEFAULT_REPLY_TOKENS if max_tokens is None else max_tokens
    return max(1, prompt) + max(0, reply)


def _reply_text(response: Any, url: str) -> str:
    try:
        data = response.json()
    except ValueError as exc:
        raise ProviderError(
            f"LLM endpoint {url} did not return JSON: {response.text[:_SNIPPET]}"
        ) from exc
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError(
            f"LLM endpoint {url} returned no choices: {str(data)[:_SNIPPET]}"
        ) from exc
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts
        content = "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    if not isinstance(content, str) or not content.strip():
        raise ProviderError(f"LLM endpoint {url} returned an empty reply")
    return content
