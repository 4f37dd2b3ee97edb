"""Rooms shared through Redis: any process takes any connection and any lobby call.

Each room has one owner process, holding an expiring lease (`hub:{rid}:lease`) that it renews every
third of its length. The owner runs the room (hub.tables.room + hub.stores.redis.owner): commands reach it on the room's
`in` channel, or directly when they arise here; every change goes to the room's log before it goes
out on the `out` channel. Every process with connections to the room keeps a replica (hub.stores.redis.replica)
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
import secrets
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import msgpack
from redis.exceptions import RedisError

from hub.logs import log
from hub.metrics import Metrics
from hub.settings import Settings
from hub.stores.base import Finished, Store, Target, finished_of, no_room, not_finished, unavailable
from hub.stores.quota import SeatQuota
from hub.stores.redis import again
from hub.stores.redis import owner as owning
from hub.stores.redis.keys import valid_rid
from hub.stores.redis.ownership import JoinWait, Ownership, release_one
from hub.stores.redis.pubsub import Subscriber
from hub.stores.redis.quota import RedisSeatQuota
from hub.stores.redis.replica import Replica
from hub.stores.redis.server import DOWN, Item, Server
from hub.stores.redis.writer import Writer
from hub.tables import persist, replay
from hub.tables.frames import Encoded
from hub.tables.listing import info_of, listable, summary_of
from hub.tables.persist import Restored
from hub.tables.room import Room
from hub.tables.seat import FINISHED, RoomError
from hub.tokens import hash_token, new_token

if TYPE_CHECKING:
    from hub.tables.peer import Peer

logger = logging.getLogger("hub.stores.redis")

LISTING_MAX = 500          # chosen here: the lobby lists the newest public rooms, not every one ever made
JOIN_TIMEOUT_S = 10.0




def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


class RedisStore(Store):
    kind = "redis"

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        super().__init__(settings, metrics)
        # the name an operator gives, made unique to this process: two processes started with one
        # name (a restart while the old one still holds leases, a copy-pasted unit) would otherwise
        # both pass each other's lease checks and write one room's log from two diverging states
        self.inst = f"{settings.instance}.{secrets.token_hex(4)}" if settings.instance else secrets.token_hex(6)
        self.server = Server(settings.redis, settings.redis_prefix, metrics)
        self.keys = self.server.keys
        self.writer = Writer(self.server)
        self.own = Ownership(self)
        self.sub = Subscriber(self.server, self.own.reconnected)
        self.owned: dict[str, owning.Owner] = {}
        self.replicas: dict[str, Replica] = {}
        self.joins: dict[str, JoinWait] = {}
        self._booting: dict[str, list[bytes]] = {}
        self._enter_locks: dict[str, asyncio.Lock] = {}
        self.claiming: set[str] = set()
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.ticker: asyncio.Task[None] | None = None
        self.stopping = False
        self.rooms.on_drop = self.own.dropped
        self.server.on_up.append(self.own.came_back)
        metrics.broker_up.set(0)
        metrics.redis_up.set(0)

    def seat_quota(self, joins_per_min: int, seats: int) -> SeatQuota:
        """One count per address for every process on this Redis (hub/stores/redis/quota.py)."""
        return RedisSeatQuota(self.server, self.settings.redis_prefix, joins_per_min, seats)

    # ---- life ----------------------------------------------------------------------------------

    @property
    def up(self) -> bool:
        return self.server.healthy

    async def start(self) -> None:
        await super().start()
        self.writer.start()
        node, alive_ms = self.keys.node(self.inst), 2 * self.settings.lease_ms
        try:
            # Say this process is alive before it serves anyone: an owner that finds a seat held by
            # one of its connections looks for this key (Ownership._check_holders), and without it
            # took the first seconds' holders for a dead process's and freed their seats.
            await self.server.run(lambda c: c.set(node, b"1", px=alive_ms))
        except DOWN as e:
            log(logger, logging.WARNING, "redis is not answering yet; retrying", error=repr(e)[:200])
        await self.sub.subscribe(self.keys.rx(self.inst), self._on_rx)
        self.ticker = asyncio.create_task(self.own.tick())

    async def stop(self) -> None:
        """Hand every room back: leases released at once, so another process takes them right away."""
        self.stopping = True
        if self.ticker is not None:
            self.ticker.cancel()
        keys, me = self.keys, self.inst
        for rid, owner in list(self.owned.items()):
            owner.gone = True
            self.rooms.rooms.pop(rid, None)
            owner.room.close()
            self.writer.push(Item(partial(release_one, keys.lease(rid), me), must=False))
        if self.owned:
            orphans = dict.fromkeys(self.owned, 0)
            self.writer.push(Item(lambda p: p.zadd(keys.live, orphans), must=False))
        self.owned.clear()
        await self.writer.stop()
        self.sub.close()
        for t in list(self._tasks):
            t.cancel()
        await super().stop()
        if self.server.client is not None:
            with contextlib.suppress(Exception):
                await self.server.client.aclose()

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(self._guarded(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, coro: Any) -> None:
        """A background step (a sweep, a claim, a check of holders, a resubscription): a Redis that
        is away or refusing is counted and logged once where it was met (Server), and the next step
        of the clock tries again; nothing is left for asyncio to report as never retrieved."""
        try:
            await coro
        except DOWN:
            pass
        except RedisError as e:
            log(logger, logging.WARNING, "a background redis call failed", error=repr(e)[:200])
        except Exception:  # noqa: BLE001 - a bug: said, and the clock goes on
            logger.exception("a background task failed")

    def next_id(self) -> str:
        return f"{self.inst}:{next(self._ids)}"

    def holder_id(self, conn: Peer) -> str:
        return f"{self.inst}/{conn.serial}"

    def go_deaf(self, seconds: float) -> None:
        """Test hook (--debug-hooks): drop every pub/sub message for a while, as a lossy network would."""
        self.sub.deaf_until = asyncio.get_running_loop().time() + seconds

    # ---- the lobby -----------------------------------------------------------------------------

    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str,
                     again: bool = False) -> dict[str, Any]:
        if not self.server.healthy:
            raise unavailable()
        room = self.rooms.build(game, seats, options, bots, ip, again=again)
        owner, created = owning.create(self, room)
        rid = room.rid
        self.owned[rid] = owner
        self.rooms.rooms[rid] = room
        try:
            await self.sub.subscribe(self.keys.inbox(rid), partial(self.on_in, rid))
            ok = await asyncio.wait_for(created, 5)
        except TimeoutError:
            ok = False
        if not ok:
            self.own.abandon(rid, "could not be written to Redis")
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
            rids = [r.decode() for r in await self.server.run(lambda c: c.zrange(self.keys.index, -LISTING_MAX, -1))]
            metas = await self.server.metas(rids)
        except DOWN:
            raise unavailable() from None
        out, gone = [], []
        for rid, (raw, nxt) in zip(rids, metas, strict=True):
            if raw is None:
                gone.append(rid)
            elif listable(meta := json.loads(raw)):
                entry = summary_of(meta)
                if entry["status"] == FINISHED:
                    entry["next_room"] = nxt.decode() if nxt else None
                out.append(entry)
        if gone:
            keys = self.keys
            self.writer.push(Item(lambda p: p.zrem(keys.index, *gone), must=False))
        return out

    async def info(self, rid: str) -> dict[str, Any] | None:
        owner = self.owned.get(rid)
        if owner is not None:
            return await self.with_next(rid, owner.room.info())
        if not valid_rid(rid):
            return None
        try:
            raw = await self.server.run(lambda c: c.hget(self.keys.room(rid), "meta"))
        except DOWN:
            raise unavailable() from None
        return await self.with_next(rid, info_of(json.loads(raw)) if raw else None)

    # ---- play again: the link is a field of the finished room's hash, so every process sees it ----

    async def finished(self, rid: str) -> Finished | None:
        owner = self.owned.get(rid)
        if owner is not None:
            return finished_of(owner.room)
        return await again.finished(self.server, rid)

    async def next_of(self, rid: str) -> str | None:
        return await again.next_of(self.server, rid)

    async def link_next(self, rid: str, make: Callable[[], Awaitable[str]]) -> str:
        return await again.link_next(self.server, rid, make)

    async def join(self, rid: str, name: str, seat: int | None, bot: bool = False,
                   token_hash: str | None = None) -> tuple[int, str]:
        """The token is made here and only its hash travels: no plain token is ever in Redis."""
        if rid not in self.owned and await self.info(rid) is None:
            raise no_room()
        token = new_token() if token_hash is None else ""
        jid = self.next_id()
        msg = {"k": "join", "jid": jid, "nm": name, "s": seat, "th": token_hash or hash_token(token),
               "rx": self.inst, "bt": bot}
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
            restored = await self.load_room(rid)
        except DOWN:
            raise unavailable() from None
        if restored is None:
            return None
        shadow = owning.take_up(self, restored)
        shadow.gone = True  # read only: it never writes, runs nothing, and is dropped at once
        if shadow.room.status != FINISHED:
            raise not_finished()
        return replay.build(shadow.room)

    async def load_room(self, rid: str) -> Restored | None:
        """A room as Redis holds it: its latest snapshot and the log after it, or, when the snapshot
        cannot be read, its record and the whole log (hub.tables.persist). None when there is none."""
        rec, _, snap = await self.server.read_room(rid)
        if rec is None or snap is None:
            return None
        first = persist.snapshot_n(snap) + 1
        entries = await self.server.read_log(rid, first)
        try:
            return persist.restore(self.rooms, rid, rec, snap, entries)
        except persist.Unreadable as e:
            log(logger, logging.WARNING, "snapshot refused; rebuilding the room from its log", room=rid,
                why=str(e)[:200])
            self.metrics.snapshots_refused.inc()
            return persist.rebuild(self.rooms, rid, rec, entries if first == 1 else await self.server.read_log(rid, 1))

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
                rec, tokens, snap = await self.server.read_room(rid)
                if rec is None or snap is None:
                    self._booting.pop(rid, None)
                    await self.sub.unsubscribe(channel)
                    return None
                if persist.readable(snap):
                    rep = Replica.from_snapshot(self, rid, rec, tokens, snap)
                    for _, blob in await self.server.read_log(rid, rep.n + 1):
                        rep.on_out(blob)
                else:  # a snapshot this hub cannot read: follow the room as its log rebuilds it
                    restored = await self.load_room(rid)
                    if restored is None:
                        self._booting.pop(rid, None)
                        await self.sub.unsubscribe(channel)
                        return None
                    rep = Replica.from_room(self, restored.room, restored.n)
        except DOWN:
            self._booting.pop(rid, None)
            raise unavailable() from None
        early = self._booting.pop(rid, [])
        self.replicas[rid] = rep
        self.metrics.relayed.set(len(self.replicas))
        for data in early:
            rep.on_out(data)
        if rid not in self.owned:
            self.spawn(self.own.claim_if_free(rid))
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
        channel, data, server = self.keys.inbox(rid), pack(msg), self.server
        self.writer.push(Item(lambda p: server.publish(p, channel, data), must=False))

    def publish_out(self, rid: str, msg: dict[str, Any] | bytes) -> None:
        channel, data, server = self.keys.out(rid), msg if isinstance(msg, bytes) else pack(msg), self.server
        self.writer.push(Item(lambda p: server.publish(p, channel, data), must=False))

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
            channel, data, server = self.keys.rx(rx), pack(msg), self.server
            self.writer.push(Item(lambda p: server.publish(p, channel, data), must=False))

    def delivered(self, rid: str, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]]) -> None:
        """An entry this process owns is in the log: its own connections get it without a round trip."""
        rep = self.replicas.get(rid)
        if rep is not None:
            rep.on_entry(n, entry, dict(changed))

    def on_in(self, rid: str, data: bytes) -> None:
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
