"""The floor of a delivery: one small write to each of many loopback TCP connections, and nothing else.

    python -m bench.write_floor [--conns 1000] [--bytes 240] [--rounds 200]

A server that sends every move to every watcher at once makes one write per connection per move,
whatever else it does; this measures what that write costs on this machine, with no WebSocket, no
framework and no game: a process on core 0 writes `--bytes` to each of `--conns` connections in
turn, `--rounds` times with one turn of the event loop between rounds (as a move's fan-out), while a
process on core 1 reads and drops everything. On loopback the writer's system call also runs the
receiving side's TCP work, so its CPU per write is the kernel's part of any server's delivery: the
fan-out's figures (bench/fanout.py, and the side-by-side with Colyseus) are to be read against it.
Two ways are measured, alternated three times: the event loop's `transport.write` (uvloop, as the
hub writes) and a plain `socket.send` on the same sockets.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
from typing import Any

from bench.common import HUB_CORE, Channel, Row, Worker, bench_line, print_table

WAYS = ("transport.write", "socket.send")
REPEATS = 3


class _Drop(asyncio.Protocol):
    def data_received(self, data: bytes) -> None:
        pass


class _Hold(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport


async def reader(chan: Channel) -> None:
    """The receiving side: a server that reads and drops; it answers with its port."""
    server = await asyncio.get_running_loop().create_server(_Drop, "127.0.0.1", 0, backlog=4096)
    chan.put(server.sockets[0].getsockname()[1])
    await chan.get()
    server.close()


async def writer(chan: Channel, port: int, conns: int, size: int, rounds: int) -> None:
    """The writing side: CPU seconds per write of each way, `REPEATS` times in turn."""
    loop = asyncio.get_running_loop()
    transports: list[Any] = []
    for _ in range(conns):
        transport, _ = await loop.create_connection(_Hold, "127.0.0.1", port)
        transports.append(transport)
    socks = [socket.socket(fileno=os.dup(t.get_extra_info("socket").fileno())) for t in transports]
    payload = b"x" * size
    out: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    for _ in range(REPEATS):
        for way in WAYS:
            t0 = os.times()
            for _ in range(rounds):
                if way == "transport.write":
                    for t in transports:
                        t.write(payload)
                else:
                    for s in socks:
                        s.send(payload)
                await asyncio.sleep(0)
            t1 = os.times()
            n = rounds * conns
            out[way].append(((t1.user - t0.user) / n, (t1.system - t0.system) / n))
    for s in socks:
        s.close()
    for t in transports:
        t.close()
    chan.put(out)
    await chan.get()


def run(conns: int = 1000, size: int = 240, rounds: int = 200) -> tuple[list[Row], dict[str, Any]]:
    drop = Worker(reader)
    try:
        port = drop.recv()
        write = Worker(writer, port, conns, size, rounds, core=HUB_CORE)
        try:
            got: dict[str, list[tuple[float, float]]] = write.recv(300)
        finally:
            write.stop()
    finally:
        drop.stop()
    rows: list[Row] = []
    figures: dict[str, Any] = {}
    for way in WAYS:
        user = statistics.median(u for u, _ in got[way]) * 1e6
        system = statistics.median(s for _, s in got[way]) * 1e6
        total = statistics.median(u + s for u, s in got[way]) * 1e6
        spread = ", ".join(f"{(u + s) * 1e6:.1f}" for u, s in got[way])
        rows.append((f"write floor: CPU us per {size} B write, {way}", total, "",
                     f"user {user:.2f}, system {system:.2f}; {conns} connections x {rounds} rounds, "
                     f"median of {REPEATS} ({spread})"))
        figures[f"write_floor_us_{way.replace('.', '_')}"] = total
    return rows, figures


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.write_floor")
    ap.add_argument("--conns", type=int, default=1000)
    ap.add_argument("--bytes", type=int, default=240, help="payload of each write (a Symbiose delta is about 240)")
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    rows, figures = run(args.conns, args.bytes, args.rounds)
    print_table("Write floor", rows)
    print(bench_line(figures))


if __name__ == "__main__":
    main()
