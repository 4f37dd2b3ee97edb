"""Timed contests over real WebSockets: fair across network distances, and strict about nonces."""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import random
import time
from typing import Any

import msgpack
import pytest
import websockets

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, join, new_room, settle

REACTION_MU, REACTION_SIGMA = math.log(230), 0.25


class DelayedClient(Client):
    """A client far from the hub: every frame waits `delay` seconds in each direction."""

    def __init__(self, *args: Any, delay: float, rng: random.Random, grab: bool = True, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.delay, self.rng, self.grabbing = delay, rng, grab
        self._out: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self._in: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self, *args: Any, **kw: Any) -> DelayedClient:
        self._tasks = [asyncio.create_task(self._sender()), asyncio.create_task(self._handler())]
        await super().open(*args, **kw)
        return self

    async def send(self, frame: Any) -> None:
        await self._out.put((time.monotonic() + self.delay, frame))

    async def _sender(self) -> None:
        while True:
            due, frame = await self._out.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if self.ws is not None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    await self.ws.send(self.encode(frame))

    async def _handler(self) -> None:
        while True:
            due, frame = await self._in.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            await self._handle(frame)
            if frame["t"] == "contest" and self.grabbing:
                asyncio.get_running_loop().call_later(
                    self.rng.lognormvariate(REACTION_MU, REACTION_SIGMA) / 1000,
                    lambda f=frame: asyncio.ensure_future(self.send_grab(f)))
            self.changed.set()

    async def send_grab(self, frame: dict[str, Any]) -> None:
        grab = {"type": "grab", "contest": frame["id"]}
        await self.send({"t": "act", "id": 10_000 + len(self.contests), "action": grab})

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for data in self.ws:
                frame = msgpack.unpackb(data, raw=False)
                self.frames.append(frame)
                await self._in.put((time.monotonic() + self.delay, frame))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()

    async def close(self) -> None:
        await super().close()
        for t in self._tasks:
            t.cancel()


async def drive(base: str, seed: int, until: float, counted: list[dict[str, Any]], want: int) -> None:
    """One table: seat 0 close by, seat 1 at 20 ms each way, seat 2 at 150 ms; all react alike."""
    rng = random.Random(seed)
    room = new_room(base, "frenetic_village", 3, {"variant": "five_wins", "grab_window_ms": 1500})
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(3)]
    clients = [await DelayedClient(base, room, tokens[s], delay=d, rng=random.Random(seed * 10 + s)).open()
               for s, d in enumerate((0.0, 0.020, 0.150))]
    seen_cids: set[str] = set()
    try:
        while time.monotonic() < until and len(counted) < want:
            await asyncio.sleep(0.01)
            spec_view = clients[0].view
            if spec_view is None:
                continue
            if spec_view["result"] is not None:
                break
            for c in clients:
                if c.legal and not c._out.qsize():
                    await c.send({"t": "act", "id": rng.randrange(1, 10**6), "action": rng.choice(c.legal)})
            for ev in clients[0].events:
                if ev.get("kind") != "contest_result" or ev["contest"] in seen_cids:
                    continue
                seen_cids.add(ev["contest"])
                offered = {c.seat for c in clients if any(f["contest"] == ev["contest"] for f in c.contests)}
                if offered == {1, 2} and ev["winner"] in (1, 2) and not ev["refused"]:
                    counted.append(ev)
    finally:
        for c in clients:
            await c.close()


@pytest.mark.serial
async def test_far_and_near_players_win_alike(hub_factory: Any) -> None:
    h = hub_factory("--frames-per-s", "200", "--frame-burst", "400").start()
    counted: list[dict[str, Any]] = []
    started = time.monotonic()
    until = started + 100
    want = 120
    while time.monotonic() < until and len(counted) < want:
        await asyncio.gather(*(drive(h.url, 1000 + len(counted) + i, until, counted, want) for i in range(6)))
    n = len(counted)
    near = sum(1 for e in counted if e["winner"] == 1)
    share = near / n
    judged_near = sorted(e["judged"]["1"] for e in counted if "1" in e["judged"])
    judged_far = sorted(e["judged"]["2"] for e in counted if "2" in e["judged"])
    mid_near, mid_far = judged_near[len(judged_near) // 2], judged_far[len(judged_far) // 2]
    print(f"contests {n} in {time.monotonic() - started:.0f} s: near (20 ms) won {share:.1%}, far (150 ms) "
          f"won {1 - share:.1%}; median judged near {mid_near} ms, far {mid_far} ms")
    assert n >= 100, f"only {n} contests between the two in the time bound"
    # naive first arrival would hand the near player nearly every contest (260 ms head start)
    assert abs(share - 0.5) < 0.15, f"near won {share:.1%} of {n}"
    assert abs(mid_near - mid_far) < 60


async def contest_table(base: str, edge: str | None = None, tokens_out: list[str] | None = None
                        ) -> tuple[list[Client], str]:
    """A table where a contest is open; its players connect to `edge` (another process) if given,
    and their tokens go to `tokens_out` if given."""
    room = new_room(base, "frenetic_village", 3, {"grab_window_ms": 1500})
    tokens = [join(base, room, f"p{s}", s)[1] for s in range(3)]
    if tokens_out is not None:
        tokens_out.extend(tokens)
    players = [await Client(edge or base, room, t).open() for t in tokens]
    rng = random.Random(3)
    for _ in range(200):
        await settle(players, gap=0.02)
        if any(c.contests for c in players):
            return players, room
        movers = [c for c in players if c.legal]
        if movers:
            m = rng.choice(movers)
            await m.act(next((a for a in m.legal if a.get("type") != "declare"), m.legal[0]))
    raise AssertionError("no contest opened")


async def test_nonces_are_per_connection_and_per_contest(hub: Any) -> None:
    players, room = await contest_table(hub.url)
    offered = [c for c in players if c.contests]
    assert len(offered) >= 2, "both other players get a contest frame"
    a, b = offered[0], offered[1]
    fa, fb = a.contests[-1], b.contests[-1]
    assert fa["id"] != fb["id"] and fa["contest"] == fb["contest"] and fa["commit"] == fb["commit"]
    # the other connection's nonce, an invented one, and a spectator's try
    assert (await a.act({"type": "grab", "contest": fb["id"]}))["code"] == "illegal"
    assert (await a.act({"type": "grab", "contest": "made-up"}))["code"] == "illegal"
    assert (await a.act({"type": "grab"}))["code"] == "illegal"
    spec = await Client(hub.url, room).open()
    assert (await spec.act({"type": "grab", "contest": fa["id"]}))["code"] == "unauthorized"
    assert not spec.contests, "spectators get no contest frames"
    # one real try is acked and judged; a second is refused
    await asyncio.sleep(0.25)
    assert (await a.act({"type": "grab", "contest": fa["id"]}))["t"] == "ack"
    assert (await a.act({"type": "grab", "contest": fa["id"]}))["code"] == "illegal"
    for _ in range(400):  # the result comes once no silent seat could still win (a few tens of ms)
        if any(e["kind"] == "contest_result" and e["contest"] == fa["contest"] for e in spec.events):
            break
        await asyncio.sleep(0.01)
    result = next(e for e in spec.events if e["kind"] == "contest_result" and e["contest"] == fa["contest"])
    assert result["winner"] == a.seat
    assert hashlib.sha256(bytes.fromhex(result["secret"])).hexdigest() == fa["commit"]
    assert str(a.seat) in result["judged"]
    # the nonce of a settled contest is old now
    assert (await a.act({"type": "grab", "contest": fa["id"]}))["code"] == "illegal"
    for c in [*players, spec]:
        await c.close()


async def test_a_grab_before_the_card_and_a_false_start(hub: Any) -> None:
    room = new_room(hub.url, "frenetic_village", 2, {"grab_window_ms": 1500})
    tokens = [join(hub.url, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(hub.url, room, t).open() for t in tokens]
    await settle(players)
    # before any card lands there is no contest to try for
    for c in players:
        assert (await c.act({"type": "grab", "contest": "x" * 16}))["code"] == "illegal"
    # a bot-fast client: grabs the instant the frame arrives, far under any human reaction
    rng = random.Random(9)
    for _ in range(200):
        await settle(players, gap=0.01)
        waiting = [c for c in players if c.contests and not getattr(c, "_tried", False)]
        if waiting:
            c = waiting[0]
            c._tried = True  # type: ignore[attr-defined]
            assert (await c.act({"type": "grab", "contest": c.contests[-1]["id"]}))["t"] == "ack"
            break
        movers = [c for c in players if c.legal]
        if movers:
            m = rng.choice(movers)
            await m.act(next((a for a in m.legal if a.get("type") != "declare"), m.legal[0]))
    await settle(players, gap=0.1, limit=4)
    results = [e for e in players[0].events if e["kind"] == "contest_result"]
    assert results and any("false_start" in e["refused"].values() for e in results), results
    for c in players:
        await c.close()


async def test_a_grab_after_the_window_is_told_how_late(hub: Any) -> None:
    """A grab for a contest that has closed gets `too_late` and by how many ms, not a bare `illegal`."""
    await late_grab(hub.url)


@pytest.mark.redis
async def test_a_late_grab_on_another_process_than_the_owner(redis_url: str) -> None:
    """The sockets on one process, the room owned by another: the edge answers `too_late` itself."""
    prefix = new_prefix()
    args = ["--redis", redis_url, "--redis-prefix", prefix, "--rooms-per-ip-per-min", "0"]
    owner, edge = HubProcess(*args).start(), HubProcess(*args).start()
    try:
        await late_grab(owner.url, edge.url)
    finally:
        owner.stop()
        edge.stop()
        drop_prefix(redis_url, prefix)


async def late_grab(base: str, edge: str | None = None) -> None:
    players, room = await contest_table(base, edge)
    a = next(c for c in players if c.contests)
    offer = a.contests[-1]
    for _ in range(600):  # nobody grabs: the contest settles when its window closes
        if any(e["kind"] == "contest_result" and e["contest"] == offer["contest"] for e in a.events):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the contest never settled")
    await asyncio.sleep(0.2)
    answer = await a.act({"type": "grab", "contest": offer["id"]})
    assert answer["t"] == "error" and answer["code"] == "too_late", answer
    assert isinstance(answer["late_by_ms"], int) and answer["late_by_ms"] >= 150, answer
    # a nonce that never was stays `illegal`
    assert (await a.act({"type": "grab", "contest": "made-up"}))["code"] == "illegal"
    for c in players:
        await c.close()
