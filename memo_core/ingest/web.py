"""Web pages by URL: a guarded fetch, then the page's main text (the ``web`` extra).

Redirects are followed by hand, one hop at a time, each target passing the SSRF
guard before any connection is made to it. The body streams under a size limit.
One deadline (``policy.http_timeout``) covers the whole fetch: connecting, the
headers, the body and every redirect hop share it, down to each socket read
(:mod:`memo_core.ingest.deadline_http`), so a server dripping one byte a second
is cut at the deadline. Proxies from the environment are ignored, since a proxy
would connect to addresses the guard never saw.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urljoin

from memo_core.errors import ExtractionError, UnsupportedSourceError
from memo_core.ingest.decoding import decode_text, sniff_format
from memo_core.ingest.deps import require
from memo_core.ingest.htmltext import extract_html
from memo_core.ingest.markdown import extract_markdown, extract_plain_text
from memo_core.ingest.pdf import extract_pdf
from memo_core.ingest.policy import IngestPolicy
from memo_core.ingest.types import ExtractedDocument
from memo_core.ingest.urlguard import check_url

__all__ = ["FetchedResource", "extract_url", "fetch_url"]

USER_AGENT = "memo/0.1 (knowledge-base ingest)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class FetchedResource:
    """A fetched body with the URL it finally came from."""

    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes


def fetch_url(url: str, policy: IngestPolicy, *, transport: Any = None) -> FetchedResource:
    """GET ``url`` within the policy's address, redirect, size and time limits.

    ``transport`` is an optional httpx transport (tests use it to observe requests).
    """
    httpx = require("httpx", package="httpx", extra="web", feature="web pages")
    from memo_core.ingest.deadline_http import deadline_transport

    deadline = time.monotonic() + policy.http_timeout
    current = url
    with httpx.Client(
        timeout=httpx.Timeout(policy.http_timeout),
        follow_redirects=False,
        trust_env=False,
        transport=transport if transport is not None else deadline_transport(deadline),
    ) as client:
        for _ in range(policy.http_max_redirects + 1):
            target = check_url(current, policy)
            extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
            request = client.build_request(
                "GET",
                target.connect_url,
                headers={"Host": target.host_header, "User-Agent": USER_AGENT, "Accept": "*/*"},
                extensions=extensions,
            )
            try:
                response = client.send(request, stream=True)
            except httpx.TimeoutException:
                raise _late(current, policy) from None
            except httpx.HTTPError as exc:
                raise ExtractionError(
                    f"cannot fetch {current}: {exc.__class__.__name__}: {exc}"
                ) from None
            try:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    current = urljoin(current, location)
                    continue
                if response.status_code >= 400:
                    raise ExtractionError(f"{current} answered HTTP {response.status_code}")
                body = _read_limited(response, policy, deadline, current, httpx)
                content_type, charset = _content_type(response.headers.get("content-type", ""))
                return FetchedResource(
                    url, current, response.status_code, content_type, charset, body
                )
            finally:
                response.close()
    raise ExtractionError(f"{url}: more than {policy.http_max_redirects} redirects")


def _read_limited(
    response: Any, policy: IngestPolicy, deadline: float, url: str, httpx: Any
) -> bytes:
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > policy.http_max_bytes:
        raise ExtractionError(
            f"{url} is {declared} bytes, over the limit of {policy.http_max_bytes}"
        )
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > policy.http_max_bytes:
                raise ExtractionError(
                    f"{url} is over the size limit of {policy.http_max_bytes} bytes"
                )
            if time.monotonic() > deadline:
                raise _late(url, policy)
            chunks.append(chunk)
    except httpx.TimeoutException:
        raise _late(url, policy) from None
    except httpx.HTTPError as exc:
        raise ExtractionError(f"cannot fetch {url}: {exc.__class__.__name__}: {exc}") from None
    return b"".join(chunks)


def _late(url: str, policy: IngestPolicy) -> ExtractionError:
    return ExtractionError(
        f"{url}: no complete answer within {policy.http_timeout:g} s (http_timeout)"
    )


def _content_type(header: str) -> tuple[str, str | None]:
    media, _, params = header.partition(";")
    match = re.search(r"charset\s*=\s*\"?([A-Za-z0-9_\-]+)", params, re.IGNORECASE)
    return media.strip().lower(), match.group(1) if match else None


def _decode(body: bytes, charset: str | None, url: str) -> str:
    declared = charset
    if declared is None:
        meta = _META_CHARSET.search(body[:4096])
        declared = meta.group(1).decode("ascii") if meta else None
    if declared:
        try:
            return body.decode(declared, errors="replace")
        except LookupError:
            pass  # an unknown charset name: detect instead
    text, _ = decode_text(body, name=url)
    return text


def extract_url(url: str, policy: IngestPolicy, *, transport: Any = None) -> ExtractedDocument:
    """Fetch ``url`` and extract it: HTML main text, plain text, Markdown or PDF."""
    fetched = fetch_url(url, policy, transport=transport)
    if not fetched.body.strip():
        raise UnsupportedSourceError(f"{url} returned an empty body")
    kind = fetched.content_type
    sniffed = sniff_format(fetched.body)
    metadata: dict[str, Any] = {"final_url": fetched.final_url, "content_type": kind}
    default_title = fetched.final_url
    if kind == "application/pdf" or sniffed == "pdf":
        doc = extract_pdf(fetched.body, source=url, title=default_title, policy=policy)
        return replace(doc, metadata={**doc.metadata, **metadata})
    if kind in ("text/html", "application/xhtml+xml") or (not kind and sniffed == "html"):
        text = _decode(fetched.body, fetched.charset, url)
        return extract_html(
            text, source=url, default_title=default_title, kind="web", metadata=metadata
        )
    if kind in ("text/markdown", "text/x-markdown"):
        text = _decode(fetched.body, fetched.charset, url)
        return extract_markdown(
            text, source=url, default_title=default_title, kind="web", metadata=metadata
        )
    if kind.startswith("text/") or (not kind and sniffed is None):
        text = _decode(fetched.body, fetched.charset, url)
        doc = extract_plain_text(text, source=url, title=default_title, metadata=metadata)
        return replace(doc, kind="web")
    raise UnsupportedSourceError(
        f"{url} has content type {kind or 'unknown'}, which memo cannot read"
    )
