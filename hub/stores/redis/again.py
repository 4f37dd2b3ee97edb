"""Play again across processes: the link from a finished room to its next is a field of the finished
room's hash in Redis, so every process sees it, and HSETNX gives the making to one asker."""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable

from hub.stores.base import Finished, unavailable
from hub.stores.redis.keys import valid_rid
from hub.stores.redis.server import DOWN, Server
from hub.tables import persist

#: How long a second asker waits for the first to make a finished room's next room.
NEXT_WAIT_S = 6.0


async def finished(server: Server, rid: str) -> Finished | None:
    """A finished room of another process, as the next game is made from it."""
    if not valid_rid(rid):
        return None
    try:
        rec_b, tokens, _ = await server.read_room(rid)
        raw = await server.run(lambda c: c.hget(server.keys.room(rid), "meta"))
    except DOWN:
        raise unavailable() from None
    if rec_b is None or raw is None:
        return None
    rec, meta = persist.read_record(rec_b), json.loads(raw)
    hashes = json.loads(tokens) if tokens else [None] * int(rec["seats"])
    return Finished(str(meta["status"]), str(rec["game"]), int(rec["seats"]),
                    {**rec.get("options", {}), **rec.get("hub_options", {})}, list(rec.get("bots", [])),
                    list(meta["names"]), hashes, persist.levels_of(rec))


async def next_of(server: Server, rid: str) -> str | None:
    if not valid_rid(rid):
        return None
    try:
        raw = await server.run(lambda c: c.hget(server.keys.room(rid), "next"))
    except DOWN:
        raise unavailable() from None
    return raw.decode() if raw else None  # b"" while the first asker is still making it


async def link_next(server: Server, rid: str, make: Callable[[], Awaitable[str]]) -> str:
    """HSETNX claims the making for one caller on any process; the others wait for the room id."""
    key = server.keys.room(rid)
    try:
        first = await server.run(lambda c: c.hsetnx(key, "next", b""))
    except DOWN:
        raise unavailable() from None
    if first:
        try:
            made = await make()
        except BaseException:
            with contextlib.suppress(*DOWN):
                await server.run(lambda c: c.hdel(key, "next"))
            raise
        await server.run(lambda c: c.hset(key, "next", made.encode()))
        return made
    deadline = time.monotonic() + NEXT_WAIT_S
    while time.monotonic() < deadline:
        known = await next_of(server, rid)
        if known:
            return known
        await asyncio.sleep(0.05)
    raise unavailable("the next room is still being made; try again")
