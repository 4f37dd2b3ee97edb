"""The engine's public events reach every connection as `event` frames (Waterfall Park's offers):
an offer's author learns that it was declined, and by whom, after the delta that removed it."""
from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.hub.wsclient import Client, join, new_room, settle


def owned(view: dict[str, Any], seat: int) -> list[int]:
    return [i + 1 for i, s in enumerate(view.get("sites") or []) if s and s.get("owner") == seat]


async def test_a_decline_reaches_every_connection_as_an_event(hub: Any) -> None:
    rid = new_room(hub.url, "waterfall_park", 3, {"bot_delay_ms": 0})
    players = [await Client(hub.url, rid, join(hub.url, rid, f"p{s}", s)[1]).open() for s in range(3)]
    spec = await Client(hub.url, rid).open()
    await settle(players)
    for c in players:  # Preparation: every seat discards
        assert (await c.act(c.legal[0], seq=c.seq))["t"] == "ack"
    await settle([*players, spec])
    a, b = players[0], players[1]
    assert b.view["phase"] == "exchange", b.view["phase"]
    offer = {"type": "offer", "transfers": [
        {"from": 0, "to": 1, "locations": [owned(b.view, 0)[0]], "tiles": {}, "coins": 0},
        {"from": 1, "to": 0, "locations": [owned(b.view, 1)[0]], "tiles": {}, "coins": 0}]}
    assert (await b.act(offer, seq=b.seq))["t"] == "ack"
    await settle([*players, spec])
    oid = next(o["id"] for o in a.view["offers"].values() if o["author"] == 1)
    assert not [e for e in b.events if e.get("source") == "game"], "an offer made is in the view, no event"
    assert (await a.act({"type": "decline", "offer": oid}, seq=a.seq))["t"] == "ack"
    deadline = time.monotonic() + 5
    want = {"t": "event", "kind": "declined", "offer": oid, "seat": 0, "source": "game"}
    while not all(want in c.events for c in [*players, spec]):
        assert time.monotonic() < deadline, [c.events for c in [*players, spec]]
        await asyncio.sleep(0.02)
    assert str(oid) not in (spec.view.get("offers") or {}), "the event follows the delta"
    for c in [*players, spec]:
        assert not c.problems, c.problems
        await c.close()
