"""What a chat line costs: from `say` to its ack, and to the last of a watched table's spectators.

    python -m bench.chat [lines] [spectators] [redis-url]

Starts real hub processes on ephemeral ports (memory, SQLite, and Redis with the speaker on the
owner's process and on another one), seats two players and `spectators` watchers, and times each
line from the moment it is sent to its ack and to the moment the last connection has its event.
Then it prints the size of one chat event and of a full history (the lines a room keeps) as msgpack.
Client and hubs share the machine's cores, and lines are said one at a time, within the rate limit
lifted for the measurement.
"""
from __future__ import annotations

import asyncio
import itertools
import statistics
import sys
import time

import msgpack

from tests.conftest import HubProcess, drop_prefix, new_prefix
from tests.hub.wsclient import Client, join, new_room, settle

LIFTED = ("--chat-burst", "100000", "--chat-per-min", "6000000", "--frames-per-s", "100000",
          "--frame-burst", "100000")
_IDS = itertools.count(1_000_000)


def heard(c: Client, text: str) -> bool:
    return any(e.get("kind") == "chat" and e.get("text") == text for e in c.events)


async def run(owner: str, edge: str, lines: int, watchers: int) -> tuple[list[float], list[float]]:
    room = new_room(owner, "symbiose", 2)
    tokens = [join(owner, room, f"p{s}", s)[1] for s in range(2)]
    players = [await Client(edge, room, t).open() for t in tokens]
    spectators = [await Client(owner, room).open() for _ in range(watchers)]
    everyone = [*players, *spectators]
    await settle(everyone)
    acks, spread = [], []
    for i in range(lines):
        text = f"line {i}"
        started = time.perf_counter()
        answer = await players[i % 2].request({"t": "say", "id": next(_IDS), "text": text}, timeout=10)
        assert answer["t"] == "ack", answer
        acks.append((time.perf_counter() - started) * 1000)
        while not all(heard(c, text) for c in everyone):
            await asyncio.sleep(0.0005)
        spread.append((time.perf_counter() - started) * 1000)
    for c in everyone:
        await c.close()
    return acks, spread


def show(name: str, acks: list[float], spread: list[float]) -> None:
    q = statistics.quantiles
    print(f"{name:34s} ack median {statistics.median(acks):6.2f} ms  p95 {q(acks, n=20)[-1]:6.2f} ms   "
          f"everyone median {statistics.median(spread):6.2f} ms  p95 {q(spread, n=20)[-1]:6.2f} ms")


async def main(lines: int, watchers: int, redis_url: str) -> None:
    for label, args in [("memory", ("--store", "memory")), ("sqlite", ())]:
        h = HubProcess(*LIFTED, *args).start()
        try:
            show(f"{label}, {watchers} watching", *await run(h.url, h.url, lines, watchers))
        finally:
            h.stop()
    prefix = new_prefix()
    hubs = [HubProcess(*LIFTED, "--redis", redis_url, "--redis-prefix", prefix).start() for _ in range(2)]
    try:
        show("redis, speaker on the owner", *await run(hubs[0].url, hubs[0].url, lines, watchers))
        show("redis, speaker on another process", *await run(hubs[0].url, hubs[1].url, lines, watchers))
    finally:
        for h in hubs:
            h.stop()
        drop_prefix(redis_url, prefix)
    line = {"id": 100, "seat": 0, "name": "x" * 24, "text": "y" * 280, "time": 1_796_000_000_000, "to": "all",
            "move": 40}
    event = msgpack.packb({"t": "event", "kind": "chat", **line})
    history = msgpack.packb({"t": "event", "kind": "chat_history", "lines": [line] * 100})
    print(f"a longest line's event: {len(event)} B; a history of 100 of them: {len(history)} B")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    w = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    url = sys.argv[3] if len(sys.argv) > 3 else "redis://127.0.0.1:6379/0"
    asyncio.run(main(n, w, url))
