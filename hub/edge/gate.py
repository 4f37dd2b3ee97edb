"""The gate: every TCP connection counted from its first moment, and slow or silent ones closed.

uvicorn keeps a connection that sends nothing, or a request head one byte a second, open for as
long as the client likes, and each one holds a file descriptor. The gate sits in uvicorn's own
HTTP protocol class (`protocols`), below the app, since an idle socket never reaches the app at all:

- a connection must send a whole request head within `--http-timeout-s` of opening, and again of
  each answer, or it is closed;
- open connections are counted: HTTP ones (not yet a WebSocket) per address up to
  `--http-conns-per-ip`, all of them up to `--max-conns` (below the open-file limit: hub/run/fds.py);
- a connection over a limit is not dropped blind: a few of them (`spare`) may stay a moment to
  ask for `/healthz`, `/readyz` or `/metrics`, and any other request gets a clear refusal
  (hub/edge/guard.py: 429 `too_many_connections`, 503 `busy`, or a WebSocket close). When the
  spare places are taken the oldest is closed for the newest, so a monitor that sends its request
  at once gets through a flood of idle sockets. Nothing is kept for a connection the hub closed.
"""
from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections import Counter, OrderedDict
from typing import Any

from hub.logs import log
from hub.metrics import Metrics
from hub.settings import Settings

logger = logging.getLogger("hub.edge.gate")

#: Why a connection is over a limit (what hub/edge/guard.py answers it), and where its requests' scopes say so.
ADDRESS, FULL = "address", "full"
SCOPE_OVER = "hub.over"
#: A spare connection over a limit has this long to ask what it may still ask.
SPARE_S = 2.0
#: Refusals are logged at most once in this many seconds, with how many there were.
LOG_EVERY_S = 10.0


def ip_of(transport: Any) -> str:
    """The peer's address, one string per address however many connections it has ("" off TCP)."""
    info = transport.get_extra_info("peername")
    if isinstance(info, (tuple, list)) and len(info) >= 2:
        return sys.intern(str(info[0]))
    return ""


class Gate:
    """Connections are known by their transports: nothing is made per connection but an entry while
    it speaks HTTP. The total is uvicorn's own set of open connections (HTTP and WebSocket)."""

    def __init__(self, settings: Settings, spare: int, metrics: Metrics) -> None:
        self.max_conns = settings.max_conns
        self.http_per_ip = settings.http_conns_per_ip
        self.timeout_s = settings.http_timeout_s
        self.spare = spare
        self.metrics = metrics
        self.http: dict[Any, str] = {}  # counted connections still speaking HTTP, and their addresses
        self.http_by_ip: Counter[str] = Counter()
        self.over: OrderedDict[Any, str] = OrderedDict()  # the spare ones, oldest first, and the limit they are over
        self.open = 0  # connections open at the last admission
        self._refused: Counter[str] = Counter()
        self._logged_at = float("-inf")

    def admit(self, transport: Any, open_now: int) -> str | None:
        """Count a new connection (`open_now` of them open, itself included); the limit it is over
        (it is then one of the spare), or None."""
        self.open = open_now
        ip = ip_of(transport)
        reason = None
        if self.max_conns > 0 and open_now - 1 - len(self.over) >= self.max_conns:
            reason = FULL
        elif self.http_per_ip > 0 and self.http_by_ip[ip] >= self.http_per_ip:
            reason = ADDRESS
        if reason is None:
            self.http[transport] = ip
            self.http_by_ip[ip] += 1
            return None
        while len(self.over) >= self.spare:
            oldest, _ = self.over.popitem(last=False)
            oldest.abort()
        self.over[transport] = reason
        self.refused(reason)
        return reason

    def upgraded(self, transport: Any) -> None:
        """The connection became a WebSocket: no longer one of its address's HTTP connections."""
        ip = self.http.pop(transport, None)
        if ip is not None:
            self._drop_http(ip)

    def lost(self, transport: Any) -> None:
        self.upgraded(transport)
        self.over.pop(transport, None)

    def reason(self, transport: Any) -> str | None:
        """The limit a connection is over, for the app to answer; None when it is within them."""
        return self.over.get(transport) if transport is not None else None

    def refused(self, reason: str) -> None:
        self.metrics.refused.labels(reason).inc()
        self._refused[reason] += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY_S:
            self._logged_at = now
            log(logger, logging.WARNING, "connections over a limit", **dict(self._refused),
                open=self.open, spare=len(self.over), max_conns=self.max_conns,
                http_conns_per_ip=self.http_per_ip)
            self._refused.clear()

    def _drop_http(self, ip: str) -> None:
        self.http_by_ip[ip] -= 1
        if self.http_by_ip[ip] <= 0:
            del self.http_by_ip[ip]


def protocols(gate: Gate) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class (the one its `auto` chooses), with the gate's counting and
    deadlines added. A WebSocket keeps uvicorn's own class: a subclass of it cost 0.6 KiB per idle
    connection (bench/memory.py), and the gate needs nothing of it (the total is uvicorn's count)."""
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    http_base: Any = import_from_string(HTTP_PROTOCOLS["auto"])

    class GatedHttp(http_base):  # type: ignore[misc]
        """A connection that must send each request head in time, counted while it is open."""

        _over: str | None = None
        _timer: asyncio.TimerHandle | None = None
        _armed_for: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._over = gate.admit(transport, len(self.connections))
            self._arm(SPARE_S if self._over else gate.timeout_s)

        def handle_events(self) -> None:
            super().handle_events()
            # the request's task was made but has not run: the guard reads the limit from its scope,
            # which a proxy's forwarding headers leave alone (they change the scope's client)
            if self._over is not None and self.cycle is not None:
                self.cycle.scope[SCOPE_OVER] = self._over

        def _arm(self, delay: float) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._armed_for = self.cycle  # the request answered last; a new one must begin in time
            self._timer = self.loop.call_later(delay, self._late)

        def _late(self) -> None:
            self._timer = None
            transport = self.transport
            if transport in gate.over:  # a spare place is for a moment, as HTTP or as a WebSocket
                gate.lost(transport)
                transport.abort()
            elif transport.is_closing() or transport.get_protocol() is not self:
                return
            elif self.cycle is self._armed_for and (self.cycle is None or self.cycle.response_complete):
                gate.refused("slow")
                transport.abort()
            # else a request began in time (or, pipelined, is being answered); its answer arms it again

        def handle_websocket_upgrade(self, *args: Any) -> None:
            transport = self.transport
            if transport not in gate.over:
                # a WebSocket now, with its hello's own deadline: a timer left running would keep
                # this HTTP protocol (its parser and buffers, some KiB) alive for the deadline's length
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None
                gate.upgraded(transport)
            super().handle_websocket_upgrade(*args)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.transport not in gate.over:
                self._arm(gate.timeout_s)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            gate.lost(self.transport)
            super().connection_lost(exc)

    return GatedHttp
