"""Every error and close code of the contract, resume, take-over, and bad input that changes nothing."""
from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Any

import msgpack
import websockets.asyncio.client as wc

from tests.hub.wsclient import Client, http, join, new_room, settle


async def table(base: str, seats: int = 2, game: str = "symbiose") -> tuple[str, list[str], list[Client], Client]:
    room = new_room(base, game, seats)
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(seats)]
    players = [await Client(base, room, t).open() for t in tokens]
    spec = await Client(base, room).open()
    await settle([*players, spec])
    return room, tokens, players, spec


def mover(players: list[Client]) -> Client:
    return next(c for c in players if c.legal)


async def close_all(*clients: Client) -> None:
    for c in clients:
        await c.close()


async def test_hello_close_codes(hub: Any) -> None:
    room, _, players, spec = await table(hub.url)
    cases: list[tuple[dict[str, Any] | bytes, int]] = [
        ({"t": "ping", "id": 1}, 4000),
        ({"t": "hello"}, 4000),
        ({"t": "hello", "room": 5}, 4000),
        ({"t": "hello", "room": room, "token": 7}, 4000),
        ({"t": "hello", "room": room, "resume": "x"}, 4000),
        (b"\xc1 garbage", 4000),
        ({"t": "hello", "room": room, "token": "not-a-token"}, 4001),
        ({"t": "hello", "room": "no-such-room"}, 4004),
    ]
    for hello, code in cases:
        c = Client(hub.url, room)
        await c.open(hello=hello, wait=False)
        assert await c.wait_closed() == code, hello
    # the table was not disturbed
    a = await mover(players).act(mover(players).legal[0])
    assert a["t"] == "ack"
    await close_all(*players, spec)


async def test_hello_timeout(hub_factory: Any) -> None:
    h = hub_factory("--hello-timeout-s", "0.3").start()
    room = new_room(h.url, "symbiose", 2)
    ws = await wc.connect(h.url.replace("http", "ws") + "/ws", subprotocols=["msgpack"])  # type: ignore[list-item]
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.recv(), 5)
    assert ws.close_code == 4000
    assert room


async def test_error_codes_change_nothing(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url)
    m = mover(players)
    w = next(c for c in players if c is not m)
    seq_before = spec.seq
    # bad_frame: not decodable
    await m.send_raw(b"\xc1\xc1\xc1")
    assert (await m.next_error())["code"] == "bad_frame"
    # a text frame on a msgpack connection is not decodable either
    await m.send_raw('{"t": "ping", "id": 1}')
    assert (await m.next_error())["code"] == "bad_frame"
    # bad_message: decodable, wrong shape
    for frame in [[1, 2], {"no": "t"}, {"t": 5}, {"t": "act", "id": "x", "action": {}},
                  {"t": "act", "id": 3, "action": "not a map"}, {"t": "act", "id": 4, "action": {}, "seq": "s"},
                  {"t": "act", "id": True, "action": {}}, {"t": "ping"}, {"t": "nonsense", "id": 9},
                  {"t": "hello", "room": room}, {"t": "act", "id": 2**60, "action": {}}]:
        await m.send(frame)
        e = await m.next_error()
        assert e["code"] == "bad_message", (frame, e)
    # unauthorized: spectators cannot act
    assert (await spec.act({"type": "flip", "slot": 0}))["code"] == "unauthorized"
    # not_your_turn: the waiting seat sends the mover's legal action
    assert (await w.act(m.legal[0]))["code"] in ("not_your_turn", "illegal")
    # illegal: breaks a rule
    for bad in [{"type": "flip", "slot": 99}, {"type": "fly"}, {"type": "flip", "slot": True}, {}]:
        e = await m.act(bad)
        assert e["t"] == "error" and e["code"] in ("illegal", "bad_message"), (bad, e)
    # the hub settles contests, never a seat
    assert (await m.act({"type": "contest_result", "key": "x", "winner": 0}))["code"] == "unauthorized"
    await settle([*players, spec])
    assert spec.seq == seq_before, "a refused frame changed the room"
    # ping is answered with the server's clock
    p = await m.request({"t": "ping", "id": 77})
    assert p["t"] == "pong" and p["id"] == 77 and abs(p["s"] - time.time() * 1000) < 5000
    # and the table still plays
    assert (await m.act(m.legal[0]))["t"] == "ack"
    await close_all(*players, spec)


async def test_stale(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url)
    m = mover(players)
    old_seq, old_legal = m.seq, m.legal
    assert (await m.act(old_legal[0], seq=old_seq))["t"] == "ack"
    await settle([*players, spec])
    # the same choice again, from the view it was legal in: the state moved on
    e = await m.act(old_legal[1], seq=old_seq)
    assert e["code"] == "stale", e
    # without a seq, the engine's own verdict
    e = await m.act(old_legal[1])
    assert e["code"] in ("not_your_turn", "illegal"), e
    await close_all(*players, spec)


async def test_game_over_and_finished_room_readable(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 2, {"bot_delay_ms": 0}, bots=[1])
    _, token = join(hub.url, room, "me")
    me = await Client(hub.url, room, token).open()
    for _ in range(200):
        await settle([me], gap=0.03)
        if me.view["result"] is not None:
            break
        if me.legal:
            await me.act(me.legal[-1])
    assert me.view["result"] is not None
    e = await me.act({"type": "flip", "slot": 0})
    assert e["code"] == "game_over"
    status, info = http(hub.url, "GET", f"/api/rooms/{room}")
    assert status == 200 and info["status"] == "finished" and info["result"] == me.view["result"]
    late = await Client(hub.url, room).open()
    assert late.view["result"] == me.view["result"]
    status, _ = http(hub.url, "POST", f"/api/rooms/{room}/join", {"name": "late"})
    assert status == 409
    await close_all(me, late)


async def test_finished_rooms_are_dropped(hub_factory: Any) -> None:
    h = hub_factory("--bot-delay-ms", "0", "--finished-ttl-s", "1").start()
    room = new_room(h.url, "symbiose", 2, {"bot_delay_ms": 0}, bots=[0, 1])
    for _ in range(100):
        if http(h.url, "GET", f"/api/rooms/{room}")[1]["status"] == "finished":
            break
        await asyncio.sleep(0.05)
    assert http(h.url, "GET", f"/api/rooms/{room}")[1]["status"] == "finished"
    if h.backend == "sqlite":
        # the room leaves the process's memory and the listing; the file keeps it, with its replay
        for _ in range(60):
            if room not in [r["room"] for r in http(h.url, "GET", "/api/rooms")[1]]:
                break
            await asyncio.sleep(0.1)
        assert room not in [r["room"] for r in http(h.url, "GET", "/api/rooms")[1]]
        assert http(h.url, "GET", "/healthz")[1]["rooms"] == 0
        assert http(h.url, "GET", f"/api/rooms/{room}")[1]["status"] == "finished"
        assert http(h.url, "GET", f"/api/rooms/{room}/replay")[0] == 200
        return
    for _ in range(60):
        if http(h.url, "GET", f"/api/rooms/{room}")[0] == 404:
            break
        await asyncio.sleep(0.1)
    assert http(h.url, "GET", f"/api/rooms/{room}")[0] == 404


async def test_resume(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url, seats=3)
    gone = players[0]
    last_view, last_seq = gone.view, gone.seq
    await gone.close()
    others = players[1:]
    for _ in range(4):
        await settle(others + [spec])
        movers = [c for c in others if c.legal]
        if not movers:
            break
        await movers[0].act(movers[0].legal[0])
    await settle(others + [spec])
    back = Client(hub.url, room, tokens[0])
    back.view, back.seq = last_view, last_seq
    await back.open(resume=last_seq)
    await settle([back])
    welcome = next(f for f in back.frames if f["t"] == "welcome")
    assert welcome["view"] is None and welcome["seq"] == last_seq
    fresh = await Client(hub.url, room, tokens[0]).open()
    assert await back.wait_closed() == 4009
    assert fresh.view == back.view and fresh.seq == back.seq and not back.problems
    # a resume the hub cannot serve from its history gets a full view
    again = await Client(hub.url, room, tokens[0]).open(resume=10**6)
    assert next(f for f in again.frames if f["t"] == "welcome")["view"] is not None
    assert again.view == fresh.view
    # a spectator resumes too
    spec_seq, spec_view = spec.seq, spec.view
    await spec.close()
    s2 = Client(hub.url, room)
    s2.view, s2.seq = spec_view, spec_seq
    await s2.open(resume=spec_seq)
    assert s2.view == spec_view
    await close_all(*others, fresh, again, s2)


async def test_take_over(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url)
    second = await Client(hub.url, room, tokens[0]).open()
    assert await players[0].wait_closed() == 4009
    assert second.view == players[0].view
    await close_all(second, players[1], spec)


async def test_frame_too_large(hub: Any) -> None:
    room, tokens, players, spec = await table(hub.url)
    big = await Client(hub.url, room).open()
    await big.send_raw(msgpack.packb({"t": "ping", "id": 1, "pad": "x" * (1 << 20)}))
    assert await big.wait_closed() == 1009
    assert (await mover(players).act(mover(players).legal[0]))["t"] == "ack"
    await close_all(*players, spec)


async def test_rate_limit(hub_factory: Any) -> None:
    h = hub_factory("--frames-per-s", "5", "--frame-burst", "10").start()
    room = new_room(h.url, "symbiose", 2)
    c = await Client(h.url, room).open()
    for i in range(15):
        await c.send({"t": "ping", "id": i})
    e = await c.next_error()
    assert e["code"] == "rate_limited"
    for i in range(40):
        if c.closed.is_set():
            break
        await c.send({"t": "ping", "id": 100 + i})
    assert await c.wait_closed() == 4008


async def test_slow_reader_is_closed_and_others_keep_going(hub_factory: Any) -> None:
    # a small kernel buffer on the hub's side as well (--sndbuf-kib): the pings it takes to fill the
    # sockets no longer depend on how fast a loaded machine lets the hub answer them
    h = hub_factory("--send-queue", "16", "--frames-per-s", "1000000", "--frame-burst", "1000000",
                    "--sndbuf-kib", "16").start()
    room, tokens, players, spec = await table(h.url)
    # a raw client with a tiny receive buffer that never reads
    host, port = "127.0.0.1", h.port
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, port))
    s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
              b"Sec-WebSocket-Protocol: msgpack\r\n\r\n")
    time.sleep(0.2)

    def frame(payload: bytes) -> bytes:
        mask = b"\x00\x00\x00\x00"
        n = len(payload)
        head = bytes([0x82]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
        return head + mask + payload

    s.sendall(frame(msgpack.packb({"t": "hello", "room": room})))
    ping = frame(msgpack.packb({"t": "ping", "id": 1}))
    s.setblocking(False)
    sent = 0
    started = time.monotonic()

    def closed_slow() -> bool:
        return 'hub_closes_total{code="4008"}' in http(h.url, "GET", "/metrics")[1]

    # Pings go out until the hub drops the reader (its send then fails) or the time is up. The kernel
    # buffers of both ends take megabytes of pings before the hub has read them, so how many were
    # written says nothing of how many were answered: the count only bounds the loop.
    while time.monotonic() - started < 20 and sent < 2_000_000:
        try:
            s.send(ping * 50)
            sent += 50
        except BlockingIOError:
            await asyncio.sleep(0.01)
        except OSError:
            break
        if sent % 5000 == 0:
            await asyncio.sleep(0)
            if closed_slow():
                break
    # the pings still in the hub's receive buffer are answered after the last one was written
    for _ in range(100):
        if closed_slow():
            break
        await asyncio.sleep(0.1)
    assert closed_slow(), "the stalled reader was never closed"
    # the table plays on, and quickly
    t0 = time.monotonic()
    m = mover(players)
    assert (await m.act(m.legal[0]))["t"] == "ack"
    await settle([*players, spec], gap=0.02)
    assert time.monotonic() - t0 < 2
    s.close()
    await close_all(*players, spec)


async def test_lobby_errors(hub: Any) -> None:
    base = hub.url
    for body, code in [({"game": "chess", "seats": 2}, "bad_game"), ({"game": "symbiose", "seats": 9}, "bad_seats"),
                       ({"game": "symbiose", "seats": True}, "bad_seats"), ({"game": "symbiose"}, "bad_seats"),
                       ({"game": "symbiose", "seats": 2, "options": {"mode": "nope"}}, "bad_option"),
                       ({"game": "symbiose", "seats": 3, "options": {"mode": "duel"}}, "bad_option"),
                       ({"game": "symbiose", "seats": 2, "options": {"zzz": 1}}, "bad_option"),
                       ({"game": "symbiose", "seats": 2, "options": []}, "bad_option"),
                       ({"game": "symbiose", "seats": 2, "options": {"bot_delay_ms": -1}}, "bad_option"),
                       ({"game": "symbiose", "seats": 2, "bots": [2]}, "bad_bots"),
                       ({"game": "symbiose", "seats": 2, "bots": [0, 0]}, "bad_bots"),
                       ({"game": "symbiose", "seats": 2, "bots": "0"}, "bad_bots"),
                       ([1, 2], "bad_request")]:
        status, answer = http(base, "POST", "/api/rooms", body)
        assert status == 400 and answer["error"] == code, (body, status, answer)
    status, answer = http(base, "GET", "/api/rooms/nope")
    assert status == 404 and answer["error"] == "no_room"
    status, answer = http(base, "POST", "/api/rooms/nope/join", {"name": "x"})
    assert status == 404
    room = new_room(base, "symbiose", 2)
    for body, code in [({"name": ""}, "bad_name"), ({"name": "x" * 200}, "bad_name"),
                       ({"name": "a\u0000b"}, "bad_name"), ({"name": 5}, "bad_name"),
                       ({"name": "ok", "seat": 7}, "bad_seat"), ({"name": "ok", "seat": "0"}, "bad_seat")]:
        status, answer = http(base, "POST", f"/api/rooms/{room}/join", body)
        assert status == 400 and answer["error"] == code, (body, answer)
    seat, token = join(base, room, "Ann", 1)
    assert seat == 1 and len(token) >= 22
    status, answer = http(base, "POST", f"/api/rooms/{room}/join", {"name": "Bob", "seat": 1})
    assert status == 409 and answer["error"] == "seat_taken"
    join(base, room, "Cid")
    status, answer = http(base, "POST", f"/api/rooms/{room}/join", {"name": "Dee"})
    assert status == 409 and answer["error"] == "room_full"
    status, info = http(base, "GET", f"/api/rooms/{room}")
    assert info["status"] == "playing" and [s["name"] for s in info["seats"]] == ["Cid", "Ann"]
    assert token not in str(info)


async def test_private_rooms_are_not_listed(hub: Any) -> None:
    public = new_room(hub.url, "symbiose", 2)
    private = new_room(hub.url, "symbiose", 2, {"private": True})
    listed = {r["room"] for r in http(hub.url, "GET", "/api/rooms")[1]}
    assert public in listed and private not in listed
    assert len(private) >= 16
    assert http(hub.url, "GET", f"/api/rooms/{private}")[0] == 200


async def test_health_and_metrics(hub: Any) -> None:
    status, body = http(hub.url, "GET", "/healthz")
    assert status == 200 and body["ok"]
    status, text = http(hub.url, "GET", "/metrics")
    for name in ("hub_rooms", "hub_connections", "hub_frames_in_total", "hub_frames_out_total",
                 "hub_bytes_in_total", "hub_bytes_out_total", "hub_actions_total", "hub_errors_total"):
        assert f"# TYPE {name.removesuffix('_total')}" in text, name


async def test_replay_of_a_finished_game(hub: Any) -> None:
    import jsonpatch

    room = new_room(hub.url, "symbiose", 3, {"bot_delay_ms": 0}, bots=[0, 1, 2])
    spec = await Client(hub.url, room).open()
    for _ in range(200):
        if spec.view["result"] is not None:
            break
        await asyncio.sleep(0.05)
    await settle([spec])
    status, replay = http(hub.url, "GET", f"/api/rooms/{room}/replay")
    assert status == 200
    view = replay["view"]
    assert view["result"] is None and view["legal"] == []
    for step in replay["steps"]:
        view = jsonpatch.apply_patch(view, step["ops"])
        assert view["legal"] == []
    assert view == replay["final"]
    # the replay ends where the spectators' game ended
    assert {k: v for k, v in view.items() if k != "deadline"} == {k: v for k, v in spec.view.items()
                                                                     if k != "deadline"}
    assert http(hub.url, "GET", "/api/rooms/nope/replay")[0] == 404
    playing = new_room(hub.url, "symbiose", 2)
    assert http(hub.url, "GET", f"/api/rooms/{playing}/replay")[0] == 409
    await spec.close()


def test_the_browser_client_is_served(hub: Any) -> None:
    status, page = http(hub.url, "GET", "/")
    assert status == 200 and "<script" in page
    status, _ = http(hub.url, "GET", "/vendor/fast-json-patch/package.json")
    assert status == 200


def server_send_buffers(port: int) -> list[int]:
    """The kernel send buffer (`skmem`'s tb) of every established socket of the hub's port, from `ss`."""
    import re
    import subprocess
    out = subprocess.run(["ss", "-tmnH", "state", "established", f"( sport = :{port} )"],
                         capture_output=True, text=True, check=True, timeout=10).stdout
    return [int(m) for m in re.findall(r"\btb(\d+)", out)]


async def test_a_connection_holds_a_bounded_kernel_send_buffer(hub_factory: Any) -> None:
    """Left to itself the kernel grows a loopback socket's send buffer to megabytes: a reader that
    stopped reading would hold that much, and take that many frames, before its queue was full."""
    h = hub_factory().start()
    room, tokens, players, spec = await table(h.url)
    try:
        sizes = server_send_buffers(h.port)
        assert len(sizes) >= 3, sizes  # the two seats and the spectator (the lobby's HTTP is closed)
        # the default 256 KiB, which Linux doubles for its own bookkeeping
        assert max(sizes) <= 2 * 256 * 1024, sizes
    finally:
        await close_all(*players, spec)
