"""The kernel's own round-trip estimate of a TCP connection (Linux `TCP_INFO`).

A client can hold back any frame it sends (its pongs, its `seen`), but not its kernel's TCP
acknowledgements: the kernel of this process times those, and a contest's network allowance is
bounded by what it measured (hub.tables.arbitration.kernel_bound). Only Linux fills `struct tcp_info`
this way; elsewhere, or on a socket that is not TCP, there is no measurement and `read` gives None.

The offsets are those of `struct tcp_info` in linux/tcp.h, stable since the fields were added (the
struct only grows at its end): eight one-byte fields, then 32-bit fields from `tcpi_rto` at 8, so
`tcpi_rtt` at 68 and `tcpi_rttvar` at 72 (microseconds); after four 64-bit counters from 104 and four
32-bit ones from 136, `tcpi_min_rtt` at 148 (microseconds, Linux 4.6 and later).
"""
from __future__ import annotations

import socket
import struct
import sys
from typing import Protocol

from hub.tables.arbitration import KernelRtt

TCP_INFO = getattr(socket, "TCP_INFO", 11)
RTT_AT, RTTVAR_AT, MIN_RTT_AT = 68, 72, 148
BUFFER = 232  # what Linux 5.x and 6.x fill; a shorter answer from an older kernel is checked below


class Sock(Protocol):
    """A socket, or asyncio's TransportSocket around one (what a transport's `socket` extra is)."""

    def getsockopt(self, level: int, option: int, buflen: int) -> bytes: ...


def parse(raw: bytes) -> KernelRtt | None:
    """The round trip in a `struct tcp_info`; None if it is too short to hold `tcpi_min_rtt` or no
    round trip has been measured yet."""
    if len(raw) < MIN_RTT_AT + 4:
        return None
    rtt, rttvar = struct.unpack_from("=II", raw, RTT_AT)
    (min_rtt,) = struct.unpack_from("=I", raw, MIN_RTT_AT)
    if rtt == 0 or min_rtt in (0, 0xFFFFFFFF):  # ~0U: no sample yet
        return None
    return KernelRtt(rtt / 1000, rttvar / 1000, min_rtt / 1000)


def read(sock: Sock | None) -> KernelRtt | None:
    """This socket's measurement now, or None (not Linux, not TCP, closed)."""
    if sock is None or not sys.platform.startswith("linux"):
        return None
    try:
        return parse(sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, BUFFER))
    except OSError:
        return None
