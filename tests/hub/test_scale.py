"""Many hub processes, one Redis: rooms shared, owners killed, everything restarted, Redis restarted.

Real processes on ephemeral ports, a real Redis (the shared one at `redis_url`, or redis-server
processes of the test's own where it restarts Redis or needs a cluster); every loop is bounded.
"""
from __future__ import annotations

import asyncio
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import redis

from rules.registry import GAMES
from tests.checker import conformance_checker
from tests.conftest import HubProcess, drop_prefix, free_port, need, new_prefix
from tests.hub.wsclient import Client, http, join, new_room, settle, snapshot

pytestmark = pytest.mark.redis

CHECKER = conformance_checker()
HUB_ARGS = ("--bot-delay-ms", "0", "--verify-deltas", "--lease-ms", "1500", "--grace-s", "30")
MAY_NOT_FINISH = {"frenetic_village"}


def start_hubs(n: int, url: str, prefix: str, *args: str) -> list[HubProcess]:
    hubs = [HubProcess(*HUB_ARGS, "--redis", url, "--redis-prefix", prefix, *args).launch() for _ in range(n)]
    try:
        return [h.wait_ready() for h in hubs]  # launched together: each takes about a second to come up
    except Exception:
        for h in hubs:
            h.stop()
        raise


@pytest.fixture(scope="module")
def trio(redis_url: str) -> Iterator[list[HubProcess]]:
    prefix = new_prefix()
    hubs = start_hubs(3, redis_url, prefix)
    yield hubs
    for h in hubs:
        h.stop()
    drop_prefix(redis_url, prefix)


def client(url: str | None = None, port: int | None = None) -> redis.Redis:
    """A plain client for the test's own reads: short timeouts and no retries, so it never hangs."""
    opts: dict[str, Any] = {"socket_timeout": 2, "socket_connect_timeout": 0.5, "retry": None}
    return redis.Redis.from_url(url, **opts) if url else redis.Redis(port=port, **opts)


def log_of(url: str, prefix: str, rid: str) -> list[dict[str, Any]]:
    r = client(url)
    try:
        return [msgpack.unpackb(f[b"e"], raw=False, strict_map_key=False)
                for _, f in r.xrange(f"{prefix}:{{{rid}}}:log")]
    finally:
        r.close()


def acks(clients: list[Client]) -> int:
    return sum(1 for c in clients for f in c.frames if f["t"] == "ack")


async def reopen(old: Client, base: str) -> Client:
    """The same viewer on another process, resuming from where it was."""
    c = Client(base, old.room, old.token, codec=old.codec)
    c.view, c.seq = old.view, old.seq
    await c.open(resume=old.seq)
    return c


class Table:
    """A table whose seats and spectators are spread over several hub processes."""

    def __init__(self, bases: list[str], game: str, seats: int, options: dict[str, Any] | None = None,
                 bots: list[int] | None = None, seed: int = 1) -> None:
        self.bases, self.game, self.seats = bases, game, seats
        self.options, self.bots = options or {}, bots or []
        self.rng = random.Random(seed)
        self.room = ""
        self.tokens: dict[int, str] = {}
        self.players: dict[int, Client] = {}
        self.watchers: list[Client] = []
        self.retired: list[Client] = []

    async def open(self, seat_bases: list[str] | None = None) -> Table:
        self.room = new_room(self.bases[0], self.game, self.seats, self.options, self.bots)
        humans = [s for s in range(self.seats) if s not in self.bots]
        for i, s in enumerate(humans):
            self.tokens[s] = join(self.bases[(i + 1) % len(self.bases)], self.room, f"p{s}", s)[1]
        for i, s in enumerate(humans):
            base = (seat_bases or self.bases)[(i + 2) % len(seat_bases or self.bases)]
            self.players[s] = await Client(base, self.room, self.tokens[s]).open()
        for i, base in enumerate(self.bases):
            self.watchers.append(await Client(base, self.room, codec="json" if i % 2 else "msgpack").open())
        return self

    @property
    def everyone(self) -> list[Client]:
        return [*self.players.values(), *self.watchers]

    def finished(self) -> bool:
        return self.watchers[0].view is not None and self.watchers[0].view["result"] is not None

    async def step(self, timeout: float = 20) -> bool:
        """One random legal action by a seat that has one; False when nobody could move."""
        await settle(self.everyone, gap=0.03)
        movers = [c for c in self.players.values() if c.legal and not c.closed.is_set()]
        if not movers:
            return False
        c = self.rng.choice(movers)
        answer = await c.act(self.rng.choice(c.legal), seq=c.seq, timeout=timeout)
        assert answer["t"] == "ack" or answer["code"] == "stale", answer
        return True

    async def play(self, steps: int, until_done: bool = True) -> None:
        idle = 0
        for _ in range(steps):
            if self.finished():
                return
            if await self.step():
                idle = 0
            else:
                idle += 1
                assert idle < 200, "the table stalled"
                await asyncio.sleep(0.05)

    async def check(self, base: str | None = None) -> None:
        """Every patched view equals a fresh snapshot, taken from another process (for a seat: a
        fresh connection there takes the seat over, 4009, and plays on in its place)."""
        await settle(self.everyone, gap=0.05)
        for c in self.everyone:
            assert not c.problems, c.problems
        where = base or self.bases[-1]
        seq, view = await snapshot(where, self.room)
        for w in self.watchers:
            if w.seq == seq:
                assert w.view == view, "a spectator's patched view differs from a snapshot"
        for s, c in list(self.players.items()):
            fresh = await Client(where, self.room, self.tokens[s]).open()
            assert await c.wait_closed() == 4009
            assert not c.problems, c.problems
            if fresh.seq == c.seq:
                assert fresh.view == c.view, f"seat {s}'s patched view differs from a snapshot"
            self.retired.append(c)
            self.players[s] = fresh

    async def move_off(self, base: str, to: str) -> None:
        """Every client of `base` reconnects to `to` and resumes (its process is gone or going)."""
        for s, c in list(self.players.items()):
            if c.ws_url.startswith(base.replace("http://", "ws://")):
                self.retired.append(c)
                self.players[s] = await reopen(c, to)
        for i, c in enumerate(list(self.watchers)):
            if c.ws_url.startswith(base.replace("http://", "ws://")):
                self.retired.append(c)
                self.watchers[i] = await reopen(c, to)

    async def close(self) -> None:
        for c in [*self.everyone, *self.retired]:
            await c.close()


def table_for(game: str) -> tuple[int, dict[str, Any]]:
    g = GAMES[game]
    return min(g.max_players, max(g.min_players, 3)), {}


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_full_game_over_three_processes(trio: list[HubProcess], game: str) -> None:
    seats, options = table_for(game)
    t = await Table([h.url for h in trio], game, seats, options, seed=len(game)).open()
    try:
        budget = 80 if game in MAY_NOT_FINISH else 2000  # a game that may never end: a stretch of it
        for step in range(0, budget, 20):
            await t.play(20)
            await t.check(trio[step // 20 % 3].url)
            if t.finished():
                break
        if game not in MAY_NOT_FINISH:
            assert t.finished(), "the game did not finish"
        views = [w.view for w in t.watchers]
        assert all(v == views[0] for v in views), "spectators on different processes disagree"
    finally:
        await t.close()


async def test_lobby_across_processes(trio: list[HubProcess]) -> None:
    a, b, c = (h.url for h in trio)
    room = new_room(a, "symbiose", 2)
    private = new_room(b, "symbiose", 2, {"private": True})
    listed = {r["room"] for r in http(c, "GET", "/api/rooms")[1]}
    assert room in listed and private not in listed
    assert http(c, "GET", f"/api/rooms/{private}")[0] == 200
    seat, token = join(b, room, "Ann", 1)
    assert seat == 1
    assert http(c, "POST", f"/api/rooms/{room}/join", {"name": "Bob", "seat": 1})[1]["error"] == "seat_taken"
    join(c, room, "Cid")
    assert http(a, "POST", f"/api/rooms/{room}/join", {"name": "Dee"})[1]["error"] == "room_full"
    status, info = http(c, "GET", f"/api/rooms/{room}")
    assert status == 200 and info["status"] == "playing" and [s["name"] for s in info["seats"]] == ["Cid", "Ann"]
    assert http(b, "GET", "/api/rooms/no-such-room")[0] == 404
    # the token works on any process; a second connection elsewhere takes the seat over
    first = await Client(a, room, token).open()
    second = await Client(c, room, token).open()
    assert await first.wait_closed() == 4009
    assert second.seat == 1 and second.view == first.view
    # tokens are kept hashed only
    r = client(trio[0].args[trio[0].args.index("--redis") + 1])
    prefix = trio[0].args[trio[0].args.index("--redis-prefix") + 1]
    blob = b"".join(v for v in r.hgetall(f"{prefix}:{{{room}}}:room").values())
    blob += b"".join(f[b"e"] for _, f in r.xrange(f"{prefix}:{{{room}}}:log"))
    blob += r.get(f"{prefix}:{{{room}}}:snap") or b""
    # every key of a room expires by itself: a day while it plays
    ttls = [r.pttl(f"{prefix}:{{{room}}}:{k}") for k in ("room", "log", "snap")]
    r.close()
    assert token.encode() not in blob
    assert all(0 < t <= 24 * 3600 * 1000 for t in ttls), ttls
    await second.close()


async def test_owner_killed_mid_game(redis_url: str) -> None:
    prefix = new_prefix()
    hubs = start_hubs(3, redis_url, prefix)
    try:
        a, b, c = (h.url for h in hubs)
        # owned by a (it made the room); seats on b and c; a bot seat and a deadline that must survive
        t = await Table([a, b, c], "symbiose", 4, {"bot_delay_ms": 30, "decision_seconds": 60},
                        bots=[3], seed=11).open(seat_bases=[b, c])
        await t.play(12)
        await t.check()
        before = acks(t.everyone + t.retired)
        hubs[0].kill()  # kill -9: no lease released, nothing flushed
        killed = time.monotonic()
        await t.move_off(a, b)
        assert await t.step(timeout=30), "nobody could move after the fail-over"
        failover = time.monotonic() - killed
        print(f"fail-over: first ack {failover:.2f} s after kill -9 of the owner")
        assert failover < 10
        assert acks(t.everyone + t.retired) == before + 1
        await t.check(c)
        await t.play(400)
        assert t.finished()
        await t.check(b)
        entries = log_of(redis_url, prefix, t.room)
        acted = [e for e in entries if e["k"] == "act" and e.get("aid")]
        assert len(acted) == acks(t.everyone + t.retired), "acknowledged actions and the log disagree"
        assert len({e["aid"] for e in acted}) == len(acted), "an action was applied twice"
        assert [e["n"] for e in entries] == list(range(1, len(entries) + 1))
        assert any(e.get("by") == "bot" for e in entries[-20:]), "the bot did not play on the new owner"
        r = client(redis_url)
        ttls = [r.pttl(f"{prefix}:{{{t.room}}}:{k}") for k in ("room", "log", "snap")]
        r.close()
        assert all(0 < ttl <= 900 * 1000 for ttl in ttls), f"a finished room's keys expire: {ttls}"
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        drop_prefix(redis_url, prefix)


async def test_every_process_restarted_mid_game(redis_url: str) -> None:
    prefix = new_prefix()
    hubs = start_hubs(2, redis_url, prefix)
    try:
        bases = [h.url for h in hubs]
        t = await Table(bases, "symbiose", 3, seed=5).open()
        # a table of bots only, with nobody watching: it must come back and finish by itself
        bots_only = new_room(bases[0], "symbiose", 2, {"bot_delay_ms": 200}, bots=[0, 1])
        await t.play(10)
        await t.check()
        for h in hubs:
            h.stop()
        hubs = start_hubs(2, redis_url, prefix)
        bases = [h.url for h in hubs]
        for old in list(t.bases):
            await t.move_off(old, bases[0] if old == t.bases[0] else bases[1])
        t.bases = bases
        await t.check()
        await t.play(400)
        assert t.finished()
        await t.check()
        for _ in range(150):
            if http(bases[1], "GET", f"/api/rooms/{bots_only}")[1]["status"] == "finished":
                break
            await asyncio.sleep(0.1)
        assert http(bases[1], "GET", f"/api/rooms/{bots_only}")[1]["status"] == "finished"
        entries = log_of(redis_url, prefix, t.room)
        assert len([e for e in entries if e["k"] == "act"]) == acks(t.everyone + t.retired)
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        drop_prefix(redis_url, prefix)


class RedisServer:
    """A redis-server of the test's own, on a free port, optionally persistent across restarts."""

    def __init__(self, *args: str, port: int | None = None, workdir: Path | None = None) -> None:
        need(shutil.which("redis-server") is not None, "redis-server on PATH")
        self.port = port or free_port()
        self.dir = workdir or Path(tempfile.mkdtemp(prefix="hub-redis-"))
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        with open(self.dir / "server.log", "ab") as out:
            self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                          "--dir", str(self.dir), *self.args], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if client(port=self.port).ping():
                    return self
            except redis.RedisError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        log = (self.dir / "server.log").read_text(errors="replace")[-1500:]
        raise RuntimeError(f"redis-server on {self.port} did not come up: {log}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: Redis writes its append-only file and exits
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@pytest.mark.parametrize("persistent", [True, False], ids=["aof", "no-persistence"])
async def test_redis_restart_mid_game(persistent: bool) -> None:
    """With an append-only file nothing is lost; without one, the owners write their rooms back."""
    durable = ["--appendonly", "yes", "--appendfsync", "always"] if persistent else ["--appendonly", "no"]
    server = RedisServer(*durable, "--save", "").start()
    prefix = new_prefix()
    hubs: list[HubProcess] = []
    try:
        hubs = start_hubs(2, server.url, prefix)
        a, b = (h.url for h in hubs)
        t = await Table([a, b], "symbiose", 2, seed=3).open()
        await t.play(8)
        await t.check()
        server.stop()
        for _ in range(100):
            if all(http(x, "GET", "/healthz")[1]["broker"] == "down" for x in (a, b)):
                break
            await asyncio.sleep(0.05)
        status, health = http(b, "GET", "/healthz")
        assert status == 200 and health["broker"] == "down"
        assert http(b, "GET", "/readyz")[0] == 503
        assert "hub_broker_up 0.0" in http(a, "GET", "/metrics")[1]
        assert http(a, "POST", "/api/rooms", {"game": "symbiose", "seats": 2})[0] == 503
        # an action sent while Redis is away waits; it is acked once Redis is back, not before
        movers = [c for c in t.players.values() if c.legal]
        waiting = asyncio.create_task(movers[0].act(movers[0].legal[0], timeout=30))
        await asyncio.sleep(1.0)
        assert not waiting.done()
        assert not any(c.closed.is_set() for c in t.everyone), "a connection was closed during the outage"
        server.start()
        answer = await waiting
        assert answer["t"] == "ack", answer
        for _ in range(100):
            if http(a, "GET", "/healthz")[1]["broker"] == "up" and http(b, "GET", "/readyz")[0] == 200:
                break
            await asyncio.sleep(0.05)
        await t.check()
        await t.play(400)
        assert t.finished()
        await t.check()
        entries = log_of(server.url, prefix, t.room)
        if persistent:
            assert len([e for e in entries if e["k"] == "act"]) == acks(t.everyone + t.retired)
        else:  # the log starts again behind the snapshot the owner wrote back
            assert entries and entries[0]["n"] > 1
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        server.stop()


async def test_hubs_started_before_redis_serve_once_it_answers() -> None:
    port = free_port()
    prefix = new_prefix()
    hubs = start_hubs(2, f"redis://127.0.0.1:{port}/0", prefix)
    server = RedisServer("--save", "", "--appendonly", "no", port=port)
    try:
        a, b = (h.url for h in hubs)
        status, health = http(a, "GET", "/healthz")
        assert status == 200 and health["broker"] == "down" and http(a, "GET", "/readyz")[0] == 503
        assert http(b, "POST", "/api/rooms", {"game": "symbiose", "seats": 2})[1]["error"] == "unavailable"
        server.start()
        for _ in range(100):
            if all(http(x, "GET", "/readyz")[0] == 200 for x in (a, b)):
                break
            await asyncio.sleep(0.1)
        t = await Table([a, b], "symbiose", 2, seed=4).open()
        await t.play(400)
        assert t.finished()
        await t.check()
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        server.stop()


async def test_a_lost_publish_is_healed_from_the_log(redis_url: str) -> None:
    prefix = new_prefix()
    hubs = start_hubs(2, redis_url, prefix, "--debug-hooks")
    try:
        a, b = (h.url for h in hubs)
        t = await Table([a, b], "symbiose", 2, seed=9).open(seat_bases=[a])
        deaf_watcher = t.watchers[1]
        assert deaf_watcher.ws_url.startswith(b.replace("http", "ws"))
        await t.play(4)
        await t.check()
        heals = metric(http(b, "GET", "/metrics")[1], "hub_gap_heals_total")
        # b loses everything published for a moment; the players (on a) go on
        assert http(b, "POST", "/debug/deaf?ms=400")[0] == 200
        for _ in range(3):
            await t.step()
        await asyncio.sleep(0.5)
        await t.play(3)
        await t.check(b)
        assert not deaf_watcher.problems
        assert metric(http(b, "GET", "/metrics")[1], "hub_gap_heals_total") > heals, "no gap was healed"
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        drop_prefix(redis_url, prefix)


def metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def cluster_port() -> int:
    """A free port P with P + 10000 free too (a cluster node's bus), both under 65536."""
    for _ in range(200):
        port = random.randint(20000, 55000)
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


class Cluster:
    """Three redis-server nodes in cluster mode on loopback, no replicas."""

    def __init__(self) -> None:
        need(shutil.which("redis-cli") is not None, "redis-cli on PATH")
        self.nodes = [RedisServer("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                  "--save", "", "--appendonly", "no", port=cluster_port()) for _ in range(3)]

    def start(self) -> Cluster:
        try:
            for n in self.nodes:
                n.start()
        except Exception:
            self.stop()
            raise
        addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run(["redis-cli", "--cluster", "create", *addrs, "--cluster-replicas", "0", "--cluster-yes"],
                       check=True, capture_output=True, timeout=30)
        for _ in range(100):
            info = client(port=self.nodes[0].port).cluster("info")
            if info.get("cluster_state") == "ok":
                return self
            time.sleep(0.1)
        raise RuntimeError("the cluster did not come up")

    def stop(self) -> None:
        for n in self.nodes:
            n.stop()


async def test_a_game_through_a_redis_cluster() -> None:
    cluster = Cluster()
    prefix = new_prefix()
    hubs: list[HubProcess] = []
    try:
        cluster.start()
        urls = [n.url for n in cluster.nodes]
        hubs = [HubProcess(*HUB_ARGS, "--redis", urls[i], "--redis-prefix", prefix).start() for i in range(2)]
        t = await Table([h.url for h in hubs], "symbiose", 3, seed=21).open()
        for _ in range(60):
            await t.play(10)
            await t.check()
            if t.finished():
                break
        assert t.finished()
        # the room's keys sit on one shard, as its hash tag says
        slots = {client(port=cluster.nodes[0].port).cluster("keyslot", f"{prefix}:{{{t.room}}}:{k}")
                 for k in ("room", "log", "snap", "lease", "out", "in")}
        assert len(slots) == 1
        await t.close()
    finally:
        for h in hubs:
            h.stop()
        cluster.stop()


def test_conformance_against_one_of_three(trio: list[HubProcess]) -> None:
    need(CHECKER.exists(), f"the conformance checker at {CHECKER}")
    run = subprocess.run([sys.executable, str(CHECKER), trio[1].url, "--seed", "3", "--games", "symbiose:2,3,4"],
                         cwd=CHECKER.parent, capture_output=True, text=True, timeout=300)
    print(run.stdout[-3000:], run.stderr[-2000:])
    fails = [line for line in run.stdout.splitlines() if line.startswith("FAIL")]
    four = "FAIL GET /api/games lists the four games"
    assert [f for f in fails if not (len(GAMES) < 4 and f.startswith(four))] == [], fails


def test_two_processes_given_one_name_hold_leases_apart() -> None:
    """Leases are checked by the holder's id: two processes started with one `--instance` (a restart
    while the old one still holds leases) must not pass each other's checks, so the id each uses is
    the name with a suffix of its own."""
    from hub.metrics import Metrics
    from hub.settings import Settings
    from hub.stores.redis.store import RedisStore

    settings = Settings.from_env({}, redis="redis://127.0.0.1:1/0", instance="hub-1")
    a, b = RedisStore(settings, Metrics()), RedisStore(settings, Metrics())
    assert a.inst != b.inst
    assert a.inst.startswith("hub-1.") and b.inst.startswith("hub-1.")


def test_leases_renewed_a_slice_at_a_time_keep_every_room(redis_url: str) -> None:
    """Rooms nobody plays commit nothing, so only the clock's renewals keep their leases: after
    four leases each of them is still held by the one process, none lost, none taken over."""
    from hub.stores.redis.ownership import clock_of, renew_slice

    rooms_n, lease_ms = 24, 600
    prefix = new_prefix()
    hub = HubProcess("--redis", redis_url, "--redis-prefix", prefix, "--lease-ms", str(lease_ms)).start()
    try:
        rooms = [new_room(hub.url, "symbiose", 2) for _ in range(rooms_n)]
        _, slices, _ = clock_of(lease_ms)
        assert slices > 1 and len({renew_slice(r, slices) for r in rooms}) == slices  # spread, not one batch
        time.sleep(4 * lease_ms / 1000)
        r = client(redis_url)
        holders = {r.get(f"{prefix}:{{{rid}}}:lease") for rid in rooms}
        ttls = [r.pttl(f"{prefix}:{{{rid}}}:lease") for rid in rooms]
        assert len(holders) == 1 and None not in holders, holders
        assert all(0 < t <= lease_ms for t in ttls), ttls
        _, metrics = http(hub.url, "GET", "/metrics")
        assert "hub_leases_lost_total 0.0" in metrics
    finally:
        hub.stop()
        drop_prefix(redis_url, prefix)
