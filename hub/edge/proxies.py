"""Proxies in front: whose forwarding headers are believed, and the client's round trip they measured.

A forwarding header is a claim anyone can write. Believed from everyone, `X-Forwarded-For` lets one
address pass for many (the lobby's per-address limits count it), and `X-Client-RTT` would let a
client name its own kernel bound. So only a connection from `--trusted-proxies` is read at all:
its `X-Forwarded-For` and `X-Forwarded-Proto` become the scope's client and scheme (the rightmost
address that is not a trusted proxy, as uvicorn's own middleware reads it), and its `X-Client-RTT` (the
proxy's kernel round trip of the client's own TCP connection, in microseconds: nginx's
`$tcpinfo_rtt`, HAProxy's `fc_rtt(us)`) is kept in the scope for the WebSocket's contests
(hub.edge.connection). From any other sender these headers change nothing and are counted, so an
operator who forgot the setting sees it in `/metrics` (`hub_proxy_headers_total`).

uvicorn's own proxy middleware is turned off (hub/run/cli.py): it trusts 127.0.0.1 unless told, and as a
coroutine it held a frame for every WebSocket's whole life; this layer returns the app's coroutine
instead of awaiting it, as `KeepSend` does (hub/edge/direct.py).
"""
from __future__ import annotations

import functools
import ipaddress
from collections.abc import Awaitable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from hub.metrics import Metrics

#: Where a trusted proxy's measured round trip of the client's connection is kept in the scope (ms).
SCOPE_RTT = "hub.client_rtt_ms"
#: Set in the scope when the request came through a trusted proxy.
SCOPE_PROXIED = "hub.proxied"
#: Headers only a proxy may set; any of them from an untrusted sender is counted as ignored.
FORWARDING = frozenset({b"x-forwarded-for", b"x-forwarded-proto", b"forwarded", b"x-real-ip", b"x-client-rtt"})
RTT_HEADER = b"x-client-rtt"
#: The longest round trip believed (a minute, in µs): beyond it the value is malformed, not a path.
RTT_MAX_US = 60_000_000

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(raw: str) -> tuple[Network, ...]:
    """`--trusted-proxies`: addresses or CIDRs, comma-separated; a bad entry stops the hub at start."""
    found: list[Network] = []
    for part in raw.split(","):
        part = part.strip()
        if part:
            try:
                found.append(ipaddress.ip_network(part, strict=False))
            except ValueError as e:
                raise ValueError(f"--trusted-proxies: {part!r} is not an address or a CIDR") from e
    return tuple(found)


def client_rtt_ms(raw: bytes) -> float | None:
    """An `X-Client-RTT` value in ms, or None if it is not a whole number of microseconds in range
    (0 is what nginx writes where it has no measurement: no measurement either)."""
    text = raw.strip()
    if not text.isdigit() or len(text) > 9:
        return None
    us = int(text)
    if us <= 0 or us > RTT_MAX_US:
        return None
    return us / 1000


class TrustedProxies:
    """The outermost layer of the app: believe forwarding headers from the trusted proxies only."""

    def __init__(self, app: ASGIApp, trusted: str, metrics: Metrics) -> None:
        self.app = app
        self.trusted = networks(trusted)
        self.metrics = metrics
        self.trusts = functools.lru_cache(maxsize=4096)(self._trusts)

    def _trusts(self, host: str) -> bool:
        try:
            addr = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        return any(addr in n for n in self.trusted)

    def client_of(self, forwarded_for: str) -> str | None:
        """The client in an `X-Forwarded-For` chain: the rightmost address that is not one of our
        proxies (what is left of it was written by whoever the client was, and proves nothing)."""
        hops = [h.strip() for h in forwarded_for.split(",") if h.strip()]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop
        return hops[0] if hops else None

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] not in ("http", "websocket"):
            return self.app(scope, receive, send)
        headers: list[tuple[bytes, bytes]] = scope.get("headers") or []
        client: Any = scope.get("client")
        if not (self.trusted and client and self.trusts(str(client[0]))):
            if any(name in FORWARDING for name, _ in headers):
                self.metrics.proxy_headers.labels("untrusted").inc()
            return self.app(scope, receive, send)
        # from a trusted proxy, with or without headers: the TCP connection is the proxy's, never the
        # client's, so this process's kernel must not bound it (hub.edge.sockets.client_socket)
        scope[SCOPE_PROXIED] = True
        chain = b",".join(value for name, value in headers if name == b"x-forwarded-for")
        if chain:
            host = self.client_of(chain.decode("latin-1"))
            if host:
                scope["client"] = (host, 0)
        proto = next((value for name, value in headers if name == b"x-forwarded-proto"), None)
        if proto is not None:
            scheme = proto.decode("latin-1").strip().lower()
            if scheme in ("http", "https", "ws", "wss"):
                secure = scheme in ("https", "wss")
                scope["scheme"] = ("wss" if secure else "ws") if scope["type"] == "websocket" else \
                    ("https" if secure else "http")
        if scope["type"] == "websocket":
            raw = next((value for name, value in headers if name == RTT_HEADER), None)
            rtt = client_rtt_ms(raw) if raw is not None else None
            if rtt is not None:
                scope[SCOPE_RTT] = rtt
            self.metrics.proxy_headers.labels("no_rtt" if raw is None else "rtt" if rtt is not None
                                              else "malformed").inc()
        return self.app(scope, receive, send)
