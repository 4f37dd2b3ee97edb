"""What the Redis path costs one action, and how long a fail-over takes.

    python -m bench.broker [actions] [redis-url]

Starts real hub processes on ephemeral ports and plays Symbiose tables through real WebSockets,
timing each act from the moment it is sent to its ack (the deltas it caused come before the ack):
on the in-memory backend; on Redis with the room's owner in the client's own process; and on Redis
with the client on another process than the owner (the action is forwarded through Redis and the
deltas come back through pub/sub). Then it kills the owner of a table with kill -9 and times the
first ack after it, with the default lease. Client and hubs share the machine's cores.
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import time

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, join, new_room, settle


async def table(owner: str, edge: str) -> tuple[list[Client], str]:
    room = new_room(owner, "symbiose", 2)
    tokens = [join(owner, room, f"p{s}", s)[1] for s in range(2)]
    return [await Client(edge, room, t).open() for t in tokens], room


async def timed_actions(players: list[Client], n: int) -> list[float]:
    out: list[float] = []
    while len(out) < n:
        await settle(players, gap=0.005)
        movers = [c for c in players if c.legal]
        if not movers:
            if players[0].view and players[0].view["result"] is not None:
                break
            await asyncio.sleep(0.005)
            continue
        c = movers[0]
        started = time.perf_counter()
        answer = await c.act(c.legal[0], seq=c.seq)
        if answer["t"] == "ack":
            out.append((time.perf_counter() - started) * 1000)
    return out


async def latency(owner: str, edge: str, n: int) -> list[float]:
    samples: list[float] = []
    while len(samples) < n:
        players, _ = await table(owner, edge)
        samples += await timed_actions(players, n - len(samples))
        for c in players:
            await c.close()
    return samples


def line(label: str, samples: list[float]) -> str:
    q = statistics.quantiles(sorted(samples), n=100)
    return f"{label:46s} n={len(samples):5d}  p50 {q[49]:6.2f} ms  p90 {q[89]:6.2f} ms  p99 {q[98]:6.2f} ms"


async def failover(url: str) -> None:
    prefix = new_prefix()
    hubs = [HubProcess("--redis", url, "--redis-prefix", prefix).launch() for _ in range(3)]
    hubs = [h.wait_ready() for h in hubs]
    try:
        players, _ = await table(hubs[0].url, hubs[1].url)
        await timed_actions(players, 6)
        await settle(players, gap=0.05)
        mover = next(c for c in players if c.legal)
        hubs[0].kill()
        killed = time.perf_counter()
        answer = await mover.act(mover.legal[0], timeout=30)
        took = time.perf_counter() - killed
        print(f"fail-over (kill -9 of the owner, lease 3000 ms): first ack after {took:.2f} s ({answer['t']})")
        for c in players:
            await c.close()
    finally:
        for h in hubs:
            h.stop()
        drop_prefix(url, prefix)


async def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    url = sys.argv[2] if len(sys.argv) > 2 else "redis://127.0.0.1:6379/0"
    memory = HubProcess().start()
    prefix = new_prefix()
    a, b = (HubProcess("--redis", url, "--redis-prefix", prefix).launch() for _ in range(2))
    a.wait_ready()
    b.wait_ready()
    paths = {"memory, one process": (memory.url, memory.url),
             "redis, client on the owner's process": (a.url, a.url),
             "redis, client on another process (forwarded)": (a.url, b.url)}
    samples: dict[str, list[float]] = {k: [] for k in paths}
    try:
        for _ in range(3):  # interleaved rounds, so a busy moment of the machine hits every path alike
            for label, (owner, edge) in paths.items():
                samples[label] += await latency(owner, edge, n // 3)
    finally:
        for h in (memory, a, b):
            h.stop()
        drop_prefix(url, prefix)
    for label, got in samples.items():
        print(line(label, got))
    await failover(url)


if __name__ == "__main__":
    asyncio.run(main())
