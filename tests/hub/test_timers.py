"""Time that runs out and players who leave: a table never stalls."""
from __future__ import annotations

import asyncio
from typing import Any

from tests.hub.wsclient import Client, http, join, new_room, settle


async def test_decision_deadline_plays_the_timeout_action(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 2, {"decision_seconds": 1})
    tokens = [join(hub.url, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(hub.url, room, t).open() for t in tokens]
    await settle(players)
    first = next(c for c in players if c.legal)
    deadline = first.view["deadline"]
    assert isinstance(deadline, int) and deadline > 0
    seq = first.seq
    # nobody acts: the hub plays the seat's timeout action when the deadline passes
    for _ in range(40):
        await asyncio.sleep(0.1)
        if first.seq != seq and not first.legal:
            break
    assert first.seq != seq, "the deadline passed and nothing happened"
    other = next(c for c in players if c is not first)
    await settle(players)
    assert other.legal and other.view["deadline"] > deadline
    for c in players:
        await c.close()


async def test_untimed_rooms_have_no_deadline(hub: Any) -> None:
    room = new_room(hub.url, "symbiose", 2)
    spec = await Client(hub.url, room).open()
    assert spec.view["deadline"] is None
    await spec.close()


async def test_a_dropped_seat_is_played_by_a_bot_until_its_player_returns(hub_factory: Any) -> None:
    h = hub_factory("--grace-s", "0.5", "--bot-delay-ms", "0").start()
    room = new_room(h.url, "symbiose", 2, {"bot_delay_ms": 0})
    tokens = [join(h.url, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(h.url, room, t).open() for t in tokens]
    await settle(players)
    gone = next(c for c in players if c.legal)
    stay = next(c for c in players if c is not gone)
    i = players.index(gone)
    await gone.close()
    # the remaining player keeps playing; the dropped seat is played for after the grace period
    moved = 0
    for _ in range(200):
        await settle([stay], gap=0.05)
        if stay.view["result"] is not None or moved > 6:
            break
        if stay.legal:
            assert (await stay.act(stay.legal[0]))["t"] == "ack"
            moved += 1
        else:
            await asyncio.sleep(0.05)
    assert moved > 2, "the table stalled while a seat was away"
    info = http(h.url, "GET", f"/api/rooms/{room}")[1]
    assert info["seats"][i]["bot"] and not info["seats"][i]["connected"]
    # the player comes back with the token and has the seat again: the stand-in stops
    back = await Client(h.url, room, tokens[i]).open()
    info = http(h.url, "GET", f"/api/rooms/{room}")[1]
    assert info["seats"][i]["connected"] and not info["seats"][i]["bot"]
    await settle([back, stay])
    if back.view["result"] is None and back.legal:
        seq = back.seq
        await asyncio.sleep(0.3)
        assert back.seq == seq, "a bot moved for a seat whose player is back"
    await back.close()
    await stay.close()
