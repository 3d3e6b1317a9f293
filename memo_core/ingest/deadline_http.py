"""An httpx transport whose every socket operation shares one deadline.

httpx's timeouts apply to each operation: a read timeout of 3 s is met by a
server that sends one header byte per second, forever (slow loris). Here every
connect, TLS handshake, write and read gets at most the time left until the
fetch's deadline, and fails at once when none is left, so connecting, the
headers, the body and every redirect hop together cannot outlast it. (CPython
bounds a whole TLS handshake by the socket timeout, so the handshake is covered
too.) Imported only when a URL is fetched: it needs the ``web`` extra.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

__all__ = ["deadline_transport"]


def _left(deadline: float, timeout: float | None, error: type[Exception]) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise error("the fetch deadline has passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(self._deadline, timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(self._deadline, timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(self._deadline, timeout, httpcore.ConnectTimeout)
        inner = self._inner.start_tls(ssl_context, server_hostname, left)
        return _DeadlineStream(inner, self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, deadline: float) -> None:
        self._inner = httpcore.SyncBackend()
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(self._deadline, timeout, httpcore.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, left, local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("memo fetches over TCP only")

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, self._deadline - time.monotonic())))


def deadline_transport(deadline: float) -> httpx.HTTPTransport:
    """An ``httpx.HTTPTransport`` (no proxy, no retries) whose sockets stop at ``deadline``.

    ``deadline`` is a :func:`time.monotonic` value. httpx has no public hook for a
    network backend, so the transport's connection pool is replaced by one built
    with it; ``tests/ingest/test_ingest_web.py`` (slow loris) fails if httpx
    stops using it.
    """
    transport = httpx.HTTPTransport(trust_env=False)
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(),
        max_connections=1,
        network_backend=_DeadlineBackend(deadline),
    )
    return transport
