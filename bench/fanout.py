"""Fan-out: one table watched by S spectators while its seats play as fast as the hub can.

    python -m bench.fanout [--sizes 1000,5000] [--ws IMPL] [--loop LOOP]

The figure is deltas delivered per second, counted at the spectators' clients. The same delta
payloads then go through a bare `websockets.broadcast` server (the limit of the stack: the same
library, the same event loop, no rooms, views or queues), and the ratio hub/bare says how much
of that limit the hub keeps.

Both servers make the stream themselves, as fast as they can, with one turn of the event loop
between moves, so that no client's round trip sits in the measure: on the hub, the table's seats
are the hub's own bots with no delay (three from the start; the fourth seat is joined, so the
room starts, only once every spectator is attached, and played at once on each of its turns by a
client on the loopback); the bare server broadcasts the recorded payloads in a loop. Each sits
alone on core 0. The spectators are minimal clients (bench/wsraw.py) in two processes on core 1.
A game is short (48 moves of Symbiose at four seats), so the run is several games in a row, the
spectators moving to each new table; the rate counts only from the first delta of a game to its
last. Server pings are turned off on the hub, as the bare server has none.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
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
    http,
    hub,
    metric_total,
    pin,
    print_table,
    raise_nofile,
    split,
)
from bench.wsraw import RawClient, close_all, open_many

GAMES_PER_SIZE = {1000: 4, 5000: 2}
WORKERS = 2
WAYS = ("hub_frames_out_total", "hub_frames_direct_total", "hub_frames_direct_behind_total")
HUB_FLAGS = ["--ping-interval-s", "100000", "--idle-timeout-s", "100000", "--grace-s", "0", "--bot-delay-ms", "0"]


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
        if first == b"play":
            async for message in ws:
                for payload in msgpack.unpackb(message):
                    broadcast(watchers, payload)
                    await asyncio.sleep(0)
                await ws.send(b"done")
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


def starlette_broadcast(port: int, ws_impl: str) -> None:
    """The same loop as bare_server, written as a Starlette endpoint on uvicorn: the framework's share."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    watchers: set[WebSocket] = set()

    async def endpoint(ws: WebSocket) -> None:
        offered = ws.scope.get("subprotocols") or []
        await ws.accept(subprotocol="msgpack" if "msgpack" in offered else None)
        first = await ws.receive_bytes()
        if first == b"play":
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
                for payload in msgpack.unpackb(msg["bytes"]):
                    for w in list(watchers):
                        await w.send_bytes(payload)
                    await asyncio.sleep(0)
                await ws.send_bytes(b"done")
        watchers.add(ws)
        try:
            await ws.send_bytes(b"w")
            await ws.receive()
        finally:
            watchers.discard(ws)

    app = Starlette(routes=[WebSocketRoute("/", endpoint), WebSocketRoute("/ws", endpoint)])
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, ws=ws_impl, loop="uvloop", log_level="warning",
                                  ws_per_message_deflate=False, ws_ping_interval=None, backlog=4096,
                                  lifespan="off")).run()


def start_bare(kind: str = "websockets", ws_impl: str | None = None) -> Server:
    port = free_port()
    return Server([sys.executable, "-m", "bench.fanout", "--bare-server", str(port), "--kind", kind,
                   "--ws", ws_impl or "websockets-sansio"], port, core=HUB_CORE, name=f"bare-{kind}").start(health="")


async def drive_bare(port: int, payloads: list[bytes]) -> None:
    from websockets.asyncio.client import connect

    async with connect(f"ws://127.0.0.1:{port}/", compression=None, max_size=None, ping_interval=None) as ws:
        await ws.send(b"play")
        await ws.send(msgpack.packb(payloads))
        await ws.recv()


# ---- the hub's table ---------------------------------------------------------------------------

def bot_table(base: str, game: str, seats: int) -> str:
    """A room whose seats but the last are bots with no delay: it waits, with nothing to show, until
    `play_out` takes the last seat."""
    room = http(base, "POST", "/api/rooms", {"game": game, "seats": seats, "bots": list(range(seats - 1)),
                                             "options": {"bot_delay_ms": 0}})["room"]
    return str(room)


async def play_out(base: str, room: str, seats: int) -> tuple[list[bytes], float]:
    """Take the last seat and play it at once whenever it is to act: the game starts and runs to its
    end, the bots moving with no delay and this seat answering on the loopback; the spectators'
    deltas. (Joining before the spectators watched let the whole game play out before they came.
    The seat used to be left to a stand-in, but a table whose every human is away now waits for them
    rather than being played out in their names, so a player must be there.)"""
    from tests.hub.wsclient import Client

    spec = await Client(base, room).open()
    started = time.monotonic()
    token = http(base, "POST", f"/api/rooms/{room}/join", {"name": "load", "seat": seats - 1})["token"]
    player = await Client(base, room, token).open()
    try:
        while not (isinstance(spec.view, dict) and spec.view.get("result") is not None):
            if time.monotonic() - started > 120:
                raise TimeoutError("the game did not finish")
            legal = player.legal
            if legal and player.view.get("result") is None:
                with contextlib.suppress(TimeoutError):
                    await player.act(legal[0], seq=player.seq, timeout=5)
            else:
                await asyncio.sleep(0.001)
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.3)
        return [raw for raw, f in zip(spec.raw, spec.frames, strict=True) if f["t"] == "delta"], elapsed
    finally:
        await player.close()
        await spec.close()


async def measure(size: int, games: int, ws: str | None, loop: str | None) -> dict[str, Any]:
    game, seats = first_game()
    counts = split(size, WORKERS)
    out: dict[str, Any] = {"size": size, "games": games}
    with hub(*HUB_FLAGS, ws=ws, loop=loop, name=f"fanout{size}").start() as h:
        workers = [Worker(spectators, h.port) for _ in range(WORKERS)]
        try:
            played: list[list[bytes]] = []
            frames = 0
            seconds = moves = hub_cpu = hub_wait = load_cpu = wall = 0.0
            ways = dict.fromkeys(WAYS, 0.0)  # frames out, and of them written at once, and behind held bytes
            for _ in range(games):
                room = bot_table(h.url, game, seats)
                for w, n in zip(workers, counts, strict=True):
                    w.send(("watch", room, n))
                assert sum(w.recv() for w in workers) == size
                await asyncio.sleep(0.3)
                ask_all(workers, ("reset",))
                load0 = sum(r[3] for r in ask_all(workers, ("report",)))
                cpu0, wait0, wall0 = h.cpu_seconds(), h.waited_seconds(), time.monotonic()
                ways0 = {k: metric_total(h.url, k) for k in WAYS}
                payloads, _ = await play_out(h.url, room, seats)
                for k in WAYS:
                    ways[k] += metric_total(h.url, k) - ways0[k]
                m = len(payloads)
                hub_cpu += h.cpu_seconds() - cpu0
                hub_wait += h.waited_seconds() - wait0
                wall += time.monotonic() - wall0
                reports = ask_all(workers, ("report",))
                load_cpu += sum(r[3] for r in reports) - load0
                f, s = rate(reports, size)
                played.append(payloads)
                frames, seconds, moves = frames + f, seconds + s, moves + m
            out["hub_per_s"] = frames / seconds
            out["hub_us"] = hub_cpu / (frames + size * games) * 1e6
            out["moves_per_s"] = moves / seconds
            out["hub_cpu"] = hub_cpu / wall
            out["hub_wait"] = hub_wait / wall
            out["spectators_cpu"] = load_cpu / wall
            sent = ways["hub_frames_out_total"] or 1.0
            out["direct"] = ways["hub_frames_direct_total"] / sent
            out["behind"] = ways["hub_frames_direct_behind_total"] / sent
            ask_all(workers, ("watch", "-", 0))
        finally:
            for w in workers:
                w.stop()
    for kind in ("websockets", "starlette"):
        rate_, cost = await replay(kind, ws, size, counts, played)
        out[f"{kind}_per_s"], out[f"{kind}_us"] = rate_, cost
    out["bare_per_s"], out["bare_us"] = out["websockets_per_s"], out["websockets_us"]
    out["ratio"] = out["hub_per_s"] / out["bare_per_s"]
    return out


async def replay(kind: str, ws: str | None, size: int, counts: list[int],
                 played: list[list[bytes]]) -> tuple[float, float]:
    """The recorded payloads through a bare server: deliveries per second, and CPU us per delivery."""
    with start_bare(kind, ws) as bare:
        workers = [Worker(spectators, bare.port) for _ in range(WORKERS)]
        try:
            for w, n in zip(workers, counts, strict=True):
                w.send(("watch", "-", n))
            assert sum(w.recv() for w in workers) == size
            await asyncio.sleep(0.3)
            frames, seconds, bare_cpu = 0, 0.0, 0.0
            for payloads in played:
                ask_all(workers, ("reset",))
                cpu0 = bare.cpu_seconds()
                await drive_bare(bare.port, payloads)
                bare_cpu += bare.cpu_seconds() - cpu0
                await asyncio.sleep(0.3)
                f, s = rate(ask_all(workers, ("report",)), size)
                frames, seconds = frames + f, seconds + s
            return frames / seconds, bare_cpu / (frames + size * len(played)) * 1e6
        finally:
            for w in workers:
                w.stop()


def rows_of(results: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for r in results:
        s = r["size"]
        rows.append((f"fan-out {s}: hub deltas/s", r["hub_per_s"], "",
                     f"{r['moves_per_s']:.1f} moves/s, hub ran {r['hub_cpu']:.0%} of the time and waited"
                     f" for a core {r['hub_wait']:.0%},"
                     f" spectator processes {r['spectators_cpu']:.0%} of a core, {r['games']} games"))
        rows.append((f"fan-out {s}: hub frames written at once / behind held bytes",
                     f"{r['direct']:.1%} / {r['behind']:.1%}", "",
                     "the rest took the connection's queue and writer task (hub/edge/direct.py)"))
        rows.append((f"fan-out {s}: bare broadcast deltas/s", r["bare_per_s"], "", "same payloads"))
        rows.append((f"fan-out {s}: bare Starlette endpoint deltas/s", r["starlette_per_s"], "",
                     "the same loop on uvicorn + Starlette"))
        rows.append((f"fan-out {s}: CPU us per delivery, hub / Starlette / bare",
                     f"{r['hub_us']:.1f} / {r['starlette_us']:.1f} / {r['bare_us']:.1f}", "", ""))
        rows.append((f"fan-out {s}: ratio of CPU costs bare/hub", r["bare_us"] / r["hub_us"], "",
                     "what the ratio would be with the core to itself"))
        rows.append((f"fan-out {s}: ratio hub/bare", r["ratio"], ">= 0.8", ""))
    return rows


def figures_of(results: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        out[f"fanout_ratio_{r['size']}"] = r["ratio"]
        out[f"fanout_hub_per_s_{r['size']}"] = r["hub_per_s"]
        out[f"fanout_bare_per_s_{r['size']}"] = r["bare_per_s"]
        out[f"fanout_starlette_per_s_{r['size']}"] = r["starlette_per_s"]
        out[f"fanout_cost_ratio_{r['size']}"] = r["bare_us"] / r["hub_us"]
        out[f"fanout_direct_share_{r['size']}"] = {"at_once": r["direct"], "behind": r["behind"]}
        out[f"fanout_us_per_delivery_{r['size']}"] = {"hub": r["hub_us"], "starlette": r["starlette_us"],
                                                      "bare": r["bare_us"]}
    return out


async def run(sizes: list[int], ws: str | None = None, loop: str | None = None,
              games: int | None = None) -> tuple[list[Row], dict[str, Any]]:
    raise_nofile()
    pin(LOAD_CORE)
    results = [await measure(s, games or GAMES_PER_SIZE.get(s, 2), ws, loop) for s in sizes]
    return rows_of(results), figures_of(results)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.fanout")
    ap.add_argument("--sizes", default="1000,5000")
    ap.add_argument("--ws", default=None)
    ap.add_argument("--loop", default=None)
    ap.add_argument("--games", type=int, default=None, help="games per size (default 4 at 1,000, 2 at 5,000)")
    ap.add_argument("--bare-server", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--kind", default="websockets", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bare_server:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        if args.kind == "starlette":
            starlette_broadcast(args.bare_server, args.ws or "websockets-sansio")
        else:
            asyncio.run(bare_server(args.bare_server))
        return
    rows, figures = asyncio.run(run([int(s) for s in args.sizes.split(",")], args.ws, args.loop, args.games))
    print_table("Fan-out", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
