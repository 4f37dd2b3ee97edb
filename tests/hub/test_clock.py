"""Time per decision and chess-clock banks (room options `decision_seconds`, `bank_seconds`)."""
from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.hub.wsclient import Client, http, join, new_room, settle


async def seated(base: str, options: dict[str, Any]) -> list[Client]:
    room = new_room(base, "symbiose", 2, options)
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(base, room, t).open() for t in tokens]
    await settle(players)
    return players


def banks(c: Client) -> list[int]:
    return [p["bank_ms"] for p in c.view["players"]]


async def wait_for(pred: Any, limit: float) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return True
        await asyncio.sleep(0.02)
    return pred()


async def test_the_bank_runs_only_while_a_seat_is_to_act(hub: Any) -> None:
    players = await seated(hub.url, {"bank_seconds": 3})
    assert banks(players[0]) == [3000, 3000]
    mover = next(c for c in players if c.legal)
    i = players.index(mover)
    start = time.time() * 1000
    assert abs(mover.view["deadline"] - (start + 3000)) < 500, "deadline = decision start + what is left of the bank"
    await asyncio.sleep(0.6)
    assert (await mover.act(mover.legal[0]))["t"] == "ack"
    await settle(players)
    left = banks(players[1 - i])
    assert 2100 <= left[i] <= 2500, left  # about 0.6 s drawn, charged when its decision ended
    assert left[1 - i] == 3000, "the other seat's bank did not run while it waited"
    other = players[1 - i]
    assert other.view["deadline"] is not None and mover.view["deadline"] == other.view["deadline"]
    for c in players:
        await c.close()


async def test_decision_time_comes_first_then_the_bank_then_the_timeout_action(hub: Any) -> None:
    players = await seated(hub.url, {"decision_seconds": 1, "bank_seconds": 1})
    mover = next(c for c in players if c.legal)
    i = players.index(mover)
    await asyncio.sleep(0.5)  # within the decision's own time: the bank is untouched
    assert (await mover.act(mover.legal[0]))["t"] == "ack"
    await settle(players)
    assert banks(mover)[i] == 1000
    silent = players[1 - i]
    assert silent.legal
    seq, t0 = silent.seq, time.monotonic()
    assert abs(silent.view["deadline"] - (time.time() * 1000 + 2000)) < 500
    # it never acts: one second of decision, one of bank, then the hub plays its timeout action
    assert await wait_for(lambda: banks(silent)[1 - i] == 0 and silent.seq != seq, 5)
    waited = time.monotonic() - t0
    assert 1.7 <= waited <= 3.5, waited
    info = http(hub.url, "GET", f"/api/rooms/{silent.room}")[1]
    assert info["status"] == "playing"
    # with its bank gone, each of its decisions has the decision's own time and no more
    await settle(players)
    if silent.legal:
        assert abs(silent.view["deadline"] - (time.time() * 1000 + 1000)) < 500
    for c in players:
        await c.close()


async def test_untimed_rooms_show_no_bank(hub: Any) -> None:
    players = await seated(hub.url, {})
    assert all("bank_ms" not in p for p in players[0].view["players"])
    assert players[0].view["deadline"] is None
    for c in players:
        await c.close()
