"""Pub/sub readers: one connection per Redis node that carries channels this process listens to.

On a single Redis that is one connection and SUBSCRIBE; on a cluster, a room's channels live on the
shard of their hash slot, so there is one connection per node and SSUBSCRIBE. Each connection has
one reader; a broken connection is replaced with backoff and every channel subscribed again, and
then `on_reconnect` runs: messages may have been lost meanwhile, and the caller looks for gaps.

On a single Redis the connection is a `Link` (hub.stores.redis.link): a message is handed to its handler
in the turn that read it. redis-py's reader costs a task step per message, and its callers yielded
after each one, so the tenth message of a burst waited ten turns of a busy loop.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from redis.exceptions import ResponseError

from hub.logs import log
from hub.stores.redis.link import Link, connect, hello, plain
from hub.stores.redis.server import DOWN, Server, refusal

logger = logging.getLogger("hub.stores.redis")

Handler = Callable[[bytes], None]


class Channels:
    """What every pub/sub connection keeps: its channels, and whether it is subscribed and reading."""

    def __init__(self, owner: Subscriber) -> None:
        self.owner = owner
        self.channels: set[str] = set()
        self.confirmed: dict[str, asyncio.Future[None]] = {}
        self.ready = asyncio.Event()

    async def add(self, channel: str, wait: float) -> None:
        self.channels.add(channel)
        if not self.ready.is_set():
            # the reader subscribes everything when it (re)connects; asking again below is harmless
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.ready.wait(), wait)
            if not self.ready.is_set() or not self.connected():
                return
        fut = asyncio.get_running_loop().create_future()
        self.confirmed[channel] = fut
        try:
            await self._command("subscribe", channel)
            await asyncio.wait_for(asyncio.shield(fut), wait)
        except (TimeoutError, *DOWN):
            pass
        finally:
            self.confirmed.pop(channel, None)

    async def remove(self, channel: str) -> None:
        self.channels.discard(channel)
        if self.connected() and self.ready.is_set():
            with contextlib.suppress(*DOWN):
                await self._command("unsubscribe", channel)

    async def _run(self) -> None:
        """Connect, subscribe everything, read until the connection breaks; again, with backoff."""
        backoff = 0.05
        first = True
        while True:
            try:
                await self._open()
                self.ready.set()
                if not first:
                    log(logger, logging.INFO, "pub/sub reconnected", at=self.where_to())
                    self.owner.on_reconnect()
                first = False
                backoff = 0.05
                await self._serve()
            except asyncio.CancelledError:
                raise
            except DOWN as e:
                self.owner.server.went_down(e)
            except ResponseError as e:
                if refusal(e):  # loading its data, say: one outage, not an error a try
                    self.owner.server.refused(e)
                else:
                    logger.exception("pub/sub reader failed")
            except Exception:  # noqa: BLE001 - the reader must come back whatever went wrong
                logger.exception("pub/sub reader failed")
            self.ready.clear()
            await self._close()
            await asyncio.sleep(backoff)
            backoff = min(2.0, backoff * 2)

    def connected(self) -> bool:
        raise NotImplementedError

    def where_to(self) -> str:
        raise NotImplementedError

    async def _command(self, what: str, *channels: str) -> None:
        raise NotImplementedError

    async def _open(self) -> None:
        raise NotImplementedError

    async def _serve(self) -> None:
        raise NotImplementedError

    async def _close(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class Shard(Channels):
    """A pub/sub connection through redis-py: a cluster node's (SSUBSCRIBE), or a TLS Redis's."""

    def __init__(self, owner: Subscriber, host: str, port: int) -> None:
        super().__init__(owner)
        self.host, self.port = host, port
        self.pubsub: Any = None
        self.client: Any = None
        self.task = asyncio.create_task(self._run())

    def connected(self) -> bool:
        return self.pubsub is not None

    async def _command(self, what: str, *channels: str) -> None:
        sharded = self.owner.server.cluster
        if what == "subscribe":
            await (self.pubsub.ssubscribe(*channels) if sharded else self.pubsub.subscribe(*channels))
        else:
            await (self.pubsub.sunsubscribe(*channels) if sharded else self.pubsub.unsubscribe(*channels))

    def where_to(self) -> str:
        return f"{self.host}:{self.port}"

    async def _open(self) -> None:
        self.client = self.owner.server.pubsub_client(self.host, self.port)
        self.pubsub = self.client.pubsub()
        if self.channels:
            await self._command("subscribe", *sorted(self.channels))
        else:
            await self.pubsub.ping()

    async def _serve(self) -> None:
        while True:
            msg = await self.pubsub.get_message(timeout=None)
            if msg is not None:
                self._dispatch(msg)
                # A read from a buffer that holds more messages does not yield, so a burst
                # (a room's actions, each a move to apply and diff) would run back to back
                # while the writer waits to send the first one's entry: let it in between.
                await asyncio.sleep(0)

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.aclose()
        self.pubsub = None

    def _dispatch(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if isinstance(kind, bytes):
            kind = kind.decode()
        channel = msg.get("channel")
        name = channel.decode() if isinstance(channel, bytes) else str(channel)
        if kind in ("message", "smessage"):
            handler = self.owner.handlers.get(name)
            if handler is not None and not self.owner.deaf():
                try:
                    handler(msg["data"])
                except Exception:  # noqa: BLE001 - one bad message must not stop the reader
                    logger.exception("pub/sub handler failed")
        elif kind in ("subscribe", "ssubscribe"):
            fut = self.confirmed.get(name)
            if fut is not None and not fut.done():
                fut.set_result(None)

    def close(self) -> None:
        self.task.cancel()


class LinkShard(Channels):
    """The one pub/sub connection of a single Redis, on a link: a message is handled in the turn
    that read it."""

    def __init__(self, owner: Subscriber, where: dict[str, Any]) -> None:
        super().__init__(owner)
        self.where = where
        self.link: Link | None = None
        self.lost: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._run())

    def connected(self) -> bool:
        return self.link is not None

    async def _command(self, what: str, *channels: str) -> None:
        if self.link is not None:
            self.link.write(("SUBSCRIBE" if what == "subscribe" else "UNSUBSCRIBE", *channels))

    def where_to(self) -> str:
        return str(self.where.get("path") or f"{self.where.get('host')}:{self.where.get('port')}")

    async def _open(self) -> None:
        self.lost = asyncio.get_running_loop().create_future()
        self.link = await connect(self.where, self.owner.server.timeout_s, self._on_reply, self._on_lost)
        for args in hello(self.where):
            self.link.write(args)
        if self.channels:
            self.link.write(("SUBSCRIBE", *sorted(self.channels)))

    async def _serve(self) -> None:
        exc = await self.lost
        raise exc if isinstance(exc, DOWN) else ConnectionError(f"pub/sub link lost ({exc!r:.100})")

    def _on_lost(self, exc: BaseException | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)

    async def _close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None

    def _on_reply(self, reply: Any) -> None:
        if isinstance(reply, list) and len(reply) >= 3:
            kind, channel = reply[0], reply[1]
            name = channel.decode() if isinstance(channel, bytes) else str(channel)
            if kind == b"message":
                handler = self.owner.handlers.get(name)
                if handler is not None and not self.owner.deaf():
                    try:
                        handler(reply[2])
                    except Exception:  # noqa: BLE001 - one bad message must not stop the reader
                        logger.exception("pub/sub handler failed")
            elif kind == b"subscribe":
                fut = self.confirmed.get(name)
                if fut is not None and not fut.done():
                    fut.set_result(None)
        elif isinstance(reply, ResponseError):
            if refusal(reply):
                self.owner.server.refused(reply)
            else:
                log(logger, logging.ERROR, "redis refused the pub/sub link", error=str(reply)[:200])
            if self.link is not None:
                self.link.abort()

    def close(self) -> None:
        self.task.cancel()
        if self.link is not None:
            self.link.close()


class Subscriber:
    def __init__(self, server: Server, on_reconnect: Callable[[], None]) -> None:
        self.server = server
        self.on_reconnect = on_reconnect
        self.handlers: dict[str, Handler] = {}
        self.shards: dict[tuple[str, int], Channels] = {}
        self.deaf_until = 0.0   # a test hook: drop every message until then (hub.stores.redis.store)

    def deaf(self) -> bool:
        return self.deaf_until > 0 and asyncio.get_running_loop().time() < self.deaf_until

    async def subscribe(self, channel: str, handler: Handler, wait: float = 2.0) -> None:
        """Listen to a channel; returns once Redis confirmed it (or after `wait`, or if Redis is away)."""
        self.handlers[channel] = handler
        if self.server.client is None:
            try:
                await self.server.connect()
            except DOWN as e:
                self.server.went_down(e)
                return
        where = self.server.shard_of(channel)
        shard = self.shards.get(where)
        if shard is None:
            link = None if self.server.cluster else plain(self.server.client)
            shard = self.shards[where] = LinkShard(self, link) if link else Shard(self, *where)
        await shard.add(channel, wait)

    async def catch_up(self) -> None:
        """Subscribe what was asked for while Redis was unreachable (before any shard existed)."""
        placed = {ch for shard in self.shards.values() for ch in shard.channels}
        for channel, handler in list(self.handlers.items()):
            if channel not in placed:
                await self.subscribe(channel, handler)

    async def unsubscribe(self, channel: str) -> None:
        self.handlers.pop(channel, None)
        for shard in self.shards.values():
            if channel in shard.channels:
                await shard.remove(channel)

    def close(self) -> None:
        for shard in self.shards.values():
            shard.close()
