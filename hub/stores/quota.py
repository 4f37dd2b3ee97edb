"""Seats one address may take: joins per minute and seats held at once.

Without them one address took 120 of 120 seats across 30 public rooms in a tenth of a second, and
the rooms' creators, arriving a moment later, were told `409 room_full`. The defaults (60 joins a
minute, 32 seats at once) are far above what a family on one network does, a person joining a
table every second and sitting at thirty-two of them, and far below what it takes to squat a lobby.

A seat is held until its room finishes or goes: the rooms this address sat in are asked again only
once it reaches the limit, so a join costs nothing more while it is under it. A refused join is
counted for nothing, and a join the room refuses (full, taken, unknown) gives its place back.

The count belongs with the store, since the lobby's processes are as many as the store serves: this
one is a process's own (memory, SQLite: one process), and the Redis store keeps one count for every
process that shares it (hub/stores/redis/quota.py), so an address behind a load balancer that
spreads its requests over several processes is held to one set of limits, not one per process.
"""
from __future__ import annotations

import contextlib
import time
from collections import defaultdict, deque
from typing import Any, Protocol

from hub.tables.seat import FINISHED, RoomError


class Rooms(Protocol):
    """What the quota asks of a store: whether a room an address sat in is over."""

    async def info(self, rid: str) -> dict[str, Any] | None: ...


WINDOW_S = 60.0
#: Addresses whose last join is over a minute old are forgotten once this many are remembered.
SWEEP_AT = 4096


class Reservation:
    """A join under way: its moment and its seat count until `cancel` gives them back; `entry` names
    it where the count is kept elsewhere (Redis)."""

    __slots__ = ("ip", "at", "seat", "entry")

    def __init__(self, ip: str, at: float, seat: list[str], entry: str = "") -> None:
        self.ip, self.at, self.seat, self.entry = ip, at, seat, entry


class SeatQuota:
    def __init__(self, joins_per_min: int, seats: int) -> None:
        self.joins_per_min = joins_per_min
        self.seats = seats
        self._joins: dict[str, deque[float]] = defaultdict(deque)
        self._held: dict[str, list[list[str]]] = defaultdict(list)  # per address, one [rid] per seat

    async def reserve(self, ip: str, rid: str, store: Rooms) -> Reservation:
        """Count a join from `ip` into room `rid`, or raise a 429 RoomError when a limit is reached."""
        now = time.monotonic()
        if len(self._joins) > SWEEP_AT:
            self._sweep(now)
        if self.seats > 0 and len(self._held.get(ip, ())) >= self.seats:
            await self._prune(ip, store)
        joins = self._joins.get(ip)
        if joins is not None:
            while joins and now - joins[0] > WINDOW_S:
                joins.popleft()
        if self.joins_per_min > 0 and joins is not None and len(joins) >= self.joins_per_min:
            raise RoomError("rate_limited", "too many joins from this address; wait a minute", 429)
        if self.seats > 0 and len(self._held.get(ip, ())) >= self.seats:
            raise RoomError("too_many_seats",
                            f"this address holds {self.seats} seats in games not finished; finish or leave some", 429)
        seat = [rid]
        if self.joins_per_min > 0:
            self._joins[ip].append(now)
        if self.seats > 0:
            self._held[ip].append(seat)
        return Reservation(ip, now, seat)

    async def assign(self, r: Reservation, rid: str) -> None:
        """The seat is in room `rid` (play again learns its room only once it is made)."""
        r.seat[0] = rid

    async def cancel(self, r: Reservation) -> None:
        """The room refused the join: it took no seat and counts for nothing."""
        joins = self._joins.get(r.ip)
        if joins is not None:
            with contextlib.suppress(ValueError):
                joins.remove(r.at)
            if not joins:
                del self._joins[r.ip]
        held = self._held.get(r.ip)
        if held is not None:
            held[:] = [s for s in held if s is not r.seat]
            if not held:
                del self._held[r.ip]

    def _sweep(self, now: float) -> None:
        for ip in [ip for ip, q in self._joins.items() if not q or now - q[-1] > WINDOW_S]:
            del self._joins[ip]

    async def _prune(self, ip: str, store: Rooms) -> None:
        """Forget the seats of rooms that finished or are gone."""
        over = await finished_or_gone({s[0] for s in self._held.get(ip, [])}, store)
        held = self._held.get(ip, [])
        held[:] = [s for s in held if s[0] not in over]
        if not held:
            self._held.pop(ip, None)
        joins = self._joins.get(ip)
        if joins is not None and not joins:
            del self._joins[ip]


async def finished_or_gone(rids: set[str], store: Rooms) -> set[str]:
    """Which of these rooms no longer hold a seat: finished, or unknown to the store. A room the
    store cannot answer for keeps its seats, and so does a seat whose room is not known yet (""):
    play again counts the seat before the next room is made."""
    over: set[str] = set()
    for rid in rids:
        if not rid:
            continue
        try:
            info = await store.info(rid)
        except RoomError:
            continue
        if info is None or info.get("status") == FINISHED:
            over.add(rid)
    return over
