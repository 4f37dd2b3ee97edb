"""Memory: resident memory of the hub per idle connection, at 5,000 connections.

    python -m bench.memory [--connections 5000] [--ws IMPL] [--loop LOOP]

The hub's resident set (VmRSS) is read with 50 rooms made and no connection, then again with
5,000 connections attached to them (spectators, answering pings, sending nothing else), a few
seconds after the last one came in; the difference over the count is the figure. It holds
what a connection costs in the process (uvicorn's protocol object, the WebSocket state machine,
Starlette's objects, the hub's Connection, buffers; a writer task only while frames wait, which
for an idle connection is never); the kernel's socket buffers are not in it. Where it goes is in
docs/performance.md, section 14.
"""
from __future__ import annotations

import argparse
import asyncio
from typing import Any

import msgpack

from bench.common import (
    LOAD_CORE,
    Channel,
    Row,
    Worker,
    bench_line,
    first_game,
    hub,
    pin,
    print_table,
    raise_nofile,
    split,
    table,
)
from bench.wsraw import RawClient, close_all, open_many

ROOMS = 50
WORKERS = 2


def answer_pings(client: RawClient, payload: bytes, now: float) -> None:
    f = msgpack.unpackb(payload, raw=False)
    if f.get("t") == "ping":
        client.send(msgpack.packb({"t": "pong", "id": f["id"]}))


async def idlers(chan: Channel, port: int) -> None:
    clients: list[RawClient] = []
    while True:
        msg = await chan.get()
        if msg is None:
            break
        _, rooms, n = msg
        hellos = [msgpack.packb({"t": "hello", "room": r}) for r in rooms]
        it = iter(range(n))

        def factory(it: Any = it, hellos: list[bytes] = hellos) -> RawClient:
            return RawClient("127.0.0.1", port, hellos[next(it) % len(hellos)], on_frame=answer_pings)

        clients = await open_many(factory, n)
        chan.put(len(clients))
    await close_all(clients)


async def measure(connections: int, ws: str | None, loop: str | None) -> dict[str, Any]:
    game, seats = first_game()
    with hub(ws=ws, loop=loop, name="memory").start() as h:
        rooms = [table(h.url, game, seats)[0] for _ in range(ROOMS)]
        await asyncio.sleep(1.0)
        before = h.rss_kib()
        workers = [Worker(idlers, h.port) for _ in range(WORKERS)]
        try:
            for w, n in zip(workers, split(connections, WORKERS), strict=True):
                w.send(("open", rooms, n))
            opened = sum(w.recv(300) for w in workers)
            await asyncio.sleep(6.0)  # past one round of server pings
            after = h.rss_kib()
        finally:
            for w in workers:
                w.stop()
    return {"connections": opened, "before_mib": before / 1024, "after_mib": after / 1024,
            "per_conn_kib": (after - before) / opened}


def run(connections: int = 5000, ws: str | None = None, loop: str | None = None) -> tuple[list[Row], dict[str, Any]]:
    raise_nofile()
    pin(LOAD_CORE)
    r = asyncio.run(measure(connections, ws, loop))
    rows: list[Row] = [(f"memory per idle connection at {r['connections']:,} (KiB)", r["per_conn_kib"], "<= 16",
                        f"RSS {r['before_mib']:.0f} -> {r['after_mib']:.0f} MiB")]
    return rows, {"rss_per_conn_kib": r["per_conn_kib"]}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.memory")
    ap.add_argument("--connections", type=int, default=5000)
    ap.add_argument("--ws", default=None)
    ap.add_argument("--loop", default=None)
    args = ap.parse_args()
    rows, figures = run(args.connections, args.ws, args.loop)
    print_table("Memory", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
