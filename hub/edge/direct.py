"""Writing a frame straight into a WebSocket's protocol, when nothing waits before it.

A frame that leaves through the connection's writer task costs a task wake-up, Starlette's send,
its exception wrapper and uvicorn's send coroutine before the protocol frames it: 25-31 us of CPU
per delivery against 11-12 for a bare `websockets.broadcast` server (bench/fanout.py), which frames
and writes in the caller's step. When a connection's queue is empty and no frame is in flight, the
hub does the same, and better for a broadcast: a server's frames are not masked, so without
extensions (permessage-deflate is off by default) one payload's frame is the same bytes for every
connection, made once (`websockets.frames.Frame`) and written to each transport.

A transport that still holds bytes the socket has not taken (a reader behind by a little) takes the
frame too, up to `HOLD_BYTES`: the event loop sends everything it holds together once the socket
can take it (uvloop in one `writev`), so the waiting frames cost one system call and no task, and
an idle table's frames, which meet an empty transport, are written at once as before. Past
`HOLD_BYTES`, and for anything else (paused writing, a protocol that is not open, an extension, a
fragmented message under way), frames go through the queue and the writer, so a reader that stops
reading still fills its bounded queue and is closed (4008) rather than growing the transport's
buffer. A timed frame (a seat's ping, whose round trip starts when it is written) is written here
only to an empty transport: held bytes before it would count as the client's delay.

This reaches below the ASGI interface into uvicorn's `websockets-sansio` protocol; with any other
`--ws` implementation, or should that class change shape, there is no direct writer and every
frame takes the writer.
"""
from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - uvicorn without that implementation
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

from websockets.frames import Frame, Opcode
from websockets.protocol import State

#: Where the app's outermost layer leaves the server's own `send` in a WebSocket's scope.
SCOPE_KEY = "hub.send"
#: What a transport may hold unsent and still take a frame directly: a quarter of asyncio's and
#: uvloop's default high-water mark (64 KiB), so the transport never pauses before the queue's bound
#: takes over. Under uvloop the bytes held are references to the broadcast's shared frames.
HOLD_BYTES = 16 * 1024
#: What `Direct.write` answers: not written (the frame must take the queue), written to a transport
#: that held nothing, written behind bytes it held.
REFUSED, WRITTEN, WRITTEN_BEHIND = -1, 0, 1


def direct_writer(send: Any) -> Direct | None:
    """What writes one frame now and says whether it did (`write`), for the protocol behind the
    server's `send`; None where that is not uvicorn's sans-I/O protocol."""
    proto = getattr(send, "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(proto, WebSocketsSansIOProtocol):
        return None
    needed = ("conn", "transport", "close_sent", "disconnected")
    if not all(hasattr(proto, name) for name in needed):
        return None
    if proto.conn.extensions:  # negotiated at the handshake, which is over: a frame is not the same bytes for all
        return None
    return Direct(proto)


def release_handshake(send: Any) -> None:
    """Let go of the handshake's request and response, once the WebSocket is open.

    uvicorn's sans-I/O protocol keeps both (`request`, `response`: `websockets` objects with their
    headers, about 4 KiB per connection in bench/memory.py) for as long as the connection lives,
    though it reads the response only to accept and the request never after; the request's headers
    live on in the scope. Only an open connection's are dropped; with another implementation, or
    should the class change shape, nothing is touched and they stay."""
    proto = getattr(send, "__self__", None)
    if WebSocketsSansIOProtocol is None or not isinstance(proto, WebSocketsSansIOProtocol):
        return
    if getattr(proto, "handshake_complete", False) is not True or getattr(proto, "initial_response", None) is not None:
        return
    held = vars(proto)
    for name in ("request", "response"):
        if name in held:
            held[name] = None


class Direct:
    """The checks and the write, with what they read held in slots of one object: at thousands of
    connections per broadcast, every other object a delivery touches is another cache miss."""

    __slots__ = ("proto", "conn", "transport")

    def __init__(self, proto: Any) -> None:
        self.proto, self.conn, self.transport = proto, proto.conn, proto.transport

    def write(self, data: bytes | str, hold: int = HOLD_BYTES) -> int:
        """REFUSED, WRITTEN or WRITTEN_BEHIND; `hold` is the most the transport may hold before."""
        transport, proto, conn = self.transport, self.proto, self.conn
        held = transport.get_write_buffer_size()
        if (held > hold or proto.close_sent or proto.disconnected or transport.is_closing()
                or conn.state is not State.OPEN or conn.expect_continuation_frame):
            return REFUSED
        transport.write(wire(data))
        return WRITTEN_BEHIND if held else WRITTEN


_last: list[Any] = [None, b""]  # the payload last framed (held, so its identity stays its own) and its frame


def wire(data: bytes | str) -> bytes:
    """A whole unmasked frame of one payload; a broadcast hands the same payload to every connection
    in a row, so it is framed once."""
    if data is _last[0]:
        framed: bytes = _last[1]
        return framed
    if isinstance(data, bytes):
        framed = Frame(Opcode.BINARY, data).serialize(mask=False)
    else:
        framed = Frame(Opcode.TEXT, data.encode()).serialize(mask=False)
    _last[0], _last[1] = data, framed
    return framed


class KeepSend:
    """ASGI middleware, outermost in the app: Starlette wraps `send` on the way in (its exception
    handler), so the connection finds the server's own here. It returns the app's coroutine rather
    than awaiting it: a frame of its own would be held by every WebSocket for its whole life."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, scope: Any, receive: Any, send: Any) -> Awaitable[None]:
        if scope.get("type") == "websocket":
            scope[SCOPE_KEY] = send
        result: Awaitable[None] = self.app(scope, receive, send)
        return result
