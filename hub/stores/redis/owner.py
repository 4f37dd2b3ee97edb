"""The owner's side of a room shared through Redis: every change is logged before anyone sees it.

The room (hub.tables.room) stays the authoritative actor; this journal sits where its deltas would have
gone. Each change becomes one log entry, appended (with a fencing check on the lease) and published
by one script; only then do this process's connections get the deltas, and the action's ack. The
room takes the next command only when its last entry is in the log, so its state is never more than
one change ahead of what Redis holds, and a lost lease or a failed append loses nothing that was
acknowledged.

An entry holds what the engine needs to replay the change (the action and its seat, or the join) and
what the hub itself contributed (status, deadline, the deadline's phase, every audience's seq after
it) plus each changed audience's delta as the msgpack bytes that the connections receive. So any
process can rebuild the room from a snapshot and the entries after it (engines are deterministic),
and any process can serve any audience's exact (view, seq) at any entry without running the engine.

The entry and snapshot formats are hub/tables/persist.py's, shared with the SQLite store.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from hub.logs import log
from hub.stores.commits import CommitLine
from hub.stores.redis.server import Item
from hub.tables.arbitration import Judgement
from hub.tables.chat import ChatRefused, clean_text
from hub.tables.frames import Encoded
from hub.tables.persist import Restored, record_of, snapshot_of
from hub.tables.room import Room
from hub.tables.seat import FINISHED, WAITING, RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.metrics import Metrics
    from hub.settings import Settings
    from hub.stores.redis.server import Server
    from hub.stores.redis.writer import Writer
    from hub.tables.rooms import Rooms


class Abandons(Protocol):
    def abandon(self, rid: str, why: str) -> None: ...


class Host(Protocol):
    """The process's Redis store (hub/stores/redis/store.py), as the journal of an owned room sees it."""

    settings: Settings
    metrics: Metrics
    rooms: Rooms
    inst: str
    server: Server
    writer: Writer

    @property
    def own(self) -> Abandons: ...

    def publish_out(self, rid: str, msg: dict[str, Any] | bytes) -> None: ...
    def answer(self, rid: str, aid: str, msg: dict[str, Any]) -> None: ...
    def answer_join(self, rx: str, jid: str, seat: int | None = None,
                    error: tuple[str, str, int] | None = None) -> None: ...
    def index(self, room: Room) -> None: ...
    def delivered(self, rid: str, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]]) -> None: ...

logger = logging.getLogger("hub.stores.redis.owner")

#: Chosen here: the owner -> edge -> owner hops through Redis. 10 ms (a quiet LAN) refused grabs that a
#: loaded hub relayed a few tens of ms late; 50 ms costs a contest nobody grabs that much, no more.
RELAY_MS = 50.0
RECENT = 2048              # action and join ids remembered for idempotence (kept in snapshots)
PLAYING_TTL_S = 24 * 3600  # chosen here: a room nobody touches for a day is gone


def ttl_ms(room: Room) -> int:
    s = room.settings
    if room.status == FINISHED:
        return int(s.finished_ttl_s * 1000)
    if room.status == WAITING:
        return int(s.waiting_ttl_s * 1000)
    return PLAYING_TTL_S * 1000


def tokens_json(room: Room) -> str:
    return json.dumps([s.token_hash for s in room.seats])


class Reply:
    """How a refused forwarded action is answered: through the log's order, to the process that sent it."""

    __slots__ = ("owner", "aid")

    def __init__(self, owner: Owner, aid: str) -> None:
        self.owner, self.aid = owner, aid

    def error(self, act_id: Any, code: str, message: str) -> None:
        self.owner.store.answer(self.owner.rid, self.aid,
                                 {"x": "err", "aid": self.aid, "code": code, "message": message})

    def send_frame(self, frame: dict[str, Any]) -> None:  # acks travel with the log entry instead
        pass


class Owner(CommitLine):
    """The journal of one room this process owns."""

    def __init__(self, store: Host, room: Room, n: int, recent: list[Any]) -> None:
        super().__init__(room, n)
        self.store = store
        self.committed = n            # the last entry known to be in the log
        self.recent: OrderedDict[str, int] = OrderedDict((str(k), int(v)) for k, v in recent)
        self.rx: dict[str, str] = {}  # join id -> the process waiting for its answer
        self.last_commit = 0.0
        self.beat_n = n
        self._contest: str | None = None  # the open contest the edges were told of
        self.reseeding = False
        self.flying: list[tuple[int, dict[str, Any], list[tuple[str, Encoded]], bytes]] = []
        self.unlogged: dict[int, bytes] = {}  # entries recorded, not yet known to be in the log
        room.journal = self
        if room.contests is not None:  # the judged times travel edge -> owner: allow for the hops
            room.contests.params = dataclasses.replace(room.contests.params, relay_ms=RELAY_MS)

    # ---- commands from any process -------------------------------------------------------------

    def handle(self, msg: Any) -> None:
        if self.gone or not isinstance(msg, dict):
            return
        k = msg.get("k")
        if k == "act":
            self.command(partial(self._act, msg))
        elif k == "join":
            self.command(partial(self._join, msg))
        elif k == "say":
            self.command(partial(self._say, msg))
        elif k == "hold":
            self._hold(msg)
        elif k == "watch":
            n, inst = msg.get("n"), msg.get("h")
            if isinstance(n, int) and n >= 0 and isinstance(inst, str) and self.room.people.watched_from(inst, n):
                self.presence_changed()  # the lobby's listing reads the count from the room's meta
        elif k == "free":
            seat = msg.get("s")
            if isinstance(seat, int) and 0 <= seat < len(self.room.seats):
                self.room.people.release(seat, msg.get("h"))
        elif k == "grab":
            self._grab(msg)
        elif k == "written" and self.room.contests is not None and isinstance(msg.get("s"), int):
            cap = msg.get("cap")
            self.room.contests.written_remote(str(msg.get("cid")), msg["s"],
                                              float(cap) if isinstance(cap, (int, float)) else None)

    def _act(self, msg: dict[str, Any]) -> None:
        aid = str(msg.get("aid"))
        done = self.recent.get(aid)
        if done is not None:  # a retry of an action already in the log: ack it, apply nothing
            self.store.answer(self.rid, aid, {"x": "ack", "aid": aid, "n": done})
            return
        seat = msg.get("s")
        if not isinstance(seat, int) or not 0 <= seat < len(self.room.seats):
            return
        seq = msg.get("q")
        self.room.submit(seat, msg.get("a"), conn=Reply(self, aid),
                         seq=seq if isinstance(seq, int) else None, aid=aid)

    def _say(self, msg: dict[str, Any]) -> None:
        """A chat line forwarded by the process that holds the speaker's socket (it checked the text
        and the rate); checked again here, since its line goes into the log as it is."""
        aid = str(msg.get("aid"))
        done = self.recent.get(aid)
        if done is not None:  # a retry of a line already in the log
            self.store.answer(self.rid, aid, {"x": "ack", "aid": aid, "n": done})
            return
        seat, name, text = msg.get("s"), msg.get("nm"), msg.get("tx")
        reply = Reply(self, aid)
        if (seat is not None and not isinstance(seat, int)) or not isinstance(text, str) \
                or (name is not None and not isinstance(name, str)):
            reply.error(None, "bad_message", "a chat line needs a text")
            return
        try:
            text = clean_text(text, self.store.settings.chat_max_chars)
        except ChatRefused as e:
            reply.error(None, e.code, e.message)
            return
        self.room.say(seat, name, text, conn=reply, aid=aid)

    def _join(self, msg: dict[str, Any]) -> None:
        jid, rx = str(msg.get("jid")), str(msg.get("rx"))
        done = self.recent.get(jid)
        if done is not None:
            self.store.answer_join(rx, jid, seat=done)
            return
        seat = msg.get("s")
        try:
            self.room.join(str(msg.get("nm")), seat if isinstance(seat, int) else None,
                           token_hash=str(msg.get("th")), jid=jid, bot=msg.get("bt") is True)
        except RoomError as e:
            self.store.answer_join(rx, jid, error=(e.code, e.message, e.status))
            return
        self.rx[jid] = rx  # answered once the join's entry is in the log

    def _hold(self, msg: dict[str, Any]) -> None:
        seat, holder = msg.get("s"), msg.get("h")
        if not isinstance(seat, int) or not 0 <= seat < len(self.room.seats) or not isinstance(holder, str):
            return
        current = self.room.seats[seat].holder
        if msg.get("re") and current not in (None, holder):
            return  # a periodic refresh never takes a seat from a newer connection
        old = self.room.people.hold(seat, holder)
        if old is not None and old != holder:  # a new connection took the seat: the old one goes (4009)
            self.store.publish_out(self.rid, {"x": "tk", "s": seat, "h": holder})

    def _grab(self, msg: dict[str, Any]) -> None:
        """A try judged by the edge that holds the socket (hub.stores.redis.edge_contests): the owner only compares."""
        aid, runner, seat = str(msg.get("aid")), self.room.contests, msg.get("s")
        refused: str | None = "late"
        if runner is not None and isinstance(seat, int):
            judgement = Judgement(float(msg.get("r", 0.0)), float(msg.get("c", 0.0)),
                                  bool(msg.get("fs")), bool(msg.get("late")), bool(msg.get("b")),
                                  bool(msg.get("kb")))
            refused = runner.submit_judged(str(msg.get("cid")), seat, judgement)
        if refused == "late":
            late_ms = max(1, round(runner.late_ms)) if runner is not None else 1
            self.store.answer(self.rid, aid, {"x": "err", "aid": aid, "code": "too_late", "late_by_ms": late_ms,
                                               "message": f"the contest closed {late_ms} ms before this grab"})
        else:
            self.store.answer(self.rid, aid, {"x": "gack", "aid": aid})

    def event(self, frame: Encoded) -> None:
        """An event frame for every connection of the room, in order with the log's entries."""
        self.store.publish_out(self.rid, {"x": "ev", "b": frame.get("msgpack")})

    def after(self, fn: Callable[[], None]) -> None:
        """No socket watches an owned room directly (they watch its relays): nothing to wait for."""
        fn()

    def contest(self, open_contest: Any) -> None:
        """Tell the edges when a contest opens (right behind the entry that shows its card) or ends."""
        cid = None if open_contest is None else open_contest.cid
        if cid == self._contest:
            return
        if self._contest is not None:
            self.store.publish_out(self.rid, {"x": "contest", "op": "close", "cid": self._contest})
        self._contest = cid
        if open_contest is not None:
            c = open_contest.contest
            self.store.publish_out(self.rid, {
                "x": "contest", "op": "open", "cid": cid, "kind": c.kind, "info": dict(c.info),
                "eligible": list(c.eligible), "commit": open_contest.arbiter.commit,
                "window_ms": open_contest.arbiter.params.window_ms})

    # ---- the journal (hub.tables.room.Journal) --------------------------------------------------------

    def record(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> None:
        e = self.entry(cause, changed)
        if e is None:
            return
        room, n, entry, blob, finished_now = self.room, e.n, e.entry, e.blob, e.finished_now
        ident = entry.get("aid") or entry.get("jid")
        if ident is not None:
            self._remember(str(ident), n if entry.get("aid") is not None else int(entry["s"]))
        meta = json.dumps(room.meta()) if entry["k"] in ("join", "start") or finished_now else ""
        tokens = tokens_json(room) if entry["k"] == "join" else ""
        b, server, me, ttl = self.store, self.store.server, self.store.inst, ttl_ms(room)
        lease = b.settings.lease_ms
        self.inflight += 1
        self.unlogged[n] = blob
        started = time.perf_counter()
        b.writer.push(Item(lambda p: server.commit(p, me, self.rid, n, blob, meta, tokens, ttl, lease),
                           partial(self._committed, n, entry, changed, started, blob)))
        if n % max(1, b.settings.snapshot_every) == 0 or finished_now:
            self.snapshot()

    def presence_changed(self) -> None:
        if self.gone:
            return
        meta = json.dumps(self.room.meta())
        key = self.store.server.keys.room(self.rid)
        self.store.writer.push(Item(lambda p: p.hset(key, "meta", meta), must=False))

    def _remember(self, ident: str, value: int) -> None:
        self.recent[ident] = value
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)

    def _committed(self, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]],
                   started: float, blob: bytes, result: Any) -> None:
        if self.gone:
            return
        if result in (-1, -2) or self.reseeding:  # Redis lost the room (a restart without its data), or
            # the entry before this one (scripts.COMMIT says how)
            self.flying.append((n, entry, changed, blob))
            self.reseed()
            return
        self.inflight -= 1
        if result not in (1, 2):
            self.store.own.abandon(self.rid, f"another process holds the room ({result!r:.80})")
            return
        self._done(n, entry, changed, started)

    def _done(self, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]], started: float) -> None:
        b = self.store
        b.metrics.log_appends.inc()
        b.metrics.commit_seconds.observe(time.perf_counter() - started)
        self.committed = n
        self.unlogged.pop(n, None)
        self.last_commit = time.monotonic()
        b.delivered(self.rid, n, entry, changed)
        jid = entry.get("jid")
        if jid is not None:
            b.answer_join(self.rx.pop(jid, b.inst), jid, seat=int(entry["s"]))
        self.drain()

    def reseed(self) -> None:
        """Write the room back from memory after Redis lost it: record, lease and a snapshot of the
        room as it stands, behind whatever was queued, and the entries that were on their way,
        into the log (hub.stores.redis.scripts.RESEED says why). What this process holds was all
        there was, acknowledged or not; those entries count as logged once it is written."""
        if self.reseeding:
            return
        self.reseeding = True
        log(logger, logging.WARNING, "room missing from Redis; writing it back", room=self.rid, n=self.n)
        room, b = self.room, self.store
        rec, meta, tokens = record_of(room, epoch_ms()), json.dumps(room.meta()), tokens_json(room)
        snap, server, me, ttl, lease = self.snapshot_blob(), b.server, b.inst, ttl_ms(room), b.settings.lease_ms
        entries = sorted(self.unlogged.items())
        b.writer.push(Item(lambda p: server.reseed(p, me, self.rid, lease, rec, meta, tokens, snap, ttl, entries),
                           self._reseeded))

    def _reseeded(self, result: Any) -> None:
        if self.gone:
            return
        self.reseeding = False
        if result != 1:
            self.store.own.abandon(self.rid, f"could not be written back ({result!r:.80})")
            return
        self.store.index(self.room)
        flying, self.flying = sorted(self.flying, key=lambda t: t[0]), []
        for n, entry, changed, _ in flying:  # published by the script, in the log's order
            self.inflight -= 1
            self._done(n, entry, changed, time.perf_counter())

    def snapshot(self) -> None:
        """Queue a snapshot of the room as it is now, right after entry `n` (behind that entry)."""
        blob, n, tokens = self.snapshot_blob(), self.n, tokens_json(self.room)
        b, server, me, ttl = self.store, self.store.server, self.store.inst, ttl_ms(self.room)
        b.writer.push(Item(lambda p: server.snapshot(p, me, self.rid, blob, ttl, n, tokens)))

    def snapshot_blob(self) -> bytes:
        return snapshot_of(self.room, self.n, [[k, v] for k, v in self.recent.items()])

    def announce(self) -> None:
        """Tell every process that this one owns the room now: they resend what went unanswered."""
        self.store.publish_out(self.rid, {"x": "own", "by": self.store.inst, "n": self.committed})


def create(store: Host, room: Room) -> tuple[Owner, asyncio.Future[bool]]:
    """Own a room just made by the lobby: its lease, record and first snapshot go to Redis first."""
    owner = Owner(store, room, 0, [])
    fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    rec, meta, tokens = record_of(room, epoch_ms()), json.dumps(room.meta()), tokens_json(room)
    snap = owner.snapshot_blob()
    server, me, rid, ttl = store.server, store.inst, room.rid, ttl_ms(room)
    lease = store.settings.lease_ms

    def done(result: Any) -> None:
        owner.inflight -= 1
        if not fut.done():
            fut.set_result(result == 1)
        if result == 1:
            owner.drain()

    owner.inflight += 1
    store.writer.push(Item(lambda p: server.create(p, me, rid, lease, rec, meta, tokens, snap, ttl), done))
    store.index(room)
    return owner, fut


def take_up(store: Host, restored: Restored) -> Owner:
    """The journal of a room rebuilt from Redis (hub.tables.persist), ready to own it."""
    return Owner(store, restored.room, restored.n, restored.recent[-RECENT:])
