"""What the hub reads and sets on a WebSocket's own TCP socket: whose round trip bounds a contest
(the client's socket, or what a trusted proxy measured of it) and the kernel's send buffer."""
from __future__ import annotations

import contextlib
import ipaddress
import socket
from typing import Any

from starlette.websockets import WebSocket

from hub.edge import tcpinfo
from hub.edge.direct import SCOPE_KEY
from hub.edge.proxies import SCOPE_PROXIED, SCOPE_RTT
from hub.tables.arbitration import KernelRtt


def proxy_rtt(ws: WebSocket) -> KernelRtt | None:
    """What a trusted proxy's kernel measured of the client's own connection (`X-Client-RTT`): its
    smoothed round trip as the handshake passed, taken as the lowest too (the proxy sends one value)."""
    rtt = ws.scope.get(SCOPE_RTT)
    if not isinstance(rtt, float):
        return None
    return KernelRtt(rtt, 0.0, rtt)


def client_socket(ws: WebSocket) -> tcpinfo.Sock | None:
    """The TCP socket of the client itself, or None where the hub cannot see it: a trusted proxy
    or a loopback peer (a proxy or a tunnel on this host) terminated the client's connection, and its
    kernel's round trip would be that of the last hop, not the client's. Forwarding headers from
    anyone else are ignored (hub/edge/proxies.py): the connection is the sender's own, and bound by it."""
    if ws.scope.get(SCOPE_PROXIED):
        return None
    peer = ws.scope.get("client") or ("", 0)
    try:
        addr = ipaddress.ip_address(str(peer[0]))
        mapped = addr.ipv4_mapped if isinstance(addr, ipaddress.IPv6Address) else None
        if addr.is_loopback or (mapped is not None and mapped.is_loopback):
            return None
    except ValueError:
        return None  # a Unix socket or no address: not the client's TCP connection
    protocol = getattr(ws.scope.get(SCOPE_KEY), "__self__", None)
    transport = getattr(protocol, "transport", None)
    sock: Any = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        return None
    found: tcpinfo.Sock = sock
    return found


def bound_send_buffer(ws: WebSocket, size: int) -> None:
    """Fix the socket's kernel send buffer. Left to itself, the kernel grows a connection's buffer to
    megabytes (on loopback, whose segments are 64 KiB, at once): a reader that stops reading would hold
    that much of the machine's memory, and take that many frames, before the send queue noticed it
    (4008). A table's bursts are kilobytes, so a fixed 256 KiB costs a reader nothing."""
    protocol = getattr(ws.scope.get(SCOPE_KEY), "__self__", None)
    transport = getattr(protocol, "transport", None)
    sock: Any = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)
