"""Does a strong bot's thinking slow the humans of a hub? Move-to-delta latency beside thinking bots.

    python -m bench.bot_load [--tables 50] [--humans 10] [--seconds 30] [--pairs 3]

One hub process (memory store, not pinned: its pool of thinking workers has every core) holds
`--tables` Frenzy Falls tables of four bots each, all of one level, playing at the hub's default
pace; beside them `--humans` Symbiose duels, each a seat played by this process against a normal
bot that answers at once. A human seat moves a random item of its `legal` 100 to 300 ms after it may; the figure is the
time from writing its `act` to reading the delta it caused. Runs alternate normal and strong bots,
`--pairs` of each; printed: each run's p50 / p99, and the median of the pairs' strong / normal p99
ratio (goal: at most 1.2).
"""
from __future__ import annotations

import argparse
import asyncio
import copy
import random
import statistics
import time
from typing import Any

import jsonpatch
import msgpack
from websockets.asyncio.client import connect

from bench.common import Row, bench_line, cpu_seconds_of, descendants, http, hub, percentile, print_table

GOAL = 1.2
WARMUP_S = 5.0


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws"


def bot_tables(base: str, count: int, level: str) -> None:
    bots = [{"seat": s, "level": level} for s in range(4)]
    for _ in range(count):
        http(base, "POST", "/api/rooms", {"game": "frenzy_falls", "seats": 4, "options": {}, "bots": bots})


async def human(base: str, until: float, start: float, out: list[float], seed: int) -> None:
    """Symbiose duels one after another, seat 0 played here against a normal bot."""
    rng = random.Random(seed)
    while time.monotonic() < until:
        room = http(base, "POST", "/api/rooms", {"game": "symbiose", "seats": 2, "options": {"bot_delay_ms": 0},
                                          "bots": [1]})["room"]
        token = http(base, "POST", f"/api/rooms/{room}/join", {"name": "human", "seat": 0})["token"]
        async with connect(ws_url(base), subprotocols=["msgpack"], max_size=None) as ws:  # type: ignore[list-item]
            await ws.send(msgpack.packb({"t": "hello", "room": room, "token": token}))
            view: Any = None
            sent_at: float | None = None
            next_id = 0
            while time.monotonic() < until:
                try:
                    data = await asyncio.wait_for(ws.recv(), timeout=max(0.05, until - time.monotonic()))
                except TimeoutError:
                    break
                now = time.monotonic()
                frame = msgpack.unpackb(data, raw=False)
                if frame["t"] == "welcome":
                    view = frame["view"]
                elif frame["t"] == "delta":
                    view = jsonpatch.apply_patch(copy.deepcopy(view), frame["ops"])
                    if sent_at is not None:
                        if sent_at >= start:
                            out.append((now - sent_at) * 1000)
                        sent_at = None
                elif frame["t"] == "ping":
                    await ws.send(msgpack.packb({"t": "pong", "id": frame["id"]}))
                if view is None or view.get("result") is not None:
                    if view is not None:
                        break
                    continue
                if sent_at is None and view.get("legal"):
                    await asyncio.sleep(rng.uniform(0.1, 0.3))
                    next_id += 1
                    sent_at = time.monotonic()
                    await ws.send(msgpack.packb({"t": "act", "id": next_id, "action": rng.choice(view["legal"])}))


def descendants_cpu_s(pid: int) -> float:
    """CPU seconds of every process under `pid` (the hub's thinking workers)."""
    return sum(cpu_seconds_of(p) for p in descendants(pid))


async def one_run(level: str, tables: int, humans: int, seconds: float) -> tuple[list[float], float]:
    """The human moves' latencies, and the CPU seconds the hub's workers spent meanwhile."""
    with hub("--bot-think-ms", "300", core=-1, name=f"bot-load-{level}") as server:
        server.start()
        bot_tables(server.url, tables, level)
        start = time.monotonic() + WARMUP_S
        until = start + seconds
        out: list[float] = []
        await asyncio.sleep(WARMUP_S / 2)
        before = descendants_cpu_s(server.pid)
        await asyncio.gather(*(human(server.url, until, start, out, i) for i in range(humans)))
        return out, descendants_cpu_s(server.pid) - before


def run(tables: int = 50, humans: int = 10, seconds: float = 30, pairs: int = 3) -> tuple[list[Row], dict[str, Any]]:
    rows: list[Row] = []
    ratios: list[float] = []
    p99s: dict[str, list[float]] = {"normal": [], "strong": []}
    for pair in range(pairs):
        got: dict[str, float] = {}
        for level in ("normal", "strong"):
            ms, thinking = asyncio.run(one_run(level, tables, humans, seconds))
            p50, p99 = statistics.median(ms), percentile(ms, 99)
            got[level] = p99
            p99s[level].append(p99)
            rows.append((f"bot load run {pair + 1}: {tables} tables of {level} bots, human move-to-delta p50 / p99",
                         f"{p50:.2f} / {p99:.2f} ms", "",
                         f"{len(ms)} moves; the hub's thinking workers used {thinking:.1f} CPU s"))
        ratios.append(got["strong"] / got["normal"])
    ratio = statistics.median(ratios)
    rows.append(("bot load: strong / normal human p99 (median of pairs)", f"{ratio:.2f}", f"<= {GOAL}",
                 "pairs: " + ", ".join(f"{r:.2f}" for r in ratios)))
    return rows, {"bot_load_strong_over_normal_p99": round(ratio, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bot_load")
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--humans", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    rows, figures = run(args.tables, args.humans, args.seconds, args.pairs)
    print_table("Bots beside humans", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
