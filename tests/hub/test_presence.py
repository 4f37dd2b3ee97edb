"""Who is here, and tables nobody is at: every seat whose player is not connected is treated alike
(never connected since joining, or left), a bot stands in after the grace while someone human is
at the table, a playing room whose humans have all gone waits for them and ends as abandoned with
its replay kept, and the lobby shows each seat's presence."""
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


async def test_http_only_joiners_are_waited_for_then_abandoned_with_replay(hub: HubProcess) -> None:
    """Nobody human ever came: the stand-ins are named, but play nothing in their names, and the room
    ends as abandoned after --abandon-s however many watch."""
    rid = new_room(hub.url, GAME, 2, FAST)
    join(hub.url, rid, "a")
    join(hub.url, rid, "b")
    spec = await Client(hub.url, rid).open()
    await await_until(lambda: seat_presence(spec.view, 0) == "away", 5, "never-connected seats are away")
    # with Redis, the owner learns the count from the process that relays the room a moment later
    wait_until(lambda: http(hub.url, "GET", f"/api/rooms/{rid}")[1]["watchers"] == 1, 5, "the spectator is counted")
    await await_until(lambda: seat_presence(spec.view, 1) == "bot", 5, "stand-ins are named for them")
    # nothing is played there: the lobby offers it to no one (watchers included) past the grace
    wait_until(lambda: listed(hub, rid) is None, 5, "a deserted table is not listed")
    info = wait_until(lambda: (i := http(hub.url, "GET", f"/api/rooms/{rid}")[1]).get("status") == "finished" and i,
                      15, "a room whose humans all stayed away ends, though someone watches")
    assert info["result"]["abandoned"] is True and info["result"]["winners"] == []
    assert len(info["result"]["scores"]) == 2
    assert spec.view["log"] == (await Client(hub.url, rid).open()).view["log"]
    assert not any(p.get("stood_in") for p in spec.view["players"]), "no move was made in their names"
    await spec.close()
    late = await Client(hub.url, rid).open()
    assert late.view["abandoned"] is True and late.view["result"] == info["result"]
    await late.close()
    status, replay = http(hub.url, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200 and replay["steps"] == [], replay
    listing = listed(hub, rid)
    assert listing is None or listing["abandoned"] is True


async def test_a_deserted_table_waits_for_its_players_and_marks_what_bots_did_for_them(hub: HubProcess) -> None:
    """The issue's deserted game: one player left (a stand-in plays for them while the other is
    here, each such move counted on their seat and marked in the replay), then the other left too:
    nothing more is played in their names, even with a spectator, and the room ends as abandoned,
    scored as it stands."""
    rid = new_room(hub.url, GAME, 3, FAST, [2])
    _, ta = join(hub.url, rid, "Ann", 0)
    _, tb = join(hub.url, rid, "Ben", 1)
    ann, ben = await Client(hub.url, rid, ta).open(), await Client(hub.url, rid, tb).open()
    await ben.close()
    deadline = time.monotonic() + 30
    while not any(p.get("seat") == 1 and p.get("stood_in") for p in ann.view["players"]):
        assert time.monotonic() < deadline, "no stand-in played for Ben while Ann was here"
        assert ann.view["result"] is None, "the game ended before a stand-in played"
        if ann.legal:
            answer = await ann.act(ann.legal[0], seq=ann.seq)
            assert answer["t"] == "ack" or answer["code"] in ("stale", "not_your_turn"), answer
        else:
            await asyncio.sleep(0.05)
    spec = await Client(hub.url, rid).open()
    await ann.close()
    await await_until(lambda: seat_presence(spec.view, 0) in ("away", "bot"), 5, "Ann shows away")
    log, active = list(spec.view["log"]), spec.view["active"]
    await asyncio.sleep(1.5)  # past the grace: Ann's stand-in is named, but plays nothing, nor do the others
    assert spec.view["log"] == log and spec.view["active"] == active, "a deserted table played on"
    info = wait_until(lambda: (i := http(hub.url, "GET", f"/api/rooms/{rid}")[1]).get("status") == "finished" and i,
                      15, "the deserted room ends")
    assert info["result"]["abandoned"] is True
    await asyncio.sleep(0.3)
    ben_moves = next(p for p in spec.view["players"] if p["seat"] == 1)["stood_in"]
    assert ben_moves >= 1
    status, replay = http(hub.url, "GET", f"/api/rooms/{rid}/replay")
    assert status == 200
    marked = [st for st in replay["steps"] if st.get("by") == "stand_in"]
    assert marked and all(st["seat"] == 1 for st in marked), marked
    final = next(p for p in replay["final"]["players"] if p["seat"] == 1)
    assert final["stood_in"] == ben_moves
    # the very lines of the Moves log those moves wrote are marked, live and in the replay alike:
    # Ben never moved himself, so every line by seat 1 is a stand-in's, and no other line is
    view = spec.view
    marks = view.get("log_stood_in") or []
    by_ben = [view["log_from"] + i for i, e in enumerate(view["log"]) if e[0] in ("flip", "swap") and e[1] == 1]
    assert by_ben and marks == by_ben, (marks, view["log"])
    assert replay["final"].get("log_stood_in") == marks
    await spec.close()


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
