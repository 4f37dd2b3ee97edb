"""What a table needs of one connection, named here so that the tables never import the edge.

The edge's `Connection` (hub/edge/connection.py) is the one implementation; a room, its audiences
and its contests hold peers, send them frames already encoded once per audience, and close them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from hub.tables.arbitration import KernelRtt, RoundTrips
from hub.tables.frames import Encoded


class Peer(Protocol):
    #: the seat the connection's token owns, None for a spectator
    seat: int | None
    #: never reused in a process: names the connection across processes (a seat's holder)
    serial: int
    #: round trips measured by the server's pings, for judging contests
    round_trips: RoundTrips

    def send(self, frame: Encoded) -> None: ...
    def send_frame(self, frame: dict[str, Any]) -> None: ...
    def send_timed(self, frame: dict[str, Any], written: Callable[[float], None]) -> None: ...
    def error(self, act_id: Any, code: str, message: str) -> None: ...
    def close(self, code: int, reason: str, now: bool = False) -> None: ...
    def ping(self) -> None: ...
    def tick(self, now: float) -> None: ...
    def kernel_rtt(self) -> KernelRtt | None:
        """The kernel's round trip of the client's own TCP connection now; None where this process
        does not hold it (a proxy in front, or the kernel bound is off)."""
        ...
