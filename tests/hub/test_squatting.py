"""A lobby that cannot be squatted: seats per address, and requests other sites' pages make.

One address took 120 of 120 seats across 30 public rooms in a tenth of a second, and the rooms'
creators then got `409 room_full`; any web page could create rooms and take seats from its
visitors' addresses with a `text/plain` POST. The squatter here speaks from 127.0.0.2 and the
rooms' creators from 127.0.0.1, two addresses of the loopback network.
"""
from __future__ import annotations

import asyncio
import json
import time
from http.client import HTTPConnection
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets
import websockets.asyncio.client as wc

from hub.settings import Settings
from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, http, new_room

SQUATTER = "127.0.0.2"


def request(base: str, method: str, path: str, body: Any = None, source: str | None = None,
            headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, Any]:
    """One HTTP request from the given source address, with the given headers (JSON by default)."""
    u = urlsplit(base)
    conn = HTTPConnection(u.hostname or "", u.port, timeout=10,
                          source_address=(source, 0) if source else None)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json"} if data is not None else {}
    sent.update(headers or {})
    try:
        conn.request(method, path, body=data, headers=sent)
        r = conn.getresponse()
        out = r.read()
        try:
            return r.status, json.loads(out)
        except ValueError:
            return r.status, out.decode(errors="replace")
    finally:
        conn.close()


def taken(base: str, rid: str) -> list[str | None]:
    info = http(base, "GET", f"/api/rooms/{rid}")[1]
    return [s["name"] for s in info["seats"]]


def test_one_address_cannot_take_every_seat_of_the_lobby(hub_factory: Any) -> None:
    """The issue's run at the default limits: 30 rooms of 4, one address tries all 120 seats."""
    d = Settings()
    h = hub_factory("--joins-per-ip-per-min", str(d.joins_per_ip_per_min), "--seats-per-ip", str(d.seats_per_ip),
                    "--rooms-per-ip-per-min", "0").start()
    rooms = [new_room(h.url, "symbiose", 4) for _ in range(30)]
    answers = [request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "squat"}, SQUATTER)
               for rid in rooms for _ in range(4)]
    won = [a for a in answers if a[0] == 200]
    refused = [a for a in answers if a[0] != 200]
    assert len(won) == d.seats_per_ip, [a[1] for a in refused[:3]]
    assert all(status == 429 and body["error"] in ("too_many_seats", "rate_limited") for status, body in refused)
    # a refused join changed nothing: the seats it asked for are free, and their rooms' people sit in them
    assert sum(name == "squat" for rid in rooms for name in taken(h.url, rid)) == d.seats_per_ip
    for rid in rooms:
        free = taken(h.url, rid).count(None)
        if free:
            status, body = request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "host"}, "127.0.0.1")
            assert status == 200, body


def test_joins_per_address_per_minute(hub_factory: Any) -> None:
    h = hub_factory("--joins-per-ip-per-min", "5", "--seats-per-ip", "0", "--rooms-per-ip-per-min", "0").start()
    rooms = [new_room(h.url, "symbiose", 4) for _ in range(2)]
    for i in range(5):
        status, body = request(h.url, "POST", f"/api/rooms/{rooms[i % 2]}/join", {"name": f"p{i}"}, SQUATTER)
        assert status == 200, body
    before = [taken(h.url, rid) for rid in rooms]
    status, body = request(h.url, "POST", f"/api/rooms/{rooms[1]}/join", {"name": "late"}, SQUATTER)
    assert status == 429 and body["error"] == "rate_limited", body
    assert [taken(h.url, rid) for rid in rooms] == before
    assert 'hub_refused_total{reason="joins"} 1.0' in http(h.url, "GET", "/metrics")[1]
    # another address is not held back by this one
    status, body = request(h.url, "POST", f"/api/rooms/{rooms[1]}/join", {"name": "friend"}, "127.0.0.1")
    assert status == 200, body


def test_a_join_the_room_refuses_costs_nothing(hub_factory: Any) -> None:
    h = hub_factory("--joins-per-ip-per-min", "2", "--seats-per-ip", "2", "--rooms-per-ip-per-min", "0").start()
    rid = new_room(h.url, "symbiose", 2)
    assert request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "a", "seat": 0}, SQUATTER)[0] == 200
    for _ in range(5):  # a taken seat, again and again: 409 each time, never a seat or a join counted
        status, body = request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "b", "seat": 0}, SQUATTER)
        assert status == 409, body
    other = new_room(h.url, "symbiose", 2)
    assert request(h.url, "POST", f"/api/rooms/{other}/join", {"name": "b"}, SQUATTER)[0] == 200


def test_seats_come_back_when_their_rooms_go(hub_factory: Any) -> None:
    h = hub_factory("--seats-per-ip", "3", "--joins-per-ip-per-min", "0", "--rooms-per-ip-per-min", "0",
                    "--waiting-ttl-s", "1").start()
    rooms = [new_room(h.url, "symbiose", 4) for _ in range(3)]
    for rid in rooms:
        assert request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "p"}, SQUATTER)[0] == 200
    fourth = new_room(h.url, "symbiose", 4)
    status, body = request(h.url, "POST", f"/api/rooms/{fourth}/join", {"name": "p"}, SQUATTER)
    assert status == 429 and body["error"] == "too_many_seats", body
    assert taken(h.url, fourth) == [None] * 4
    deadline = time.monotonic() + 30  # the three waiting rooms expire; their seats are held no more
    while time.monotonic() < deadline and any(http(h.url, "GET", f"/api/rooms/{r}")[0] == 200 for r in rooms):
        time.sleep(0.2)
    fresh = new_room(h.url, "symbiose", 4)
    status, body = request(h.url, "POST", f"/api/rooms/{fresh}/join", {"name": "p"}, SQUATTER)
    assert status == 200, body


def test_a_seat_taken_by_play_again_is_held_like_a_joined_one(hub_factory: Any) -> None:
    h = hub_factory("--seats-per-ip", "1", "--joins-per-ip-per-min", "0", "--rooms-per-ip-per-min", "0",
                    "--grace-s", "0.5", "--abandon-s", "1", "--bot-delay-ms", "0").start()
    rid = new_room(h.url, "symbiose", 2, bots=[1])
    status, seat = request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "p", "seat": 0}, SQUATTER)
    assert status == 200, seat
    deadline = time.monotonic() + 60  # nobody connects: the room ends as abandoned, and its seat is free
    while time.monotonic() < deadline and http(h.url, "GET", f"/api/rooms/{rid}")[1]["status"] != "finished":
        time.sleep(0.2)
    status, again = request(h.url, "POST", f"/api/rooms/{rid}/again", {"token": seat["token"]}, SQUATTER)
    assert status == 200, again
    other = new_room(h.url, "symbiose", 2)
    status, body = request(h.url, "POST", f"/api/rooms/{other}/join", {"name": "p"}, SQUATTER)
    assert status == 429 and body["error"] == "too_many_seats", body


# ---- requests that other sites' pages make ------------------------------------------------------


@pytest.mark.parametrize("ctype", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                   "application/jsonp", "text/json"])
def test_every_lobby_post_must_be_json(hub: Any, ctype: str | None) -> None:
    rid = new_room(hub.url, "symbiose", 2)
    body = json.dumps({"name": "x"}).encode()
    for path in ("/api/rooms", f"/api/rooms/{rid}/join"):
        sent = {"Content-Type": ctype} if ctype else {"Content-Type": ""}
        status, answer = request(hub.url, "POST", path, raw=body, headers=sent)
        assert status == 415 and answer["error"] == "unsupported_media_type", (ctype, path, answer)
    assert taken(hub.url, rid) == [None, None]
    status, answer = request(hub.url, "POST", f"/api/rooms/{rid}/join", raw=body,
                             headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert status == 200, answer


@pytest.fixture(scope="module")
def origin_hub() -> Any:
    from tests.conftest import HubProcess

    h = HubProcess("--allowed-origins", "https://games.example, http://127.0.0.1:9").start()
    yield h
    h.stop()


@pytest.mark.parametrize(("origin", "ok"), [
    (None, True), ("SAME", True), ("https://games.example", True), ("http://127.0.0.1:9", True),
    ("http://127.0.0.1:1", False), ("http://evil.example", False), ("null", False),
    ("https://games.example.evil", False),
])
def test_a_foreign_origin_may_not_post(origin_hub: Any, origin: str | None, ok: bool) -> None:
    h = origin_hub
    headers = {} if origin is None else {"Origin": h.url if origin == "SAME" else origin}
    status, body = request(h.url, "POST", "/api/rooms", {"game": "symbiose", "seats": 2}, headers=headers)
    if ok:
        assert status == 201, body
        status, body = request(h.url, "POST", f"/api/rooms/{body['room']}/join", {"name": "p"}, headers=headers)
        assert status == 200, body
    else:
        assert status == 403 and body["error"] == "forbidden_origin", body
        rid = new_room(h.url, "symbiose", 2)
        status, body = request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": "p"}, headers=headers)
        assert status == 403 and body["error"] == "forbidden_origin", body
        assert taken(h.url, rid) == [None, None]
    # reading stays open to anyone: the lobby's GETs have no side effect
    assert request(h.url, "GET", "/api/rooms", headers=headers)[0] == 200


async def test_a_foreign_origin_may_not_open_a_websocket(origin_hub: Any) -> None:
    h = origin_hub
    rid = new_room(h.url, "symbiose", 2)
    ws_url = h.url.replace("http", "ws") + "/ws"
    with pytest.raises(websockets.InvalidStatus) as refused:
        await asyncio.wait_for(wc.connect(ws_url, origin="http://evil.example"), 10)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    for origin in (h.url, "https://games.example"):  # its own pages, and the ones it lists
        async with wc.connect(ws_url, origin=origin, subprotocols=["msgpack"]) as ws:  # type: ignore[arg-type,list-item]
            await ws.send(Client(h.url, rid).encode({"t": "hello", "room": rid}))
            assert ws.close_code is None
            await asyncio.wait_for(ws.recv(), 10)
    spectator = await Client(h.url, rid).open()  # no Origin at all: a bot or a script
    assert spectator.view is not None
    await spectator.close()


@pytest.mark.parametrize(("limit", "code"), [("--seats-per-ip", "too_many_seats"),
                                             ("--joins-per-ip-per-min", "rate_limited")])
def test_an_address_is_held_to_one_count_across_processes(redis_url: str, limit: str, code: str) -> None:
    """Two hub processes on one Redis: joins spread over both are counted once (per process, an
    address behind a balancer had each process's limits over again)."""
    prefix = new_prefix()
    others = {"--seats-per-ip": "0", "--joins-per-ip-per-min": "0"}
    others[limit] = "3"
    args = ("--redis", redis_url, "--redis-prefix", prefix, "--rooms-per-ip-per-min", "0",
            *(x for kv in others.items() for x in kv))
    a, b = HubProcess(*args), HubProcess(*args)
    try:
        a.start()
        b.start()
        rooms = [new_room(a.url, "symbiose", 4) for _ in range(2)]
        ways = [(a, rooms[0]), (b, rooms[0]), (a, rooms[1])]
        for i, (h, rid) in enumerate(ways):
            status, body = request(h.url, "POST", f"/api/rooms/{rid}/join", {"name": f"s{i}"}, SQUATTER)
            assert status == 200, body
        for h in (b, a):
            status, body = request(h.url, "POST", f"/api/rooms/{rooms[1]}/join", {"name": "more"}, SQUATTER)
            assert status == 429 and body["error"] == code, (status, body)
        assert taken(a.url, rooms[1]).count(None) == 3, "a refused join took no seat"
        # another address is not held back, on either process
        for h in (a, b):
            status, body = request(h.url, "POST", f"/api/rooms/{rooms[1]}/join", {"name": "host"}, "127.0.0.1")
            assert status == 200, body
    finally:
        a.stop()
        b.stop()
        drop_prefix(redis_url, prefix)
