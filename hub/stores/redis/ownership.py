"""Who owns which room, and the clock that keeps it so: leases, take-overs, sweeps, retries.

A mixin of the Redis store (hub.stores.redis.store), kept apart so that the lobby-and-sockets side and the
ownership side can each be read whole. Every third of a lease the owner renews its rooms' leases (a
slice of them at each step of its clock) and marks them in `hub:live` with their expiry; every
process sweeps `hub:live` for leases that lapsed and takes those rooms over. Forwarded actions that
go unanswered are resent, and after two seconds their process looks whether the room has an owner
at all.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import zlib
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from hub.logs import log
from hub.stores.redis import owner as owning
from hub.stores.redis import replica as replicas
from hub.stores.redis.scripts import RELEASE, RENEW
from hub.stores.redis.server import DOWN, Item
from hub.tables.persist import Corrupt, Restored, wake
from hub.tables.room import Room

if TYPE_CHECKING:
    from hub.stores.redis.keys import Keys
    from hub.stores.redis.pubsub import Subscriber
    from hub.stores.redis.replica import Replica

logger = logging.getLogger("hub.stores.redis")

REPLICA_IDLE_S = 30.0      # a relay with no connections is kept this long for resumes, then dropped
PRESENCE_S = 5.0           # how often each replica says again which seats it holds, and holders are checked
RECONNECT_S = 2.0          # the longest pause between two tries to reach Redis (hub.stores.redis.server)
RECHECK_S = 0.5            # how often relays compare the log's head with theirs, for a while after an outage


@dataclass
class JoinWait:
    rid: str
    msg: dict[str, Any]
    fut: asyncio.Future[int]
    sent: float


class Host(owning.Host, replicas.Host, Protocol):
    """The process's Redis store (hub/stores/redis/store.py), as its ownership side sees it."""

    keys: Keys
    sub: Subscriber
    owned: dict[str, owning.Owner]
    replicas: dict[str, Replica]
    joins: dict[str, JoinWait]
    claiming: set[str]
    ticker: asyncio.Task[None] | None
    stopping: bool

    def spawn(self, coro: Any) -> None: ...
    async def load_room(self, rid: str) -> Restored | None: ...
    def on_in(self, rid: str, data: bytes) -> None: ...
    def send_command(self, rid: str, msg: dict[str, Any]) -> None: ...
    def publish_out(self, rid: str, msg: dict[str, Any] | bytes) -> None: ...


class Ownership:
    """The ownership side of one process's Redis store."""

    def __init__(self, store: Host) -> None:
        self.b = store


    async def claim_if_free(self, rid: str) -> None:
        try:
            if await self.b.server.holder(rid) is None:
                await self.claim(rid)
        except DOWN:
            pass

    async def claim(self, rid: str) -> None:
        """Take a room nobody holds and rebuild it here from its snapshot and log."""
        if rid in self.b.owned or rid in self.b.claiming or self.b.stopping:
            return
        self.b.claiming.add(rid)
        try:
            got = await self.b.server.claim(self.b.inst, rid, self.b.settings.lease_ms)
            if got == -1:
                keys = self.b.keys
                self.b.writer.push(Item(lambda p: p.zrem(keys.live, rid), must=False))
                return
            if got != 1:
                return
            try:
                restored = await self.b.load_room(rid)
                if restored is None:
                    raise Corrupt(f"room {rid} has no record or snapshot")
                owner = owning.take_up(self.b, restored)
            except DOWN:
                raise
            except Exception:
                logger.exception("could not rebuild a room")
                with contextlib.suppress(*DOWN):
                    await self.b.server.release(self.b.inst, rid)
                return
            self.b.owned[rid] = owner
            self.b.rooms.rooms[rid] = owner.room
            await self.b.sub.subscribe(self.b.keys.inbox(rid), partial(self.b.on_in, rid))
            self.b.metrics.takeovers.inc()
            wake(owner.room)
            owner.announce()
            for wait in self.b.joins.values():  # joins waiting here for this room need not wait for a retry
                if wait.rid == rid:
                    owner.handle(wait.msg)
        except DOWN:
            pass
        finally:
            self.b.claiming.discard(rid)

    def abandon(self, rid: str, why: str) -> None:
        """Stop owning a room (fenced, or gone from Redis); what was not in the log was never acked."""
        owner = self.b.owned.pop(rid, None)
        if owner is None:
            return
        owner.gone = True
        room = self.b.rooms.rooms.pop(rid, None)
        if room is not None:
            room.close()
        self.b.metrics.leases_lost.inc()
        log(logger, logging.WARNING, "room no longer owned here", room=rid, why=why)
        self.b.spawn(self.b.sub.unsubscribe(self.b.keys.inbox(rid)))
        rep = self.b.replicas.get(rid)
        if rep is not None:
            rep.heal()

    def dropped(self, room: Room) -> None:
        """A room this process owns is over (finished long enough, or never filled): gone everywhere."""
        rid = room.rid
        owner = self.b.owned.pop(rid, None)
        if owner is None or self.b.stopping:
            return
        owner.gone = True
        k = self.b.keys
        self.b.publish_out(rid, {"x": "gone"})
        self.b.writer.push(Item(lambda p: p.delete(k.room(rid), k.log(rid), k.snap(rid), k.lease(rid)), must=False))
        self.b.writer.push(Item(lambda p: p.zrem(k.index, rid), must=False))
        self.b.writer.push(Item(lambda p: p.zrem(k.live, rid), must=False))
        self.b.spawn(self.b.sub.unsubscribe(k.inbox(rid)))

    # ---- the clock -----------------------------------------------------------------------------

    async def tick(self) -> None:
        lease_s = self.b.settings.lease_ms / 1000
        step, slices, holds = clock_of(self.b.settings.lease_ms)
        slot = hold_slot = 0
        next_sweep = next_presence = 0.0
        while True:
            await asyncio.sleep(step)
            try:
                now = time.monotonic()
                self._renew([rid for rid in self.b.owned if renew_slice(rid, slices) == slot])
                slot = (slot + 1) % slices
                for rid, rep in list(self.b.replicas.items()):
                    if renew_slice(rid, holds) == hold_slot:
                        rep.hold_all()
                hold_slot = (hold_slot + 1) % holds
                if now >= next_sweep and self.b.server.healthy:
                    next_sweep = now + lease_s / 3 * random.uniform(0.8, 1.2)
                    if asyncio.get_running_loop().time() - self.b.server.up_since > lease_s:
                        self.b.spawn(self._sweep())
                self._retry(now)
                self._beat(now)
                if now >= next_presence:
                    next_presence = now + PRESENCE_S
                    self.b.spawn(self._check_holders())
                    self._collect(now)
                self.b.metrics.pending.set(sum(len(r.pending) for r in self.b.replicas.values()))
            except Exception:  # noqa: BLE001 - the clock must outlive any one bad room
                logger.exception("redis tick failed")

    def _renew(self, rids: list[str]) -> None:
        lease, me, keys = self.b.settings.lease_ms, self.b.inst, self.b.keys
        if rids:
            # a room's keys share a slot, two rooms' rarely do: on a cluster, one call per room
            for part in ([[r] for r in rids] if self.b.server.cluster else [rids]):
                self.b.writer.push(Item(partial(_renew, [(keys.lease(r), keys.room(r)) for r in part], me, lease),
                                      partial(self._renewed, part), must=False))
            until = time.time() * 1000 + lease
            members = {rid: until for rid in rids}
            self.b.writer.push(Item(lambda p: p.zadd(keys.live, members), must=False))
        self.b.writer.push(Item(lambda p: p.set(keys.node(me), b"1", px=2 * lease), must=False))

    def _renewed(self, rids: list[str], result: Any) -> None:
        if not isinstance(result, list) or len(result) != len(rids):
            return  # the call failed (Redis away): the next renewal tries again
        for rid, one in zip(rids, result, strict=True):
            owner = self.b.owned.get(rid)
            if one == 0:
                self.abandon(rid, "the lease went to another process")
            elif one == -1 and owner is not None:
                owner.reseed()

    async def _sweep(self) -> None:
        """Take over rooms whose owner stopped renewing (a dead process, or all of them restarted)."""
        try:
            now = time.time() * 1000
            raw = await self.b.server.run(lambda c: c.zrangebyscore(self.b.keys.live, "-inf", now, start=0, num=32))
        except DOWN:
            return
        rids = [r.decode() for r in raw if r.decode() not in self.b.owned]
        random.shuffle(rids)
        for rid in rids:
            await self.claim(rid)

    def _retry(self, now: float) -> None:
        for rid, rep in list(self.b.replicas.items()):
            if rep.pending and rep.resend() and rid not in self.b.owned:
                self.b.spawn(self.claim_if_free(rid))
        for wait in list(self.b.joins.values()):
            if now - wait.sent > 1.0 and not wait.fut.done():
                wait.sent = now
                self.b.send_command(wait.rid, wait.msg)
                if wait.rid not in self.b.owned:
                    self.b.spawn(self.claim_if_free(wait.rid))

    def _beat(self, now: float) -> None:
        """After a burst, say where each log ends: a replica that lost the burst's last publish heals."""
        for rid, owner in self.b.owned.items():
            if owner.committed != owner.beat_n and now - owner.last_commit > 0.2:
                owner.beat_n = owner.committed
                self.b.publish_out(rid, {"x": "hb", "n": owner.committed})

    async def _check_holders(self) -> None:
        """Seats held by connections on a process that died are free: their players get the grace."""
        held = {(rid, s.index, s.holder) for rid, o in self.b.owned.items() for s in o.room.seats
                if s.holder is not None and not s.holder.startswith(self.b.inst + "/")}
        insts = sorted({h.split("/")[0] for _, _, h in held})
        if not insts:
            return
        try:
            alive = await self.b.server.run(lambda c: _exists_each(c, [self.b.keys.node(i) for i in insts]))
        except DOWN:
            return
        dead = {i for i, ok in zip(insts, alive, strict=True) if not ok}
        for rid, seat, holder in held:
            owner = self.b.owned.get(rid)
            if owner is not None and holder.split("/")[0] in dead:
                owner.room.people.release(seat, holder)

    def _collect(self, now: float) -> None:
        for rep in list(self.b.replicas.values()):
            if rep.idle() and now - rep.idle_since > REPLICA_IDLE_S:
                rep.close(1001, "idle")

    def reconnected(self) -> None:
        """Pub/sub came back: what was published meanwhile is lost, so look for gaps and resend;
        and look again for a while (`_recheck`)."""
        for owner in self.b.owned.values():
            owner.announce()
        for rep in list(self.b.replicas.values()):
            self.b.spawn(self._verify(rep))
        self.b.spawn(self._recheck(self.b.settings.lease_ms / 1000 + RECONNECT_S))

    async def _verify(self, rep: Replica) -> None:
        with contextlib.suppress(*DOWN):
            if await self.b.server.log_head(rep.rid) > rep.n:
                rep.heal()
        rep.resend(all_of_them=True)

    async def _recheck(self, seconds: float) -> None:
        """After Redis came back, owners elsewhere may come back later than this process (each
        retries on its own clock, up to RECONNECT_S apart) and write their rooms back then: what
        they publish may be lost as anything published is, and a relay that looked at the log
        before they wrote to it would not look again. So for a lease and that while, each relay
        here compares the log's head with what it has twice a second, and heals when behind."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while loop.time() < end and not self.b.stopping:
            await asyncio.sleep(RECHECK_S)
            for rep in list(self.b.replicas.values()):
                if rep.healing is None and not rep.gone:
                    with contextlib.suppress(*DOWN):
                        if await self.b.server.log_head(rep.rid) > rep.n:
                            rep.heal()

    def came_back(self) -> None:
        """Redis answers again: renew at once, so owners keep their rooms before anyone sweeps."""
        if self.b.ticker is not None:
            self._renew(list(self.b.owned))
        self.b.spawn(self.b.sub.catch_up())


def clock_of(lease_ms: int) -> tuple[float, int, int]:
    """The clock's step, and the slices of the renewal period and of the hold period.

    Each room is renewed once every third of a lease, in the slice its id hashes to, a slice a step,
    so the writer never carries every room's renewal at once (500 rooms in one pipeline held the
    commits behind it for about 6 ms, once a second). Likewise each replica tells its room's owner
    again which seats it holds once every PRESENCE_S, in its slice: all at once was a thousand
    messages in one burst at 500 rooms, handled on the owner's loop while moves waited."""
    lease_s = lease_ms / 1000
    step = min(0.25, lease_s / 6)
    return step, max(1, round(lease_s / 3 / step)), max(1, round(PRESENCE_S / step))


def renew_slice(rid: str, slices: int) -> int:
    """The slice of a period in which a room's lease is renewed (or its seats held again): stable,
    and spread evenly."""
    return zlib.crc32(rid.encode()) % slices


def _renew(keys: list[tuple[str, str]], me: str, lease_ms: int, pipe: Any) -> None:
    pipe.eval(RENEW, 2 * len(keys), *(k for pair in keys for k in pair), me, lease_ms)


def release_one(lease_key: str, me: str, pipe: Any) -> None:
    pipe.eval(RELEASE, 1, lease_key, me)


async def _exists_each(c: Any, keys: list[str]) -> list[bool]:
    pipe = c.pipeline(transaction=False)
    for k in keys:
        pipe.exists(k)
    return [bool(x) for x in await pipe.execute()]
