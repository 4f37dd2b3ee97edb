"""`python -m bench` (`make bench`): every benchmark in turn, one table, and one `BENCH {json}` line.

    python -m bench [--quick] [--ws IMPL] [--loop LOOP]

The hub runs alone on core 0; everything that makes load shares core 1 (see bench/common.py).
`--quick` shortens every part (for a look, not for figures to keep).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import time
from typing import Any

from bench import (
    bot_load,
    bots,
    contests,
    delta_size,
    fanout,
    latency,
    memory,
    playouts,
    redis_shard,
    restart,
    write_floor,
)
from bench.common import Row, bench_line, machine, print_table


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ws", default=None, help="uvicorn WebSocket implementation of the hubs under test")
    ap.add_argument("--loop", default=None, help="event loop of the hubs under test")
    args = ap.parse_args()
    quick = args.quick
    started = time.monotonic()
    m = machine()
    print(f"machine: {m['nproc']} cores, {m['cpu']}, {m['ram_gib']} GiB RAM, Python {m['python']}; "
          "hub on core 0, load on core 1", flush=True)
    rows: list[Row] = []
    figures: dict[str, Any] = {}
    parts = [
        ("Fan-out", lambda: asyncio.run(fanout.run([1000] if quick else [1000, 5000], args.ws, args.loop))),
        ("Write floor", lambda: write_floor.run(1000, 240, 50 if quick else 200)),
        ("Latency under load", lambda: asyncio.run(latency.run(100 if quick else 500, 8 if quick else 30,
                                                               args.ws, args.loop, pairs=1 if quick else 5))),
        ("Delta size", lambda: delta_size.run(8 if quick else 40)),
        ("Restart", lambda: restart.run(100 if quick else 500, 5 if quick else 10)),
        ("Memory", lambda: memory.run(1000 if quick else 5000, args.ws, args.loop)),
        ("Rules", lambda: playouts.run(0.5 if quick else 2.0)),
        ("Bots", lambda: bots.run(20 if quick else 200, jobs=len(os.sched_getaffinity(0)))),
        ("Bots beside humans", lambda: bot_load.run(10 if quick else 50, 3 if quick else 10, 8 if quick else 30,
                                                    1 if quick else 3)),
        ("Contests", lambda: contests.run(500 if quick else 4000)),
        ("Redis shard", lambda: redis_shard.run(1000 if quick else 4000, 2.0 if quick else 6.0,
                                                3.0 if quick else 6.0)),
    ]
    for title, part in parts:
        t0 = time.monotonic()
        r, f = part()
        print_table(f"{title} ({time.monotonic() - t0:.0f} s)", r)
        rows += r
        figures.update(f)
    print_table(f"All figures ({time.monotonic() - started:.0f} s)", rows)
    print(bench_line({**figures, "machine": m}))


if __name__ == "__main__":
    main()
