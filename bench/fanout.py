"""Fan-out: one table watched by S spectators while its seats play as fast as the hub answers.

    python -m bench.fanout [--sizes 1000,5000] [--ws IMPL] [--loop LOOP]

The figure is deltas delivered per second, counted at the spectators' clients. The same delta
payloads then go through a bare `websockets.broadcast` server (the limit of the stack: the same
library, the same event loop, no rooms, views or queues), and the ratio hub/bare says how much
of that limit the hub keeps.

Both servers are driven the same way, closed loop: the driver sends one move (one payload for the
bare server) and waits for its answer before the next, and the hub (or bare server) sits alone on
core 0. The spectators are minimal clients (bench/wsraw.py) in two processes on core 1, with the
driver. A Symbiose game is short (48 moves at four seats), so the run is several games in a row,
the spectators moving to each new table; the rate counts only from the first delta of a game to
its last. Server pings are turned off on the hub, as the bare server has none.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from typing import Any

import msgpack

from bench.common import (
    HUB_CORE,
    LOAD_CORE,
    Channel,
    Row,
    Server,
    Worker,
    ask_all,
    bench_line,
    first_game,
    free_port,
    hub,
    pin,
    print_table,
    raise_nofile,
    split,
    table,
)
from bench.wsraw import RawClient, close_all, open_many

GAMES_PER_SIZE = {1000: 4, 5000: 2}
WORKERS = 2
NO_PINGS = ["--ping-interval-s", "100000", "--idle-timeout-s", "100000"]


# ---- the spectators (load processes) -----------------------------------------------------------

async def spectators(chan: Channel, port: int) -> None:
    clients: list[RawClient] = []
    while True:
        msg = await chan.get()
        if msg is None:
            break
        if msg[0] == "watch":
            _, room, n = msg
            await close_all(clients)
            hello = msgpack.packb({"t": "hello", "room": room})
            clients = await open_many(lambda hello=hello: RawClient("127.0.0.1", port, hello), n)
            chan.put(len(clients))
        elif msg[0] == "reset":
            for c in clients:
                c.reset()
            chan.put(True)
        elif msg[0] == "report":
            got = [c for c in clients if c.frames]
            t = os.times()
            chan.put((sum(c.frames for c in clients), min((c.first for c in got), default=0.0),
                      max((c.last for c in got), default=0.0), t.user + t.system))
    await close_all(clients)


def rate(reports: list[tuple[int, float, float, float]], spectators: int) -> tuple[int, float]:
    """Frames after the first batch, and the time from the first frame to the last."""
    frames = sum(r[0] for r in reports)
    first = min(r[1] for r in reports if r[0])
    last = max(r[2] for r in reports if r[0])
    return frames - spectators, last - first


# ---- the bare server ---------------------------------------------------------------------------

async def bare_server(port: int) -> None:
    from websockets.asyncio.server import ServerConnection, broadcast, serve

    watchers: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        first = await ws.recv()
        if first == b"drive":
            async for message in ws:
                broadcast(watchers, message)
                await ws.send(b"ok")
            return
        watchers.add(ws)
        try:
            await ws.send(b"w")
            await ws.wait_closed()
        finally:
            watchers.discard(ws)

    async with serve(handler, "127.0.0.1", port, compression=None, ping_interval=None, max_size=None,
                     backlog=4096):
        await asyncio.Future()


def start_bare() -> Server:
    port = free_port()
    return Server([sys.executable, "-m", "bench.fanout", "--bare-server", str(port)], port, core=HUB_CORE,
                  name="bare").start(health="")


async def drive_bare(port: int, payloads: list[bytes]) -> float:
    from websockets.asyncio.client import connect

    async with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=None, ping_interval=None) as ws:
        await ws.send(b"drive")
        started = time.monotonic()
        for p in payloads:
            await ws.send(p)
            await ws.recv()
        return time.monotonic() - started


# ---- the hub's table ---------------------------------------------------------------------------

async def play_table(base: str, room: str, tokens: list[str], rng: random.Random) -> tuple[list[bytes], int, float]:
    """Play one game to its end as fast as acks come; the spectators' delta payloads, moves, seconds."""
    from tests.hub.wsclient import Client

    seats = [await Client(base, room, tok).open() for tok in tokens]
    spec = await Client(base, room).open()
    moves = 0
    started = time.monotonic()
    try:
        while True:
            movers = [c for c in seats if c.legal]
            if not movers:
                break
            mover = rng.choice(movers)
            before = [c.seq or 0 for c in seats]
            answer = await mover.act(rng.choice(mover.legal), seq=mover.seq)
            if answer["t"] == "ack":
                moves += 1
            # every move adds a public log line, so every seat's view moves: wait for all of them
            deadline = time.monotonic() + 5
            while (any((c.seq or 0) <= b for c, b in zip(seats, before, strict=True))
                   and time.monotonic() < deadline and answer["t"] == "ack"):
                await asyncio.sleep(0.0002)
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.3)
        payloads = [raw for raw, f in zip(spec.raw, spec.frames, strict=True) if f["t"] == "delta"]
    finally:
        for c in [*seats, spec]:
            await c.close()
    return payloads, moves, elapsed


async def measure(size: int, games: int, ws: str | None, loop: str | None) -> dict[str, Any]:
    rng = random.Random(size)
    game, seats = first_game()
    counts = split(size, WORKERS)
    out: dict[str, Any] = {"size": size, "games": games}
    with hub(*NO_PINGS, ws=ws, loop=loop, name=f"fanout{size}").start() as h:
        workers = [Worker(spectators, h.port) for _ in range(WORKERS)]
        try:
            played: list[list[bytes]] = []
            frames = 0
            seconds = moves = hub_cpu = load_cpu = wall = 0.0
            for _ in range(games):
                room, tokens = table(h.url, game, seats)
                for w, n in zip(workers, counts, strict=True):
                    w.send(("watch", room, n))
                assert sum(w.recv() for w in workers) == size
                await asyncio.sleep(0.3)
                ask_all(workers, ("reset",))
                load0 = sum(r[3] for r in ask_all(workers, ("report",)))
                cpu0, wall0 = h.cpu_seconds(), time.monotonic()
                payloads, m, _ = await play_table(h.url, room, tokens, rng)
                hub_cpu += h.cpu_seconds() - cpu0
                wall += time.monotonic() - wall0
                reports = ask_all(workers, ("report",))
                load_cpu += sum(r[3] for r in reports) - load0
                f, s = rate(reports, size)
                played.append(payloads)
                frames, seconds, moves = frames + f, seconds + s, moves + m
            out["hub_per_s"] = frames / seconds
            out["moves_per_s"] = moves / seconds
            out["hub_cpu"] = hub_cpu / wall
            out["spectators_cpu"] = load_cpu / wall
            ask_all(workers, ("watch", "-", 0))
        finally:
            for w in workers:
                w.stop()
    with start_bare() as bare:
        workers = [Worker(spectators, bare.port) for _ in range(WORKERS)]
        try:
            for w, n in zip(workers, counts, strict=True):
                w.send(("watch", "-", n))
            assert sum(w.recv() for w in workers) == size
            await asyncio.sleep(0.3)
            frames, seconds = 0, 0.0
            for payloads in played:
                ask_all(workers, ("reset",))
                await drive_bare(bare.port, payloads)
                await asyncio.sleep(0.3)
                f, s = rate(ask_all(workers, ("report",)), size)
                frames, seconds = frames + f, seconds + s
            out["bare_per_s"] = frames / seconds
        finally:
            for w in workers:
                w.stop()
    out["ratio"] = out["hub_per_s"] / out["bare_per_s"]
    return out


def rows_of(results: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for r in results:
        s = r["size"]
        rows.append((f"fan-out {s}: hub deltas/s", r["hub_per_s"], "",
                     f"{r['moves_per_s']:.1f} moves/s, hub core {r['hub_cpu']:.0%} busy,"
                     f" spectator processes {r['spectators_cpu']:.0%} of a core, {r['games']} games"))
        rows.append((f"fan-out {s}: bare broadcast deltas/s", r["bare_per_s"], "", "same payloads"))
        rows.append((f"fan-out {s}: ratio hub/bare", r["ratio"], ">= 0.8", ""))
    return rows


def figures_of(results: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        out[f"fanout_ratio_{r['size']}"] = r["ratio"]
        out[f"fanout_hub_per_s_{r['size']}"] = r["hub_per_s"]
        out[f"fanout_bare_per_s_{r['size']}"] = r["bare_per_s"]
    return out


async def run(sizes: list[int], ws: str | None = None, loop: str | None = None) -> tuple[list[Row], dict[str, Any]]:
    raise_nofile()
    pin(LOAD_CORE)
    results = [await measure(s, GAMES_PER_SIZE.get(s, 2), ws, loop) for s in sizes]
    return rows_of(results), figures_of(results)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.fanout")
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--ws", default=None)
    ap.add_argument("--loop", default=None)
    ap.add_argument("--bare-server", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bare_server:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        asyncio.run(bare_server(args.bare_server))
        return
    rows, figures = asyncio.run(run([int(s) for s in args.sizes.split(",")], args.ws, args.loop))
    print_table("Fan-out", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
