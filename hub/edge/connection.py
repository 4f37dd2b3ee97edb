"""One WebSocket: hello, decoding and checking frames, limits, and the bounded send queue.

Frames leave through one queue drained by one writer task, so a slow reader costs the room
nothing: when its queue is full it is closed with 4008 and may resume later. A frame that would be
first in an empty queue, with nothing in flight and the socket's buffer empty, is written at once
instead (hub/edge/direct.py): the same order, without the writer's wake-up. (An earlier eager send wrote
whenever the queue was empty, however much the socket still held, and so hid a stalled reader from
the queue bound; the empty buffer is what keeps that bound.)
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub.edge.codec import CODECS, BadFrame, Codec, decode, encode
from hub.edge.direct import SCOPE_KEY, direct_writer
from hub.logs import log
from hub.tables.arbitration import RoundTrips
from hub.tables.frames import Encoded
from hub.tables.seat import RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.stores.base import Store, Target

logger = logging.getLogger("hub.edge.connection")

CLOSE_BAD_HELLO, CLOSE_UNKNOWN_TOKEN, CLOSE_NO_ROOM, CLOSE_TOO_SLOW, CLOSE_TAKEN_OVER = 4000, 4001, 4004, 4008, 4009
CLOSE_TOO_LARGE = 1009
CLOSE_TRY_LATER = 1013
INT_MAX = 2**53


def is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and -INT_MAX <= v <= INT_MAX


def pick_codec(offered: list[str]) -> tuple[Codec, str | None]:
    for name in offered:
        if name in CODECS:
            return name, name
    return "msgpack", None


_SERIALS = itertools.count(1)


class Connection:
    # slots: a broadcast reads a few of these on every connection in a row, and at thousands of
    # connections an instance dictionary is one more cache miss per delivery
    __slots__ = ("store", "settings", "metrics", "ws", "codec", "ip", "room", "seat", "queue", "_wake",
                 "_closing", "_writer", "last_in", "_tokens", "_refill_at", "_ping_id", "_last_ping",
                 "round_trips", "_direct", "_backlog", "serial")

    def __init__(self, store: Store, ws: WebSocket, codec: Codec, ip: str) -> None:
        self.store = store
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
        self.queue: deque[bytes | str | tuple[bytes | str, Callable[[float], None]]] = deque()
        self._wake = asyncio.Event()
        self._closing: tuple[int, str] | None = None
        self._writer: asyncio.Task[None] | None = None
        self.last_in = time.monotonic()
        self._tokens = float(self.settings.frame_burst)
        self._refill_at = time.monotonic()
        self._ping_id = 0
        # a random phase: connections that came together (a hub restart, a tournament's start) would
        # otherwise all be pinged, and all answer, in the same tick; 2,000 at once stalled a loaded
        # hub for a fifth of a second every interval (bench/latency.py)
        self._last_ping = time.monotonic() - random.uniform(0, self.settings.ping_interval_s)
        self.round_trips = RoundTrips()       # measured by server pings, for judging contests
        self._direct = direct_writer(ws.scope.get(SCOPE_KEY)) if self.settings.direct_send else None
        # frames wait in the queue or one is between the queue and the socket: a frame written
        # directly now would overtake them (one flag rather than the queue and a second flag, read
        # on every delivery)
        self._backlog = False

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
        if not self._backlog and self._direct is not None and self._direct.write(data):
            self.metrics.direct += 1
            self._sent(data, written)
            return
        if len(self.queue) >= self.settings.send_queue:
            self.close(CLOSE_TOO_SLOW, "too slow: the send queue is full", now=True)
            self._abort()
            return
        self.queue.append(data if written is None else (data, written))
        self._backlog = True
        self._wake.set()

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
        if now:
            self.queue.clear()
        self._wake.set()

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
        ws = self.ws
        while True:
            while self.queue:
                item = self.queue.popleft()
                data, written = item if isinstance(item, tuple) else (item, None)
                if isinstance(data, bytes):
                    await ws.send_bytes(data)
                else:
                    await ws.send_text(data)
                self._sent(data, written)
            self._backlog = False  # nothing queued, nothing in flight
            if self._closing is not None:
                code, reason = self._closing
                with contextlib.suppress(Exception):
                    await ws.close(code, reason)
                return
            self._wake.clear()
            await self._wake.wait()

    # ---- the life of a connection --------------------------------------------------------------

    async def run(self) -> None:
        self._writer = asyncio.create_task(self._write())
        self.store.conns.add(self)
        self.metrics.connections.labels("pending").inc()
        role = "pending"
        try:
            hello = await self._hello()
            if hello is not None:
                role = "seat" if self.seat is not None else "spectator"
                self.metrics.connections.labels("pending").dec()
                self.metrics.connections.labels(role).inc()
                await self._serve()
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
            self._wake.set()
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(self._writer, 2)
            if not self._writer.done():
                self._writer.cancel()

    async def _receive(self, timeout: float | None = None) -> bytes | str | None:
        """The next frame's payload, or None once the socket is gone."""
        if timeout is None:
            msg = await self.ws.receive()
        else:
            msg = await asyncio.wait_for(self.ws.receive(), timeout)
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

    async def _hello(self) -> dict[str, Any] | None:
        try:
            data = await self._receive(self.settings.hello_timeout_s)
        except TimeoutError:
            self.close(CLOSE_BAD_HELLO, "no hello in time")
            return None
        if data is None:
            return None
        try:
            frame = decode(data, self.codec)
        except BadFrame:
            self.close(CLOSE_BAD_HELLO, "the first frame must be a hello")
            return None
        if not isinstance(frame, dict) or frame.get("t") != "hello" or not isinstance(frame.get("room"), str):
            self.close(CLOSE_BAD_HELLO, "the first frame must be {t: hello, room: ...}")
            return None
        token, resume = frame.get("token"), frame.get("resume")
        if (token is not None and not isinstance(token, str)) or (resume is not None and not is_int(resume)):
            self.close(CLOSE_BAD_HELLO, "token must be a string and resume an integer")
            return None
        try:
            room = await self.store.enter(frame["room"])
        except RoomError:
            self.close(CLOSE_TRY_LATER, "the room store does not answer; try again shortly")
            return None
        if room is None:
            self.close(CLOSE_NO_ROOM, "no such room")
            return None
        seat = None
        if token is not None:
            seat = await room.authenticate(token)
            if seat is None:
                self.close(CLOSE_UNKNOWN_TOKEN, "unknown token")
                return None
        self.room, self.seat = room, seat
        room.attach(self, seat, resume)
        self.ping()  # a first round trip at once, so contests can judge this connection soon
        log(logger, logging.DEBUG, "hello", room=room.rid, seat=seat, resume=resume)
        return frame

    async def _serve(self) -> None:
        while self._closing is None:
            data = await self._receive()
            if data is None:
                return
            if not self._allow():
                continue
            try:
                frame = decode(data, self.codec)
            except BadFrame as e:
                self.refuse(None, "bad_frame", str(e))
                continue
            self._dispatch(frame)

    def _allow(self) -> bool:
        """A token bucket: past the burst a frame is refused; far past it the connection is closed."""
        now = time.monotonic()
        rate, burst = self.settings.frames_per_s, self.settings.frame_burst
        self._tokens = min(float(burst), self._tokens + (now - self._refill_at) * rate)
        self._refill_at = now
        self._tokens -= 1
        if self._tokens >= 0:
            return True
        if self._tokens < -burst:
            self.close(CLOSE_TOO_SLOW, "too many frames")
        else:
            self.refuse(None, "rate_limited", "too many frames; slow down")
        return False

    def _dispatch(self, frame: Any) -> None:
        if not isinstance(frame, dict) or not isinstance(frame.get("t"), str):
            self.refuse(None, "bad_message", "a frame is a map with a string 't'")
            return
        t = frame["t"]
        fid = frame.get("id")
        room = self.room
        assert room is not None
        if t == "act":
            if not is_int(fid):
                self.refuse(None, "bad_message", "act needs an integer id")
                return
            action, seq = frame.get("action"), frame.get("seq")
            if not isinstance(action, dict) or (seq is not None and not is_int(seq)):
                self.refuse(fid, "bad_message", "act needs an action map and an optional integer seq")
                return
            if self.seat is None:
                self.refuse(fid, "unauthorized", "spectators cannot act")
                return
            if room.contests is not None and action.get("type") == "grab":
                room.contests.grab(self, fid, action)
                return
            room.submit(self.seat, action, conn=self, act_id=fid, seq=seq)
        elif t == "ping":
            if not is_int(fid):
                self.refuse(None, "bad_message", "ping needs an integer id")
                return
            self.in_turn(lambda: self.send_frame({"t": "pong", "id": fid, "s": epoch_ms()}))
        elif t == "pong":
            if isinstance(fid, int):
                self.pong(fid)
        elif t == "seen":
            if room.contests is not None:
                room.contests.seen(self, fid)
        elif t == "hello":
            self.refuse(None, "bad_message", "hello was already said")
        else:
            self.refuse(fid if is_int(fid) else None, "bad_message", f"unknown frame type {t[:40]!r}")

    # ---- round trips and liveness --------------------------------------------------------------

    def ping(self) -> None:
        self._ping_id += 1
        self._last_ping = time.monotonic()
        pid = self._ping_id
        # the round trip starts when the ping is written, not when it is queued
        self.send_timed({"t": "ping", "id": pid, "s": epoch_ms()}, lambda at: self.round_trips.sent(pid, at))

    def pong(self, pid: int) -> None:
        self.round_trips.received(pid, time.monotonic() * 1000)

    def tick(self, now: float) -> None:
        if self._closing is not None or self.room is None:
            return
        if now - self.last_in > self.settings.idle_timeout_s:
            self.close(CLOSE_TOO_SLOW, "silent for too long")
        elif now - self._last_ping >= self.settings.ping_interval_s:
            self.ping()


class Endpoint:
    """`/ws` as a plain ASGI app: no per-call wrapper of a function endpoint around a long-lived socket."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await endpoint(WebSocket(scope, receive, send))


async def endpoint(ws: WebSocket) -> None:
    store: Store = ws.app.state.store
    codec, chosen = pick_codec(list(ws.scope.get("subprotocols") or []))
    ip = (ws.client.host if ws.client else "") or ""
    rooms = store.rooms
    if not rooms.admit(ip):
        # accepted, then closed, so that the client sees a close code rather than a refused handshake
        await ws.accept(subprotocol=chosen)
        rooms.metrics.closes.labels(str(CLOSE_TOO_SLOW)).inc()
        await ws.close(CLOSE_TOO_SLOW, "too many connections from this address")
        return
    try:
        await ws.accept(subprotocol=chosen)
        await Connection(store, ws, codec, ip).run()
    finally:
        rooms.release(ip)
