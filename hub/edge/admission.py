"""WebSockets per address: how many one address holds open, and how many of those have not said
hello yet. Both are the edge's to count, where the sockets are: a connection is refused at the door
(4008) before it costs a room anything (docs/security.md)."""
from __future__ import annotations

from collections import Counter

from hub.settings import Settings


class Admission:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.conns_by_ip: Counter[str] = Counter()  # open connections per address, counted in O(1)
        self.pending_by_ip: Counter[str] = Counter()  # of which not past their hello yet

    def admit(self, ip: str) -> bool:
        """Count a new connection from `ip`, or refuse it when the address holds its share already."""
        limit = self.settings.conns_per_ip
        if limit > 0 and self.conns_by_ip[ip] >= limit:
            return False
        self.conns_by_ip[ip] += 1
        return True

    def admit_pending(self, ip: str) -> bool:
        """Count a WebSocket from `ip` that has not said hello yet, or refuse it past its address's share."""
        limit = self.settings.pending_ws_per_ip
        if limit > 0 and self.pending_by_ip[ip] >= limit:
            return False
        self.pending_by_ip[ip] += 1
        return True

    def said_hello(self, ip: str) -> None:
        self.pending_by_ip[ip] -= 1
        if self.pending_by_ip[ip] <= 0:
            del self.pending_by_ip[ip]

    def release(self, ip: str) -> None:
        self.conns_by_ip[ip] -= 1
        if self.conns_by_ip[ip] <= 0:
            del self.conns_by_ip[ip]
