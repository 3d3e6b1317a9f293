"""One fake paid API on 127.0.0.1 for the ops tests.

The fake API answers the endpoints memo calls (Cloudflare embeddings, Cohere
rerank, OpenAI-compatible ``/models``, ``/chat/completions`` and
``/audio/transcriptions``) and accepts only the bearer keys in ``good_keys``, so
a test can tell an accepted key from a rejected one and count what was sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any


@dataclass
class FakeAPI:
    port: int = 0
    good_keys: set[str] = field(default_factory=set)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, key)
    has_models: bool = True

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self, method: str | None = None) -> list[str]:
        return [p for m, p, _ in self.requests if method is None or m == method]


def _reply(path: str, method: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if "/ai/run/" in path:
        texts = body.get("text") or []
        return 200, {"success": True, "result": {"data": [[0.5, 0.5, 0.5, 0.5] for _ in texts]}}
    if path.endswith("/v2/rerank"):
        docs = body.get("documents") or []
        return 200, {"results": [{"index": i, "relevance_score": 0.9} for i in range(len(docs))]}
    if path.endswith("/models") and method == "GET":
        return 200, {"data": [{"id": "tiny"}]}
    if path.endswith("/chat/completions"):
        return 200, {"choices": [{"message": {"role": "assistant", "content": "pong"}}]}
    if path.endswith("/audio/transcriptions"):
        return 200, {
            "language": "en",
            "segments": [{"start": 0.0, "end": 1.0, "text": "hello from the fake whisper"}],
        }
    return 404, {"error": "no such endpoint"}


def _handler(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            key = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            api.requests.append((method, self.path, key))
            try:
                body = json.loads(raw) if raw and raw.lstrip()[:1] == b"{" else {}
            except ValueError:
                body = {}
            if key not in api.good_keys:
                status, payload = 401, {"error": "invalid api key"}
            elif self.path.endswith("/models") and not api.has_models:
                status, payload = 404, {"error": "no models endpoint"}
            else:
                status, payload = _reply(self.path, method, body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler
