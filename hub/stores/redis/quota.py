"""Joins and seats per address, counted in Redis once for every process that shares it.

The limits and why they exist are hub/stores/quota.py's. Counted per process, they grew with the
processes: an address whose requests a load balancer spread over four hub processes could take four
times the seats. Here one script checks and counts a join atomically, so two processes taking the
last place at once cannot both have it:

- joins: a sorted set per address, of this minute's joins by their moment (ms since the epoch);
- seats: a hash per address, one field per seat held, whose value is its room.

Both keys of an address carry one hash tag, so the script runs on a Redis Cluster too. A seat is
forgotten as in one process: once the address is at its limit, the rooms it sat in are asked and
the finished or gone ones let go. The seats' key expires a day after the address's last join, so
what a dead process never gave back does not stay for ever.
"""
from __future__ import annotations

import logging
import secrets
import time

from hub.logs import log
from hub.stores.base import unavailable
from hub.stores.quota import WINDOW_S, Reservation, Rooms, SeatQuota, finished_or_gone
from hub.stores.redis.server import DOWN, Server
from hub.tables.seat import RoomError

logger = logging.getLogger("hub.stores.redis.quota")

#: A seat's count lives this long after its address's last join (a room is long over by then).
SEATS_TTL_MS = 24 * 3600 * 1000

#   KEYS: joins, seats      ARGV: now_ms, window_ms, joins_max, seats_max, entry, rid, seats_ttl_ms
#   returns 0 counted, 1 too many joins this minute, 2 too many seats held
TAKE = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local jmax, smax = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if jmax > 0 and redis.call('ZCARD', KEYS[1]) >= jmax then return 1 end
if smax > 0 and redis.call('HLEN', KEYS[2]) >= smax then return 2 end
if jmax > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[1], window)
end
if smax > 0 then
  redis.call('HSET', KEYS[2], ARGV[5], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[7])
end
return 0
"""


class RedisSeatQuota(SeatQuota):
    def __init__(self, server: Server, prefix: str, joins_per_min: int, seats: int) -> None:
        super().__init__(joins_per_min, seats)
        self.server, self.prefix = server, prefix

    def _keys(self, ip: str) -> tuple[str, str]:
        tag = f"{self.prefix}:quota:{{{ip}}}"
        return f"{tag}:joins", f"{tag}:seats"

    async def reserve(self, ip: str, rid: str, store: Rooms) -> Reservation:
        if self.joins_per_min <= 0 and self.seats <= 0:
            return Reservation(ip, time.monotonic(), [rid])
        joins, seats = self._keys(ip)
        entry = secrets.token_hex(8)
        for attempt in (0, 1):
            args = (TAKE, 2, joins, seats, int(time.time() * 1000), int(WINDOW_S * 1000), self.joins_per_min,
                    self.seats, entry, rid, SEATS_TTL_MS)
            try:
                answer = await self.server.run(lambda c, args=args: c.eval(*args))  # type: ignore[misc]
            except DOWN as e:
                raise unavailable() from e
            if int(answer) == 0:
                return Reservation(ip, time.monotonic(), [rid], entry)
            if int(answer) == 1:
                raise RoomError("rate_limited", "too many joins from this address; wait a minute", 429)
            if attempt == 0:
                await self._let_go(seats, store)
        raise RoomError("too_many_seats",
                        f"this address holds {self.seats} seats in games not finished; finish or leave some", 429)

    async def assign(self, r: Reservation, rid: str) -> None:
        r.seat[0] = rid
        if self.seats > 0 and r.entry:
            _, seats = self._keys(r.ip)
            try:
                await self.server.run(lambda c: c.hset(seats, r.entry, rid))
            except DOWN as e:  # the seat stays counted under no room; it goes with the key's expiry
                log(logger, logging.WARNING, "could not note a seat's room", error=repr(e)[:200])

    async def cancel(self, r: Reservation) -> None:
        if not r.entry:
            return
        joins, seats = self._keys(r.ip)

        async def give_back(c: object) -> None:
            pipe = c.pipeline(transaction=False)  # type: ignore[attr-defined]
            pipe.zrem(joins, r.entry)
            pipe.hdel(seats, r.entry)
            await pipe.execute()

        try:
            await self.server.run(give_back)
        except DOWN as e:  # counted for a minute (the join) or until the key expires (the seat)
            log(logger, logging.WARNING, "could not give back a refused join", error=repr(e)[:200])

    async def _let_go(self, seats: str, store: Rooms) -> None:
        """Forget the seats of rooms that finished or are gone (a store that does not answer keeps them)."""
        try:
            held = await self.server.run(lambda c: c.hgetall(seats))
        except DOWN:
            return
        rooms = {entry: raw.decode() if isinstance(raw, bytes) else str(raw) for entry, raw in held.items()}
        gone = await finished_or_gone(set(rooms.values()), store)
        over = [entry for entry, rid in rooms.items() if rid in gone]
        if over:
            try:
                await self.server.run(lambda c: c.hdel(seats, *over))
            except DOWN:
                return
