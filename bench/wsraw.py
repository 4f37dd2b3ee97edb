"""A minimal WebSocket client for load generation: an asyncio Protocol that does the upgrade by
hand and then only splits frames.

One core of Python clients running the full websockets library reads fewer frames per second
than one hub core writes; measuring the hub with such clients measures the clients. This one
costs a few microseconds a frame, so one load core can keep up with the hub core. It is no
general client: it assumes unfragmented frames (as both servers send) and checks nothing.
"""
from __future__ import annotations

import asyncio
import base64
import os
import socket
import time
from collections.abc import Callable
from typing import Any

OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING = 0x1, 0x2, 0x8, 0x9


def client_frame(payload: bytes, opcode: int = OP_BINARY) -> bytes:
    """One masked frame, as a client must send it."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    key = os.urandom(4)
    if n:
        mask = (key * (n // 4 + 1))[:n]
        payload = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
    return head + key + payload


class RawClient(asyncio.Protocol):
    """Counts binary frames after the first one (the hub's welcome, the bare server's greeting).

    With `on_frame`, each binary frame's payload and arrival time go to it, the first one too;
    without, frames are only counted, never copied.
    """

    def __init__(self, host: str, port: int, hello: bytes, subprotocol: str | None = "msgpack",
                 on_frame: Callable[[RawClient, bytes, float], None] | None = None) -> None:
        self.host, self.port, self.hello, self.subprotocol = host, port, hello, subprotocol
        self.on_frame = on_frame
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded = False
        self.frames = 0
        self.first = 0.0
        self.last = 0.0
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tag: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's are no asyncio.Transport
        sock = transport.get_extra_info("socket")
        if sock is not None:  # small frames go out at once, not after the peer's delayed ACK
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        proto = f"Sec-WebSocket-Protocol: {self.subprotocol}\r\n" if self.subprotocol else ""
        transport.write((f"GET /ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                         f"{proto}\r\n").encode())

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not buf.startswith(b"HTTP/1.1 101"):
                self._fail(ConnectionError(bytes(buf[:end]).decode(errors="replace")))
                return
            self.upgraded = True
            del buf[:end + 4]
            self.send(self.hello)
        now = time.monotonic()
        pos, n = 0, len(buf)
        while n - pos >= 2:
            length = buf[pos + 1] & 0x7F
            head = 2
            if length == 126:
                if n - pos < 4:
                    break
                length = int.from_bytes(buf[pos + 2:pos + 4], "big")
                head = 4
            elif length == 127:
                if n - pos < 10:
                    break
                length = int.from_bytes(buf[pos + 2:pos + 10], "big")
                head = 10
            if n - pos < head + length:
                break
            op = buf[pos] & 0x0F
            start = pos + head
            pos = start + length
            if op in (OP_BINARY, OP_TEXT):
                if not self.ready.done():
                    self.ready.set_result(None)
                    if self.on_frame is not None:
                        self.on_frame(self, bytes(buf[start:pos]), now)
                    continue
                if self.frames == 0:
                    self.first = now
                self.frames += 1
                self.last = now
                if self.on_frame is not None:
                    self.on_frame(self, bytes(buf[start:pos]), now)
            elif op == OP_CLOSE:
                if self.transport is not None:
                    self.transport.close()
            elif op == OP_PING:
                self.send(bytes(buf[start:pos]), 0xA)
        del buf[:pos]

    def send(self, payload: bytes, opcode: int = OP_BINARY) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(client_frame(payload, opcode))

    def reset(self) -> None:
        self.frames = 0
        self.first = self.last = 0.0

    def _fail(self, exc: BaseException) -> None:
        if not self.ready.done():
            self.ready.set_exception(exc)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(exc or ConnectionError("closed before the first frame"))
        if not self.closed.done():
            self.closed.set_result(None)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def open_many(factory: Callable[[], RawClient], count: int, parallel: int = 100,
                    timeout: float = 60) -> list[RawClient]:
    """`count` clients, `parallel` handshakes at a time, each ready (first frame in) before returning."""
    loop = asyncio.get_running_loop()
    out: list[RawClient] = []
    sem = asyncio.Semaphore(parallel)

    async def one() -> None:
        async with sem:
            c = factory()
            await loop.create_connection(lambda: c, c.host, c.port)
            await asyncio.wait_for(c.ready, timeout)
            out.append(c)

    await asyncio.gather(*(one() for _ in range(count)))
    return out


async def close_all(clients: list[RawClient], timeout: float = 10) -> None:
    for c in clients:
        c.close()
    if clients:
        await asyncio.wait([c.closed for c in clients], timeout=timeout)
