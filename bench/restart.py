"""How long the embedded default takes to bring its live tables back after `kill -9`.

    python -m bench.restart [--tables 500] [--seconds 10]

A hub on a fresh database file gets `tables` rooms of four seats played by bots (at a bot delay
that keeps the load light), lets them play for `seconds`, and is killed with SIGKILL mid-play. A new
process on the same file is then timed from its start to its first `/healthz` answer, with every
room back and playing; its own log line says how long reading the file and rebuilding the rooms
took. Then, in this process, the same rooms are rebuilt both ways the store knows (the latest
snapshot and the entries after it, or the record and the whole log, the fallback for a snapshot
it cannot read), which is what the snapshot format was chosen by.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import tempfile
import time
from typing import Any

from bench.common import Row, http, hub, print_table
from hub.metrics import Metrics
from hub.settings import Settings
from hub.tables import persist
from hub.tables.rooms import Rooms

GAMES = [("symbiose", 4), ("frenzy_falls", 4), ("waterfall_park", 4), ("frenetic_village", 4)]


def fill(base: str, tables: int) -> list[str]:
    rooms = []
    for i in range(tables):
        game, seats = GAMES[i % len(GAMES)]
        body = {"game": game, "seats": seats, "bots": list(range(seats)), "options": {"bot_delay_ms": 1500}}
        rooms.append(str(http(base, "POST", "/api/rooms", body)["room"]))
    return rooms


def opened_line(log: str) -> dict[str, Any]:
    for line in reversed(log.splitlines()):
        if '"database open"' in line:
            return dict(json.loads(line))
    return {}


def rebuild_times(db: str) -> tuple[float, float, int, float]:
    """Seconds to rebuild every room in the file from snapshot + tail, and from the whole log;
    how many rooms, and the mean entries of a log."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT rid, record, snap FROM rooms").fetchall()
    logs = {rid: [(int(n), bytes(b)) for n, b in conn.execute(
        "SELECT n, entry FROM entries WHERE rid = ? ORDER BY n", (rid,))] for rid, _, _ in rows}
    conn.close()

    async def both() -> tuple[float, float]:
        house = Rooms(Settings(), Metrics())
        t0 = time.perf_counter()
        for rid, rec, snap in rows:
            first = persist.snapshot_n(bytes(snap))
            persist.restore(house, rid, bytes(rec), bytes(snap), [e for e in logs[rid] if e[0] > first],
                            fresh_views=True)
        t1 = time.perf_counter()
        for rid, rec, _ in rows:
            persist.rebuild(house, rid, bytes(rec), logs[rid], fresh_views=True)
        return t1 - t0, time.perf_counter() - t1

    snap_s, log_s = asyncio.run(both())
    mean = sum(len(v) for v in logs.values()) / max(1, len(logs))
    return snap_s, log_s, len(rows), mean


def run(tables: int = 500, seconds: float = 10.0) -> tuple[list[Row], dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as where:
        db = os.path.join(where, "hub.sqlite3")
        first = hub("--db", db, name="restart-a").start()
        try:
            fill(first.url, tables)
            time.sleep(seconds)
        finally:
            first.kill()
        second = hub("--db", db, "--log-level", "info", name="restart-b")
        t0 = time.monotonic()
        second.start(timeout=300)
        up_s = time.monotonic() - t0
        try:
            back = http(second.url, "GET", "/healthz")["rooms"]
            line = opened_line(second.tail(10**8))
        finally:
            second.stop()
        snap_s, log_s, n, mean_entries = rebuild_times(db)
    rows: list[Row] = [
        ("restart: live tables back", f"{back} of {tables}", "all", "after kill -9 mid-play"),
        ("restart: process start to /healthz s", up_s, "", "interpreter start and imports included"),
        ("restart: reading the file and rebuilding ms", line.get("ms"), "",
         f"the hub's own log: {line.get('rooms')} rooms"),
        ("restart: rebuild from snapshot + tail ms per room", snap_s / max(n, 1) * 1000, "",
         f"{n} rooms, logs of {mean_entries:.0f} entries on average"),
        ("restart: rebuild from the whole log ms per room", log_s / max(n, 1) * 1000, "",
         "the fallback for a snapshot that cannot be read"),
    ]
    figures = {"restart_tables": tables, "restart_back": back, "restart_up_s": up_s,
               "restart_rebuild_ms": line.get("ms"), "restart_snapshot_ms_per_room": snap_s / max(n, 1) * 1000,
               "restart_log_ms_per_room": log_s / max(n, 1) * 1000}
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.restart")
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    rows, _ = run(args.tables, args.seconds)
    print_table("Restart", rows)


if __name__ == "__main__":
    main()
