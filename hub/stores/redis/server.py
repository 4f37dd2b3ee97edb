"""The Redis client(s) of one process, whether Redis answers, and the commands the stores send
through it (the scripts of hub/stores/redis/scripts.py on the keys of hub/stores/redis/keys.py)."""
from __future__ import annotations

import asyncio
import logging
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
from hub.stores.redis.keys import Keys
from hub.stores.redis.scripts import CLAIM, COMMIT, CREATE, RELEASE, RESEED, SNAPSHOT

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
