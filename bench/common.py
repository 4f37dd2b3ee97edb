"""What every benchmark shares: hub processes pinned to a core, load-generator processes pinned to
the other, HTTP set-up calls, percentiles, and the printed table.

The machine has two cores. The server under test runs alone on core 0 (`HUB_CORE`); everything
that makes load (client processes, the driver, this coordinating process) shares core 1
(`LOAD_CORE`), so a figure says what one hub core does, and the load never steals from it.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing as mp
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Coroutine, Sequence
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "artifacts" / "bench"
CORES = sorted(os.sched_getaffinity(0))
HUB_CORE = CORES[0]
LOAD_CORE = CORES[-1]


def raise_nofile() -> int:
    """Many sockets per process: lift the soft limit on open files to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def pin(core: int) -> None:
    """Run on `core` alone; a negative core leaves the process every core (a hub whose pool of
    thinking workers needs them)."""
    if core >= 0:
        os.sched_setaffinity(0, {core})


def descendants(pid: int) -> list[int]:
    """Every process under `pid` (a hub's thinking workers and their forkserver), from /proc."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:  # gone meanwhile
                continue
    under, grew = {pid}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in under} - under
        under |= more
        grew = bool(more)
    return sorted(under - {pid})


def cpu_seconds_of(pid: int) -> float:
    """User and system CPU seconds of a process (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def steal_seconds() -> float:
    """CPU time the host gave to others while this machine's cores wanted it (/proc/stat, all cores).

    On a virtual machine the host can stop the cores for a while; a latency figure from such a
    stretch says more about the host than the hub, so the benchmarks print how much was stolen."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) / os.sysconf("SC_CLK_TCK") if len(fields) > 8 else 0.0


def metrics_text(base: str) -> str:
    """A hub's /metrics, in Prometheus' text format."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as r:
        return str(r.read().decode())


def metric_total(base: str, name: str) -> float:
    """The sum of one counter's samples in a hub's /metrics."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in metrics_text(base).splitlines()
               if line.startswith(name) and (len(line) == len(name) or line[len(name)] in " {"))


def histogram(base: str, name: str) -> list[tuple[float, float]]:
    """A histogram's cumulative buckets (upper bound, count) in a hub's /metrics, summed over labels."""
    out: dict[float, float] = {}
    for line in metrics_text(base).splitlines():
        if line.startswith(name + "_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            out[float(le)] = out.get(float(le), 0.0) + float(line.rsplit(" ", 1)[1])
    return sorted(out.items())


def bucket_quantile(before: list[tuple[float, float]], after: list[tuple[float, float]], q: float) -> float:
    """The upper bound of the bucket that holds quantile q (0..1) of what was observed between two
    readings of one histogram; NaN if nothing was."""
    counts = [(le, n - dict(before).get(le, 0.0)) for le, n in after]
    total = counts[-1][1] if counts else 0.0
    if total <= 0:
        return math.nan
    return next(le for le, n in counts if n >= q * total)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return float(ordered[k])


# ---- servers under test ------------------------------------------------------------------------

class Server:
    """A server subprocess pinned to one core, with its output in artifacts/bench/."""

    def __init__(self, argv: list[str], port: int, core: int = HUB_CORE, name: str = "hub",
                 env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        self.argv, self.port, self.core, self.name, self.cwd = argv, port, core, name, cwd
        self.url = f"http://127.0.0.1:{port}"
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = LOGS / f"{name}-{port}.log"

    def start(self, timeout: float = 20, health: str = "/healthz") -> Server:
        LOGS.mkdir(parents=True, exist_ok=True)
        core = self.core

        def before() -> None:
            pin(core)
            raise_nofile()

        log = open(self.log_path, "wb")  # noqa: SIM115 - handed to the child
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     preexec_fn=before)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}: {self.tail()}")
            try:
                if health:
                    with urllib.request.urlopen(self.url + health, timeout=1) as r:
                        if r.status == 200:
                            return self
                else:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not come up: {self.tail()}")

    def tail(self, n: int = 1500) -> str:
        return self.log_path.read_text(errors="replace")[-n:] if self.log_path.exists() else ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        return cpu_seconds_of(self.pid)

    def waited_seconds(self) -> float:
        """Time the process was ready to run but waited for a core (other work on the machine)."""
        total = 0
        for task in os.listdir(f"/proc/{self.pid}/task"):
            with open(f"/proc/{self.pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[1])
        return total / 1e9

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to finish anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# Load clients send frames far faster than a person; the per-address limits would stop them.
LOAD_FLAGS = ["--conns-per-ip", "0", "--rooms-per-ip-per-min", "0", "--joins-per-ip-per-min", "0",
              "--seats-per-ip", "0", "--pending-ws-per-ip", "0", "--http-conns-per-ip", "0", "--max-conns", "0",
              "--frames-per-s", "100000",
              "--frame-burst", "100000", "--log-level", "warning", "--finished-ttl-s", "600"]


def hub(*args: str, ws: str | None = None, loop: str | None = None, port: int | None = None,
        core: int = HUB_CORE, name: str = "hub", cwd: Path = ROOT) -> Server:
    """A `python -m hub serve` process on core 0, with the load limits lifted and `args` added."""
    port = port or free_port()
    argv = [sys.executable, "-m", "hub", "serve", "--host", "127.0.0.1", "--port", str(port), *LOAD_FLAGS]
    if not {"--redis", "--store", "--db"} & set(args):
        argv += ["--store", "memory"]  # the figures of earlier runs were on memory; SQLite is measured by name
    if ws:
        argv += ["--ws", ws]
    if loop:
        argv += ["--loop", loop]
    return Server([*argv, *args], port, core=core, name=name, cwd=cwd)


# ---- the lobby over HTTP -----------------------------------------------------------------------

def http(base: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def table(base: str, game: str, seats: int, options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """A new room with every seat taken by the caller; its id and the seat tokens, in seat order."""
    room = http(base, "POST", "/api/rooms", {"game": game, "seats": seats, "options": options or {}})["room"]
    tokens = [http(base, "POST", f"/api/rooms/{room}/join", {"name": f"load{s}", "seat": s})["token"]
              for s in range(seats)]
    return str(room), [str(t) for t in tokens]


def first_game() -> tuple[str, int]:
    """The game the load is made of: Symbiose at four seats when registered, else any game at its largest."""
    from rules.registry import GAMES

    if "symbiose" in GAMES:
        return "symbiose", 4
    game = next(iter(GAMES.values()))
    return game.id, min(4, game.max_players)


# ---- load-generator processes ------------------------------------------------------------------

class Channel:
    """The worker's end of its pipe, readable from the worker's event loop."""

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        asyncio.get_running_loop().add_reader(pipe.fileno(), self._readable)

    def _readable(self) -> None:
        try:
            self.queue.put_nowait(self.pipe.recv())
        except EOFError:
            asyncio.get_running_loop().remove_reader(self.pipe.fileno())
            self.queue.put_nowait(None)

    async def get(self) -> Any:
        return await self.queue.get()

    def put(self, obj: Any) -> None:
        """Send, blocking until the coordinator has read it all: the loop's reader left the pipe
        non-blocking, and a report larger than the pipe's buffer (a run's samples) would otherwise
        stop half-written with EAGAIN while the coordinator still reads another worker."""
        fd = self.pipe.fileno()
        os.set_blocking(fd, True)
        try:
            self.pipe.send(obj)
        finally:
            os.set_blocking(fd, False)


WorkerMain = Callable[..., Coroutine[Any, Any, None]]


def _worker_entry(core: int, target: WorkerMain, args: tuple[Any, ...], pipe: Pipe) -> None:
    pin(core)
    raise_nofile()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass

    async def main() -> None:
        await target(Channel(pipe), *args)

    asyncio.run(main())


class Worker:
    """A load-generator process on the load core, driven by messages over a pipe."""

    def __init__(self, target: WorkerMain, *args: Any, core: int = LOAD_CORE) -> None:
        ctx = mp.get_context("spawn")
        self.pipe, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_entry, args=(core, target, args, child), daemon=True)
        self.proc.start()
        child.close()

    def send(self, obj: Any) -> None:
        self.pipe.send(obj)

    def recv(self, timeout: float = 120) -> Any:
        if not self.pipe.poll(timeout):
            raise TimeoutError("a load worker did not answer")
        return self.pipe.recv()

    def stop(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self.pipe.send(None)
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(5)


def ask_all(workers: list[Worker], msg: Any, timeout: float = 120) -> list[Any]:
    for w in workers:
        w.send(msg)
    return [w.recv(timeout) for w in workers]


def split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


# ---- reporting ---------------------------------------------------------------------------------

def fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {fmt(v)}" for k, v in value.items())
    return str(value)


Row = tuple[str, Any, str, str]  # what, value, target, note


def print_table(title: str, rows: list[Row]) -> None:
    print(f"\n{title}")
    width = max([len(r[0]) for r in rows] + [10])
    vwidth = max([len(fmt(r[1])) for r in rows] + [8])
    for what, value, target, note in rows:
        line = f"  {what:<{width}}  {fmt(value):>{vwidth}}"
        if target:
            line += f"   target {target}"
        if note:
            line += f"   ({note})"
        print(line, flush=True)


def bench_line(figures: dict[str, Any]) -> str:
    def clean(v: Any) -> Any:
        if isinstance(v, float):
            return None if math.isnan(v) else round(v, 4)
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        return v

    return "BENCH " + json.dumps({k: clean(v) for k, v in figures.items()}, sort_keys=True)


def machine() -> dict[str, Any]:
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    return {"nproc": os.cpu_count(), "cpu": model, "ram_gib": round(mem_kib / 2**20, 1),
            "python": sys.version.split()[0]}
