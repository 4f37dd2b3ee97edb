"""A bounded soak of tables nobody stays at: random joiners who never connect, leave before the
start, or leave mid-game. Every room must end finished (by its bots, or as abandoned) or expire,
within the soak's time, and the hub's log and /metrics stay clean."""
from __future__ import annotations

import asyncio
import random
import time

import pytest

from tests.conftest import HubProcess
from tests.hub.wsclient import Client, http, join, new_room

ROOMS = 12
LIMIT_S = 60


@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_rooms_nobody_stays_at_all_end(store: str) -> None:
    args = ["--grace-s", "0.5", "--abandon-s", "2", "--waiting-ttl-s", "4", "--bot-delay-ms", "0",
            "--finished-ttl-s", "120", "--rooms-per-ip-per-min", "0"]
    if store == "memory":
        args += ["--store", "memory"]
    hub = HubProcess(*args).start()
    rng = random.Random(16)
    try:
        rids: list[str] = []
        clients: list[Client] = []
        for _ in range(ROOMS):
            rid = new_room(hub.url, "symbiose", 2, {"bot_delay_ms": rng.choice([0, 200])})
            rids.append(rid)
            for seat in range(rng.choice([1, 2])):  # one seat only: the room waits, then expires
                _, token = join(hub.url, rid, f"p{seat}", seat)
                how = rng.choice(["never", "before", "mid"])
                if how == "never":
                    continue
                c = await Client(hub.url, rid, token).open()
                if how == "before":
                    await c.close()
                else:
                    clients.append(c)
        await asyncio.sleep(1)
        for c in clients:  # leave mid-game
            await c.close()
        deadline = time.monotonic() + LIMIT_S
        left = set(rids)
        outcomes: dict[str, str] = {}
        while left and time.monotonic() < deadline:
            for rid in list(left):
                status, info = http(hub.url, "GET", f"/api/rooms/{rid}")
                if status == 404:
                    outcomes[rid] = "expired"
                    left.discard(rid)
                elif info["status"] == "finished":
                    outcomes[rid] = "abandoned" if info["result"].get("abandoned") is True else "finished"
                    left.discard(rid)
            await asyncio.sleep(0.25)
        assert not left, f"rooms still open after {LIMIT_S} s: {sorted(left)}; ended {outcomes}"
        for rid, how in outcomes.items():
            if how != "expired":
                assert http(hub.url, "GET", f"/api/rooms/{rid}/replay")[0] == 200, rid
        await asyncio.sleep(1.5)  # the rooms' gauges are set once a second
        status, metrics = http(hub.url, "GET", "/metrics")
        assert status == 200
        assert 'status="playing"} 0' in metrics or "playing" not in metrics, metrics[:2000]
    finally:
        hub.stop()
    log = hub.log_path.read_text(errors="replace")
    assert "Traceback" not in log and '"level": "error"' not in log.lower(), log[-3000:]
