"""A client that stops reading costs the others nothing: measured move-to-delta latency of the other
seats and of spectators, before, during and after one connection of the room stalls, until the hub
closes it (4008) when its bounded send queue is full.

The figures are printed (run with -s) and written up in docs/security.md; the only assertion on
time is a generous bound, since this machine may be busy with other work.
"""
from __future__ import annotations

import asyncio
import socket
import statistics
import time
from typing import Any

import msgpack

from tests.hub.wsclient import Client, http, join, new_room, settle

BOUND_S = 1.0


def ws_frame(payload: bytes) -> bytes:
    """A masked client binary frame (the mask is zero: the bytes stay as they are)."""
    n = len(payload)
    head = bytes([0x82]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + b"\x00\x00\x00\x00" + payload


def stalled_reader(port: int, room: str) -> socket.socket:
    """A spectator with a tiny receive buffer that says hello and then never reads again."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
              b"Sec-WebSocket-Protocol: msgpack\r\n\r\n")
    s.settimeout(5)
    assert b"101" in s.recv(4096)
    s.sendall(ws_frame(msgpack.packb({"t": "hello", "room": room})))
    s.setblocking(False)
    return s


async def move_latency(mover: Client, others: list[Client]) -> list[float]:
    """Seconds from sending a legal action until each other connection has the delta it caused."""
    before = [c.seq for c in others]
    t0 = time.perf_counter()
    got: list[float | None] = [None] * len(others)
    await mover.send({"t": "act", "id": 10**6 + (mover.seq or 0), "action": mover.legal[0]})
    while any(g is None for g in got) and time.perf_counter() - t0 < 10:
        for i, c in enumerate(others):
            if got[i] is None and c.seq != before[i]:
                got[i] = time.perf_counter() - t0
        await asyncio.sleep(0.0005)
    assert all(g is not None for g in got), "a connection never got the delta"
    return [g for g in got if g is not None]


def closed_by_hub(base: str) -> bool:
    return 'hub_closes_total{code="4008"}' in http(base, "GET", "/metrics")[1]


async def test_a_stalled_reader_does_not_delay_the_others(hub_factory: Any) -> None:
    h = hub_factory("--send-queue", "1024", "--frames-per-s", "1000000", "--frame-burst", "1000000",
                    "--verify-deltas").start()
    room = new_room(h.url, "symbiose", 4)
    tokens = [join(h.url, room, f"p{s}", s)[1] for s in range(4)]
    players = [await Client(h.url, room, t).open() for t in tokens]
    spec = await Client(h.url, room).open()
    spec_json = await Client(h.url, room, codec="json").open()
    everyone = [*players, spec, spec_json]
    await settle(everyone)

    async def one_move() -> list[float]:
        await settle(everyone, gap=0.01)
        mover = next((c for c in players if c.legal), None)
        return [] if mover is None else await move_latency(mover, [c for c in everyone if c is not mover])

    phases: dict[str, list[float]] = {"before": [], "stalled": [], "after": []}
    for _ in range(3):
        phases["before"] += await one_move()
    stall = stalled_reader(h.port, room)
    # Its pongs pile up: first in the kernel's socket buffers (megabytes on loopback), then in the
    # transport, then in its bounded queue, which closes it once full. While it stalls, moves are
    # measured with a moderate backlog added each time; then it is flooded until the hub closes it
    # (the flood's own cost, thousands of frames to decode, is not the stall's, so it is not timed).
    data = ws_frame(msgpack.packb({"t": "ping", "id": 1})) * 2000
    flooded = 0

    def flood(times: int) -> None:
        nonlocal flooded
        for _ in range(times):
            try:
                flooded += stall.send(data) // (len(data) // 2000)
            except OSError:  # its receive side is full too
                return

    for _ in range(15):
        flood(1)
        phases["stalled"] += await one_move()
    flood_until = time.monotonic() + 40
    while not closed_by_hub(h.url) and time.monotonic() < flood_until:
        flood(10)
        await asyncio.sleep(0.01)
    assert closed_by_hub(h.url), f"the stalled reader was never closed ({flooded} pings sent)"
    # its socket is aborted (a reset), not left open: no close frame could get through a full buffer
    stall.settimeout(0.1)
    reset, gone_by = False, time.monotonic() + 5
    while not reset and time.monotonic() < gone_by:
        try:
            stall.send(b"\x00")
            await asyncio.sleep(0.05)
        except (ConnectionResetError, BrokenPipeError):
            reset = True
        except OSError:  # its send buffer is still full: try again
            await asyncio.sleep(0.05)
    assert reset, "the stalled socket was left open"
    for _ in range(3):
        phases["after"] += await one_move()
    stall.close()
    for c in everyone:
        assert not c.problems, c.problems
        await c.close()

    print(f"\nmove-to-delta latency of the other 3 seats and 2 spectators (ms); {flooded} pings flooded")
    for name, values in phases.items():
        if not values:
            continue
        ms = sorted(v * 1000 for v in values)
        print(f"  {name:8s} n={len(ms):3d} median={statistics.median(ms):6.2f} "
              f"p90={ms[int(0.9 * (len(ms) - 1))]:6.2f} max={ms[-1]:6.2f}")
    assert phases["stalled"], "no move was measured while the reader stalled"
    assert max(phases["stalled"] + phases["after"]) < BOUND_S


def metric(base: str, name: str) -> float:
    for line in http(base, "GET", "/metrics")[1].splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def server_frames(buf: bytearray) -> list[bytes]:
    """The payloads of the whole unmasked frames at the head of `buf`, taken out of it."""
    out = []
    while len(buf) >= 2:
        n, at = buf[1] & 0x7F, 2
        if n == 126:
            if len(buf) < 4:
                break
            n, at = int.from_bytes(buf[2:4], "big"), 4
        elif n == 127:
            if len(buf) < 10:
                break
            n, at = int.from_bytes(buf[2:10], "big"), 10
        if len(buf) < at + n:
            break
        out.append(bytes(buf[at:at + n]))
        del buf[:at + n]
    return out


async def test_a_reader_behind_by_a_little_gets_every_frame_in_order(hub_factory: Any) -> None:
    """Frames that meet a transport still holding bytes are written behind them (hub/edge/direct.py),
    and past what it may hold they take the queue: a reader that pauses and then reads on gets every
    answer once, in order, through both ways, and is not closed."""
    h = hub_factory("--send-queue", "100000", "--frames-per-s", "1000000", "--frame-burst", "1000000",
                    "--sndbuf-kib", "4").start()
    room = new_room(h.url, "symbiose", 4)
    s = stalled_reader(h.port, room)
    pings = 4000
    data = b"".join(ws_frame(msgpack.packb({"t": "ping", "id": i})) for i in range(pings))
    behind0, direct0 = metric(h.url, "hub_frames_direct_behind_total"), metric(h.url, "hub_frames_direct_total")
    sent = 0
    until = time.monotonic() + 20
    while sent < len(data) and time.monotonic() < until:
        try:
            sent += s.send(data[sent:])
        except BlockingIOError:
            await asyncio.sleep(0.01)
    assert sent == len(data), "the hub stopped reading the pings"
    await asyncio.sleep(1.0)  # it answers them all into a reader that reads nothing
    buf, frames = bytearray(), []
    until = time.monotonic() + 20
    pongs: list[int] = []
    while len(pongs) < pings and time.monotonic() < until:
        try:
            chunk = s.recv(1 << 16)
        except BlockingIOError:
            await asyncio.sleep(0.005)
            continue
        assert chunk, "the hub closed the reader"
        buf += chunk
        for payload in server_frames(buf):
            frame = msgpack.unpackb(payload)
            frames.append(frame)
            if frame["t"] == "pong":
                pongs.append(frame["id"])
    s.close()
    assert pongs == list(range(pings))
    assert frames[0]["t"] == "welcome"
    assert not closed_by_hub(h.url)
    behind = metric(h.url, "hub_frames_direct_behind_total") - behind0
    direct = metric(h.url, "hub_frames_direct_total") - direct0
    assert behind > 0, "no frame was written behind held bytes"
    assert direct < pings, "no frame took the queue"
