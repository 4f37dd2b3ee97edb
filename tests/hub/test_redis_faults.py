"""Redis faults: out of memory, and restarts without its data under load.

Each test runs a redis-server of its own on a free port (tests/hub/test_scale.py's RedisServer)
and two hub processes against it; every loop is bounded.
"""
from __future__ import annotations

import asyncio
import random
import time

import pytest
import redis

from tests.conftest import HubProcess, new_prefix
from tests.hub.test_scale import RedisServer, Table, client, metric, reopen, start_hubs
from tests.hub.wsclient import Client, http

pytestmark = pytest.mark.redis

LEASE_S = 1.5          # tests/hub/test_scale.py's HUB_ARGS
RECONNECT_S = 2.0      # the longest pause between two attempts to reach Redis (hub/stores/redis/server.py)
#: A table must play on within the lease (a take-over) and the longest reconnect pause, with room
#: for a loaded machine: on main a table stood still here for 12 s and more, until something else
#: moved it (or forever, with nobody else to move it).
PLAYS_ON_S = LEASE_S + RECONNECT_S + 6.5


def lines(hub: HubProcess, text: str) -> int:
    return sum(1 for line in hub.log().splitlines() if text in line)


def base_of(c: Client) -> str:
    return c.ws_url.removesuffix("/ws").replace("ws://", "http://")


class Player:
    """Plays one table as fast as a quick player would: a random legal action by a seat that has
    one. A connection closed to resync (1012) comes back and resumes, as the web client does."""

    def __init__(self, t: Table, seed: int) -> None:
        self.t, self.rng = t, random.Random(seed)
        self.problems: list[str] = []
        self.acks = self.resyncs = 0
        self.task = asyncio.create_task(self.run())

    async def run(self) -> None:
        while not self.t.finished():
            await self.come_back()
            movers = [c for c in self.t.players.values() if c.legal and not c.closed.is_set()]
            if not movers:
                await asyncio.sleep(0.02)
                continue
            c = self.rng.choice(movers)
            try:
                answer = await c.act(self.rng.choice(c.legal), seq=c.seq, timeout=60)
            except ConnectionError:
                continue
            except TimeoutError as e:
                self.problems.append(f"no answer to an action: {e!r}")
                return
            if answer["t"] == "ack":
                self.acks += 1
            elif answer.get("code") != "stale":
                self.problems.append(repr(answer))
            await asyncio.sleep(0.03)

    async def come_back(self) -> None:
        for s, c in list(self.t.players.items()):
            if c.closed.is_set():
                if c.close_code != 1012:
                    self.problems.append(f"seat {s} closed with {c.close_code}")
                    continue
                self.resyncs += 1
                self.t.retired.append(c)
                self.t.players[s] = await reopen(c, base_of(c))
        for i, c in enumerate(list(self.t.watchers)):
            if c.closed.is_set() and c.close_code == 1012:
                self.t.retired.append(c)
                self.t.watchers[i] = await reopen(c, base_of(c))

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)
        await self.t.close()


async def ready(bases: list[str]) -> None:
    for _ in range(200):
        if all(http(b, "GET", "/readyz")[0] == 200 for b in bases):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the hubs did not come back")


@pytest.mark.serial  # a bound in seconds on how soon tables move again: not beside other tests
async def test_tables_play_on_after_redis_restarts_empty() -> None:
    """Redis killed and started again without its data, six times, while tables over two processes
    play as fast as they can, and one of them deaf to pub/sub for a second after each restart (its
    connection coming back later than the other's, as it may under load): after each restart
    every table that was playing makes moves again (three more acks) within PLAYS_ON_S.

    What stalled them (docs/operations.md, "Redis faults"): an owner that finds its room gone
    writes it back from memory, and the entries that were on their way used to go only into that
    snapshot and out in one publish. A process whose pub/sub came back a moment later missed
    that publish and, the log being empty, had no way to learn of it: its relay stayed one entry
    behind, its seats saw no legal action, and nothing was sent or closed until some later entry
    made it resync."""
    server = RedisServer("--save", "", "--appendonly", "no").start()
    prefix = new_prefix()
    hubs = start_hubs(2, server.url, prefix, "--debug-hooks")
    bases = [h.url for h in hubs]
    players: list[Player] = []
    report: list[list[float]] = []
    try:
        for r in range(6):
            await ready(bases)
            for p in players:
                await p.stop()
            players = []
            for i in range(5):
                t = await Table(bases[::1 if i % 2 else -1], "symbiose", 2 + i % 3, bots=[1] if i == 0 else [],
                                seed=10 * r + i).open()
                players.append(Player(t, 10 * r + i))
            await asyncio.sleep(0.3 + 0.15 * r)
            assert server.proc is not None
            server.proc.kill()  # no SIGTERM: Redis writes nothing, as a crash or an OOM kill
            server.proc.wait()
            await asyncio.sleep(1.0 + 0.4 * (r % 3))  # long enough for the processes' retries to drift apart
            before = [p.acks for p in players]
            live = [not p.t.finished() for p in players]
            server.start()
            back = time.monotonic()
            # one process's pub/sub comes back late: what is published meanwhile never reaches it
            assert http(bases[r % 2], "POST", "/debug/deaf?ms=1000")[0] == 200
            waits: list[float | None] = [None if ok else -1.0 for ok in live]
            while None in waits and time.monotonic() - back < PLAYS_ON_S:
                for i, p in enumerate(players):
                    if waits[i] is None and (p.acks >= before[i] + 3 or p.t.finished()):
                        waits[i] = round(time.monotonic() - back, 2)
                await asyncio.sleep(0.02)
            stalled = [(p.t.room, [(c.seat, c.seq, len(c.legal)) for c in p.t.everyone])
                       for p, w in zip(players, waits, strict=True) if w is None]
            assert not stalled, f"after restart {r + 1}, tables stood still: {stalled}"
            assert not [p.problems for p in players if p.problems]
            report.append([w for w in waits if w is not None and w >= 0])
        print("seconds from each restart to three more acks, per table:", report,
              "resyncs:", sum(p.resyncs for p in players))
    finally:
        for p in players:
            await p.stop()
        for h in hubs:
            h.stop()
        server.stop()


async def test_redis_out_of_memory_is_one_outage() -> None:
    """Redis out of memory (noeviction): each process logs one outage and its end, counts it in
    /metrics, answers `/readyz` 503 meanwhile, keeps its rooms (nothing is lost, an action waits
    and is acked after), and asyncio never reports a task exception that nobody retrieved (the
    sweep used to leave one every half second)."""
    server = RedisServer("--save", "", "--appendonly", "no", "--maxmemory", "64mb",
                         "--maxmemory-policy", "noeviction").start()
    prefix = new_prefix()
    hubs = start_hubs(2, server.url, prefix)
    a, b = (h.url for h in hubs)
    r = client(port=server.port)
    try:
        t = await Table([a, b], "symbiose", 2, seed=7).open()
        await t.play(6)
        await t.check()
        for i in range(32):
            r.set(f"filler:{i}", b"x" * 65536)
        r.config_set("maxmemory", "1mb")  # far below what is used now: every write is refused
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            r.set("one-more", b"x")
        movers = [c for c in t.players.values() if c.legal]
        waiting = asyncio.create_task(movers[0].act(movers[0].legal[0], seq=movers[0].seq, timeout=30))
        await asyncio.sleep(4 * LEASE_S)  # a dozen sweeps, renewals and retries on each process
        assert not waiting.done(), "an action was acked while Redis refused to log it"
        for h in hubs:
            text = http(h.url, "GET", "/metrics")[1]
            assert metric(text, "hub_redis_up") == 0 and metric(text, "hub_redis_outages_total") == 1
            assert http(h.url, "GET", "/readyz")[0] == 503
            assert http(h.url, "GET", "/healthz")[1]["broker"] == "down"
        assert http(a, "POST", "/api/rooms", {"game": "symbiose", "seats": 2})[1]["error"] == "unavailable"
        r.delete(*[f"filler:{i}" for i in range(32)])
        r.config_set("maxmemory", "64mb")
        answer = await waiting
        assert answer["t"] == "ack", answer
        await ready([a, b])
        await t.play(400)
        assert t.finished()
        await t.check()
        await t.close()
        for h in hubs:
            text = http(h.url, "GET", "/metrics")[1]
            assert metric(text, "hub_redis_up") == 1 and metric(text, "hub_redis_outages_total") == 1
            assert metric(text, "hub_leases_lost_total") == 0, "a room was dropped during the outage"
            assert lines(h, '"msg": "redis outage",') == 1, "the outage was not logged once"
            assert lines(h, '"msg": "redis outage over"') == 1, "its end was not logged once"
            assert lines(h, "never retrieved") == 0
            assert lines(h, "Traceback") == 0
    finally:
        r.close()
        for h in hubs:
            h.stop()
        server.stop()
