"""Fixtures for the ops tests: an isolated config folder, and the fake paid API."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from ops_fakes import FakeAPI, _handler  # a uniquely named module: "conftest" is ambiguous


@pytest.fixture
def fake_api() -> Iterator[FakeAPI]:
    api = FakeAPI(good_keys={"good-key-1234567890"})
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    api.port = server.server_port
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated config folder: MEMO_CONFIG points into tmp_path, no key leaks in."""
    folder = tmp_path / "config"
    monkeypatch.setenv("MEMO_CONFIG", str(folder / "config.yaml"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for variable in (
        "MEMO_SECRETS",
        "MEMO_SPEND_DB",
        "CLOUDFLARE_ACCOUNT_ID",
        "CLOUDFLARE_API_TOKEN",
        "COHERE_API_KEY",
        "GROQ_API_KEY",
        "OPENAI_API_KEY",
        "MEMO_WHISPER_API_KEY",
        "MEMO_WHISPER_API_BASE",
        "MEMO_LLM_API_KEY",
        "MEMO_CLOUDFLARE_BASE_URL",
    ):
        monkeypatch.delenv(variable, raising=False)
    return folder
