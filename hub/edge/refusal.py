"""The WebSocket protocol that refuses an oversized frame without resetting the connection.

uvicorn's `websockets-sansio` protocol refuses a frame over `ws_max_size` from its header (nothing of
its payload is kept), sends the close frame (1009) and closes the socket at once. A client still
sending that frame then meets a connection reset and never reads the 1009 the contract promises
(PROTOCOL.md, close codes). Here the close frame goes out and the socket stays open while the client
finishes: what it still sends is read and dropped (the sans-I/O protocol discards after a failure, so
memory stays flat), and the socket closes once the client has been quiet for `QUIET_S` (it has sent
its frame and its close reply), when it ends its side, or after `DRAIN_S` at the latest. Closing
with nothing unread sends a FIN, not a reset, so the client reads the 1009. (Ending our side at
once with a half-close would be the RFC's way too, but a Python `websockets` client that meets the
end of the stream while still sending trips over its own transport.)

It is also where a connection's incoming queue and its writability are made lighter: uvicorn's
`asyncio.Queue` and `asyncio.Event` are 4.1 KiB per connection in deques on CPython 3.11, replaced
here by the few slots of hub/edge/inbox.py (bench/memory.py). This reaches into the protocol's
attributes (`queue`, `writable`) beyond the direct writer's reach (hub/edge/direct.py), because
no setting of uvicorn's chooses them; should they not be the asyncio types this knows, they stay.
"""
from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from hub.edge.inbox import Inbox, Writable

#: The longest a refused connection may keep sending before it is closed regardless.
DRAIN_S = 5.0
#: A refused connection that sent nothing for this long has finished: it is closed.
QUIET_S = 0.25


class RefusingProtocol(WebSocketsSansIOProtocol):
    # class defaults: an instance gains these attributes only when it refuses
    _refused = False
    _quiet: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        queue, writable = getattr(self, "queue", None), getattr(self, "writable", None)
        if type(queue) is asyncio.Queue and queue.empty():
            self.queue = Inbox()  # type: ignore[assignment]
        if type(writable) is asyncio.Event:
            lean = Writable()
            if writable.is_set():
                lean.set()
            self.writable = lean  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._refused:
            self.conn.receive_data(data)  # dropped: the parser discards after a failure
            self.conn.data_to_send()
            self._arm_quiet()
            return
        super().data_received(data)

    def handle_parser_exception(self) -> None:
        assert self.conn.close_sent is not None
        self._refused = True
        code, reason = self.conn.close_sent.code, self.conn.close_sent.reason
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        transport: Any = self.transport
        transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:  # reads may wait on the app; what comes now is only dropped
            self.read_paused = False
            transport.resume_reading()
        # uvicorn closes the socket when the app returns unless a close timer runs: this is the cap
        self.close_timer = self.loop.call_later(DRAIN_S, self._finish)
        self._arm_quiet()

    def eof_received(self) -> None:
        if self._refused:  # the client ended its side: the refusal is complete
            self._finish()

    def _arm_quiet(self) -> None:
        if self._quiet is not None:
            self._quiet.cancel()
        self._quiet = self.loop.call_later(QUIET_S, self._finish)

    def _finish(self) -> None:
        for timer in (self._quiet, self.close_timer):
            if timer is not None:
                timer.cancel()
        self._quiet = self.close_timer = None
        self.transport.close()
