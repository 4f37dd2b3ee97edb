"""One WebSocket: hello, decoding and checking frames, limits, and the bounded send queue.

Frames leave through one queue drained by one writer task, so a slow reader costs the room
nothing: when its queue is full it is closed with 4008 and may resume later. The queue and its
writer exist only while frames wait: the writer is started by the frame that must wait and ends
once the queue is empty. An idle connection, nearly all of them at thousands, holds neither (a
waiting writer task, its wake-up event and the queue's deque were 2.6 KiB per connection of the
30.5 KiB measured by bench/memory.py). A frame that would be
first in an empty queue, with nothing in flight and the socket's buffer empty, is written at once
instead (hub/edge/direct.py): the same order, without the writer's wake-up, and so is one meeting a
transport that holds a little (up to `HOLD_BYTES`), which the loop then sends with what it holds in
one system call. (An earlier eager send wrote whenever the queue was empty, however much the socket
still held, and so hid a stalled reader from the queue bound; the bound on what the transport holds
is what keeps it.)
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.types import Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub.edge import tcpinfo
from hub.edge.admission import Admission
from hub.edge.codec import Codec, encode
from hub.edge.direct import HOLD_BYTES, REFUSED, SCOPE_KEY, direct_writer, release_handshake
from hub.edge.protocol import (
    CLOSE_BAD_HELLO,
    CLOSE_NO_ROOM,
    CLOSE_TOO_LARGE,
    CLOSE_TOO_SLOW,
    CLOSE_TRY_LATER,
    CLOSE_UNKNOWN_TOKEN,
    Bucket,
    Hello,
    Refused,
    handle,
    is_int,
    pick_codec,
    read_hello,
)
from hub.edge.sockets import bound_send_buffer, client_socket, proxy_rtt
from hub.logs import log
from hub.tables.arbitration import KernelRtt, Params, RoundTrips
from hub.tables.frames import Encoded
from hub.tables.seat import RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.stores.base import Store, Target

logger = logging.getLogger("hub.edge.connection")

_SERIALS = itertools.count(1)
#: One for every connection (frozen): a copy of the defaults per connection was 0.2 KiB.
ROUND_TRIP_PARAMS = Params()


class Connection:
    # slots: a broadcast reads a few of these on every connection in a row, and at thousands of
    # connections an instance dictionary is one more cache miss per delivery
    __slots__ = ("store", "admission", "settings", "metrics", "ws", "codec", "ip", "room", "seat", "queue",
                 "_closing", "_writer", "last_in", "frames", "_ping_id", "_last_ping",
                 "_round_trips", "_direct", "_backlog", "serial", "_tcp", "chat", "pending")

    def __init__(self, store: Store, ws: WebSocket, codec: Codec, ip: str, admission: Admission) -> None:
        self.store = store
        self.admission = admission
        self.settings = store.settings
        self.metrics = store.metrics
        # never reused in this process, as `id(self)` is once the object is freed: a seat's holder is
        # named by it across processes, and a new connection must not pass for one that went
        self.serial = next(_SERIALS)
        self.ws = ws
        self.codec: Codec = codec
        self.ip = ip
        self.room: Target | None = None
        self.seat: int | None = None
        # made by the first frame that must wait (most connections never have one)
        self.queue: deque[bytes | str | tuple[bytes | str, Callable[[float], None]]] | None = None
        self._closing: tuple[int, str] | None = None
        self._writer: asyncio.Task[None] | None = None
        self.last_in = time.monotonic()
        self.frames = Bucket(self.settings.frames_per_s, self.settings.frame_burst, self.last_in)
        # chat lines, a bucket of their own
        self.chat = Bucket(self.settings.chat_per_min / 60, self.settings.chat_burst, self.last_in)
        self._ping_id = 0
        # a random phase: connections that came together (a hub restart, a tournament's start) would
        # otherwise all be pinged, and all answer, in the same tick; 2,000 at once stalled a loaded
        # hub for a fifth of a second every interval (bench/latency.py)
        self._last_ping = time.monotonic() - random.uniform(0, self.settings.ping_interval_s)
        # a seat's, measured by server pings, for judging its contests; made at its first ping (a
        # spectator never grabs, so its round trips are never judged and never kept: two deques
        # and a dict, 1.7 KiB at every one of thousands of spectators)
        self._round_trips: RoundTrips | None = None
        self._direct = direct_writer(ws.scope.get(SCOPE_KEY)) if self.settings.direct_send else None
        # frames wait in the queue or one is between the queue and the socket: a frame written
        # directly now would overtake them (one flag rather than the queue and a second flag, read
        # on every delivery)
        self._backlog = False
        # the client's own TCP connection, when this process holds it (hub/edge/tcpinfo.py), or what a
        # trusted proxy's kernel measured of it as the handshake came through (hub/edge/proxies.py):
        # its round trip bounds what a contest credits for the network
        self._tcp: tcpinfo.Sock | KernelRtt | None = (
            (proxy_rtt(ws) or client_socket(ws)) if self.settings.kernel_bound else None)
        if self.settings.sndbuf_kib > 0:
            bound_send_buffer(ws, self.settings.sndbuf_kib * 1024)
        self.pending = True  # counted among its address's WebSockets not past their hello (Rooms.admit_pending)

    # ---- sending -------------------------------------------------------------------------------

    def send(self, frame: Encoded) -> None:
        self._push(frame.get(self.codec))

    def send_frame(self, frame: dict[str, Any]) -> None:
        self._push(encode(frame, self.codec))

    def send_timed(self, frame: dict[str, Any], written: Callable[[float], None]) -> None:
        """Queue a frame and learn, on this process's monotonic clock in ms, when it was written."""
        self._push(encode(frame, self.codec), written)

    def error(self, act_id: Any, code: str, message: str) -> None:
        self.metrics.errors.labels(code).inc()
        self.send_frame({"t": "error", "id": act_id if is_int(act_id) else None, "code": code, "message": message})

    def refuse(self, act_id: Any, code: str, message: str) -> None:
        """An error that answers one frame, in turn behind the answers to the frames before it."""
        self.in_turn(lambda: self.error(act_id, code, message))

    def in_turn(self, answer: Callable[[], None]) -> None:
        """Answer a frame after the frames before it have been answered: a store that commits a
        change before it is shown (SQLite) answers an action late, and a ping sent after it must not
        overtake it."""
        room = self.room
        if room is None:
            answer()
        else:
            room.in_turn(answer)

    def _push(self, data: bytes | str, written: Callable[[float], None] | None = None) -> None:
        if self._closing is not None:
            return
        if not self._backlog and self._direct is not None:
            behind = self._direct.write(data, HOLD_BYTES if written is None else 0)
            if behind != REFUSED:
                self.metrics.direct += 1
                self.metrics.behind += behind
                self._sent(data, written)
                return
        queue = self.queue
        if queue is not None and len(queue) >= self.settings.send_queue:
            self.close(CLOSE_TOO_SLOW, "too slow: the send queue is full", now=True)
            self._abort()
            return
        if queue is None:
            queue = self.queue = deque()
        queue.append(data if written is None else (data, written))
        self._backlog = True
        self._start_writer()

    def _start_writer(self) -> None:
        """A writer for what is queued (and the close after it), unless one runs already."""
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def _sent(self, data: bytes | str, written: Callable[[float], None] | None) -> None:
        if written is not None:
            written(time.monotonic() * 1000)
        self.metrics.sent(len(data))

    def close(self, code: int, reason: str, now: bool = False) -> None:
        """Close after what is queued (or at once, dropping it, when `now`)."""
        if self._closing is not None:
            return
        self._closing = (code, reason)
        self.metrics.closes.labels(str(code)).inc()
        if now and self.queue is not None:
            self.queue.clear()
        self._start_writer()

    def _abort(self) -> None:
        """Drop a reader that stopped reading: its socket is full, so no close frame could get through."""
        if self._writer is not None:
            self._writer.cancel()
        # the server's own send (hub/edge/direct.py): Starlette's `ws._send` is its exception wrapper
        protocol = getattr(self.ws.scope.get(SCOPE_KEY), "__self__", None)
        transport = getattr(protocol, "transport", None)
        if transport is not None and hasattr(transport, "abort"):
            transport.abort()

    async def _write(self) -> None:
        """Drain the queue, then close if a close was asked for, else end: the next frame that must
        wait starts another writer. Between the empty queue and the end nothing awaits, so no frame
        is queued without a writer to take it."""
        ws = self.ws
        queue = self.queue
        while queue:
            item = queue.popleft()
            data, written = item if isinstance(item, tuple) else (item, None)
            if isinstance(data, bytes):
                await ws.send_bytes(data)
            else:
                await ws.send_text(data)
            self._sent(data, written)
        self._backlog = False  # nothing queued, nothing in flight
        if self._closing is None:
            self._writer = None
            self.queue = None  # a deque keeps its first block (624 bytes) however short it grows
            return
        code, reason = self._closing
        with contextlib.suppress(Exception):
            await ws.close(code, reason)

    # ---- the life of a connection --------------------------------------------------------------

    @property
    def round_trips(self) -> RoundTrips:
        rt = self._round_trips
        if rt is None:
            rt = self._round_trips = RoundTrips(ROUND_TRIP_PARAMS)
        return rt

    @round_trips.setter
    def round_trips(self, rt: RoundTrips) -> None:
        self._round_trips = rt

    async def run(self) -> None:
        self.store.conns.add(self)
        self.metrics.connections.labels("pending").inc()
        role = "pending"
        try:
            # only whether: the hello frame itself is not kept for the connection's life
            said = await self._hello() is not None
            self.pending = False
            self.admission.said_hello(self.ip)
            if said:
                role = "seat" if self.seat is not None else "spectator"
                self.metrics.connections.labels("pending").dec()
                self.metrics.connections.labels(role).inc()
                # the receive loop in this frame, awaiting Starlette's receive itself: an idle
                # connection waits here, and every coroutine between it and the protocol is
                # 0.2-0.3 KiB held as long
                receive = self.ws.receive
                while self._closing is None:
                    data = self._payload(await receive())
                    if data is None:
                        break
                    self._handle(data)
        except (WebSocketDisconnect, ConnectionError):
            pass
        except Exception:  # noqa: BLE001 - one broken connection must not disturb the rest
            logger.exception("connection failed")
            self.close(1011, "internal error")
        finally:
            self.metrics.connections.labels(role).dec()
            self.store.conns.discard(self)
            if self.room is not None:
                self.room.detach(self)
            if self._closing is None:
                self._closing = (1000, "")
            self._start_writer()  # or the one writing sees the close once it has drained the queue
            writer = self._writer
            assert writer is not None
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(writer, 2)
            if not writer.done():
                writer.cancel()

    async def _receive(self, timeout: float | None = None) -> bytes | str | None:
        """The next frame's payload, or None once the socket is gone."""
        if timeout is None:
            msg = await self.ws.receive()
        else:
            msg = await asyncio.wait_for(self.ws.receive(), timeout)
        return self._payload(msg)

    def _payload(self, msg: Message) -> bytes | str | None:
        """A received message's payload, counted and checked; None once the socket is gone or the
        frame was too large."""
        if msg["type"] == "websocket.disconnect":
            return None
        data: bytes | str | None = msg.get("bytes")
        if data is None:
            data = msg.get("text")
        if data is None:
            return b""
        self.last_in = time.monotonic()
        self.metrics.frames_in.inc()
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
        self.metrics.bytes_in.inc(size)
        if size > self.settings.max_frame_bytes:
            self.close(CLOSE_TOO_LARGE, "frame too large")
            return None
        return data

    async def _hello(self) -> Hello | None:
        try:
            data = await self._receive(self.settings.hello_timeout_s)
        except TimeoutError:
            self.close(CLOSE_BAD_HELLO, "no hello in time")
            return None
        if data is None:
            return None
        try:
            hello = read_hello(data, self.codec)
        except Refused as e:
            self.close(e.code, e.reason)
            return None
        try:
            room = await self.store.enter(hello.room)
        except RoomError:
            self.close(CLOSE_TRY_LATER, "the room store does not answer; try again shortly")
            return None
        if room is None:
            self.close(CLOSE_NO_ROOM, "no such room")
            return None
        seat = None
        if hello.token is not None:
            seat = await room.authenticate(hello.token)
            if seat is None:
                self.close(CLOSE_UNKNOWN_TOKEN, "unknown token")
                return None
        self.room, self.seat = room, seat
        room.attach(self, seat, hello.resume, hello.chat_after)
        self.ping()  # a first round trip at once, so contests can judge this connection soon
        log(logger, logging.DEBUG, "hello", room=room.rid, seat=seat, resume=hello.resume)
        return hello

    def _handle(self, data: bytes | str) -> None:
        room = self.room
        assert room is not None
        handle(self, room, data, self.codec, time.monotonic())

    # ---- round trips and liveness --------------------------------------------------------------

    def ping(self) -> None:
        self._ping_id += 1
        self._last_ping = time.monotonic()
        pid = self._ping_id
        frame = {"t": "ping", "id": pid, "s": epoch_ms()}
        if self.seat is None:
            self.send_frame(frame)  # a spectator's pings are for liveness only
            return
        # the round trip starts when the ping is written, not when it is queued
        self.send_timed(frame, lambda at: self.round_trips.sent(pid, at))

    def kernel_rtt(self) -> KernelRtt | None:
        if isinstance(self._tcp, KernelRtt):
            return self._tcp
        return tcpinfo.read(self._tcp)

    def pong(self, pid: int) -> None:
        if self.seat is not None:
            self.round_trips.received(pid, time.monotonic() * 1000)

    def tick(self, now: float) -> None:
        if self._closing is not None or self.room is None:
            return
        if now - self.last_in > self.settings.idle_timeout_s:
            self.close(CLOSE_TOO_SLOW, "silent for too long")
        elif now - self._last_ping >= self.settings.ping_interval_s:
            self.ping()


class Endpoint:
    """`/ws` as a plain ASGI app: no per-call wrapper of a function endpoint around a long-lived socket,
    and no frame of its own either (it returns the endpoint's coroutine for the router to await):
    a WebSocket's call lasts as long as the connection."""

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        return endpoint(WebSocket(scope, receive, send))


async def endpoint(ws: WebSocket) -> None:
    store: Store = ws.app.state.store
    codec, chosen = pick_codec(list(ws.scope.get("subprotocols") or []))
    ip = (ws.client.host if ws.client else "") or ""
    admission: Admission = ws.app.state.admission
    metrics = store.metrics
    if not admission.admit(ip):
        # accepted, then closed, so that the client sees a close code rather than a refused handshake
        await ws.accept(subprotocol=chosen)
        metrics.closes.labels(str(CLOSE_TOO_SLOW)).inc()
        await ws.close(CLOSE_TOO_SLOW, "too many connections from this address")
        return
    if not admission.admit_pending(ip):
        admission.release(ip)
        await ws.accept(subprotocol=chosen)
        metrics.closes.labels(str(CLOSE_TOO_SLOW)).inc()
        await ws.close(CLOSE_TOO_SLOW, "too many connections from this address waiting to say hello")
        return
    conn: Connection | None = None
    try:
        await ws.accept(subprotocol=chosen)
        release_handshake(ws.scope.get(SCOPE_KEY))
        conn = Connection(store, ws, codec, ip, admission)
        await conn.run()
    finally:
        if conn is None or conn.pending:
            admission.said_hello(ip)  # or never will
        admission.release(ip)
