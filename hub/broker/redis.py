"""Rooms shared through Redis: any process takes any connection and any lobby call.

Each room has one owner process, holding an expiring lease (`hub:{rid}:lease`) that it renews every
third of its length. The owner runs the room (hub.room + hub.owner): commands reach it on the room's
`in` channel, or directly when they arise here; every change goes to the room's log before it goes
out on the `out` channel. Every process with connections to the room keeps a replica (hub.replica)
that relays the owner's deltas to them.

When an owner dies its leases lapse; another process claims each room (on the sweep of `hub:live`,
or at once when its own connections are waiting on the room), rebuilds it from snapshot and log,
and announces itself, and the replicas resend what went unanswered. When Redis goes away, every
process keeps its connections, queues what must be written, retries with backoff, and picks up
where it was when Redis answers again.
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import secrets
import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import msgpack

from hub import owner as owning
from hub import replay
from hub.broker import Broker, Target, no_room, not_finished, unavailable
from hub.broker.pubsub import Subscriber
from hub.broker.store import DOWN, RELEASE, RENEW, Item, Store, Writer, valid_rid
from hub.codec import Encoded
from hub.logs import log
from hub.metrics import Metrics
from hub.replica import Replica
from hub.room import FINISHED, Room, RoomError, info_of, summary_of
from hub.settings import Settings
from hub.tokens import hash_token, new_token

if TYPE_CHECKING:
    from hub.connection import Connection

logger = logging.getLogger("hub.broker")

LISTING_MAX = 500          # chosen here: the lobby lists the newest public rooms, not every one ever made
REPLICA_IDLE_S = 30.0      # a relay with no connections is kept this long for resumes, then dropped
JOIN_TIMEOUT_S = 10.0


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


@dataclass
class JoinWait:
    rid: str
    msg: dict[str, Any]
    fut: asyncio.Future[int]
    sent: float


class RedisBroker(Broker):
    kind = "redis"

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        super().__init__(settings, metrics)
        self.inst = settings.instance or secrets.token_hex(6)
        self.store = Store(settings.redis, settings.redis_prefix, metrics)
        self.keys = self.store.keys
        self.writer = Writer(self.store)
        self.sub = Subscriber(self.store, self._reconnected)
        self.owned: dict[str, owning.Owner] = {}
        self.replicas: dict[str, Replica] = {}
        self.joins: dict[str, JoinWait] = {}
        self._booting: dict[str, list[bytes]] = {}
        self._enter_locks: dict[str, asyncio.Lock] = {}
        self._claiming: set[str] = set()
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._stopping = False
        self.rooms.on_drop = self._dropped
        self.store.on_up.append(self._came_back)
        metrics.broker_up.set(0)

    # ---- life ----------------------------------------------------------------------------------

    @property
    def up(self) -> bool:
        return self.store.up

    async def start(self) -> None:
        await super().start()
        self.writer.start()
        try:
            await self.store.run(lambda c: c.ping())
        except DOWN as e:
            log(logger, logging.WARNING, "redis is not answering yet; retrying", error=repr(e)[:200])
        await self.sub.subscribe(self.keys.rx(self.inst), self._on_rx)
        self._ticker = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        """Hand every room back: leases released at once, so another process takes them right away."""
        self._stopping = True
        if self._ticker is not None:
            self._ticker.cancel()
        keys, me = self.keys, self.inst
        for rid, owner in list(self.owned.items()):
            owner.gone = True
            self.rooms.rooms.pop(rid, None)
            owner.room.close()
            self.writer.push(Item(partial(_release, keys.lease(rid), me), must=False))
        if self.owned:
            orphans = dict.fromkeys(self.owned, 0)
            self.writer.push(Item(lambda p: p.zadd(keys.live, orphans), must=False))
        self.owned.clear()
        await self.writer.stop()
        self.sub.close()
        for t in list(self._tasks):
            t.cancel()
        await super().stop()
        if self.store.client is not None:
            with contextlib.suppress(Exception):
                await self.store.client.aclose()

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def next_id(self) -> str:
        return f"{self.inst}:{next(self._ids)}"

    def holder_id(self, conn: Connection) -> str:
        return f"{self.inst}/{id(conn)}"

    def go_deaf(self, seconds: float) -> None:
        """Test hook (--debug-hooks): drop every pub/sub message for a while, as a lossy network would."""
        self.sub.deaf_until = asyncio.get_running_loop().time() + seconds

    # ---- the lobby -----------------------------------------------------------------------------

    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str) -> dict[str, Any]:
        if not self.store.up:
            raise unavailable()
        room = self.rooms.build(game, seats, options, bots, ip)
        owner, created = owning.create(self, room)
        rid = room.rid
        self.owned[rid] = owner
        self.rooms.rooms[rid] = room
        try:
            await self.sub.subscribe(self.keys.inbox(rid), partial(self._on_in, rid))
            ok = await asyncio.wait_for(created, 5)
        except TimeoutError:
            ok = False
        if not ok:
            self.abandon(rid, "could not be written to Redis")
            raise unavailable()
        return {"room": rid, "game": room.game.id, "seats": len(room.seats)}

    def index(self, room: Room) -> None:
        """List a new room: in the lobby (unless private) and among the rooms held (for the sweep)."""
        rid, now = room.rid, time.time() * 1000
        keys = self.keys
        if not room.private:
            self.writer.push(Item(lambda p: p.zadd(keys.index, {rid: now})))
        self.writer.push(Item(lambda p: p.zadd(keys.live, {rid: now + self.settings.lease_ms})))

    async def listing(self) -> list[dict[str, Any]]:
        try:
            rids = [r.decode() for r in await self.store.run(lambda c: c.zrange(self.keys.index, -LISTING_MAX, -1))]
            metas = await self.store.metas(rids)
        except DOWN:
            raise unavailable() from None
        out, gone = [], []
        for rid, raw in zip(rids, metas, strict=True):
            if raw is None:
                gone.append(rid)
            else:
                out.append(summary_of(json.loads(raw)))
        if gone:
            keys = self.keys
            self.writer.push(Item(lambda p: p.zrem(keys.index, *gone), must=False))
        return out

    async def info(self, rid: str) -> dict[str, Any] | None:
        owner = self.owned.get(rid)
        if owner is not None:
            return owner.room.info()
        if not valid_rid(rid):
            return None
        try:
            raw = await self.store.run(lambda c: c.hget(self.keys.room(rid), "meta"))
        except DOWN:
            raise unavailable() from None
        return info_of(json.loads(raw)) if raw else None

    async def join(self, rid: str, name: str, seat: int | None) -> tuple[int, str]:
        """The token is made here and only its hash travels: no plain token is ever in Redis."""
        if rid not in self.owned and await self.info(rid) is None:
            raise no_room()
        token = new_token()
        jid = self.next_id()
        msg = {"k": "join", "jid": jid, "nm": name, "s": seat, "th": hash_token(token), "rx": self.inst}
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.joins[jid] = JoinWait(rid, msg, fut, time.monotonic())
        try:
            self.send_command(rid, msg)
            index = await asyncio.wait_for(fut, JOIN_TIMEOUT_S)
        except TimeoutError:
            raise unavailable("no process answers for this room right now; try again") from None
        finally:
            self.joins.pop(jid, None)
        return index, token

    async def replay(self, rid: str) -> dict[str, Any] | None:
        """Rebuilt here from the record, snapshot and log, whoever owns the room (engines are
        deterministic), so any process serves it."""
        owner = self.owned.get(rid)
        if owner is not None:
            if owner.room.status != FINISHED:
                raise not_finished()
            return replay.build(owner.room)
        if not valid_rid(rid):
            return None
        try:
            rec, _, snap = await self.store.read_room(rid)
            if rec is None or snap is None:
                return None
            first = int(msgpack.unpackb(snap, raw=False, strict_map_key=False)["n"]) + 1
            entries = await self.store.read_log(rid, first)
        except DOWN:
            raise unavailable() from None
        shadow = owning.restore(self, rid, rec, snap, entries)
        shadow.gone = True  # read only: it never writes, runs nothing, and is dropped at once
        if shadow.room.status != FINISHED:
            raise not_finished()
        return replay.build(shadow.room)

    # ---- connections ---------------------------------------------------------------------------

    async def enter(self, rid: str) -> Target | None:
        if not valid_rid(rid):
            return None
        rep = self.replicas.get(rid)
        if rep is not None:
            return rep
        lock = self._enter_locks.setdefault(rid, asyncio.Lock())
        try:
            async with lock:
                rep = self.replicas.get(rid)
                if rep is None:
                    rep = await self._bootstrap(rid)
                return rep
        finally:
            if not lock.locked():
                self._enter_locks.pop(rid, None)

    async def _bootstrap(self, rid: str) -> Replica | None:
        """A relay for a room: listen first, then read, then apply what arrived meanwhile."""
        channel = self.keys.out(rid)
        self._booting[rid] = []
        try:
            await self.sub.subscribe(channel, partial(self._on_out, rid))
            owner = self.owned.get(rid)
            if owner is not None and not owner.busy:
                rep = Replica.from_owner(self, owner)
            else:
                rec, tokens, snap = await self.store.read_room(rid)
                if rec is None or snap is None:
                    self._booting.pop(rid, None)
                    await self.sub.unsubscribe(channel)
                    return None
                rep = Replica.from_snapshot(self, rid, rec, tokens, snap)
                for _, blob in await self.store.read_log(rid, rep.n + 1):
                    rep.on_out(blob)
        except DOWN:
            self._booting.pop(rid, None)
            raise unavailable() from None
        early = self._booting.pop(rid, [])
        self.replicas[rid] = rep
        self.metrics.relayed.set(len(self.replicas))
        for data in early:
            rep.on_out(data)
        if rid not in self.owned:
            self.spawn(self._claim_if_free(rid))
        return rep

    def forget(self, rep: Replica) -> None:
        if self.replicas.get(rep.rid) is rep:
            del self.replicas[rep.rid]
            self.metrics.relayed.set(len(self.replicas))
            self.spawn(self.sub.unsubscribe(self.keys.out(rep.rid)))

    # ---- messages ------------------------------------------------------------------------------

    def send_command(self, rid: str, msg: dict[str, Any]) -> None:
        """To the room's owner: straight in when it is this process, else on the room's `in` channel."""
        owner = self.owned.get(rid)
        if owner is not None:
            owner.handle(msg)
            return
        self.metrics.forwarded.labels(str(msg.get("k"))).inc()
        channel, data, store = self.keys.inbox(rid), pack(msg), self.store
        self.writer.push(Item(lambda p: store.publish(p, channel, data), must=False))

    def publish_out(self, rid: str, msg: dict[str, Any] | bytes) -> None:
        channel, data, store = self.keys.out(rid), msg if isinstance(msg, bytes) else pack(msg), self.store
        self.writer.push(Item(lambda p: store.publish(p, channel, data), must=False))

    def answer(self, rid: str, aid: str, msg: dict[str, Any]) -> None:
        """An owner's answer to one forwarded action, in order behind the entries before it."""
        if aid.startswith(self.inst + ":"):
            self.writer.push(Item(None, lambda _: self._local(rid, msg)))
        else:
            self.publish_out(rid, msg)

    def _local(self, rid: str, msg: dict[str, Any]) -> None:
        rep = self.replicas.get(rid)
        if rep is not None:
            rep.on_message(msg)

    def answer_join(self, rx: str, jid: str, seat: int | None = None,
                    error: tuple[str, str, int] | None = None) -> None:
        msg: dict[str, Any] = {"x": "joined", "jid": jid, "s": seat}
        if error is not None:
            msg = {"x": "jerr", "jid": jid, "code": error[0], "message": error[1], "status": error[2]}
        if rx == self.inst:
            self.writer.push(Item(None, lambda _: self._joined(msg)))
        else:
            channel, data, store = self.keys.rx(rx), pack(msg), self.store
            self.writer.push(Item(lambda p: store.publish(p, channel, data), must=False))

    def delivered(self, rid: str, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]]) -> None:
        """An entry this process owns is in the log: its own connections get it without a round trip."""
        rep = self.replicas.get(rid)
        if rep is not None:
            rep.on_entry(n, entry, dict(changed))

    def _on_in(self, rid: str, data: bytes) -> None:
        owner = self.owned.get(rid)
        if owner is not None:
            owner.handle(msgpack.unpackb(data, raw=False, strict_map_key=False))

    def _on_out(self, rid: str, data: bytes) -> None:
        rep = self.replicas.get(rid)
        if rep is not None:
            rep.on_out(data)
        elif rid in self._booting:
            self._booting[rid].append(data)

    def _on_rx(self, data: bytes) -> None:
        self._joined(msgpack.unpackb(data, raw=False, strict_map_key=False))

    def _joined(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        wait = self.joins.get(str(msg.get("jid")))
        if wait is None or wait.fut.done():
            return
        if msg.get("x") == "joined":
            wait.fut.set_result(int(msg["s"]))
        else:
            wait.fut.set_exception(RoomError(str(msg["code"]), str(msg["message"]), int(msg["status"])))

    # ---- ownership -----------------------------------------------------------------------------

    async def _claim_if_free(self, rid: str) -> None:
        try:
            if await self.store.holder(rid) is None:
                await self.claim(rid)
        except DOWN:
            pass

    async def claim(self, rid: str) -> None:
        """Take a room nobody holds and rebuild it here from its snapshot and log."""
        if rid in self.owned or rid in self._claiming or self._stopping:
            return
        self._claiming.add(rid)
        try:
            got = await self.store.claim(self.inst, rid, self.settings.lease_ms)
            if got == -1:
                keys = self.keys
                self.writer.push(Item(lambda p: p.zrem(keys.live, rid), must=False))
                return
            if got != 1:
                return
            try:
                rec, _, snap = await self.store.read_room(rid)
                if rec is None or snap is None:
                    raise owning.Corrupt(f"room {rid} has no record or snapshot")
                first = int(msgpack.unpackb(snap, raw=False, strict_map_key=False)["n"]) + 1
                entries = await self.store.read_log(rid, first)
                owner = owning.restore(self, rid, rec, snap, entries)
            except DOWN:
                raise
            except Exception:
                logger.exception("could not rebuild a room")
                with contextlib.suppress(*DOWN):
                    await self.store.release(self.inst, rid)
                return
            self.owned[rid] = owner
            self.rooms.rooms[rid] = owner.room
            await self.sub.subscribe(self.keys.inbox(rid), partial(self._on_in, rid))
            self.metrics.takeovers.inc()
            owning.activate(owner)
            owner.announce()
            for wait in self.joins.values():  # joins waiting here for this room need not wait for a retry
                if wait.rid == rid:
                    owner.handle(wait.msg)
        except DOWN:
            pass
        finally:
            self._claiming.discard(rid)

    def abandon(self, rid: str, why: str) -> None:
        """Stop owning a room (fenced, or gone from Redis); what was not in the log was never acked."""
        owner = self.owned.pop(rid, None)
        if owner is None:
            return
        owner.gone = True
        room = self.rooms.rooms.pop(rid, None)
        if room is not None:
            room.close()
        self.metrics.leases_lost.inc()
        log(logger, logging.WARNING, "room no longer owned here", room=rid, why=why)
        self.spawn(self.sub.unsubscribe(self.keys.inbox(rid)))
        rep = self.replicas.get(rid)
        if rep is not None:
            rep.heal()

    def _dropped(self, room: Room) -> None:
        """A room this process owns is over (finished long enough, or never filled): gone everywhere."""
        rid = room.rid
        owner = self.owned.pop(rid, None)
        if owner is None or self._stopping:
            return
        owner.gone = True
        k = self.keys
        self.publish_out(rid, {"x": "gone"})
        self.writer.push(Item(lambda p: p.delete(k.room(rid), k.log(rid), k.snap(rid), k.lease(rid)), must=False))
        self.writer.push(Item(lambda p: p.zrem(k.index, rid), must=False))
        self.writer.push(Item(lambda p: p.zrem(k.live, rid), must=False))
        self.spawn(self.sub.unsubscribe(k.inbox(rid)))

    # ---- the clock -----------------------------------------------------------------------------

    async def _tick(self) -> None:
        lease_s = self.settings.lease_ms / 1000
        next_renew = next_sweep = next_presence = 0.0
        while True:
            await asyncio.sleep(min(0.25, lease_s / 6))
            try:
                now = time.monotonic()
                if now >= next_renew:
                    self._renew()
                    next_renew = now + lease_s / 3
                if now >= next_sweep and self.store.up:
                    next_sweep = now + lease_s / 3 * random.uniform(0.8, 1.2)
                    if asyncio.get_running_loop().time() - self.store.up_since > lease_s:
                        self.spawn(self._sweep())
                self._retry(now)
                self._beat(now)
                if now >= next_presence:
                    next_presence = now + 5.0
                    for rep in self.replicas.values():
                        rep.hold_all()
                    self.spawn(self._check_holders())
                    self._collect(now)
                self.metrics.pending.set(sum(len(r.pending) for r in self.replicas.values()))
            except Exception:  # noqa: BLE001 - the clock must outlive any one bad room
                logger.exception("redis tick failed")

    def _renew(self) -> None:
        lease, me, keys = self.settings.lease_ms, self.inst, self.keys
        until = time.time() * 1000 + lease
        for rid in list(self.owned):
            self.writer.push(Item(partial(_renew, keys.lease(rid), keys.room(rid), me, lease),
                                  partial(self._renewed, rid), must=False))
        if self.owned:
            members = {rid: until for rid in self.owned}
            self.writer.push(Item(lambda p: p.zadd(keys.live, members), must=False))
        self.writer.push(Item(lambda p: p.set(keys.node(me), b"1", px=2 * lease), must=False))

    def _renewed(self, rid: str, result: Any) -> None:
        owner = self.owned.get(rid)
        if result == 0:
            self.abandon(rid, "the lease went to another process")
        elif result == -1 and owner is not None:
            owner.reseed()

    async def _sweep(self) -> None:
        """Take over rooms whose owner stopped renewing (a dead process, or all of them restarted)."""
        try:
            now = time.time() * 1000
            raw = await self.store.run(lambda c: c.zrangebyscore(self.keys.live, "-inf", now, start=0, num=32))
        except DOWN:
            return
        rids = [r.decode() for r in raw if r.decode() not in self.owned]
        random.shuffle(rids)
        for rid in rids:
            await self.claim(rid)

    def _retry(self, now: float) -> None:
        for rid, rep in list(self.replicas.items()):
            if rep.pending and rep.resend() and rid not in self.owned:
                self.spawn(self._claim_if_free(rid))
        for wait in list(self.joins.values()):
            if now - wait.sent > 1.0 and not wait.fut.done():
                wait.sent = now
                self.send_command(wait.rid, wait.msg)
                if wait.rid not in self.owned:
                    self.spawn(self._claim_if_free(wait.rid))

    def _beat(self, now: float) -> None:
        """After a burst, say where each log ends: a replica that lost the burst's last publish heals."""
        for rid, owner in self.owned.items():
            if owner.committed != owner.beat_n and now - owner.last_commit > 0.2:
                owner.beat_n = owner.committed
                self.publish_out(rid, {"x": "hb", "n": owner.committed})

    async def _check_holders(self) -> None:
        """Seats held by connections on a process that died are free: their players get the grace."""
        held = {(rid, s.index, s.holder) for rid, o in self.owned.items() for s in o.room.seats
                if s.holder is not None and not s.holder.startswith(self.inst + "/")}
        insts = sorted({h.split("/")[0] for _, _, h in held})
        if not insts:
            return
        try:
            alive = await self.store.run(lambda c: _exists_each(c, [self.keys.node(i) for i in insts]))
        except DOWN:
            return
        dead = {i for i, ok in zip(insts, alive, strict=True) if not ok}
        for rid, seat, holder in held:
            owner = self.owned.get(rid)
            if owner is not None and holder.split("/")[0] in dead:
                owner.room.release(seat, holder)

    def _collect(self, now: float) -> None:
        for rep in list(self.replicas.values()):
            if rep.idle() and now - rep.idle_since > REPLICA_IDLE_S:
                rep.close(1001, "idle")

    def _reconnected(self) -> None:
        """Pub/sub came back: what was published meanwhile is lost, so look for gaps and resend."""
        for owner in self.owned.values():
            owner.announce()
        for rep in list(self.replicas.values()):
            self.spawn(self._verify(rep))

    async def _verify(self, rep: Replica) -> None:
        with contextlib.suppress(*DOWN):
            if await self.store.log_head(rep.rid) > rep.n:
                rep.heal()
        rep.resend(all_of_them=True)

    def _came_back(self) -> None:
        """Redis answers again: renew at once, so owners keep their rooms before anyone sweeps."""
        if self._ticker is not None:
            self._renew()
        self.spawn(self.sub.catch_up())


def _renew(lease_key: str, room_key: str, me: str, lease_ms: int, pipe: Any) -> None:
    pipe.eval(RENEW, 2, lease_key, room_key, me, lease_ms)


def _release(lease_key: str, me: str, pipe: Any) -> None:
    pipe.eval(RELEASE, 1, lease_key, me)


async def _exists_each(c: Any, keys: list[str]) -> list[bool]:
    pipe = c.pipeline(transaction=False)
    for k in keys:
        pipe.exists(k)
    return [bool(x) for x in await pipe.execute()]
