"""One Redis shard: how many of the hub's log appends and pub/sub deliveries it carries per second.

    python -m bench.redis_shard [--rooms 4000] [--seconds 6] [--sample-seconds 6] [--no-aof] [--no-fan4]

A room shared through Redis costs its shard one run of the COMMIT script per change (fencing check,
XREVRANGE, XADD, three PEXPIREs, PUBLISH; hub/stores/redis/scripts.py), and the shard delivers each
published entry to every process relaying the room. This bench measures that, at the hub's own
entry sizes, on a redis-server of its own.

1. Entry sizes: a real `python -m hub serve --redis` plays four-seat bot tables of every game for a
   few seconds; every log entry and snapshot it wrote is read back (XRANGE of `{R}:log`, GET of
   `{R}:snap`) and measured. These entries are the payloads of the load below.
2. Capacity: a fresh redis-server (temporary directory, no RDB; once without persistence, once with
   `--appendonly yes --appendfsync everysec` as docs/operations.md recommends) holds one lease, room
   record and snapshot per room, like an owner's. Load processes send the hub's COMMIT script by
   EVALSHA, with its KEYS and ARGV as the owner sends them, the leases held by the load's instance
   name and every room's n increasing, in deep pipelines of pre-encoded commands on raw sockets (so
   the load is not what stops it). Subscriber connections, two per room channel (as two relaying
   processes would have), count the messages delivered. The window starts after a warm-up. A third
   run with four subscribers per channel separates what an append costs the shard from what each
   delivered message costs it.

Then, on the first run's shard, the owners' upkeep: every room's lease renewed (the RENEW script over
a slice of rooms) and marked in the `live` set (ZADD), as each owner does once every third of a lease;
and the seat holds that every relaying process publishes to a room's owner every few seconds.

Figures: commits (log appends) per second, pub/sub messages delivered per second, redis-server CPU
microseconds per commit (/proc/PID/stat), bytes in and out per second (INFO stats), Redis memory
per logged entry (the hub does not trim logs; a room's keys expire with its TTL).

Cores: redis-server alone on core 0; the hub of step 1, the load and subscriber processes and this
process on core 1.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import shutil
import statistics
import tempfile
import time
from typing import Any

import hiredis
import msgpack
import redis

from bench.common import (
    HUB_CORE,
    LOAD_CORE,
    Channel,
    Row,
    Server,
    Worker,
    ask_all,
    bench_line,
    free_port,
    http,
    hub,
    percentile,
    pin,
    print_table,
    raise_nofile,
)
from hub.stores.redis.keys import Keys
from hub.stores.redis.ownership import PRESENCE_S
from hub.stores.redis.scripts import COMMIT, RENEW

LOADERS = 2         # processes sending commits
PER_CHANNEL = 2     # subscribers of each room channel (processes relaying the room); one process each
DEPTH = 4096        # commits in flight per loader connection
BATCH = 256         # commits per write
ME = "bench-shard-load"
LEASE_MS = 3000
TTL_MS = 24 * 3600 * 1000  # a playing room's TTL (hub.stores.redis.owner.PLAYING_TTL_S)
BOT_DELAY_MS = 30          # bots of the sampling hub move fast, so a few seconds hold whole games


def bulk(b: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(b), b)


def command(*args: bytes) -> bytes:
    return b"*%d\r\n" % len(args) + b"".join(bulk(a) for a in args)


def redis_server(aof: bool, workdir: str) -> Server:
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("no redis-server on PATH")
    port = free_port()
    argv = [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", workdir,
            "--appendonly", "yes" if aof else "no"]
    if aof:
        argv += ["--appendfsync", "everysec"]
    return Server(argv, port, core=HUB_CORE, name="redis-shard-aof" if aof else "redis-shard").start(health="")


# ---- 1. the hub's own entries ------------------------------------------------------------------

def seats_of(game: Any) -> int:
    return max(game.min_players, min(4, game.max_players))


def sample_entries(url: str, seconds: float, tables_per_game: int) -> dict[str, Any]:
    """Bot tables of every game on a real hub; then every entry and snapshot it wrote to Redis."""
    from rules.registry import GAMES

    prefix = "shard" + secrets.token_hex(4)
    h = hub("--redis", url, "--redis-prefix", prefix, core=LOAD_CORE, name="shard-entries").start()
    try:
        for gid in sorted(GAMES):
            seats = seats_of(GAMES[gid])
            for _ in range(tables_per_game):
                http(h.url, "POST", "/api/rooms", {"game": gid, "seats": seats, "bots": list(range(seats)),
                                                   "options": {"bot_delay_ms": BOT_DELAY_MS}})
        time.sleep(seconds)
    finally:
        h.stop()
    r = redis.Redis.from_url(url)
    keys = Keys(prefix)
    entries: list[bytes] = []
    moves: list[int] = []
    by_game: dict[str, list[int]] = {}
    audiences: list[int] = []
    snaps: list[int] = []
    for key in r.scan_iter(match=f"{prefix}:{{*}}:log", count=1000):
        rid = key.decode().split("{", 1)[1].split("}", 1)[0]
        rec = r.hget(keys.room(rid), "rec")
        game = msgpack.unpackb(rec, raw=False)["game"] if rec else "?"
        for _eid, fields in r.xrange(key):
            blob = fields[b"e"]
            entries.append(blob)
            by_game.setdefault(game, []).append(len(blob))
            entry = msgpack.unpackb(blob, raw=False, strict_map_key=False)
            if entry.get("k") == "act":
                moves.append(len(blob))
                audiences.append(len(entry.get("d") or {}))
        snap = r.get(keys.snap(rid))
        if snap:
            snaps.append(len(snap))
    r.close()
    if not entries:
        raise RuntimeError("the hub wrote no log entries")
    sizes = [len(e) for e in entries]
    return {"entries": entries, "count": len(entries), "median": statistics.median(sizes),
            "p90": percentile(sizes, 90), "moves_median": statistics.median(moves) if moves else None,
            "moves_p90": percentile(moves, 90) if moves else None,
            "audiences_median": statistics.median(audiences) if audiences else None,
            "by_game": {g: statistics.median(v) for g, v in sorted(by_game.items())},
            "snap_median": statistics.median(snaps) if snaps else None,
            "snap_p90": percentile(snaps, 90) if snaps else None, "snaps": len(snaps)}


# ---- 2. load processes -------------------------------------------------------------------------

async def loader(ch: Channel, port: int, prefix: str, sha: bytes, rids: list[str], blobs: list[bytes]) -> None:
    """Send COMMIT by EVALSHA for `rids` in turn, each room's n going up, DEPTH commits in flight."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    keys = Keys(prefix)
    heads = [b"*16\r\n" + b"".join(bulk(a) for a in (b"EVALSHA", sha, b"4", keys.lease(r).encode(),
                                                        keys.log(r).encode(), keys.room(r).encode(),
                                                        keys.snap(r).encode(), ME.encode()))
             for r in rids]
    tails = [b"".join(bulk(a) for a in (b"", str(TTL_MS).encode(), keys.out(r).encode(), b"PUBLISH",
                                        str(LEASE_MS).encode(), b""))
             for r in rids]
    payloads = [bulk(b) for b in blobs]
    counts = {"1": 0, "2": 0, "0": 0, "-1": 0, "error": 0}
    parser = hiredis.Reader()
    stopping = False

    async def run() -> None:
        n = [0] * len(rids)
        i = k = outstanding = 0
        while not stopping:
            parts = []
            for _ in range(BATCH):
                r = i % len(rids)
                i += 1
                n[r] += 1
                parts.append(heads[r] + bulk(str(n[r]).encode()) + payloads[k % len(payloads)] + tails[r])
                k += 1
            writer.write(b"".join(parts))
            outstanding += BATCH
            await writer.drain()
            while outstanding > DEPTH - BATCH or (stopping and outstanding):
                data = await reader.read(1 << 16)
                if not data:
                    raise ConnectionError("redis closed the loader's connection")
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    outstanding -= 1
                    key = str(reply) if isinstance(reply, int) else "error"
                    counts[key if key in counts else "error"] += 1

    task: asyncio.Task[None] | None = None
    while (msg := await ch.get()) is not None:
        if msg == "go":
            task = asyncio.create_task(run())
        elif msg == "stop":
            stopping = True
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait_for(task, 30)
            ch.put(dict(counts))
        else:
            if task is not None and task.done():
                task.result()  # a failed load says so
            ch.put(dict(counts))
    writer.close()


async def subscriber(ch: Channel, port: int, channels: list[str]) -> None:
    """One pub/sub connection on `channels`, counting the messages and payload bytes it receives."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(0, len(channels), 500):
        writer.write(command(b"SUBSCRIBE", *(c.encode() for c in channels[i:i + 500])))
    await writer.drain()
    parser = hiredis.Reader()
    counts = {"messages": 0, "bytes": 0, "subscribed": 0}

    async def read() -> None:
        while data := await reader.read(1 << 18):
            parser.feed(data)
            while (reply := parser.gets()) is not False:
                if reply[0] == b"message":
                    counts["messages"] += 1
                    counts["bytes"] += len(reply[2])
                elif reply[0] == b"subscribe":
                    counts["subscribed"] += 1

    task = asyncio.create_task(read())
    while await ch.get() is not None:
        if task.done():
            task.result()
        ch.put(dict(counts))
    task.cancel()
    writer.close()


async def renewer(ch: Channel, port: int, batches: list[bytes], replies: int) -> None:
    """Send upkeep commands batch after batch, a few batches in flight (`replies` replies each)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    parser = hiredis.Reader()
    counts = {"replies": 0, "errors": 0}
    stopping = False

    async def run() -> None:
        i = outstanding = 0
        while not stopping:
            writer.write(batches[i % len(batches)])
            i += 1
            outstanding += replies
            await writer.drain()
            while outstanding > 4 * replies or (stopping and outstanding):
                data = await reader.read(1 << 16)
                if not data:
                    raise ConnectionError("redis closed the renewer's connection")
                parser.feed(data)
                while (reply := parser.gets()) is not False:
                    outstanding -= 1
                    counts["errors" if isinstance(reply, hiredis.ReplyError) else "replies"] += 1

    task: asyncio.Task[None] | None = None
    while (msg := await ch.get()) is not None:
        if msg == "go":
            task = asyncio.create_task(run())
        else:
            if msg == "stop":
                stopping = True
                if task is not None:
                    await asyncio.wait_for(task, 30)
            elif task is not None and task.done():
                task.result()
            ch.put(dict(counts))
    writer.close()


def upkeep_cost(srv: Server, batches: list[bytes], replies: int, seconds: float) -> tuple[float, float, int]:
    """(replies per second, redis CPU seconds per reply, errors) of sending `batches` over and over."""
    w = Worker(renewer, srv.port, batches, replies)
    try:
        w.send("go")
        time.sleep(0.5)
        t0, c0, (a,) = time.monotonic(), srv.cpu_seconds(), ask_all([w], "mark")
        time.sleep(seconds)
        t1, c1, (b,) = time.monotonic(), srv.cpu_seconds(), ask_all([w], "mark")
        (final,) = ask_all([w], "stop")
    finally:
        w.stop()
    done = b["replies"] - a["replies"]
    return done / (t1 - t0), (c1 - c0) / max(done, 1), int(final["errors"])


def renewals(srv: Server, r: redis.Redis, prefix: str, rids: list[str], seconds: float,
             slice_size: int = 500) -> dict[str, Any]:
    """The shard's CPU per room renewed, as one process renews its rooms (not on a cluster, where
    RENEW goes one room at a time), and per seat hold that a relaying process sends to a room's owner
    every PRESENCE_S (a PUBLISH on the room's `in` channel, which the owner alone listens to)."""
    keys = Keys(prefix)
    sha = str(r.script_load(RENEW)).encode()
    batches = []
    for variant in range(2):
        for i in range(0, len(rids), slice_size):
            part = rids[i:i + slice_size]
            renew = command(b"EVALSHA", sha, str(2 * len(part)).encode(),
                            *(k.encode() for rid in part for k in (keys.lease(rid), keys.room(rid))),
                            ME.encode(), str(600_000).encode())
            until = str(int(time.time() * 1000) + 600_000 + variant).encode()
            zadd = command(b"ZADD", keys.live.encode(), *(x for rid in part for x in (until, rid.encode())))
            batches.append(renew + zadd)
    per_s, cpu, errors = upkeep_cost(srv, batches, 2, seconds)
    out = {"rooms_per_s": per_s / 2 * slice_size, "cpu_us_per_room": cpu * 2 / slice_size * 1e6,
           "errors": errors, "slice": slice_size}
    owner = Worker(subscriber, srv.port, [keys.inbox(rid) for rid in rids])
    try:
        deadline = time.monotonic() + 30
        while ask_all([owner], "mark")[0]["subscribed"] < len(rids):
            if time.monotonic() > deadline:
                raise RuntimeError("the owner's subscriber did not subscribe")
            time.sleep(0.1)
        holds = []
        for i in range(0, len(rids), slice_size):
            holds.append(b"".join(
                command(b"PUBLISH", keys.inbox(rid).encode(),
                        msgpack.packb({"k": "hold", "s": j % 4, "h": f"hub-8001/{j}", "re": True}))
                for j, rid in enumerate(rids[i:i + slice_size], start=i)))
        out["holds_per_s"], cpu, errors = upkeep_cost(srv, holds, slice_size, seconds)
        (got,) = ask_all([owner], "mark")
    finally:
        owner.stop()
    out.update(cpu_us_per_hold=cpu * 1e6, hold_errors=errors, holds_received=got["messages"])
    return out


# ---- 2. the run --------------------------------------------------------------------------------

def info(r: redis.Redis) -> dict[str, float]:
    stats = r.info("stats")
    mem = r.info("memory")
    return {"in": float(stats["total_net_input_bytes"]), "out": float(stats["total_net_output_bytes"]),
            "used": float(mem["used_memory"])}


def setup_rooms(r: redis.Redis, prefix: str, rooms: int, snap: bytes) -> list[str]:
    """What an owner holds for each room before its first commit: the lease, the record, a snapshot."""
    keys = Keys(prefix)
    rids = [f"b{i:06d}" for i in range(rooms)]
    rec = msgpack.packb({"game": "bench", "seats": 4}, use_bin_type=True)
    pipe = r.pipeline(transaction=False)
    for i, rid in enumerate(rids):
        pipe.set(keys.lease(rid), ME, px=600_000)
        pipe.hset(keys.room(rid), mapping={"rec": rec, "meta": "{}", "tokens": "[]", "snap_n": 0})
        pipe.set(keys.snap(rid), snap, px=TTL_MS)
        if i % 1000 == 999:
            pipe.execute()
    pipe.execute()
    return rids


def capacity(aof: bool, entries: list[bytes], snap: bytes, rooms: int, seconds: float,
             per_channel: int = PER_CHANNEL, with_renewals: bool = False, warmup: float = 1.5) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="redis-shard-") as workdir:
        srv = redis_server(aof, workdir)
        loaders: list[Worker] = []
        subs: list[Worker] = []
        try:
            url = f"redis://127.0.0.1:{srv.port}/0"
            r = redis.Redis.from_url(url)
            prefix = "shard"
            rids = setup_rooms(r, prefix, rooms, snap)
            sha = str(r.script_load(COMMIT)).encode()
            keys = Keys(prefix)
            for j in range(2 * per_channel):  # half on the even rooms, half on the odd
                mine = [keys.out(rid) for i, rid in enumerate(rids) if i % 2 == j % 2]
                subs.append(Worker(subscriber, srv.port, mine))
            deadline = time.monotonic() + 30
            while sum(c["subscribed"] for c in ask_all(subs, "mark")) < per_channel * rooms:
                if time.monotonic() > deadline:
                    raise RuntimeError("the subscribers did not subscribe")
                time.sleep(0.1)
            rng = random.Random(7)
            for j in range(LOADERS):
                blobs = entries[:]
                rng.shuffle(blobs)
                loaders.append(Worker(loader, srv.port, prefix, sha, rids[j::LOADERS], blobs[:2000]))
            for w in loaders:
                w.send("go")
            time.sleep(warmup)
            t0, c0, w0, i0 = time.monotonic(), srv.cpu_seconds(), srv.waited_seconds(), info(r)
            l0, s0 = ask_all(loaders, "mark"), ask_all(subs, "mark")
            time.sleep(seconds)
            t1, c1, w1, i1 = time.monotonic(), srv.cpu_seconds(), srv.waited_seconds(), info(r)
            l1, s1 = ask_all(loaders, "mark"), ask_all(subs, "mark")
            final = ask_all(loaders, "stop")
            upkeep = renewals(srv, r, prefix, rids, min(seconds, 3.0)) if with_renewals else None
            span = t1 - t0
            commits = sum(b["1"] - a["1"] for a, b in zip(l0, l1, strict=True))
            messages = sum(b["messages"] - a["messages"] for a, b in zip(s0, s1, strict=True))
            payload = sum(b["bytes"] - a["bytes"] for a, b in zip(s0, s1, strict=True))
            refused = {what: sum(f[k] for f in final)
                       for k, what in (("2", "repeated"), ("0", "fenced"), ("-1", "gone"), ("error", "errors"))}
            out = {"commits_per_s": commits / span, "messages_per_s": messages / span,
                   "cpu_us_per_commit": (c1 - c0) / max(commits, 1) * 1e6, "redis_ran": (c1 - c0) / span,
                   "redis_waited": (w1 - w0) / span, "in_mb_s": (i1["in"] - i0["in"]) / span / 1e6,
                   "out_mb_s": (i1["out"] - i0["out"]) / span / 1e6,
                   "in_bytes_per_commit": (i1["in"] - i0["in"]) / max(commits, 1),
                   "payload_bytes_per_message": payload / max(messages, 1),
                   "memory_per_entry": (i1["used"] - i0["used"]) / max(commits, 1),
                   "refused": refused, "rooms": rooms, "per_channel": per_channel, "renewals": upkeep}
            r.close()
            return out
        finally:
            for w in loaders + subs:
                w.stop()
            srv.stop()


def run(rooms: int = 4000, seconds: float = 6.0, sample_seconds: float = 6.0, aof: bool = True,
        fan4: bool = True, tables_per_game: int = 6) -> tuple[list[Row], dict[str, Any]]:
    raise_nofile()
    pin(LOAD_CORE)
    with tempfile.TemporaryDirectory(prefix="redis-entries-") as workdir:
        srv = redis_server(False, workdir)
        try:
            s = sample_entries(f"redis://127.0.0.1:{srv.port}/0", sample_seconds, tables_per_game)
        finally:
            srv.stop()
    snap_blob = bytes(int(s["snap_median"] or 0))  # only its size matters to the shard
    runs = {"shard": capacity(False, s["entries"], snap_blob, rooms, seconds, with_renewals=True)}
    if aof:
        runs["shard_aof"] = capacity(True, s["entries"], snap_blob, rooms, seconds)
    if fan4:  # twice the subscribers: what one more delivered message costs the shard, apart from the append
        runs["shard_fan4"] = capacity(False, s["entries"], snap_blob, rooms, seconds, per_channel=4)
    rows: list[Row] = [
        ("redis shard: entry bytes median / p90", f"{s['median']:.0f} / {s['p90']:.0f}", "",
         f"{s['count']} entries of bot tables of every game; moves {s['moves_median']:.0f} / {s['moves_p90']:.0f}, "
         f"{s['audiences_median']:.0f} audiences' deltas in a move's entry; by game "
         + ", ".join(f"{g} {v:.0f}" for g, v in s["by_game"].items())),
        ("redis shard: snapshot bytes median / p90", f"{s['snap_median']:.0f} / {s['snap_p90']:.0f}", "",
         f"{s['snaps']} rooms' latest snapshots (one every 64 entries and at a game's end)"),
    ]
    figures: dict[str, Any] = {"shard_entry_bytes_median": s["median"], "shard_entry_bytes_p90": s["p90"],
                               "shard_move_entry_bytes_median": s["moves_median"],
                               "shard_snapshot_bytes_median": s["snap_median"]}
    for name, c in runs.items():
        label = {"shard": "redis shard", "shard_aof": "redis shard, AOF everysec",
                 "shard_fan4": "redis shard, 4 subscribers"}[name]
        tag = name
        rows += [
            (f"{label}: log appends (commits) per s", c["commits_per_s"], "",
             f"COMMIT by EVALSHA, {c['rooms']} rooms, {LOADERS} x {DEPTH} in flight; redis ran {c['redis_ran']:.0%} "
             f"of the time, waited for a core {c['redis_waited']:.0%}; not appended: "
             + ", ".join(f"{k} {v}" for k, v in c["refused"].items())),
            (f"{label}: pub/sub messages delivered per s", c["messages_per_s"], "",
             f"{c['per_channel']} subscribers per room channel; {c['payload_bytes_per_message']:.0f} B of entry "
             "each (mean)"),
            (f"{label}: redis CPU us per commit", c["cpu_us_per_commit"], "",
             f"the script, its append and its publish to {c['per_channel']} subscribers"),
            (f"{label}: bandwidth in / out MB/s", f"{c['in_mb_s']:.1f} / {c['out_mb_s']:.1f}", "",
             f"{c['in_bytes_per_commit']:.0f} B in per commit; Redis memory {c['memory_per_entry']:.0f} B "
             "per logged entry"),
        ]
        figures.update({f"{tag}_commits_per_s": c["commits_per_s"], f"{tag}_pubsub_msgs_per_s": c["messages_per_s"],
                        f"{tag}_cpu_us_per_commit": c["cpu_us_per_commit"], f"{tag}_in_mb_s": c["in_mb_s"],
                        f"{tag}_out_mb_s": c["out_mb_s"], f"{tag}_memory_per_entry": c["memory_per_entry"]})
    u = runs["shard"]["renewals"]
    rows.append(("redis shard: lease renewals, rooms per s", u["rooms_per_s"], "",
                 f"RENEW over {u['slice']} rooms and their ZADD to the live set, as an owner renews each room once "
                 f"every third of a lease; {u['cpu_us_per_room']:.2f} us of redis CPU per room; {u['errors']} errors"))
    rows.append(("redis shard: seat holds, publishes per s", u["holds_per_s"], "",
                 f"a relaying process's hold of a seat, to the room's owner every {PRESENCE_S:g} s (PUBLISH on "
                 f"the room's in channel, one subscriber); {u['cpu_us_per_hold']:.2f} us of redis CPU each; "
                 f"{u['hold_errors']} errors, {u['holds_received']} received"))
    figures.update({"shard_renewals_per_s": u["rooms_per_s"], "shard_cpu_us_per_renewal": u["cpu_us_per_room"],
                    "shard_holds_per_s": u["holds_per_s"], "shard_cpu_us_per_hold": u["cpu_us_per_hold"]})
    if "shard_fan4" in runs:
        a, b = runs["shard"], runs["shard_fan4"]
        per_msg = (b["cpu_us_per_commit"] - a["cpu_us_per_commit"]) / (b["per_channel"] - a["per_channel"])
        alone = a["cpu_us_per_commit"] - a["per_channel"] * per_msg
        told = per_msg >= 0.1
        rows.append(("redis shard: CPU us per append / per delivered message",
                     f"{alone:.1f} / {per_msg:.1f}" if told else f"{a['cpu_us_per_commit']:.1f} / < 0.1", "",
                     f"from the runs with {a['per_channel']} and {b['per_channel']} subscribers per channel"
                     + ("" if told else f" ({per_msg:+.2f}: more subscribers cost less than the two runs tell apart;"
                                        " deep pipelines put many messages in one write)")))
        figures.update({"shard_cpu_us_per_append": alone, "shard_cpu_us_per_message": per_msg})
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.redis_shard")
    ap.add_argument("--rooms", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=6.0, help="measured window of each capacity run")
    ap.add_argument("--sample-seconds", type=float, default=6.0, help="how long the hub's bot tables play")
    ap.add_argument("--no-aof", action="store_true", help="skip the run with --appendonly yes")
    ap.add_argument("--no-fan4", action="store_true", help="skip the run with 4 subscribers per channel")
    args = ap.parse_args()
    rows, figures = run(args.rooms, args.seconds, args.sample_seconds, not args.no_aof, not args.no_fan4)
    print_table("Redis shard", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
