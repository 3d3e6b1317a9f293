"""OpenAICompatibleLLM against a real HTTP server on 127.0.0.1 (no mocks of httpx)."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("httpx", reason="httpx is in the 'cloud' extra")

from memo_core.errors import ConfigError, MissingDependencyError, ProviderError
from memo_core.llm import ChatMessage, OpenAICompatibleLLM

pytestmark = pytest.mark.network

MESSAGES = [ChatMessage("system", "Answer from passages."), ChatMessage("user", "Question?")]


def _ok(content: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
    return 200, {"choices": [{"message": {"role": "assistant", "content": content}}]}, {}


class _Server:
    """Records every request; answers from a queue of (status, json body, headers)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, Any, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                outer.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(raw)}
                )
                status, body, headers = outer.replies.pop(0) if outer.replies else _ok("default")
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    yield srv
    srv.close()


def _llm(server: _Server, **kw: Any) -> OpenAICompatibleLLM:
    kw.setdefault("retry_backoff", 0.0)
    return OpenAICompatibleLLM(server.url, "test-model", **kw)


def test_posts_chat_completions_without_tools(server: _Server) -> None:
    server.replies.append(_ok('{"claims": []}'))
    with _llm(server, api_key="sk-secret") as llm:
        assert llm.complete(MESSAGES) == '{"claims": []}'
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["Authorization"] == "Bearer sk-secret"
    body = req["body"]
    assert body["model"] == "test-model"
    assert body["messages"] == [m.to_dict() for m in MESSAGES]
    assert body["temperature"] == 0.0
    assert "tools" not in body and "tool_choice" not in body and "functions" not in body
    assert "response_format" not in body and "max_tokens" not in body


def test_json_mode_and_max_tokens(server: _Server) -> None:
    server.replies.append(_ok("{}"))
    with _llm(server) as llm:
        llm.complete(MESSAGES, json_mode=True, max_tokens=256)
    body = server.requests[0]["body"]
    assert body["response_format"] == {"type": "json_object"}
    assert body["max_tokens"] == 256
    assert "Authorization" not in server.requests[0]["headers"]  # local servers need no key
    assert "tools" not in body


def test_json_mode_off_never_sends_response_format(server: _Server) -> None:
    server.replies.append(_ok("x"))
    with _llm(server, json_mode=False) as llm:
        llm.complete(MESSAGES, json_mode=True)
    assert "response_format" not in server.requests[0]["body"]


def test_endpoint_rejecting_response_format_is_retried_without_it(server: _Server) -> None:
    server.replies.append((400, {"error": {"message": "response_format is not supported"}}, {}))
    server.replies.append(_ok("plain"))
    with _llm(server) as llm:
        assert llm.complete(MESSAGES, json_mode=True) == "plain"
        assert llm.supports_json_mode is False
    assert "response_format" in server.requests[0]["body"]
    assert "response_format" not in server.requests[1]["body"]


def test_key_from_environment(server: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMO_TEST_LLM_KEY", "env-key")
    server.replies.append(_ok("ok"))
    with _llm(server, api_key_env="MEMO_TEST_LLM_KEY") as llm:
        llm.complete(MESSAGES)
        assert "env-key" not in repr(llm)
    assert server.requests[0]["headers"]["Authorization"] == "Bearer env-key"


def test_missing_key_variable_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMO_TEST_ABSENT_KEY", raising=False)
    with pytest.raises(ConfigError, match="MEMO_TEST_ABSENT_KEY"):
        OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", api_key_env="MEMO_TEST_ABSENT_KEY")


def test_transient_errors_are_retried(server: _Server) -> None:
    server.replies.append((503, {"error": "busy"}, {"Retry-After": "0"}))
    server.replies.append((429, {"error": "slow down"}, {}))
    server.replies.append(_ok("finally"))
    with _llm(server, max_retries=2) as llm:
        assert llm.complete(MESSAGES) == "finally"
    assert len(server.requests) == 3


def test_http_errors_become_provider_errors_without_the_key(server: _Server) -> None:
    server.replies.append((401, {"error": "invalid api key"}, {}))
    with _llm(server, api_key="sk-topsecret") as llm, pytest.raises(ProviderError) as err:
        llm.complete(MESSAGES)
    assert "401" in str(err.value) and "sk-topsecret" not in str(err.value)


def test_retries_exhausted_is_a_provider_error(server: _Server) -> None:
    server.replies.extend([(500, {"error": "boom"}, {})] * 2)
    with _llm(server, max_retries=1) as llm, pytest.raises(ProviderError, match="500"):
        llm.complete(MESSAGES)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "reply",
    [
        (200, "not json at all", {}),
        (200, {"choices": []}, {}),
        (200, {"choices": [{"message": {"content": None}}]}, {}),
        (200, {"choices": [{"message": {"content": "   "}}]}, {}),
    ],
)
def test_malformed_replies_are_provider_errors(server: _Server, reply: Any) -> None:
    server.replies.append(reply)
    with _llm(server) as llm, pytest.raises(ProviderError):
        llm.complete(MESSAGES)


def test_content_parts_are_joined(server: _Server) -> None:
    server.replies.append(_ok([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]))
    with _llm(server) as llm:
        assert llm.complete(MESSAGES) == "ab"


def test_connection_refused_is_a_provider_error() -> None:
    srv = _Server()
    url = srv.url
    srv.close()  # nothing listens on that port any more
    llm = OpenAICompatibleLLM(url, "m", max_retries=0)
    with pytest.raises(ProviderError, match="failed"):
        llm.complete(MESSAGES)
    llm.close()


def test_presets_and_config_validation() -> None:
    llm = OpenAICompatibleLLM.from_preset("ollama", "llama3.2")
    assert llm.url == "http://localhost:11434/v1/chat/completions"
    with pytest.raises(ConfigError, match="unknown LLM preset"):
        OpenAICompatibleLLM.from_preset("nope", "m")
    with pytest.raises(ConfigError):
        OpenAICompatibleLLM("localhost:11434", "m")
    with pytest.raises(ConfigError):
        OpenAICompatibleLLM("http://localhost:11434/v1", "")


def test_missing_httpx_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx", None)
    with pytest.raises(MissingDependencyError, match=r"memo\[cloud\]"):
        OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m")
