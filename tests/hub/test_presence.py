"""Who is here, and tables nobody is at: every seat whose player is not connected is treated alike
(never connected since joining, or left), a bot stands in after the grace, a playing room nobody is
at ends as abandoned with its replay kept, and the lobby shows each seat's presence."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, http, join, new_room

GAME = "symbiose"
FAST = {"bot_delay_ms": 0}


def wait_until(what: Callable[[], Any], timeout: float, why: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out: {why}")


async def await_until(what: Callable[[], Any], timeout: float, why: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out: {why}")


def listed(hub: HubProcess, rid: str) -> dict[str, Any] | None:
    status, rooms = http(hub.url, "GET", "/api/rooms")
    assert status == 200
    return next((r for r in rooms if r["room"] == rid), None)


def seat_presence(view: Any, seat: int) -> str | None:
    players = (view or {}).get("players") or []
    return next((p.get("presence") for p in players if p.get("seat") == seat), None)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def hub(request: pytest.FixtureRequest) -> Any:
    args = ["--grace-s", "1", "--bot-delay-ms", "0", "--abandon-s", "3"]
    prefix = new_prefix()
    if request.param == "memory":
        args += ["--store", "memory"]
    elif request.param == "redis":
        args += ["--redis", request.getfixturevalue("redis_url"), "--redis-prefix", prefix]
    h = HubProcess(*args).start()
    yield h
    h.stop()
    if request.param == "redis":
        drop_prefix(request.getfixturevalue("redis_url"), prefix)


async def test_creator_closes_the_tab_then_away_then_a_bot_plays(hub: HubProcess) -> None:
    rid = new_room(hub.url, GAME, 2, FAST)
    _, t0 = join(hub.url, rid, "creator")
    creator = await Client(hub.url, rid, t0).open()
    assert listed(hub, rid)["presence"][0]["presence"] == "here"
    await creator.close()  # closes the tab before anyone joins
    wait_until(lambda: listed(hub, rid) is None, 5, "a waiting room whose only player has gone is not offered")
    _, t1 = join(hub.url, rid, "friend")
    friend = await Client(hub.url, rid, t1).open()
    await await_until(lambda: seat_presence(friend.view, 0) == "away", 5, "the creator shows away")
    p0 = next(p for p in friend.view["players"] if p["seat"] == 0)
    assert p0["grace_until"] > time.time() * 1000 - 500
    await await_until(lambda: seat_presence(friend.view, 0) == "bot", 8, "a bot stands in after the grace")
    assert seat_presence(friend.view, 1) == "here"
    info = http(hub.url, "GET", f"/api/rooms/{rid}")[1]
    assert [s["presence"] for s in info["seats"]] == ["bot", "here"]
    await friend.close()


async def test_http_only_joiners_are_played_by_bots_then_abandoned_with_replay(hub: HubProcess) -> None:
    rid = new_room(hub.url, GAME, 2, {"bot_delay_ms": 3000})
    join(hub.url, rid, "a")
    join(hub.url, rid, "b")
    spec = await Client(hub.url, rid).open()
    await await_until(lambda: seat_presence(spec.view, 0) == "away", 5, "never-connected seats are away")
    # with Redis, the owner learns the count from the process that relays the room a moment later
    wait_until(lambda: http(hub.url, "GET", f"/api/rooms/{rid}")[1]["watchers"] == 1, 5, "the spectator is counted")
    assert listed(hub, rid)["watchers"] == 1
    await await_until(lambda: seat_presence(spec.view, 1) == "bot", 5, "bots stand in for them")
    await spec.close()
    info = wait_until(lambda: (i := http(hub.url, "GET", f"/api/rooms/{rid}")[1]).get("status") == "finished" and i,
                      15, "a room nobody is at ends")
    assert info["result"]["abandoned"] is True and info["result"]["winners"] == []
    assert len(info["result"]["scores"]) == 2
    late = await Client(hub.url, rid).open()
    assert late.view["abandoned"] is True and late.view["result"] == info["result"]
    await late.close()
    status, replay = http(hub.url, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200, replay


def test_max_rooms_of_http_only_joiners_do_not_fill_the_hub() -> None:
    h = HubProcess("--store", "memory", "--max-rooms", "20", "--waiting-ttl-s", "2", "--grace-s", "1",
                   "--abandon-s", "2").start()
    try:
        for i in range(20):
            rid = new_room(h.url, GAME, 2)
            join(h.url, rid, f"a{i}")
            join(h.url, rid, f"b{i}")
        assert http(h.url, "POST", "/api/rooms", {"game": GAME, "seats": 2})[0] == 503
        wait_until(lambda: http(h.url, "POST", "/api/rooms", {"game": GAME, "seats": 2})[0] == 201, 15,
                   "a new room can be made once nobody's rooms end")
    finally:
        h.stop()


async def test_spectators_of_another_process_are_counted(redis_url: str) -> None:
    """With Redis every connection is a relay's: the owner learns each process's count of spectators,
    so the room's info and the lobby say how many watch wherever they watch from."""
    prefix = new_prefix()
    args = ("--redis", redis_url, "--redis-prefix", prefix)
    a, b = HubProcess(*args), HubProcess(*args)
    try:
        a.start()
        b.start()
        rid = new_room(a.url, GAME, 2)
        watchers = [await Client(b.url, rid).open() for _ in range(2)]
        wait_until(lambda: http(a.url, "GET", f"/api/rooms/{rid}")[1]["watchers"] == 2, 5, "two watch from b")
        wait_until(lambda: (listed(b, rid) or {}).get("watchers") == 2, 5, "the lobby says so on b too")
        await watchers[0].close()
        wait_until(lambda: http(a.url, "GET", f"/api/rooms/{rid}")[1]["watchers"] == 1, 5, "one left")
        await watchers[1].close()
        wait_until(lambda: http(b.url, "GET", f"/api/rooms/{rid}")[1]["watchers"] == 0, 5, "nobody watches")
    finally:
        a.stop()
        b.stop()
        drop_prefix(redis_url, prefix)
