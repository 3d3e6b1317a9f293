"""Web pages by URL and the SSRF guard, against servers on 127.0.0.1 only."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from memo_core.errors import ExtractionError, UnsafeURLError, UnsupportedSourceError
from memo_core.ingest import (
    ExtractedDocument,
    IngestPolicy,
    check_url,
    extract,
    is_public_address,
    urlguard,
)

pytest.importorskip("httpx", reason="httpx (the web extra) is not installed")

pytestmark = pytest.mark.network

PAGE = b"""<html><head><title>Release notes</title></head><body><main>
<h1>Release 2.0</h1><p>Version 2.0 adds offline search and a new citation checker for answers.</p>
<h2>Upgrading</h2><p>Run the migration command once; it keeps a backup of the old database file.</p>
</main></body></html>"""


def _fake_dns(monkeypatch: pytest.MonkeyPatch, table: dict[str, list[str]]) -> None:
    def resolve(host: str, port: int) -> list[Any]:
        if host not in table:
            raise ExtractionError(f"cannot resolve {host}")
        return [ipaddress.ip_address(a) for a in table[host]]

    monkeypatch.setattr(urlguard, "resolve_host", resolve)


def _loopback(**kw: Any) -> IngestPolicy:
    return IngestPolicy(allowed_roots=[], allow_hosts=frozenset({"127.0.0.1"}), **kw)


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("93.184.216.34", True),
        ("2606:4700::1111", True),
        ("127.0.0.1", False),
        ("127.8.9.10", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("255.255.255.255", False),
        ("240.0.0.1", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("2002:7f00:1::", False),
        ("::ffff:93.184.216.34", True),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is public


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://10.0.0.5:8080/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://internal.test/",
        "http://mixed.test/",
        "http://metadata.test/",
    ],
)
def test_private_targets_are_refused(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    _fake_dns(
        monkeypatch,
        {
            "internal.test": ["10.20.30.40"],
            "mixed.test": [
                "93.184.216.34",
                "192.168.0.10",
            ],  # one private answer is enough to refuse
            "metadata.test": ["fd00:ec2::254"],
        },
    )
    with pytest.raises(UnsafeURLError):
        check_url(url, IngestPolicy(allowed_roots=[]))


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/x",
        "gopher://x/",
        "http:///nohost",
        "http://user:pw@example.org/",
    ],
)
def test_bad_schemes_and_shapes_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError):
        check_url(url, IngestPolicy(allowed_roots=[]))
    with pytest.raises(UnsafeURLError):
        extract(url, policy=IngestPolicy(allowed_roots=[]))


def test_public_name_passes_and_pins_its_address(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_dns(monkeypatch, {"example.test": ["93.184.216.34"]})
    checked = check_url("https://Example.TEST/a/b?q=1#frag", IngestPolicy(allowed_roots=[]))
    assert checked.connect_url == "https://93.184.216.34:443/a/b?q=1"
    assert checked.host_header == "example.test"


def test_fetch_page_from_loopback_with_the_test_override(local_server: Any) -> None:
    local_server.add("/notes", headers={"Content-Type": "text/html; charset=utf-8"}, body=PAGE)
    doc = extract(local_server.url("/notes"), policy=_loopback())
    assert isinstance(doc, ExtractedDocument)
    assert (
        doc.kind == "web"
        and doc.title == "Release notes"
        and doc.source == local_server.url("/notes")
    )
    assert "offline search" in doc.text
    at = doc.text.index("migration command")
    assert next(s.locator for s in doc.sections if s.start <= at < s.end) == {
        "heading": "Release 2.0 > Upgrading"
    }
    assert local_server.requests[0][2]["Host"] == f"127.0.0.1:{local_server.port}"


def test_loopback_is_refused_without_the_override(local_server: Any) -> None:
    with pytest.raises(UnsafeURLError):
        extract(local_server.url("/notes"), policy=IngestPolicy(allowed_roots=[]))
    assert local_server.requests == []  # refused before connecting


@pytest.mark.parametrize(
    "target",
    [
        "http://10.0.0.1/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://internal.test/",
        "http://localhost:{port}/notes",
        "http://[::1]:{port}/notes",
        "file:///etc/passwd",
    ],
)
def test_redirect_to_a_private_address_is_refused(
    local_server: Any, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    real = urlguard.resolve_host
    monkeypatch.setattr(
        urlguard,
        "resolve_host",
        lambda host, port: (
            [ipaddress.ip_address("10.9.8.7")] if host == "internal.test" else real(host, port)
        ),
    )
    local_server.add("/notes", headers={"Content-Type": "text/html"}, body=PAGE)
    local_server.redirect("/go", target.format(port=local_server.port))
    with pytest.raises(UnsafeURLError):
        extract(local_server.url("/go"), policy=_loopback())
    assert [r[1] for r in local_server.requests] == ["/go"]  # the target was never contacted


def test_redirect_within_the_allowed_host_is_followed(local_server: Any) -> None:
    local_server.redirect("/old", "/new")
    local_server.add("/new", headers={"Content-Type": "text/plain"}, body=b"Moved text lives here.")
    doc = extract(local_server.url("/old"), policy=_loopback())
    assert isinstance(doc, ExtractedDocument) and doc.text == "Moved text lives here."
    assert doc.metadata["final_url"] == local_server.url("/new") and doc.source == local_server.url(
        "/old"
    )


def test_dns_name_is_connected_by_its_checked_address(
    local_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_dns(monkeypatch, {"docs.test": ["127.0.0.1"]})
    local_server.add("/p", headers={"Content-Type": "text/plain"}, body=b"pinned")
    policy = IngestPolicy(allowed_roots=[], allow_hosts=frozenset({"docs.test"}))
    doc = extract(f"http://docs.test:{local_server.port}/p", policy=policy)
    assert isinstance(doc, ExtractedDocument) and doc.text == "pinned"
    assert local_server.requests[0][2]["Host"] == f"docs.test:{local_server.port}"


def test_redirect_loop_is_bounded(local_server: Any) -> None:
    local_server.redirect("/loop", "/loop")
    with pytest.raises(ExtractionError, match="redirects"):
        extract(local_server.url("/loop"), policy=_loopback(http_max_redirects=3))
    assert len(local_server.requests) == 4


def test_size_limits(local_server: Any) -> None:
    big = b"x" * 300_000
    local_server.add("/declared", headers={"Content-Type": "text/plain"}, body=big)
    local_server.add("/streamed", headers={"Content-Type": "text/plain"}, body=big, unsized=True)
    for path in ("/declared", "/streamed"):
        with pytest.raises(ExtractionError, match="limit"):
            extract(local_server.url(path), policy=_loopback(http_max_bytes=100_000))


def test_slow_server_times_out(local_server: Any) -> None:
    def slow(handler: BaseHTTPRequestHandler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        time.sleep(1.0)
        return 200, {"Content-Type": "text/plain"}, b"late"

    local_server.add("/slow", handler=slow)
    with pytest.raises(ExtractionError):
        extract(local_server.url("/slow"), policy=_loopback(http_timeout=0.2))


def test_http_errors_and_unsupported_types(local_server: Any) -> None:
    with pytest.raises(ExtractionError, match="404"):
        extract(local_server.url("/missing"), policy=_loopback())
    local_server.add("/img", headers={"Content-Type": "image/png"}, body=b"\x89PNG\r\n\x1a\n....")
    with pytest.raises(UnsupportedSourceError):
        extract(local_server.url("/img"), policy=_loopback())


def test_pdf_by_url(local_server: Any, build_pdf: Callable[..., bytes], tmp_path: Path) -> None:
    pytest.importorskip("pypdf", reason="pypdf (the pdf extra) is not installed")
    pdf = build_pdf([["Page one text."], ["The fee is 4,500 euros."]], title="Price list")
    local_server.add("/prices.pdf", headers={"Content-Type": "application/pdf"}, body=pdf)
    doc = extract(local_server.url("/prices.pdf"), policy=_loopback())
    assert isinstance(doc, ExtractedDocument)
    assert (
        doc.kind == "pdf"
        and doc.title == "Price list"
        and doc.source == local_server.url("/prices.pdf")
    )
    assert [s.locator for s in doc.sections] == [{"page": 1}, {"page": 2}]


@pytest.mark.parametrize(
    "address",
    [
        "fec0::1",  # deprecated site-local
        "feff::1",
        "192.0.0.1",  # IETF protocol assignments
        "192.0.0.9",  # ... including the two Python calls global
        "192.0.0.10",
        "192.88.99.1",  # 6to4 relay anycast
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "64:ff9b:1::1",  # local-use NAT64
        "2001:db8::1",
        "100::1",
    ],
)
def test_special_purpose_ranges_are_not_public(address: str) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is False


def test_nat64_of_a_public_address_stays_public() -> None:
    assert is_public_address(ipaddress.ip_address("64:ff9b::5db8:d822")) is True
