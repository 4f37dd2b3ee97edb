"""Resources one address can hold: memory by large frames, sockets by silence and slowness, and
file descriptors by sheer number, each against a real hub process over real sockets."""
from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import resource
import socket
import struct
import time

import websockets
import websockets.asyncio.client as wc

from tests.conftest import HubProcess
from tests.hub.test_squatting import request
from tests.hub.wsclient import Client, http, join, new_room

MiB = 1 << 20


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def dial(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return s


def upgrade(port: int) -> socket.socket:
    """A WebSocket opened by hand, so that a test can send what no client library would."""
    s = dial(port)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: msgpack\r\n\r\n")
              .encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def closed_by_peer(s: socket.socket, timeout: float) -> bool:
    """Whether the hub closes this socket within `timeout` (reading whatever it sends first)."""
    s.settimeout(timeout)
    try:
        while s.recv(4096):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def test_a_frame_over_the_limit_is_refused_from_its_header_and_memory_stays_flat() -> None:
    """12 connections each stream most of a 15 MiB frame and never finish it: the transport must
    refuse each frame from its header, not read it whole first (which took 38 MiB to 218 MiB)."""
    h = HubProcess("--store", "memory").start()
    try:
        assert h.proc is not None
        for _ in range(3):  # warm up: the first requests and connections load what they use
            http(h.url, "GET", "/api/rooms")
        before = rss_mib(h.proc.pid)
        socks = []
        chunk = os.urandom(256 * 1024)
        for _ in range(12):
            s = upgrade(h.port)
            socks.append(s)
            length = 15 * MiB
            s.sendall(bytes([0x82, 0x80 | 127]) + struct.pack("!Q", length) + os.urandom(4))
            sent = 0
            try:
                while sent < length - len(chunk):  # all but the last chunk: the frame stays unfinished
                    s.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass  # refused: the hub closed the connection under the frame
        time.sleep(0.5)
        during = rss_mib(h.proc.pid)
        for s in socks:
            s.close()
        assert http(h.url, "GET", "/healthz")[0] == 200
        after = rss_mib(h.proc.pid)
        assert during - before < 32 and after - before < 32, (before, during, after)
    finally:
        h.stop()


async def test_the_transport_closes_an_oversized_frame_with_1009_and_others_play_on() -> None:
    h = HubProcess("--store", "memory", "--max-frame-bytes", "4096").start()
    try:
        room = new_room(h.url, "symbiose", 2)
        calm = await Client(h.url, room).open()
        async with wc.connect(h.url.replace("http", "ws") + "/ws", subprotocols=["msgpack"],  # type: ignore[list-item]
                              max_size=None) as ws:
            # more than the sockets' buffers hold: the hub refuses from the header while this is still
            # being sent, and the send completes all the same (the refusal half-closes, never resets)
            await ws.send(b"\x00" * (16 * MiB))
            with contextlib.suppress(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)
            assert ws.close_code == 1009
        assert (await calm.request({"t": "ping", "id": 1}))["t"] == "pong"
        await calm.close()
    finally:
        h.stop()


def test_silent_and_slow_http_connections_are_closed_in_time() -> None:
    h = HubProcess("--store", "memory", "--http-timeout-s", "1").start()
    try:
        silent = dial(h.port)
        assert closed_by_peer(silent, 20)
        silent.close()
        # a request head a byte every 0.3 s: over 20 s in all, closed long before it ends
        slow = dial(h.port)
        head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a-slow-one\r\n\r\n"
        answer = b""
        slow.settimeout(0.3)
        gone = False
        for byte in head:
            try:
                slow.sendall(bytes([byte]))
                answer += slow.recv(4096)
                gone = True  # the hub closed the connection: recv gave b""
                break
            except TimeoutError:
                continue
            except OSError:
                gone = True
                break
        assert gone and not answer.startswith(b"HTTP/1.1 200"), answer
        slow.close()
        # a connection that asks in time is answered, and may ask again on the same connection
        ok = dial(h.port)
        ok.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert ok.recv(4096).startswith(b"HTTP/1.1 200")
        assert closed_by_peer(ok, 20)  # and then silent again: closed too
        ok.close()
        metrics = urlopen_text(h.url + "/metrics")
        assert 'hub_refused_total{reason="slow"}' in metrics
    finally:
        h.stop()


def test_a_trickled_body_is_answered_in_time() -> None:
    """A POST whose body comes a byte every 0.2 s gets 408 within the timeout, not after its length."""
    h = HubProcess("--store", "memory", "--http-timeout-s", "1").start()
    try:
        s = dial(h.port)
        s.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 400\r\n\r\n")
        s.settimeout(0.2)
        answer = b""
        started = time.monotonic()
        for byte in b" " * 400:  # 80 s in all at this pace
            try:
                s.sendall(bytes([byte]))
                answer += s.recv(4096)
                if b"\r\n\r\n" in answer:
                    break
            except TimeoutError:
                continue
            except OSError:
                break
        assert answer.startswith(b"HTTP/1.1 408"), answer
        s.settimeout(5)
        while b"too_slow" not in answer and (more := s.recv(4096)):  # the body may follow the head
            answer += more
        assert b"too_slow" in answer, answer
        assert time.monotonic() - started < 10
        s.close()
    finally:
        h.stop()


def urlopen_text(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as r:
        return str(r.read().decode())


async def ws_close_code(base: str) -> int | None:
    async with wc.connect(base.replace("http", "ws") + "/ws", subprotocols=["msgpack"]) as ws:  # type: ignore[list-item]
        with contextlib.suppress(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 10)
        return ws.close_code


async def test_open_http_connections_per_address() -> None:
    h = HubProcess("--store", "memory", "--http-conns-per-ip", "4").start()
    try:
        idle = [dial(h.port) for _ in range(4)]
        time.sleep(0.3)  # the hub has taken them
        assert await ws_close_code(h.url) == 4008  # a WebSocket over the limit is told so, too
        status, body = request(h.url, "GET", "/api/rooms")
        assert status == 429 and body["error"] == "too_many_connections", body
        status, body = request(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2})
        assert status == 429 and body["error"] == "too_many_connections", body
        assert request(h.url, "GET", "/healthz")[0] == 200  # monitoring still gets through
        # a forwarding header from a sender not in --trusted-proxies does not pass for another address
        status, body = request(h.url, "GET", "/api/rooms", headers={"X-Forwarded-For": "10.1.2.3"})
        assert status == 429 and body["error"] == "too_many_connections", body
        assert request(h.url, "GET", "/api/rooms", source="127.0.0.2")[0] == 200  # another address
        assert http(h.url, "GET", "/api/rooms")[0] == 429
        for s in idle:
            s.close()
        for _ in range(100):
            if request(h.url, "GET", "/api/rooms")[0] == 200:
                break
            time.sleep(0.05)
        assert request(h.url, "GET", "/api/rooms")[0] == 200
    finally:
        h.stop()


async def test_websockets_waiting_for_their_hello_per_address() -> None:
    h = HubProcess("--store", "memory", "--pending-ws-per-ip", "3").start()
    try:
        room = new_room(h.url, "symbiose", 2)
        url = h.url.replace("http", "ws") + "/ws"
        quiet = [await wc.connect(url, subprotocols=["msgpack"]) for _ in range(3)]  # type: ignore[list-item]
        async with wc.connect(url, subprotocols=["msgpack"]) as extra:  # type: ignore[list-item]
            with contextlib.suppress(websockets.ConnectionClosed):
                await asyncio.wait_for(extra.recv(), 10)
            assert extra.close_code == 4008
        # one of them says hello: the address may open another
        first = quiet[0]
        await first.send(Client(h.url, room).encode({"t": "hello", "room": room}))
        await asyncio.wait_for(first.recv(), 10)
        late = await Client(h.url, room).open()
        assert late.view is not None
        await late.close()
        for ws in quiet:
            await ws.close()
    finally:
        h.stop()


def low_nofile() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


async def test_at_the_open_file_limit_new_connections_are_refused_and_the_rest_serve() -> None:
    """Under nofile=256, idle sockets from several addresses, more than the process has descriptors:
    new requests get a clear refusal, while /healthz, /metrics and a seated player keep working."""
    h = HubProcess("--store", "memory", "--http-timeout-s", "60", "--bot-delay-ms", "0")
    h.preexec = low_nofile
    h.start()
    idle: list[socket.socket] = []
    try:
        room = new_room(h.url, "symbiose", 2)
        token = join(h.url, room, "seated", 0)[1]
        seated = await Client(h.url, room, token).open()
        assert seated.view is not None
        limits = [json.loads(line) for line in h.log().splitlines() if '"open-file limit"' in line]
        assert limits and limits[0]["nofile"] == 256, h.log()[-2000:]
        assert 0 < limits[0]["max_conns"] < 256 and limits[0]["conns_per_ip"] < limits[0]["max_conns"]
        for i in range(600):  # 150 from each of four addresses
            with contextlib.suppress(OSError):
                idle.append(dial(h.port, f"127.0.0.{2 + i % 4}"))
        time.sleep(1)
        assert len(idle) == 600
        status, body = request(h.url, "GET", "/healthz")
        assert status == 200 and body["ok"], body
        assert "hub_refused_total" in urlopen_text(h.url + "/metrics")
        status, body = request(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2}, source="127.0.0.9")
        assert status == 503 and body["error"] == "busy", body
        assert (await seated.request({"t": "ping", "id": 7}))["t"] == "pong"
        assert h.proc is not None and h.proc.poll() is None
        assert '"connections over a limit"' in h.log()
        for s in idle:
            s.close()
        idle.clear()
        for _ in range(100):  # once they are gone, everyone is served again
            if request(h.url, "GET", "/api/rooms", source="127.0.0.9")[0] == 200:
                break
            time.sleep(0.05)
        assert request(h.url, "GET", "/api/rooms", source="127.0.0.9")[0] == 200
        await seated.close()
    finally:
        for s in idle:
            s.close()
        h.stop()
