"""One Redis connection driven by callbacks, for the ordered writer on a single Redis.

Why not redis-py's pipeline here: an owner's moves reach nobody until their log entry is in Redis,
and under load a pipeline costs turns of a busy loop, each behind other rooms' moves: one for the
writer task to wake, one or more for its coroutines to read the replies. Here a command is written
to the socket in the turn that made it, and its reply is handed to its callback in the turn that
read it, so a commit costs the round trip and one turn. redis-py still builds every command (the
`Recorder` below is its command mixin with the sending taken out) and hiredis packs and parses.
"""
from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any, cast

import hiredis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection
from redis.commands.core import CoreCommands
from redis.exceptions import ResponseError

Command = tuple[tuple[Any, ...], dict[str, Any]]


class Recorder(CoreCommands):
    """redis-py's command methods (`eval`, `zadd`, `set`, ...), recording what they would send."""

    _event_dispatcher: Any = None   # a client's attribute in redis-py's typing; never used here

    def __init__(self) -> None:
        self.stack: list[Command] = []

    def execute_command(self, *args: Any, **options: Any) -> None:
        self.stack.append((args, options))

    def take(self, build: Callable[[Any], None]) -> list[Command]:
        self.stack = []
        build(self)
        return self.stack


class Link(asyncio.Protocol):
    """The socket, its reply parser, and nothing else: replies go to `on_reply` in order, the loss
    of the connection to `on_lost`. What each reply answers is the writer's business."""

    def __init__(self, on_reply: Callable[[Any], None], on_lost: Callable[[BaseException | None], None]) -> None:
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.reader = hiredis.Reader(replyError=ResponseError)
        self.transport: asyncio.Transport | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while not self.closed:
            reply = self.reader.gets()
            if reply is False:
                return
            self.on_reply(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed:
            self.closed = True
            self.on_lost(exc or ConnectionError("redis closed the connection"))

    def write(self, args: tuple[Any, ...]) -> None:
        assert self.transport is not None
        self.transport.write(hiredis.pack_command(args))

    def abort(self) -> None:
        """Drop the connection; `on_lost` says so."""
        if self.transport is not None:
            self.transport.abort()

    def close(self) -> None:
        """Drop the connection without a word to `on_lost`: its owner is letting go of it."""
        self.closed = True
        self.abort()


def plain(client: Any) -> dict[str, Any] | None:
    """Where and how to connect, if the client's URL is one this link can serve (TCP or a Unix
    socket, no TLS); None sends the writer back to redis-py's pipelines."""
    pool = getattr(client, "connection_pool", None)
    if pool is None:
        return None
    if pool.connection_class not in (Connection, UnixDomainSocketConnection):
        return None
    kw = pool.connection_kwargs
    return {k: kw.get(k) for k in ("host", "port", "path", "db", "username", "password")}


async def connect(where: dict[str, Any], timeout_s: float, on_reply: Callable[[Any], None],
                  on_lost: Callable[[BaseException | None], None]) -> Link:
    """Open a link and say who we are; raises what a failed connection raises."""
    loop = asyncio.get_running_loop()

    def factory() -> Link:
        return Link(on_reply, on_lost)

    if where.get("path"):
        opening = loop.create_unix_connection(factory, where["path"])
    else:
        opening = loop.create_connection(factory, where.get("host") or "127.0.0.1", int(where.get("port") or 6379))
    _, link = await asyncio.wait_for(opening, timeout_s)
    return link


def hello(where: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The commands that come before any other on a new link: AUTH and SELECT where the URL asks,
    then a PING whose answer says the link is ready."""
    out: list[tuple[Any, ...]] = []
    if where.get("password") is not None:
        user = where.get("username")
        out.append(("AUTH", user, where["password"]) if user else ("AUTH", where["password"]))
    if where.get("db"):
        out.append(("SELECT", int(where["db"])))
    out.append(("PING",))
    return out


class Waiting:
    """One entry of the writer's replies-to-come: a sent command (`name` set), or a local step
    (`name` None) that runs once every command before it is answered."""

    __slots__ = ("item", "name", "options", "sent_at")

    def __init__(self, item: Any, name: Any, options: dict[str, Any], sent_at: float) -> None:
        self.item = item
        self.name = name
        self.options = options
        self.sent_at = sent_at


def result_of(reply: Any, name: Any, options: dict[str, Any], callbacks: Any) -> Any:
    """A reply as redis-py's pipeline would have given it (errors returned, not raised)."""
    if isinstance(reply, ResponseError):
        return reply
    cb = callbacks.get(name) if callbacks is not None and isinstance(name, str) else None
    if cb is None:
        return reply
    opts = {k: v for k, v in options.items() if k != "keys"}
    return cb(reply, **opts)

