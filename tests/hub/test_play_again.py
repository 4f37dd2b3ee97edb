"""Play again: the first seated player who asks makes the next room (same game, seats, options and
bots) with every player of the finished game in their own seat under the token they hold, so a
player who asks later, or comes back after a while, finds their seat (a stand-in plays it while
they are away); the finished room links to the next one, and with Redis any process sees the link
and seats the players in the same room."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, http, join, new_room

GAME = "symbiose"
OPTIONS = {"bot_delay_ms": 0, "decision_seconds": 600}


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def hubs(request: pytest.FixtureRequest) -> Iterator[tuple[HubProcess, HubProcess]]:
    """Two processes on Redis (one room, asked on both); on the embedded stores one process twice."""
    args = ["--grace-s", "2", "--bot-delay-ms", "0", "--rooms-per-ip-per-min", "0"]
    prefix = new_prefix()
    if request.param == "memory":
        args += ["--store", "memory"]
    elif request.param == "redis":
        args += ["--redis", request.getfixturevalue("redis_url"), "--redis-prefix", prefix]
    a = HubProcess(*args).start()
    b = HubProcess(*args).start() if request.param == "redis" else a
    yield a, b
    for h in {id(a): a, id(b): b}.values():
        h.stop()
    if request.param == "redis":
        drop_prefix(request.getfixturevalue("redis_url"), prefix)


def info(hub: HubProcess, rid: str) -> dict[str, Any]:
    status, body = http(hub.url, "GET", f"/api/rooms/{rid}")
    assert status == 200, body
    return dict(body)


def listed(hub: HubProcess, rid: str) -> dict[str, Any]:
    """A room's entry in the lobby's listing (GET /api/rooms)."""
    status, body = http(hub.url, "GET", "/api/rooms")
    assert status == 200, body
    return dict(next(r for r in body if r["room"] == rid))


async def finished_room(hub: HubProcess, bots: list[int] | None = None) -> tuple[str, list[str]]:
    """Two players who join over HTTP and play their first legal move each time until the end (a
    table whose humans have all gone is not played out by bots any more)."""
    rid = new_room(hub.url, GAME, 3 if bots else 2, OPTIONS, bots)
    tokens = [join(hub.url, rid, f"player{s}", s)[1] for s in range(2)]
    players = [await Client(hub.url, rid, t).open() for t in tokens]
    deadline = time.monotonic() + 60
    while info(hub, rid)["status"] != "finished":
        assert time.monotonic() < deadline, "the players did not finish the game"
        moved = False
        for c in players:
            if c.legal and c.view.get("result") is None:
                await c.act(c.legal[0], seq=c.seq)  # stale now and then: the next turn tries again
                moved = True
        if not moved:
            await asyncio.sleep(0.05)
    for c in players:
        await c.close()
    return rid, tokens


async def test_both_players_play_again_in_one_new_room(hubs: tuple[HubProcess, HubProcess]) -> None:
    a, b = hubs
    rid, (t0, t1) = await finished_room(a, bots=[2])
    assert info(a, rid)["next_room"] is None
    assert listed(b, rid)["next_room"] is None
    # a token of no seat, and no token at all, are refused and change nothing
    assert http(a.url, "POST", f"/api/rooms/{rid}/again", {"token": "not-a-token"})[0] == 403
    assert http(a.url, "POST", f"/api/rooms/{rid}/again", {})[1]["error"] == "bad_request"
    assert info(b, rid)["next_room"] is None

    # both press at once, on different processes where there are several
    (s0, r0), (s1, r1) = await asyncio.gather(
        asyncio.to_thread(http, a.url, "POST", f"/api/rooms/{rid}/again", {"token": t0}),
        asyncio.to_thread(http, b.url, "POST", f"/api/rooms/{rid}/again", {"token": t1}))
    assert s0 == 200 and s1 == 200, (r0, r1)
    nxt = r0["room"]
    assert r1["room"] == nxt != rid
    assert (r0["seat"], r1["seat"]) == (0, 1)
    assert (r0["token"], r1["token"]) == (t0, t1)  # the tokens they hold hold their seats there
    # the finished room links to it, from any process
    assert info(a, rid)["next_room"] == nxt
    assert info(b, rid)["next_room"] == nxt
    # and so does the lobby's listing, so that the lobby leads on to the next table
    assert listed(a, rid)["next_room"] == nxt
    assert listed(b, rid)["next_room"] == nxt

    new = info(b, nxt)
    assert new["game"] == GAME and len(new["seats"]) == 3
    assert [s["name"] for s in new["seats"]] == ["player0", "player1", new["seats"][2]["name"]]
    assert new["seats"][2]["bot"] is True
    assert new["status"] == "playing"
    c0 = await Client(a.url, nxt, r0["token"]).open()
    c1 = await Client(b.url, nxt, r1["token"]).open()
    assert (c0.seat, c1.seat) == (0, 1)
    assert c0.view["deadline"] is not None, "the options came along (decision_seconds)"
    await c0.close()
    await c1.close()
    # a second press of the same player (another tab, a reload) finds the same seat
    again = http(a.url, "POST", f"/api/rooms/{rid}/again", {"token": t0})
    assert again == (200, {"room": nxt, "seat": 0, "token": t0}), again
    # a game still being played offers no next one
    status, body = http(a.url, "POST", f"/api/rooms/{nxt}/again", {"token": r0["token"]})
    assert status == 409 and body["error"] == "not_finished", body
    assert http(a.url, "POST", "/api/rooms/nosuchroom/again", {"token": t0})[0] == 404


async def test_a_seat_nobody_asks_for_is_kept_for_its_player(hubs: tuple[HubProcess, HubProcess]) -> None:
    """The issue's returning player: one asks, the other comes back long after the grace (a
    stand-in has played their seat meanwhile) and still finds it, neither given to a bot for good
    nor offered to strangers."""
    a, b = hubs
    rid, (t0, t1) = await finished_room(a)
    status, body = http(b.url, "POST", f"/api/rooms/{rid}/again", {"token": t0})
    assert status == 200, body
    nxt = body["room"]
    player = await Client(a.url, nxt, body["token"]).open()
    new = info(a, nxt)
    assert new["status"] == "playing"  # everyone is seated at once: nobody waits for the others
    assert [s["name"] for s in new["seats"]] == ["player0", "player1"]
    assert [s["bot"] for s in new["seats"]] == [False, False]
    assert listed(b, nxt)["joinable"] is False  # not offered to others
    # the second player stays away past the grace: a stand-in plays the seat, still theirs
    deadline = time.monotonic() + 15
    while info(b, nxt)["seats"][1].get("presence") != "bot":
        assert time.monotonic() < deadline, "no stand-in came for the absent player"
        await asyncio.sleep(0.2)
    assert http(b.url, "POST", f"/api/rooms/{nxt}/join", {"name": "stranger", "seat": 1})[0] == 409
    # and comes back: asks (the end screen, the lobby's "join the next table") and sits down
    status, back = http(b.url, "POST", f"/api/rooms/{rid}/again", {"token": t1})
    assert (status, back) == (200, {"room": nxt, "seat": 1, "token": t1}), back
    returning = await Client(b.url, nxt, t1).open()
    assert returning.seat == 1
    deadline = time.monotonic() + 10
    while info(a, nxt)["seats"][1].get("presence") != "here":
        assert time.monotonic() < deadline, "the returning player is not shown here"
        await asyncio.sleep(0.1)
    await returning.close()
    await player.close()


async def asked_again_then_gone(args: list[str], kill: bool) -> tuple[str, list[str], dict[str, Any]]:
    """A hub on SQLite whose finished room's first player asked to play again, then stopped (or
    killed): the finished room, its tokens and the answer to the ask."""
    h = HubProcess(*args).start()
    try:
        rid, tokens = await finished_room(h)
        status, body = http(h.url, "POST", f"/api/rooms/{rid}/again", {"token": tokens[0]})
        assert status == 200, body
    finally:
        h.kill() if kill else h.stop()
    return rid, tokens, dict(body)


async def test_the_link_outlives_a_restart_on_sqlite(tmp_path: Any) -> None:
    """The SQLite store writes the link down: after a restart the finished room still names its next
    room, and a player who asks then is seated there, not in a third room."""
    args = ["--grace-s", "2", "--bot-delay-ms", "0", "--db", str(tmp_path / "hub.sqlite3")]
    rid, (_, t1), first = await asked_again_then_gone(args, kill=False)
    h = HubProcess(*args).start()
    try:
        assert info(h, rid)["next_room"] == first["room"]
        assert listed(h, rid)["next_room"] == first["room"]  # brought back with the finished room
        status, second = http(h.url, "POST", f"/api/rooms/{rid}/again", {"token": t1})
        assert status == 200 and second["room"] == first["room"] and second["seat"] == 1, second
    finally:
        h.stop()


async def test_the_next_rooms_seats_are_kept_across_a_restart(tmp_path: Any) -> None:
    """The seats of the next room are in its record: a process killed just after the first ask and
    started again still seats the other player there, under the token they hold."""
    args = ["--grace-s", "3", "--bot-delay-ms", "0", "--db", str(tmp_path / "hub.sqlite3")]
    rid, (_, t1), body = await asked_again_then_gone(args, kill=True)
    nxt = body["room"]
    h = HubProcess(*args).start()
    try:
        player = await Client(h.url, nxt, body["token"]).open()
        assert player.seat == 0
        other = await Client(h.url, nxt, t1).open()
        assert other.seat == 1
        new = info(h, nxt)
        assert [s["name"] for s in new["seats"]] == ["player0", "player1"] and new["status"] == "playing", new
        await other.close()
        await player.close()
    finally:
        h.stop()
