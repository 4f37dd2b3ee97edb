"""The hub's keys in Redis, the scripts that keep them consistent, and the one ordered writer.

Every key and channel of a room carries the room id as its hash tag (`hub:{<rid>}:...`), so that on
Redis Cluster a room's record, log, snapshot, lease and channels share one slot: the scripts below
touch several of them atomically, and publish from inside the script onto the room's own shard.

What lives where, for a room `R` (prefix `hub` by default):

| key | type | what |
|---|---|---|
| `hub:{R}:room` | hash | `rec` (game, seats, options, seed, bots; msgpack), `meta` (the lobby's view; JSON), |
|  |  | `tokens` (the seats' token SHA-256 hashes; JSON), `snap_n` (the latest snapshot's entry) |
| `hub:{R}:log` | stream | one entry per change, id `<n>-0`, field `e`: msgpack of the entry (hub.stores.redis.owner) |
| `hub:{R}:snap` | string | the latest snapshot (msgpack of plain data: hub/tables/persist.py) |
| `hub:{R}:lease` | string | the owner process's id, with a TTL it renews |
| `hub:{R}:out` | channel | owner to every process: log entries as appended, replies, notices |
| `hub:{R}:in` | channel | any process to the owner: actions, joins, seat presence |

and `hub:index` (public rooms by creation time), `hub:live` (every held room by lease expiry, for
the sweep that takes over orphans), `hub:node:<id>` (a process's heartbeat) and `hub:node:<id>:rx`
(replies to that process's HTTP joins).
"""
from __future__ import annotations

import asyncio
import logging
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    MasterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from hub.logs import log
from hub.metrics import Metrics
from hub.stores.redis.link import Link, Recorder, Waiting, connect, hello, plain, result_of

logger = logging.getLogger("hub.stores.redis")



class Refused(Exception):  # noqa: N818 - what it says, as DOWN's others do
    """Redis answers but refuses what it is asked, for a while (out of memory, a failed save,
    loading, a read-only replica): `Server.run` raises this in place of the error, so that every
    caller handles it as it handles a Redis that is away."""


#: What a lost, unreachable or refusing Redis raises; anything else is a bug or a refusal by a script.
DOWN = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError, asyncio.TimeoutError, Refused)

#: The error codes of a Redis that refuses for a while, whatever the command: the command is sent
#: again later, and meanwhile Redis counts as out (`Server.refused`).
REFUSING = ("OOM", "MISCONF", "READONLY", "LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "NOREPLICAS")
_REFUSING_TYPES = (OutOfMemoryError, ReadOnlyError, BusyLoadingError, MasterDownError, ClusterDownError,
                   TryAgainError)

#: Commands that Redis refuses when out of memory: one of them answered means it takes writes again.
WRITES = frozenset({"SET", "ZADD", "XADD", "HSET"})


def refusal(error: Any) -> bool:
    """Whether a reply or an exception says Redis refuses for a while (see REFUSING)."""
    if isinstance(error, _REFUSING_TYPES):
        return True
    if not isinstance(error, ResponseError):
        return False
    code = getattr(error, "status_code", None) or str(error).split(" ", 1)[0]
    return code in REFUSING

ROOM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def valid_rid(rid: Any) -> bool:
    """Room ids come from clients; only ours can be used in a key (no braces to break the hash tag)."""
    return isinstance(rid, str) and ROOM_ID.match(rid) is not None


class Keys:
    def __init__(self, prefix: str) -> None:
        self.p = prefix
        self.index = f"{prefix}:index"
        self.live = f"{prefix}:live"

    def room(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:room"

    def log(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:log"

    def snap(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:snap"

    def lease(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:lease"

    def out(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:out"

    def inbox(self, rid: str) -> str:
        return f"{self.p}:{{{rid}}}:in"

    def node(self, inst: str) -> str:
        return f"{self.p}:node:{inst}"

    def rx(self, inst: str) -> str:
        return f"{self.p}:node:{inst}:rx"


# Append one entry to a room's log, only while this process holds the lease (fencing), and publish it
# in the same step so that no process sees an entry that is not in the log. Idempotent: a retry after
# a lost reply finds its entry on top and publishes it again. A lease that expired while Redis was
# away is taken back if nobody else took it.
#   KEYS: lease, log, room, snap
#   ARGV: me, n, entry, meta or '', ttl_ms, channel, publish command, lease_ms, tokens or ''

#   returns 1 appended, 2 was already there, 0 fenced (another owner), -1 the room is gone,
#   -2 the entry before it is not in the log: Redis lost the log's tail (an fsync-everysec crash),
#   or refused that entry and took this one sent behind it (out of memory, then not): appended, it
#   would leave a hole no relay can heal across, so the owner writes the room back instead (RESEED)
COMMIT = """
local holder = redis.call('GET', KEYS[1])
if not holder then
  if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[8])
elseif holder ~= ARGV[1] then
  return 0
end
local n = tonumber(ARGV[2])
local top = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #top > 0 then
  local last = tonumber(string.match(top[1][1], '^(%d+)'))
  if last == n then
    redis.call(ARGV[7], ARGV[6], ARGV[3])
    return 2
  end
  if last > n then return 0 end
  if last < n - 1 then return -2 end
end
redis.call('XADD', KEYS[2], ARGV[2] .. '-0', 'e', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'meta', ARGV[4]) end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[3], 'tokens', ARGV[9]) end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call(ARGV[7], ARGV[6], ARGV[3])
return 1
"""

# The lease, record and snapshot of a room, as CREATE and RESEED both write them.
_SEED = """
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
end
redis.call('HSET', KEYS[2], 'rec', ARGV[3], 'meta', ARGV[4], 'tokens', ARGV[5], 'snap_n', 0)
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
"""
# A new room: its lease, record and first snapshot together.
#   KEYS: lease, room, snap   ARGV: me, lease_ms, rec, meta, tokens, snap, ttl_ms
CREATE = _SEED + "return 1\n"

# A room written back from its owner's memory after Redis lost it (a restart without its data): what
# CREATE writes, the snapshot being the room as it stands after entry n, and then the entries of the
# log that were on their way when Redis lost it (those after the last one known to be in the log, up
# to n), appended and published in order. Without them the log began after n, and a relay that
# missed their one publish (its pub/sub came back after this script ran) could neither read them
# back nor learn that it lacked them: its seats waited for a delta that never came.
#   KEYS: lease, room, snap, log   ARGV: me, lease_ms, rec, meta, tokens, snap, ttl_ms, channel,
#   publish command, then n1, entry1, n2, entry2, ...   returns 1, or 0 when another process holds it
RESEED = _SEED + """
for i = 10, #ARGV, 2 do
  local top = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
  local last = 0
  if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)')) end
  if tonumber(ARGV[i]) > last then redis.call('XADD', KEYS[4], ARGV[i] .. '-0', 'e', ARGV[i + 1]) end
  redis.call(ARGV[9], ARGV[8], ARGV[i + 1])
end
if #ARGV >= 10 then redis.call('PEXPIRE', KEYS[4], ARGV[7]) end
return 1
"""

# A snapshot, written after the entry it follows is in the log; never by a fenced owner.
#   KEYS: lease, snap, room   ARGV: me, snap, ttl_ms, n, tokens
SNAPSHOT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[3], 'snap_n', ARGV[4], 'tokens', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
"""

# Keep leases; take one back if it lapsed while Redis was away and nobody else took it. Many rooms
# in one call where every key lives on one Redis: one command instead of one per room keeps the
# writer's pipeline short, and with it the wait of the commits queued behind it. On a cluster each
# room's keys hash to a slot of their own, so there it is called one room at a time.
#   KEYS: lease1, room1, lease2, room2, ...   ARGV: me, lease_ms
#   returns per room 1 kept, 0 lost, -1 the room is gone
RENEW = """
local out = {}
for i = 1, #KEYS, 2 do
  local holder = redis.call('GET', KEYS[i])
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    out[#out + 1] = 1
  elseif not holder then
    if redis.call('EXISTS', KEYS[i + 1]) == 0 then
      out[#out + 1] = -1
    else
      redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
      out[#out + 1] = 1
    end
  else
    out[#out + 1] = 0
  end
end
return out
"""

# Take a room that nobody holds.   KEYS: lease, room   ARGV: me, lease_ms   returns 1, 0, -1 as RENEW does
CLAIM = """
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
"""


@dataclass
class Item:
    """One step of the ordered writer: at most one Redis command, then a callback with its result.

    `command` adds the command to a pipeline (None: a local step that only keeps its place in the
    order). `must` items are retried until Redis takes them; the others (publishes that a retry
    elsewhere will repeat anyway) are dropped when Redis is away.
    """

    command: Callable[[Any], None] | None
    done: Callable[[Any], None] | None = None
    must: bool = True


class Server:
    """The Redis client(s) of one process, and whether Redis answers."""

    def __init__(self, url: str, prefix: str, metrics: Metrics, timeout_s: float = 2.0) -> None:
        self.url = url
        self.keys = Keys(prefix)
        self.metrics = metrics
        self.timeout_s = timeout_s
        self.cluster = False
        self.client: Any = None
        self.publish_command = "PUBLISH"
        self.up = False
        self.up_since = 0.0
        self.refusing: str | None = None     # what Redis said when it began refusing writes
        self.outage_since: float | None = None
        self.served = False                  # Redis has been up once
        self.on_up: list[Callable[[], None]] = []
        self._connect_lock = asyncio.Lock()

    def options(self) -> dict[str, Any]:
        """One retry, at once: after Redis restarted, every connection pooled before fails on its
        next use, and without it each of them began (and at once ended) an outage of its own."""
        return {"socket_timeout": self.timeout_s, "socket_connect_timeout": self.timeout_s,
                "retry": Retry(NoBackoff(), 1)}

    async def connect(self) -> None:
        """Find out whether the URL is a cluster; raises DOWN errors while Redis is away."""
        async with self._connect_lock:
            if self.client is not None:
                return
            probe = aioredis.Redis.from_url(self.url, **self.options())
            try:
                info = await probe.info("cluster")
            finally:
                await probe.aclose()
            if info.get("cluster_enabled") in (1, "1"):
                self.cluster = True
                self.publish_command = "SPUBLISH"
                self.client = RedisCluster.from_url(self.url, socket_timeout=self.timeout_s,
                                                    socket_connect_timeout=self.timeout_s)
                await self.client.initialize()
            else:
                self.client = aioredis.Redis.from_url(self.url, **self.options())
            log(logger, logging.INFO, "redis connected", cluster=self.cluster)

    def shard_of(self, channel: str) -> tuple[str, int]:
        """The node a channel's messages are delivered on (the URL's, unless in a cluster)."""
        if self.cluster:
            node = self.client.get_node_from_key(channel)
            return str(node.host), int(node.port)
        kw = self.client.connection_pool.connection_kwargs
        return str(kw.get("host", "127.0.0.1")), int(kw.get("port", 6379))

    def pubsub_client(self, host: str, port: int) -> Any:
        """A client of our own for one pub/sub connection: no timeout on reads (it waits for
        messages), no retries inside (the reader reconnects and resubscribes itself)."""
        if not self.cluster:
            return aioredis.Redis.from_url(self.url, retry=Retry(NoBackoff(), 0), socket_timeout=None,
                                           socket_connect_timeout=self.timeout_s)
        kw = self.client.get_default_node().connection_kwargs
        auth = {k: kw[k] for k in ("username", "password") if kw.get(k) is not None}
        return aioredis.Redis(host=host, port=port, retry=Retry(NoBackoff(), 0), socket_timeout=None,
                              socket_connect_timeout=self.timeout_s, **auth)

    @property
    def healthy(self) -> bool:
        """Redis answers and takes writes."""
        return self.up and self.refusing is None

    def went_down(self, error: BaseException) -> None:
        self.up = False
        self.metrics.broker_up.set(0)
        self.metrics.broker_errors.inc()
        self._outage(f"unreachable: {error!r:.200}")

    def came_up(self) -> None:
        if not self.up:
            self.up = True
            self.metrics.broker_up.set(1)
            self._outage("")
            if self.refusing is None:
                self._back()

    def refused(self, error: BaseException) -> None:
        """Redis refused a command for a while (REFUSING): out until a write passes again."""
        self.metrics.broker_errors.inc()
        if self.refusing is None:
            self.refusing = str(error)[:200]
            self._outage(f"refusing: {self.refusing}")

    def accepted(self) -> None:
        """A write passed: Redis takes writes again."""
        if self.refusing is not None:
            self.refusing = None
            self._outage("")
            if self.up:
                self._back()

    def _back(self) -> None:
        """Redis serves again (connected, taking writes): owners renew at once (the sweeps of every
        process wait a lease from now, `up_since`), and what waited goes out."""
        self.up_since = asyncio.get_running_loop().time()
        for fn in list(self.on_up):
            fn()

    def _outage(self, why: str) -> None:
        """Log an outage once when it begins and once when it ends, however many calls fail in
        between (each is counted in hub_broker_errors_total), and count it."""
        now = asyncio.get_running_loop().time()
        if not self.healthy and self.outage_since is None:
            self.outage_since = now
            self.metrics.redis_outages.inc()
            self.metrics.redis_up.set(0)
            log(logger, logging.WARNING, "redis outage", why=why)
        elif self.healthy:
            if self.outage_since is not None:
                log(logger, logging.WARNING, "redis outage over", lasted_s=round(now - self.outage_since, 3))
            elif not self.served:
                log(logger, logging.INFO, "redis is up")
            self.outage_since = None
            self.served = True
            self.metrics.redis_up.set(1)

    async def run(self, fn: Callable[[Any], Any]) -> Any:
        """One call on the client, keeping track of whether Redis answers."""
        if self.client is None:
            try:
                await self.connect()
            except DOWN as e:
                self.went_down(e)
                raise
        try:
            result = await fn(self.client)
        except DOWN as e:
            self.went_down(e)
            raise
        except ResponseError as e:
            if refusal(e):  # refused first: an outage that goes from unreachable to refusing is one
                self.refused(e)
                self.came_up()
                raise Refused(str(e)) from e
            self.came_up()
            raise
        self.came_up()
        return result

    # ---- commands ------------------------------------------------------------------------------

    def commit(self, pipe: Any, me: str, rid: str, n: int, entry: bytes, meta: str, tokens: str,
               ttl_ms: int, lease_ms: int) -> None:
        k = self.keys
        pipe.eval(COMMIT, 4, k.lease(rid), k.log(rid), k.room(rid), k.snap(rid),
                  me, n, entry, meta, ttl_ms, k.out(rid), self.publish_command, lease_ms, tokens)

    def create(self, pipe: Any, me: str, rid: str, lease_ms: int, rec: bytes, meta: str, tokens: str,
               snap: bytes, ttl_ms: int) -> None:
        k = self.keys
        pipe.eval(CREATE, 3, k.lease(rid), k.room(rid), k.snap(rid), me, lease_ms, rec, meta, tokens, snap, ttl_ms)

    def reseed(self, pipe: Any, me: str, rid: str, lease_ms: int, rec: bytes, meta: str, tokens: str,
               snap: bytes, ttl_ms: int, entries: list[tuple[int, bytes]]) -> None:
        k = self.keys
        pipe.eval(RESEED, 4, k.lease(rid), k.room(rid), k.snap(rid), k.log(rid), me, lease_ms, rec, meta, tokens,
                  snap, ttl_ms, k.out(rid), self.publish_command, *(x for n, blob in entries for x in (n, blob)))

    def snapshot(self, pipe: Any, me: str, rid: str, snap: bytes, ttl_ms: int, n: int, tokens: str) -> None:
        k = self.keys
        pipe.eval(SNAPSHOT, 3, k.lease(rid), k.snap(rid), k.room(rid), me, snap, ttl_ms, n, tokens)

    def publish(self, pipe: Any, channel: str, data: bytes) -> None:
        pipe.execute_command(self.publish_command, channel, data)

    async def claim(self, me: str, rid: str, lease_ms: int) -> int:
        k = self.keys
        return int(await self.run(lambda c: c.eval(CLAIM, 2, k.lease(rid), k.room(rid), me, lease_ms)))

    async def release(self, me: str, rid: str) -> None:
        k = self.keys
        await self.run(lambda c: c.eval(RELEASE, 1, k.lease(rid), me))

    async def holder(self, rid: str) -> bytes | None:
        got: bytes | None = await self.run(lambda c: c.get(self.keys.lease(rid)))
        return got

    async def read_room(self, rid: str) -> tuple[bytes | None, bytes | None, bytes | None]:
        """(record, tokens, snapshot) of a room, or Nones when it is gone."""
        k = self.keys

        async def go(c: Any) -> Any:
            rec, tokens = await c.hmget(k.room(rid), ["rec", "tokens"])
            snap = await c.get(k.snap(rid))
            return rec, tokens, snap

        got: tuple[bytes | None, bytes | None, bytes | None] = await self.run(go)
        return got

    async def read_log(self, rid: str, first: int, count: int = 512) -> list[tuple[int, bytes]]:
        """Entries n >= first, in order, every one of them (read in pages)."""
        out: list[tuple[int, bytes]] = []
        start = f"{first}-0"
        while True:
            page = await self.run(partial(_xrange, self.keys.log(rid), start, count))
            for eid, fields in page:
                n = int(eid.split(b"-")[0])
                out.append((n, fields[b"e"]))
            if len(page) < count:
                return out
            start = f"{out[-1][0] + 1}-0"

    async def log_head(self, rid: str) -> int:
        page = await self.run(lambda c: c.xrevrange(self.keys.log(rid), max="+", min="-", count=1))
        return int(page[0][0].split(b"-")[0]) if page else 0

    async def metas(self, rids: list[str]) -> list[tuple[bytes | None, bytes | None]]:
        """Each room's meta and its `next` field (a finished room's next room, b"" while being made),
        in one round trip: the lobby's listing leads from a finished room to its next."""
        async def go(c: Any) -> Any:
            pipe = c.pipeline(transaction=False)
            for rid in rids:
                pipe.hmget(self.keys.room(rid), "meta", "next")
            return await pipe.execute()

        got = await self.run(go) if rids else []
        return [(meta, nxt) for meta, nxt in got]


async def _xrange(key: str, start: str, count: int, c: Any) -> Any:
    return await c.xrange(key, min=start, max="+", count=count)


class Writer:
    """The one writer to Redis for this process, in order, many items per round trip.

    Order matters twice: a room's entries must reach the log one after the other, and a reply or
    notice must not overtake the entry it follows. One ordered stream of commands gives both. On a
    single Redis that stream is a `Link`: each item is written in the turn that pushed it and
    answered in the turn its reply is read (hub.stores.redis.link says why). On a cluster, or over TLS,
    it is redis-py's pipelines, one in flight at a time, batching every room's writes under load.
    """

    def __init__(self, server: Server, batch: int = 512) -> None:
        self.server = server
        self.batch = batch
        self.queue: deque[Item] = deque()        # not sent yet
        self.waiting: deque[Waiting] = deque()   # sent on the link, or local steps behind those
        self.link: Link | None = None
        self.ready = False                       # the link said who we are and answered a PING
        self._recorder = Recorder()
        self._callbacks: Any = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._pause = 0.0                        # before the next link, after Redis refused (REFUSING)
        self._refused_backoff = 0.05

    def push(self, item: Item) -> None:
        if self.ready and not self.queue:
            self._send(item)
        else:
            self.queue.append(item)
            self._wake.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self, flush_s: float = 2.0) -> None:
        deadline = asyncio.get_running_loop().time() + flush_s
        while (self.queue or self.waiting) and self.server.up and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
        self._close()

    async def _run(self) -> None:
        backoff = 0.05
        where: dict[str, Any] | None = None
        while where is None:
            try:
                if self.server.client is None:
                    await self.server.connect()
            except DOWN as e:
                self.server.went_down(e)
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            where = {} if self.server.cluster else plain(self.server.client)
            if not where:
                await self._pipelines()
        self._callbacks = getattr(self.server.client, "response_callbacks", None)
        backoff = 0.05
        while True:
            if self.link is None:
                if self._pause:
                    pause, self._pause = self._pause, 0.0
                    await asyncio.sleep(pause)
                try:
                    self.link = await connect(where, self.server.timeout_s, self._on_reply, self._on_lost)
                except DOWN as e:
                    self.server.went_down(e)
                    await asyncio.sleep(backoff)
                    backoff = min(2.0, backoff * 2)
                    continue
                backoff = 0.05
                self._hello(where)
            self._wake.clear()
            await self._wake.wait()

    # ---- on a link -----------------------------------------------------------------------------

    def _hello(self, where: dict[str, Any]) -> None:
        assert self.link is not None
        now = asyncio.get_running_loop().time()
        for args in hello(where):
            self.link.write(args)
            self.waiting.append(Waiting(Item(None, self._greeted), args[0], {}, now))
        self._watch = asyncio.get_running_loop().call_later(self.server.timeout_s / 4, self._check)

    def _greeted(self, result: Any) -> None:
        if refusal(result):  # loading its data after a restart, say: ask again in a while
            self.server.refused(result)
            self._hold(None)
            return
        if isinstance(result, Exception):
            log(logger, logging.ERROR, "redis refused the writer's link", error=str(result)[:200])
            if self.link is not None:
                self.link.abort()
            return
        if self.waiting:  # AUTH or SELECT answered; the PING is still to come
            return
        self.ready = True
        while self.queue and self.ready:
            self._send(self.queue.popleft())
        if not self.server.up:
            self.server.came_up()

    def _send(self, item: Item) -> None:
        assert self.link is not None
        now = asyncio.get_running_loop().time()
        commands = self._recorder.take(item.command) if item.command is not None else []
        if not commands:
            if self.waiting:
                self.waiting.append(Waiting(item, None, {}, now))
            else:  # nothing before it waits for an answer; run it after this turn, as a reply would
                asyncio.get_running_loop().call_soon(self._finish, item, None)
            return
        (args, options), = commands
        self.link.write(args)
        self.waiting.append(Waiting(item, args[0], options, now))

    def _on_reply(self, reply: Any) -> None:
        if not self.waiting:  # nothing was asked: this is not the Redis we think it is
            log(logger, logging.ERROR, "redis answered nothing the writer asked", reply=repr(reply)[:200])
            if self.link is not None:
                self.link.abort()
            return
        w = self.waiting.popleft()
        result = result_of(reply, w.name, w.options, self._callbacks)
        if refusal(result):
            self.server.refused(result)
            if w.item.must:
                self._hold(w.item)
                return
        elif w.name in WRITES and not isinstance(result, Exception):
            self._refused_backoff = 0.05
            self.server.accepted()
        self._finish(w.item, result)
        while self.waiting and self.waiting[0].name is None:
            self._finish(self.waiting.popleft().item, None)

    def _finish(self, item: Item, result: Any) -> None:
        if item.done is not None:
            try:
                item.done(result)
            except Exception:  # noqa: BLE001 - the writer must outlive any one bad item
                logger.exception("after a redis write")

    def _on_lost(self, exc: BaseException | None) -> None:
        """Send again what must reach Redis (the scripts are idempotent), drop the rest, reconnect."""
        keep = [w.item for w in self.waiting if w.item.must and w.item.done != self._greeted]
        self.waiting.clear()
        self.queue.extendleft(reversed(keep))
        self.link, self.ready = None, False
        if self._watch is not None:
            self._watch.cancel()
        self.server.went_down(exc or ConnectionError("redis link lost"))
        self._wake.set()

    def _hold(self, first: Item | None) -> None:
        """Redis refused an item that must reach it (out of memory, say): that item and every one
        sent behind it go back to the head of the queue in their order (the scripts are
        idempotent, and a refused script wrote nothing), the link is dropped before any later
        reply is handled, and a new one is opened after a pause that grows while Redis refuses.
        Its callback never sees the refusal: an owner whose commit was refused keeps its room
        (it used to drop it, and the room stood still until its lease lapsed)."""
        keep = [] if first is None else [first]
        keep += [w.item for w in self.waiting if w.item.must and w.item.done != self._greeted]
        self.waiting.clear()
        self.queue.extendleft(reversed(keep))
        link, self.link, self.ready = self.link, None, False
        if self._watch is not None:
            self._watch.cancel()
        if link is not None:
            link.close()
        self._pause, self._refused_backoff = self._refused_backoff, min(2.0, self._refused_backoff * 2)
        self._wake.set()

    def _check(self) -> None:
        """A Redis that stops answering without closing the socket is down too (redis-py's
        socket timeout, here)."""
        link = self.link
        if link is None:
            return
        loop = asyncio.get_running_loop()
        if self.waiting and loop.time() - self.waiting[0].sent_at > self.server.timeout_s:
            link.abort()
            return
        self._watch = loop.call_later(self.server.timeout_s / 4, self._check)

    def _close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        link, self.link, self.ready = self.link, None, False
        if link is not None:
            link.close()

    # ---- on redis-py's pipelines ---------------------------------------------------------------

    async def _pipelines(self) -> None:
        backoff = 0.05
        while True:
            if not self.queue:
                self._wake.clear()
                await self._wake.wait()
            batch = [self.queue.popleft() for _ in range(min(self.batch, len(self.queue)))]
            names = [self._name(it) for it in batch]
            try:
                results = await self._execute(batch)
            except DOWN as e:
                self.server.went_down(e)
                keep = [it for it in batch if it.must]
                self.queue.extendleft(reversed(keep))
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            except Exception:  # noqa: BLE001 - the writer must outlive any one bad item
                logger.exception("redis write failed")
                results = [None] * len(batch)
            backoff = 0.05
            self.server.came_up()
            it_results = iter(results)
            held: list[Item] = []
            for it, name in zip(batch, names, strict=True):
                result: Any = next(it_results) if it.command is not None else None
                if held or refusal(result):  # as on a link (_hold): from the first refused on, in order
                    if refusal(result):
                        self.server.refused(result)
                    if it.must:
                        held.append(it)
                        continue
                elif name in WRITES and not isinstance(result, Exception):
                    self.server.accepted()
                self._finish(it, result)
            if held:
                self.queue.extendleft(reversed(held))
                await asyncio.sleep(self._refused_backoff)
                self._refused_backoff = min(2.0, self._refused_backoff * 2)
            elif self.server.refusing is None:
                self._refused_backoff = 0.05

    def _name(self, item: Item) -> Any:
        commands = self._recorder.take(item.command) if item.command is not None else []
        return commands[0][0][0] if commands else None

    async def _execute(self, batch: list[Item]) -> list[Any]:
        if not any(it.command is not None for it in batch):
            return []
        if self.server.client is None:
            await self.server.connect()

        async def go(c: Any) -> Any:
            pipe = c.pipeline(transaction=False)
            for it in batch:
                if it.command is not None:
                    it.command(pipe)
            return await pipe.execute(raise_on_error=False)

        results: list[Any] = await go(self.server.client)
        for r in results:
            if isinstance(r, DOWN):
                raise r
        return results
