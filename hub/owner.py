"""The owner's side of a room shared through Redis: every change is logged before anyone sees it.

The room (hub.room) stays the authoritative actor; this journal sits where its deltas would have
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

Entry keys: `n` (1, 2, ...), `k` (`act`, `join`, `start`, `sync`), `s` seat, `a` action, `by`, `aid`
(the action id the edge process gave the act frame, for idempotence), `nm`/`th`/`jid` (a join's name,
token hash and join id), `st` status, `dl` deadline, `dp` deadline phase, `q` {audience: seq},
`d` {audience: delta bytes}, `ts` epoch ms.
"""
from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import pickle
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import jsonpatch
import msgpack

from hub.arbitration import Judgement
from hub.broker.store import Item
from hub.codec import Encoded
from hub.logs import log
from hub.room import FINISHED, PLAYING, WAITING, Room, RoomError, epoch_ms
from rules.registry import GAMES

if TYPE_CHECKING:
    from hub.broker.redis import RedisBroker

logger = logging.getLogger("hub.owner")

#: Chosen here: the owner -> edge -> owner hops through Redis. 10 ms (a quiet LAN) refused grabs that a
#: loaded hub relayed a few tens of ms late; 50 ms costs a contest nobody grabs that much, no more.
RELAY_MS = 50.0
RECENT = 2048              # action and join ids remembered for idempotence (kept in snapshots)
PLAYING_TTL_S = 24 * 3600  # chosen here: a room nobody touches for a day is gone


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def ttl_ms(room: Room) -> int:
    s = room.settings
    if room.status == FINISHED:
        return int(s.finished_ttl_s * 1000)
    if room.status == WAITING:
        return int(s.waiting_ttl_s * 1000)
    return PLAYING_TTL_S * 1000


def deadline_phase(room: Room) -> list[Any] | None:
    dp = room._deadline_phase  # noqa: SLF001 - the journal logs the room's timer state with each change
    return None if dp is None else [dp[0], sorted(dp[1])]


def tokens_json(room: Room) -> str:
    return json.dumps([s.token_hash for s in room.seats])


def record_of(room: Room, created_ms: int) -> bytes:
    return pack({"game": room.game.id, "seats": len(room.seats), "options": room.options,
                 "hub_options": room.hub_options, "seed": room.seed,
                 "bots": [s.index for s in room.seats if s.bot], "created": created_ms})


class Reply:
    """How a refused forwarded action is answered: through the log's order, to the process that sent it."""

    __slots__ = ("owner", "aid")

    def __init__(self, owner: Owner, aid: str) -> None:
        self.owner, self.aid = owner, aid

    def error(self, act_id: Any, code: str, message: str) -> None:
        self.owner.broker.answer(self.owner.rid, self.aid,
                                 {"x": "err", "aid": self.aid, "code": code, "message": message})

    def send_frame(self, frame: dict[str, Any]) -> None:  # acks travel with the log entry instead
        pass


class Owner:
    """The journal of one room this process owns."""

    def __init__(self, broker: RedisBroker, room: Room, n: int, recent: list[Any]) -> None:
        self.broker = broker
        self.room = room
        self.rid = room.rid
        self.n = n                    # the last entry recorded
        self.committed = n            # the last entry known to be in the log
        self.inflight = 0
        self.inbox: deque[Callable[[], None]] = deque()
        self.recent: OrderedDict[str, int] = OrderedDict((str(k), int(v)) for k, v in recent)
        self.rx: dict[str, str] = {}  # join id -> the process waiting for its answer
        self.gone = False
        self.last_commit = 0.0
        self.beat_n = n
        self._status = room.status
        self._contest: str | None = None  # the open contest the edges were told of
        self.reseeding = False
        self.flying: list[tuple[int, dict[str, Any], list[tuple[str, Encoded]], bytes]] = []
        room.journal = self
        if room.contests is not None:  # the judged times travel edge -> owner: allow for the hops
            room.contests.params = dataclasses.replace(room.contests.params, relay_ms=RELAY_MS)

    @property
    def busy(self) -> bool:
        return self.inflight > 0

    # ---- commands from any process -------------------------------------------------------------

    def handle(self, msg: Any) -> None:
        if self.gone or not isinstance(msg, dict):
            return
        k = msg.get("k")
        if k == "act":
            self.command(partial(self._act, msg))
        elif k == "join":
            self.command(partial(self._join, msg))
        elif k == "hold":
            self._hold(msg)
        elif k == "free":
            seat = msg.get("s")
            if isinstance(seat, int) and 0 <= seat < len(self.room.seats):
                self.room.release(seat, msg.get("h"))
        elif k == "grab":
            self._grab(msg)
        elif k == "written" and self.room.contests is not None and isinstance(msg.get("s"), int):
            cap = msg.get("cap")
            self.room.contests.written_remote(str(msg.get("cid")), msg["s"],
                                              float(cap) if isinstance(cap, (int, float)) else None)

    def command(self, fn: Callable[[], None]) -> None:
        """Run a command now, or once the room's last change is in the log."""
        if self.busy or self.inbox:
            self.inbox.append(fn)
        else:
            fn()

    def _drain(self) -> None:
        while self.inbox and not self.busy and not self.gone:
            self.inbox.popleft()()

    def _act(self, msg: dict[str, Any]) -> None:
        aid = str(msg.get("aid"))
        done = self.recent.get(aid)
        if done is not None:  # a retry of an action already in the log: ack it, apply nothing
            self.broker.answer(self.rid, aid, {"x": "ack", "aid": aid, "n": done})
            return
        seat = msg.get("s")
        if not isinstance(seat, int) or not 0 <= seat < len(self.room.seats):
            return
        seq = msg.get("q")
        self.room.submit(seat, msg.get("a"), conn=Reply(self, aid),
                         seq=seq if isinstance(seq, int) else None, aid=aid)

    def _join(self, msg: dict[str, Any]) -> None:
        jid, rx = str(msg.get("jid")), str(msg.get("rx"))
        done = self.recent.get(jid)
        if done is not None:
            self.broker.answer_join(rx, jid, seat=done)
            return
        seat = msg.get("s")
        try:
            self.room.join(str(msg.get("nm")), seat if isinstance(seat, int) else None,
                           token_hash=str(msg.get("th")), jid=jid)
        except RoomError as e:
            self.broker.answer_join(rx, jid, error=(e.code, e.message, e.status))
            return
        self.rx[jid] = rx  # answered once the join's entry is in the log

    def _hold(self, msg: dict[str, Any]) -> None:
        seat, holder = msg.get("s"), msg.get("h")
        if not isinstance(seat, int) or not 0 <= seat < len(self.room.seats) or not isinstance(holder, str):
            return
        current = self.room.seats[seat].holder
        if msg.get("re") and current not in (None, holder):
            return  # a periodic refresh never takes a seat from a newer connection
        old = self.room.hold(seat, holder)
        if old is not None and old != holder:  # a new connection took the seat: the old one goes (4009)
            self.broker.publish_out(self.rid, {"x": "tk", "s": seat, "h": holder})

    def _grab(self, msg: dict[str, Any]) -> None:
        """A try judged by the edge that holds the socket (hub.edge_contests): the owner only compares."""
        aid, runner, seat = str(msg.get("aid")), self.room.contests, msg.get("s")
        refused: str | None = "late"
        if runner is not None and isinstance(seat, int):
            judgement = Judgement(float(msg.get("r", 0.0)), float(msg.get("c", 0.0)),
                                  bool(msg.get("fs")), bool(msg.get("late")))
            refused = runner.submit_judged(str(msg.get("cid")), seat, judgement)
        if refused == "late":
            self.broker.answer(self.rid, aid, {"x": "err", "aid": aid, "code": "illegal",
                                               "message": "the contest is closed"})
        else:
            self.broker.answer(self.rid, aid, {"x": "gack", "aid": aid})

    def event(self, frame: Encoded) -> None:
        """An event frame for every connection of the room, in order with the log's entries."""
        self.broker.publish_out(self.rid, {"x": "ev", "b": frame.get("msgpack")})

    def contest(self, open_contest: Any) -> None:
        """Tell the edges when a contest opens (right behind the entry that shows its card) or ends."""
        cid = None if open_contest is None else open_contest.cid
        if cid == self._contest:
            return
        if self._contest is not None:
            self.broker.publish_out(self.rid, {"x": "contest", "op": "close", "cid": self._contest})
        self._contest = cid
        if open_contest is not None:
            c = open_contest.contest
            self.broker.publish_out(self.rid, {
                "x": "contest", "op": "open", "cid": cid, "kind": c.kind, "info": dict(c.info),
                "eligible": list(c.eligible), "commit": open_contest.arbiter.commit,
                "window_ms": open_contest.arbiter.params.window_ms})

    # ---- the journal (hub.room.Journal) --------------------------------------------------------

    def record(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> None:
        if self.gone or (cause is None and not changed):
            return
        room = self.room
        self.n += 1
        n = self.n
        entry: dict[str, Any] = {k: v for k, v in (cause or {"k": "sync"}).items() if v is not None}
        entry.update(n=n, st=room.status, dl=room.deadline, dp=deadline_phase(room),
                     q={key: aud.seq for key, aud in room.audiences.items()},
                     d={key: enc.get("msgpack") for key, enc in changed}, ts=epoch_ms())
        blob = pack(entry)
        ident = entry.get("aid") or entry.get("jid")
        if ident is not None:
            self._remember(str(ident), n if entry["k"] == "act" else int(entry["s"]))
        finished_now = room.status == FINISHED and self._status != FINISHED
        self._status = room.status
        meta = json.dumps(room.meta()) if entry["k"] in ("join", "start") or finished_now else ""
        tokens = tokens_json(room) if entry["k"] == "join" else ""
        b, store, me, ttl = self.broker, self.broker.store, self.broker.inst, ttl_ms(room)
        lease = b.settings.lease_ms
        self.inflight += 1
        started = time.perf_counter()
        b.writer.push(Item(lambda p: store.commit(p, me, self.rid, n, blob, meta, tokens, ttl, lease),
                           partial(self._committed, n, entry, changed, started, blob)))
        if n % max(1, b.settings.snapshot_every) == 0 or finished_now:
            self.snapshot()

    def presence_changed(self) -> None:
        if self.gone:
            return
        meta = json.dumps(self.room.meta())
        key = self.broker.store.keys.room(self.rid)
        self.broker.writer.push(Item(lambda p: p.hset(key, "meta", meta), must=False))

    def _remember(self, ident: str, value: int) -> None:
        self.recent[ident] = value
        while len(self.recent) > RECENT:
            self.recent.popitem(last=False)

    def _committed(self, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]],
                   started: float, blob: bytes, result: Any) -> None:
        if self.gone:
            return
        if result == -1 or self.reseeding:  # Redis lost the room (a restart without persistence)
            self.flying.append((n, entry, changed, blob))
            self.reseed()
            return
        self.inflight -= 1
        if result not in (1, 2):
            self.broker.own.abandon(self.rid, f"another process holds the room ({result!r:.80})")
            return
        self._done(n, entry, changed, started)

    def _done(self, n: int, entry: dict[str, Any], changed: list[tuple[str, Encoded]], started: float) -> None:
        b = self.broker
        b.metrics.log_appends.inc()
        b.metrics.commit_seconds.observe(time.perf_counter() - started)
        self.committed = n
        self.last_commit = time.monotonic()
        b.delivered(self.rid, n, entry, changed)
        jid = entry.get("jid")
        if jid is not None:
            b.answer_join(self.rx.pop(jid, b.inst), jid, seat=int(entry["s"]))
        self._drain()

    def reseed(self) -> None:
        """Write the room back from memory after Redis lost it: record, lease and a snapshot of the
        room as it stands, behind whatever was queued. What this process holds was all there was,
        acknowledged or not; the entries that were on their way go out once it is written."""
        if self.reseeding:
            return
        self.reseeding = True
        log(logger, logging.WARNING, "room missing from Redis; writing it back", room=self.rid, n=self.n)
        room, b = self.room, self.broker
        rec, meta, tokens = record_of(room, epoch_ms()), json.dumps(room.meta()), tokens_json(room)
        snap, store, me, ttl, lease = self.snapshot_blob(), b.store, b.inst, ttl_ms(room), b.settings.lease_ms
        b.writer.push(Item(lambda p: store.create(p, me, self.rid, lease, rec, meta, tokens, snap, ttl),
                           self._reseeded))

    def _reseeded(self, result: Any) -> None:
        if self.gone:
            return
        self.reseeding = False
        if result != 1:
            self.broker.own.abandon(self.rid, f"could not be written back ({result!r:.80})")
            return
        self.broker.index(self.room)
        flying, self.flying = sorted(self.flying, key=lambda t: t[0]), []
        for n, entry, changed, blob in flying:
            self.inflight -= 1
            self.broker.publish_out(self.rid, blob)
            self._done(n, entry, changed, time.perf_counter())

    def snapshot(self) -> None:
        """Queue a snapshot of the room as it is now, right after entry `n` (behind that entry)."""
        blob, n, tokens = self.snapshot_blob(), self.n, tokens_json(self.room)
        b, store, me, ttl = self.broker, self.broker.store, self.broker.inst, ttl_ms(self.room)
        b.writer.push(Item(lambda p: store.snapshot(p, me, self.rid, blob, ttl, n, tokens)))

    def snapshot_blob(self) -> bytes:
        room = self.room
        finished_ts = None
        if room.finished_at is not None:
            finished_ts = epoch_ms() - int((time.monotonic() - room.finished_at) * 1000)
        return pack({"v": 1, "n": self.n, "state": pickle.dumps(room.state, protocol=pickle.HIGHEST_PROTOCOL),
                     "status": room.status, "deadline": room.deadline, "dp": deadline_phase(room),
                     "actions": room.actions, "finished_ts": finished_ts,
                     "seats": [[s.name, s.token_hash, s.bot] for s in room.seats],
                     "aud": {key: [aud.seq, aud.view] for key, aud in room.audiences.items()},
                     "log": [[seat, action] for seat, action in room.log],
                     "recent": [[k, v] for k, v in self.recent.items()], "ts": epoch_ms()})

    def announce(self) -> None:
        """Tell every process that this one owns the room now: they resend what went unanswered."""
        self.broker.publish_out(self.rid, {"x": "own", "by": self.broker.inst, "n": self.committed})


def create(broker: RedisBroker, room: Room) -> tuple[Owner, asyncio.Future[bool]]:
    """Own a room just made by the lobby: its lease, record and first snapshot go to Redis first."""
    owner = Owner(broker, room, 0, [])
    fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    rec, meta, tokens = record_of(room, epoch_ms()), json.dumps(room.meta()), tokens_json(room)
    snap = owner.snapshot_blob()
    store, me, rid, ttl = broker.store, broker.inst, room.rid, ttl_ms(room)
    lease = broker.settings.lease_ms

    def done(result: Any) -> None:
        owner.inflight -= 1
        if not fut.done():
            fut.set_result(result == 1)
        if result == 1:
            owner._drain()  # noqa: SLF001

    owner.inflight += 1
    broker.writer.push(Item(lambda p: store.create(p, me, rid, lease, rec, meta, tokens, snap, ttl), done))
    broker.index(room)
    return owner, fut


class Corrupt(Exception):
    """The log does not follow on from the snapshot (or an entry no longer applies)."""


def restore(broker: RedisBroker, rid: str, rec_b: bytes, snap_b: bytes,
            entries: list[tuple[int, bytes]]) -> Owner:
    """Rebuild a room from its record, latest snapshot and the log entries after it."""
    rec, snap = unpack(rec_b), unpack(snap_b)
    game = GAMES[rec["game"]]
    room = Room.__new__(Room)
    room._fields(broker.rooms, rid, game, int(rec["seats"]), rec["options"], rec["hub_options"],  # noqa: SLF001
                 int(rec["seed"]))
    room.state = pickle.loads(snap["state"])  # noqa: S301 - written by our own processes only
    for seat, (name, th, bot) in zip(room.seats, snap["seats"], strict=True):
        seat.name, seat.token_hash, seat.bot = name, th, bool(bot)
    room.status, room.deadline, room.actions = snap["status"], snap["deadline"], int(snap["actions"])
    room.log = [(seat, action) for seat, action in snap.get("log") or []]
    room._deadline_phase = None if snap["dp"] is None else (snap["dp"][0], frozenset(snap["dp"][1]))  # noqa: SLF001
    views: dict[str, list[Any]] = {k: [int(v[0]), v[1]] for k, v in snap["aud"].items()}
    finished_ts = snap.get("finished_ts")
    recent = list(snap.get("recent") or [])
    n = int(snap["n"])
    for en, blob in entries:
        if en != n + 1:
            raise Corrupt(f"room {rid}: the log jumps from {n} to {en}")
        e = unpack(blob)
        replay(room, e, views)
        if e.get("aid") is not None:
            recent.append([e["aid"], en])
        if e.get("jid") is not None:
            recent.append([e["jid"], int(e["s"])])
        if e["st"] == FINISHED and finished_ts is None:
            finished_ts = int(e["ts"])
        n = en
    for key, aud in room.audiences.items():
        aud.seq, aud.view = views[key]
        if aud.seat is not None and aud.view is not None:
            aud.legal_at.append((aud.seq, aud.view.get("legal") or []))
    now_ms, mono = epoch_ms(), time.monotonic()
    room.created = mono - max(0, now_ms - int(rec.get("created", now_ms))) / 1000
    if finished_ts is not None:
        room.finished_at = mono - max(0, now_ms - int(finished_ts)) / 1000
    return Owner(broker, room, n, recent[-RECENT:])


def replay(room: Room, e: dict[str, Any], views: dict[str, list[Any]]) -> None:
    """Apply one log entry to a room being rebuilt: the engine's part, the hub's part, the views."""
    k = e["k"]
    if k == "act":
        try:
            room.game.apply(room.state, e.get("s"), dict(e["a"]))
        except Exception as err:
            raise Corrupt(f"room {room.rid}: entry {e['n']} no longer applies: {err!r}") from err
        room.log.append((e.get("s"), e["a"]))
        room.actions += 1
    elif k == "join":
        seat = room.seats[int(e["s"])]
        seat.name, seat.token_hash = e["nm"], e["th"]
    room.status, room.deadline = e["st"], e["dl"]
    room._deadline_phase = None if e["dp"] is None else (e["dp"][0], frozenset(e["dp"][1]))  # noqa: SLF001
    for key, delta in e["d"].items():
        seq = int(e["q"][key])
        cur = views[key]
        if seq != cur[0] + 1:
            raise Corrupt(f"room {room.rid}: audience {key} goes from seq {cur[0]} to {seq}")
        views[key] = [seq, jsonpatch.apply_patch(cur[1], unpack(delta)["ops"])]


def activate(owner: Owner) -> None:
    """Start a rebuilt room's clocks: bots and timers resume here; absent players get their grace."""
    room = owner.room
    rooms = room.rooms
    if room.status == PLAYING:
        for s in room.seats:
            if not s.bot:
                s.dropped_at = time.monotonic()
                rooms.loop_call_later(room.settings.grace_s, room._grace_over, s.index)  # noqa: SLF001
        if room.deadline is not None:
            wait = max(0.0, (room.deadline - epoch_ms()) / 1000)
            room._deadline_handle = rooms.loop_call_later(wait, room._deadline_passed)  # noqa: SLF001
    elif room.status == FINISHED and room.finished_at is not None:
        left = room.settings.finished_ttl_s - (time.monotonic() - room.finished_at)
        rooms.loop_call_later(max(0.0, left), room.drop_if_held)
    room.refresh()  # normally changes nothing; schedules the bots
    log(logger, logging.INFO, "room taken over", room=room.rid, n=owner.n, status=room.status,
        seqs={k: a.seq for k, a in room.audiences.items()})
