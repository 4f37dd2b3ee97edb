"""Every limit is a setting with a sane default, and each one holds over real sockets: frame size,
frames per second, connections per address, rooms per address per minute, names, lobby bodies,
open offers per player, and actions the hub cannot keep."""
from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
import websockets
import websockets.asyncio.client as wc

from hub.run.fds import fitted
from hub.settings import Settings
from rules.registry import GAMES
from tests.conftest import HubProcess
from tests.hub.wsclient import Client, http, join, new_room, settle


@pytest.mark.parametrize("nofile", [256, 1024, 65536, 1 << 20])
def test_every_limit_has_a_sane_default(nofile: int) -> None:
    s = fitted(Settings(), nofile)  # the connection limits follow the open-file limit (hub/run/fds.py)
    assert 1024 <= s.max_frame_bytes <= 1 << 20
    assert 5 <= s.frames_per_s <= 200 and s.frame_burst >= s.frames_per_s
    assert 16 <= s.send_queue <= 4096
    # every connection limit below the open-file limit, with room for the process's own files
    assert 1 <= s.max_conns <= nofile - 64
    for per_ip in (s.conns_per_ip, s.http_conns_per_ip, s.pending_ws_per_ip):
        assert 1 <= per_ip <= s.max_conns // 2 and per_ip <= 4000
    assert 1 <= s.rooms_per_ip_per_min <= 1000
    # a family on one network never meets the seat limits
    assert s.joins_per_ip_per_min >= 30 and s.seats_per_ip >= 16
    assert 8 <= s.name_max <= 64
    assert 1024 <= s.max_body_bytes <= 1 << 20
    assert s.max_rooms > 0 and s.hello_timeout_s > 0 and s.idle_timeout_s > s.ping_interval_s
    assert 1 <= s.chat_burst <= 20 and 1 <= s.chat_per_min <= 120
    assert 100 <= s.chat_max_chars <= 1000 and 0 <= s.chat_history <= 1000


async def test_frame_size_is_counted_in_bytes_at_the_limit(hub_factory: Any) -> None:
    h = hub_factory("--max-frame-bytes", "2048").start()
    room = new_room(h.url, "symbiose", 2)
    for codec in ("msgpack", "json"):
        c = await Client(h.url, room, codec=codec).open()
        pad = 2048 - len(c.encode({"t": "ping", "id": 1, "pad": ""}))
        while len(c.encode({"t": "ping", "id": 1, "pad": "x" * pad})) > 2048:  # the string's header grows
            pad -= 1
        ok = {"t": "ping", "id": 1, "pad": "x" * pad}
        assert len(c.encode(ok)) == 2048
        assert (await c.request(ok))["t"] == "pong"
        # one byte more; on a text frame, as one character of two bytes: counted in bytes, not characters
        raw = c.encode(ok)
        raw = raw.replace("x", "\u00e9", 1) if isinstance(raw, str) else c.encode({**ok, "pad": "x" * (pad + 1)})
        assert len(raw if isinstance(raw, bytes) else raw.encode()) == 2049
        await c.send_raw(raw)
        assert await c.wait_closed() == 1009
    spec = await Client(h.url, room).open()
    assert spec.view is not None
    await spec.close()


async def close_code_of_one_more(base: str) -> int | None:
    async with wc.connect(base.replace("http", "ws") + "/ws", subprotocols=["msgpack"]) as ws:  # type: ignore[list-item]
        with contextlib.suppress(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
        return ws.close_code


async def test_connections_per_address(hub_factory: Any) -> None:
    h = hub_factory("--conns-per-ip", "3").start()
    room = new_room(h.url, "symbiose", 2)
    first = [await Client(h.url, room).open() for _ in range(3)]
    assert all(c.view is not None for c in first)
    assert await close_code_of_one_more(h.url) == 4008
    # a closed connection gives its place back, however many come and go
    for _ in range(5):
        await first[0].close()
        for _ in range(100):  # the hub lets go of the closed one a moment after the close handshake
            if http(h.url, "GET", "/healthz")[1]["connections"] < 3:
                break
            await asyncio.sleep(0.01)
        first[0] = await Client(h.url, room).open()
        assert first[0].view is not None and not first[0].closed.is_set()
    assert await close_code_of_one_more(h.url) == 4008
    health = http(h.url, "GET", "/healthz")[1]
    assert health["connections"] == 3
    for c in first:
        await c.close()


def test_rooms_per_address_per_minute(hub_factory: Any) -> None:
    h = hub_factory("--rooms-per-ip-per-min", "3").start()
    for _ in range(3):
        new_room(h.url, "symbiose", 2)
    status, body = http(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2})
    assert status == 429 and body["error"] == "rate_limited"
    # refused requests cost nothing: a bad body is still a 400, not counted
    status, body = http(h.url, "POST", "/api/rooms", {"game": "chess", "seats": 2})
    assert status == 400
    assert http(h.url, "GET", "/api/rooms")[0] == 200


@pytest.fixture(scope="module")
def names_hub() -> Iterator[HubProcess]:
    h = HubProcess("--name-max", "8", "--rooms-per-ip-per-min", "1000").start()
    yield h
    h.stop()


@pytest.mark.parametrize(("name", "ok"), [
    ("Ann", True), ("  Ann  ", True), ("A" * 8, True), ("A" * 9, False), ("e\u0301" * 8, True),
    ("", False), ("   ", False), ("a\tb", False), ("a\nb", False), ("a\u0000b", False), ("a\u200bb", False),
    ("\u202eevil", False), ("a\u2028b", False), ("a\u00a0b", False), ("\ud800", False), ("x" * 10000, False),
    ("Zoë", True), ("李小龙", True), ("a b", True),
])
def test_names_length_and_characters(names_hub: HubProcess, name: str, ok: bool) -> None:
    h = names_hub
    room = new_room(h.url, "symbiose", 4)
    status, body = http(h.url, "POST", f"/api/rooms/{room}/join", {"name": name})
    if ok:
        assert status == 200, body
        info = http(h.url, "GET", f"/api/rooms/{room}")[1]
        assert info["seats"][0]["name"] == name.strip().replace("e\u0301", "\u00e9")
    else:
        assert status == 400 and body["error"] == "bad_name", (name[:20], body)


def test_lobby_body_size(hub_factory: Any) -> None:
    h = hub_factory("--max-body-bytes", "512").start()
    status, body = http(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2, "pad": "x" * 600})
    assert status == 413 and body["error"] == "too_large"
    status, body = http(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2, "pad": "x" * 400})
    assert status == 201


async def test_rate_limit_past_the_burst_leaves_others_alone(hub_factory: Any) -> None:
    h = hub_factory("--frames-per-s", "5", "--frame-burst", "10").start()
    room = new_room(h.url, "symbiose", 2)
    flood, calm = await Client(h.url, room).open(), await Client(h.url, room).open()
    for i in range(60):
        if flood.closed.is_set():
            break
        await flood.send({"t": "ping", "id": i})
    assert await flood.wait_closed() == 4008
    assert any(e["code"] == "rate_limited" for e in flood.errors)
    assert (await calm.request({"t": "ping", "id": 5}))["t"] == "pong"
    await calm.close()


@pytest.mark.skipif("waterfall_park" not in GAMES, reason="Waterfall Park is not registered")
async def test_open_offers_per_player_is_a_room_option(hub: Any) -> None:
    for bad in (0, 21, "2", True):
        status, body = http(hub.url, "POST", "/api/rooms",
                            {"game": "waterfall_park", "seats": 3, "options": {"max_offers": bad}})
        assert status == 400 and body["error"] == "bad_option", bad
    room = new_room(hub.url, "waterfall_park", 3, {"max_offers": 2})
    tokens = [join(hub.url, room, f"p{s}", s)[1] for s in range(3)]
    players = [await Client(hub.url, room, t).open() for t in tokens]
    for _ in range(40):  # everyone makes their first choice until the Exchange opens
        await settle(players, gap=0.03)
        if players[0].view["phase"] == "exchange":
            break
        for c in players:
            if c.legal:
                await c.act(c.legal[0])
    assert players[0].view["phase"] == "exchange" and players[0].view["max_offers"] == 2
    gift = {"type": "offer", "transfers": [{"from": 0, "to": 1, "coins": 1}]}
    assert (await players[0].act(gift))["t"] == "ack"
    assert (await players[0].act(gift))["t"] == "ack"
    third = await players[0].act(gift)
    assert third["t"] == "error" and third["code"] == "illegal", third
    await settle(players)
    assert len(players[2].view["offers"]) == 2
    for c in players:
        await c.close()


async def test_actions_the_hub_cannot_keep_are_refused_not_fatal(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 2)
    tokens = [join(hub.url, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(hub.url, room, t).open() for t in tokens]
    jsonc = await Client(hub.url, room, tokens[1], codec="json").open()
    await settle([*players, jsonc])
    mover = players[0] if players[0].legal else jsonc
    action = dict(mover.legal[0])
    if mover.codec == "msgpack":
        await mover.send_raw(msgpack.packb({"t": "act", "id": 1, "action": {**action, "x": {0: 1}}}))
    else:
        await mover.send_raw(json.dumps({"t": "act", "id": 1, "action": {**action, "slot": 2**70}}))
    e = await mover.next_error()
    assert e["code"] in ("bad_message", "illegal") and not mover.closed.is_set()
    assert (await mover.act(action))["t"] == "ack"
    await asyncio.sleep(0)
    for c in [*players, jsonc]:
        await c.close()
