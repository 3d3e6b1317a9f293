"""The SSRF guard: a URL may only reach public internet addresses.

The host name is resolved here, every address it resolves to is checked, and the
caller connects to the checked address itself (the host name only travels in the
``Host`` header and TLS SNI), so DNS cannot answer differently between the check
and the connection. Every redirect goes through the same check again.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from memo_core.errors import ExtractionError, UnsafeURLError
from memo_core.ingest.policy import IngestPolicy

__all__ = ["CheckedURL", "check_url", "is_public_address", "resolve_host"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class CheckedURL:
    """A URL whose address passed the guard, and how to connect to exactly that address."""

    url: str
    scheme: str
    host: str
    port: int
    address: IPAddress

    @property
    def connect_url(self) -> str:
        """The URL with its host replaced by the checked IP address."""
        parts = urlsplit(self.url)
        ip = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return urlunsplit((parts.scheme, f"{ip}:{self.port}", parts.path or "/", parts.query, ""))

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


#: Special-purpose blocks that Python's ``is_global`` still calls global, or that
#: carry another address inside them. ``ipaddress`` knows the IANA registries'
#: "globally reachable" column, which is right for almost everything; these are
#: the exceptions a fetcher must not reach (IANA special-purpose registries).
_NOT_PUBLIC = tuple(
    ipaddress.ip_network(block)
    for block in (
        "192.0.0.0/24",  # IETF protocol assignments, whole block (192.0.0.9/.10 included)
        "192.88.99.0/24",  # deprecated 6to4 relay anycast
        "fec0::/10",  # deprecated site-local: routed inside a site, never on the internet
        "64:ff9b:1::/48",  # local-use NAT64 (RFC 8215)
        "100::/64",  # discard-only
        "2001::/23",  # IETF protocol assignments (Teredo, ORCHID, benchmarking...)
        "2001:db8::/32",  # documentation
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def is_public_address(address: IPAddress) -> bool:
    """True only for globally routable unicast addresses.

    Python's ``is_global`` (the IANA special-purpose registries) decides, minus
    :data:`_NOT_PUBLIC`. An IPv6 address that embeds an IPv4 one (IPv4-mapped,
    6to4, well-known NAT64) is judged by the IPv4 address it reaches.
    """
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(embedded)
        if address.teredo is not None:
            return False
    if any(address in block for block in _NOT_PUBLIC if block.version == address.version):
        return False
    return bool(
        address.is_global
        and not (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or address.is_multicast
            or address.is_reserved
            or address.is_unspecified
        )
    )


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (tests monkeypatch this to fake DNS)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise ExtractionError(f"cannot resolve {host}: {exc}") from None
    addresses: list[IPAddress] = []
    for info in infos:
        raw = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        address = ipaddress.ip_address(raw)
        if address not in addresses:
            addresses.append(address)
    return addresses


def check_url(url: str, policy: IngestPolicy) -> CheckedURL:
    """Parse ``url``, resolve its host and refuse it unless every address is public.

    Raises UnsafeURLError for a refused scheme or address; a host listed in
    ``policy.allow_hosts`` (or any host with ``allow_private_urls``) skips the
    address check.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"malformed URL {url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UnsafeURLError(f"only http and https URLs are fetched, not {scheme or 'no scheme'}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise UnsafeURLError(f"URL without a host: {url!r}")
    if parts.username or parts.password:
        raise UnsafeURLError("URLs with credentials are not fetched")
    port = port or (443 if scheme == "https" else 80)
    try:
        addresses: list[IPAddress] = [ipaddress.ip_address(host)]
    except ValueError:
        addresses = resolve_host(host, port)
    if not addresses:
        raise ExtractionError(f"{host} resolves to no address")
    exempt = policy.allow_private_urls or host in policy.allow_hosts
    if not exempt:
        for address in addresses:
            if not is_public_address(address):
                raise UnsafeURLError(
                    f"refusing {url}: {host} resolves to {address}, which is not a public address"
                )
    return CheckedURL(url=url, scheme=scheme, host=host, port=port, address=addresses[0])
