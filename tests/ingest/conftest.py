"""Fixtures for the ingest tests: a policy rooted in tmp_path, fixture generators,
and a tiny HTTP server on 127.0.0.1 for the network paths."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import struct
import sys
import threading
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memo_core.ingest import IngestPolicy

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _load_samples_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "memo_make_samples", REPO / "tests" / "ingest" / "make_samples.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def samples_module() -> ModuleType:
    return _load_samples_module()


@pytest.fixture(scope="session")
def build_pdf(samples_module: ModuleType) -> Callable[..., bytes]:
    """``build_pdf(pages, title=...)``: the hand-written PDF writer samples use."""
    return samples_module.build_pdf  # type: ignore[no-any-return]


@pytest.fixture
def policy(tmp_path: Path) -> IngestPolicy:
    return IngestPolicy(allowed_roots=[tmp_path])


def _make_docx(
    paragraphs: list[tuple[str | None, str]], table: list[list[str]] | None = None
) -> bytes:
    """A DOCX with (style, text) paragraphs and an optional table, via python-docx."""
    import docx

    document = docx.Document()
    for style, text in paragraphs:
        document.add_paragraph(text, style=style)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _make_wav(path: Path, seconds: float, *, rate: int = 8000, channels: int = 1) -> Path:
    """A quiet sine tone, PCM 16-bit: enough audio for the splitter and fake models."""
    frames = bytearray()
    for n in range(int(seconds * rate)):
        sample = int(3000 * math.sin(2 * math.pi * 440 * n / rate))
        frames += struct.pack("<h", sample) * channels
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(bytes(frames))
    return path


@pytest.fixture
def make_docx() -> Callable[..., bytes]:
    pytest.importorskip("docx", reason="python-docx (the docx extra) is not installed")
    return _make_docx


@pytest.fixture
def make_wav() -> Callable[..., Path]:
    return _make_wav


@dataclass
class Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: Send no Content-Length and close the connection to end the body.
    unsized: bool = False
    handler: Callable[[BaseHTTPRequestHandler, bytes], tuple[int, dict[str, str], bytes]] | None = (
        None
    )


@dataclass
class LocalServer:
    """A loopback HTTP server whose routes the test defines; records every request."""

    routes: dict[str, Route]
    port: int = 0
    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, **route: Any) -> None:
        """Serve ``Route(**route)`` at ``path``."""
        self.routes[path] = Route(**route)

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.add(path, status=status, headers={"Location": location})


def _handler_for(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            server.requests.append((self.command, self.path, dict(self.headers), body))
            route = server.routes.get(self.path.split("?")[0])
            if route is None:
                status, headers, payload = 404, {"Content-Type": "text/plain"}, b"not found"
            elif route.handler is not None:
                status, headers, payload = route.handler(self, body)
            else:
                status, headers, payload = route.status, route.headers, route.body
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if route is not None and route.unsized:
                self.close_connection = True
            elif "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            # The client may give up on purpose (size or time limit tests).
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(payload)

        do_GET = _serve
        do_POST = _serve

    return Handler


@pytest.fixture
def local_server() -> Iterator[LocalServer]:
    state = LocalServer(routes={})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(params=["trafilatura", "stdlib"])
def extractor(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each HTML test runs with trafilatura (when installed) and with the stdlib reader."""
    if request.param == "trafilatura":
        pytest.importorskip("trafilatura", reason="trafilatura (the web extra) is not installed")
    else:
        monkeypatch.setitem(sys.modules, "trafilatura", None)  # as if not installed
    return str(request.param)


@pytest.fixture
def reingest(
    tmp_path: Path, policy: IngestPolicy
) -> Callable[[Path, Callable[[pytest.MonkeyPatch], None]], tuple[str, str]]:
    """``reingest(path, old_reading)``: the text a base stored for ``path`` when it was
    ingested with ``old_reading`` patched in, and after ingesting it again with today's
    reading (which must update that one document, not leave it unchanged)."""
    from memo_core.kb import MemoBase
    from memo_core.kb.ingest import ingest_sources

    def run(path: Path, old_reading: Callable[[pytest.MonkeyPatch], None]) -> tuple[str, str]:
        with MemoBase(tmp_path / "kb.db", embedder=None) as kb:

            def stored_text() -> str:
                [doc] = kb.list_documents()
                return kb.document_slice(doc.id, 0, 1_000_000) or ""

            with pytest.MonkeyPatch.context() as old:
                old_reading(old)
                assert len(ingest_sources(kb, [path], policy=policy).added) == 1
            before = stored_text()
            report = ingest_sources(kb, [path], policy=policy)
            assert len(report.updated) == 1 and not report.unchanged
            return before, stored_text()

    return run
