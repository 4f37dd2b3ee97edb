"""The edge's side of a room shared through Redis: this process's connections to it, and their views.

A replica never runs the engine. It follows the room's log entries, as the owner publishes them or
as it reads them back, and relays each audience's delta bytes to its own connections: msgpack
connections get the owner's bytes as they are, JSON connections get text made once per process. It
keeps each audience's (view, seq) and recent deltas so a hello or a resume is served here, with
nothing missed or doubled: an entry that does not follow the last one (pub/sub dropped a message)
sends the replica back to the log for the missing ones before it goes on.

Actions from its connections go to the owner with an action id (`<process>:<n>`) and are acked when
the entry carrying that id arrives: the ack always follows the deltas it caused, and a retry after a
fail-over with the same id is acked without being applied twice.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgpack

from hub.logs import log
from hub.stores.redis.edge_contests import EdgeContests
from hub.stores.redis.follower import Follower
from hub.stores.redis.server import DOWN
from hub.tables.audience import audience_key
from hub.tables.chat import ChatLog, deliver
from hub.tables.contests import now_ms, too_late
from hub.tables.frames import Encoded
from hub.tokens import matches
from rules.engine import declares_contests
from rules.registry import GAMES

if TYPE_CHECKING:
    from hub.metrics import Metrics
    from hub.settings import Settings
    from hub.stores.redis.owner import Owner
    from hub.stores.redis.server import Server
    from hub.tables.peer import Peer
    from hub.tables.room import Room


class Host(Protocol):
    """The process's Redis store (hub/stores/redis/store.py), as the relay of a room sees it."""

    settings: Settings
    metrics: Metrics
    server: Server

    inst: str

    def send_command(self, rid: str, msg: dict[str, Any]) -> None: ...
    def holder_id(self, conn: Peer) -> str: ...
    def next_id(self) -> str: ...
    def forget(self, rep: Replica) -> None: ...

logger = logging.getLogger("hub.stores.redis.replica")

CLOSE_TAKEN_OVER, CLOSE_NO_ROOM, CLOSE_RESYNC = 4009, 4004, 1012
#: A change in the count of a relay's spectators is told to the owner this long after it.
WATCH_TELL_S = 0.25


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


@dataclass
class Pending:
    conn: Peer | None
    act_id: int | None
    msg: dict[str, Any]
    sent: float
    tries: int = 0
    ack_at: int | None = None          # acked by a retry: answer once entry `ack_at` is relayed here
    extra: dict[str, Any] = field(default_factory=dict)


class Replica:
    def __init__(self, store: Host, rid: str, game: str, n: int, status: str,
                 audiences: dict[str, Follower], tokens: list[str | None],
                 chat: Iterable[dict[str, Any]] = ()) -> None:
        self.store = store
        self.chat = ChatLog(store.settings.chat_history, chat)  # the lines kept, from the log
        self.rid = rid
        self.game = game
        self.n = n
        self.status = status
        self.audiences = audiences
        self.tokens = tokens
        self.holders: dict[int, Peer] = {}
        self.told_watchers = 0  # the count of this process's spectators the owner was last told
        self.watch_due: asyncio.TimerHandle | None = None
        self.pending: dict[str, Pending] = {}
        self.early: list[tuple[int, dict[str, Any], dict[str, Encoded]]] = []
        self.healing: asyncio.Task[None] | None = None
        self.idle_since = time.monotonic()
        self.gone = False
        game_def = GAMES.get(game)
        self.contests = EdgeContests(self) if game_def is not None and declares_contests(game_def) else None

    # ---- making one ----------------------------------------------------------------------------

    @classmethod
    def from_snapshot(cls, store: Host, rid: str, rec: bytes, tokens: bytes | None,
                      snap: bytes) -> Replica:
        r, s = unpack(rec), unpack(snap)
        history = store.settings.delta_history
        auds = {}
        for seat in [None, *range(int(r["seats"]))]:
            key = audience_key(seat)
            seq, view = s["aud"][key]
            auds[key] = Follower(seat, history, int(seq), view)
        toks = json.loads(tokens) if tokens else [x[1] for x in s["seats"]]
        return cls(store, rid, str(r["game"]), int(s["n"]), str(s["status"]), auds, toks, s.get("chat") or [])

    @classmethod
    def from_owner(cls, store: Host, owner: Owner) -> Replica:
        """The owner's own audiences as they stand, when its last change is in the log: no reads."""
        return cls.from_room(store, owner.room, owner.n)

    @classmethod
    def from_room(cls, store: Host, room: Room, n: int) -> Replica:
        """A room's audiences as they stand after entry `n` (this process's own, or one rebuilt)."""
        history = store.settings.delta_history
        auds = {key: Follower(a.seat, history, a.seq, a.view, list(a.history)) for key, a in room.audiences.items()}
        return cls(store, room.rid, room.game.id, n, room.status, auds, [s.token_hash for s in room.seats],
                   list(room.chat.lines))

    # ---- the log, as it comes --------------------------------------------------------------------

    def on_out(self, data: bytes) -> None:
        """A message on the room's channel (or an entry read back from the log)."""
        msg = unpack(data)
        if not isinstance(msg, dict):
            return
        if "n" in msg and "k" in msg:
            deltas = {k: Encoded.packed(v) for k, v in msg.get("d", {}).items()}
            self.on_entry(int(msg["n"]), msg, deltas)
        else:
            self.on_message(msg)

    def on_entry(self, n: int, entry: dict[str, Any], deltas: dict[str, Encoded]) -> None:
        if self.gone or n <= self.n:
            return
        if self.healing is not None or n != self.n + 1:
            self.early.append((n, entry, deltas))
            self.heal()
            return
        self._apply(n, entry, deltas)

    def _apply(self, n: int, entry: dict[str, Any], deltas: dict[str, Encoded]) -> None:
        q = entry.get("q", {})
        for key, delta in deltas.items():
            aud = self.audiences.get(key)
            if aud is None or not aud.push(int(q[key]), delta):
                self.resync(f"audience {key} does not follow on at entry {n}")
                return
        if entry.get("k") == "join":
            self.tokens[int(entry["s"])] = entry.get("th")
        elif entry.get("k") == "chat" and isinstance(entry.get("ln"), dict):
            self.chat.add(entry["ln"])
            deliver(self.audiences.values(), entry["ln"])
        self.status = str(entry.get("st", self.status))
        self.n = n
        aid = entry.get("aid")
        if aid is not None:
            self._ack(str(aid))
        for aid2, p in list(self.pending.items()):
            if p.ack_at is not None and p.ack_at <= n:
                self._ack(aid2)

    def _ack(self, aid: str) -> None:
        p = self.pending.pop(aid, None)
        if p is not None and p.conn is not None and p.act_id is not None:
            p.conn.send_frame({"t": "ack", "id": p.act_id})

    def on_message(self, msg: dict[str, Any]) -> None:
        x = msg.get("x")
        if x == "err":
            p = self.pending.pop(str(msg.get("aid")), None)
            if p is not None and p.conn is not None:
                late = msg.get("late_by_ms")
                if isinstance(late, int):
                    too_late(p.conn, p.act_id, late)
                else:
                    p.conn.error(p.act_id, str(msg.get("code")), str(msg.get("message")))
        elif x == "ack":
            p = self.pending.get(str(msg.get("aid")))
            if p is not None:
                want = int(msg.get("n") or 0)
                if want <= self.n:
                    self._ack(str(msg.get("aid")))
                else:
                    p.ack_at = want
                    self.heal()
        elif x in ("own", "hb"):
            if int(msg.get("n") or 0) > self.n:
                self.heal()
            if x == "own":
                self.resend(all_of_them=True)
        elif x == "tk":
            seat, holder = msg.get("s"), msg.get("h")
            conn = self.holders.get(seat) if isinstance(seat, int) else None
            if conn is not None and self.store.holder_id(conn) != holder:
                del self.holders[seat]  # type: ignore[arg-type]
                for aud in self.audiences.values():
                    aud.conns.discard(conn)
                conn.close(CLOSE_TAKEN_OVER, "taken over by a new connection")
        elif x == "gack":  # a grab that arrived in time and will be judged
            self._ack(str(msg.get("aid")))
        elif x == "ev":
            enc = Encoded.packed(msg["b"])
            shown = now_ms()  # a contest's close is stamped before its result leaves, never after
            for aud in self.audiences.values():
                aud.broadcast((enc,))
            if self.contests is not None:
                self.contests.event(enc.frame, shown)
        elif x == "contest" and self.contests is not None:
            self.contests.remote(msg)
        elif x == "gone":
            self.close(CLOSE_NO_ROOM, "the room is gone")

    def heal(self) -> None:
        """Fetch the entries this replica missed from the log, then go on with what came meanwhile."""
        if self.healing is None and not self.gone:
            self.healing = asyncio.create_task(self._heal())

    async def _heal(self) -> None:
        self.store.metrics.gap_heals.inc()
        try:
            for attempt in range(50):
                try:
                    entries = await self.store.server.read_log(self.rid, self.n + 1)
                except DOWN:
                    await asyncio.sleep(min(2.0, 0.1 * (attempt + 1)))
                    continue
                progressed = True
                while progressed and not self.gone:  # the log's entries and those that came early, in turn
                    progressed = False
                    for en, blob in entries:
                        if en == self.n + 1:
                            e = unpack(blob)
                            self._apply(en, e, {k: Encoded.packed(v) for k, v in e.get("d", {}).items()})
                            progressed = True
                    self.early.sort(key=lambda t: t[0])
                    while self.early and self.early[0][0] <= self.n + 1 and not self.gone:
                        n, entry, deltas = self.early.pop(0)
                        if n == self.n + 1:
                            self._apply(n, entry, deltas)
                            progressed = True
                if entries and entries[-1][0] > self.n and not self.gone:
                    # The log holds entries past this replica but not the next one: Redis lost it
                    # with its data, and the owner wrote the room back from later on. It will never
                    # come: resync now, not after fifty tries (nor never, with nothing else owed).
                    self.resync(f"the log no longer holds the entries this replica missed (has {self.n}, "
                                f"read {entries[0][0]}..{entries[-1][0]})")
                    return
                if self.gone or not (self.early or self._owed()):
                    return
                await asyncio.sleep(0.05)  # published but not yet readable? (never, but do not spin)
            self.resync("the log does not hold the entries this replica missed")
        finally:
            self.healing = None

    def _owed(self) -> bool:
        """An ack names an entry this replica has not got: the log must hold it, so the heal goes
        on until it comes (it used to stop when nothing had come early, and the action's seat
        waited in silence for whatever entry came next)."""
        return any(p.ack_at is not None and p.ack_at > self.n for p in self.pending.values())

    def resync(self, why: str) -> None:
        """The relay cannot go on without a gap: its connections reconnect and resume elsewhere."""
        log(logger, logging.WARNING, "replica resyncs", room=self.rid, why=why)
        self.close(CLOSE_RESYNC, "resync: reconnect and resume")

    def close(self, code: int, reason: str) -> None:
        self.gone = True
        if self.watch_due is not None:
            self.watch_due.cancel()
            self.watch_due = None
        for aud in self.audiences.values():
            for conn in list(aud.conns):
                conn.close(code, reason)
            aud.release()
        self.holders.clear()
        self.store.forget(self)

    # ---- connections (hub.stores.base.Target) -------------------------------------------------------

    async def authenticate(self, token: str) -> int | None:
        seat = self._match(token)
        if seat is None:  # a join on another process that this one has not seen yet
            try:
                raw = await self.store.server.run(lambda c: c.hget(self.store.server.keys.room(self.rid), "tokens"))
            except DOWN:
                return None
            if raw:
                fresh = json.loads(raw)
                self.tokens = [t if t is not None else old for t, old in zip(fresh, self.tokens, strict=False)]
            seat = self._match(token)
        return seat

    def _match(self, token: str) -> int | None:
        found = None
        for i, h in enumerate(self.tokens):
            if h is not None and matches(token, h):
                found = i
        return found

    def in_turn(self, answer: Callable[[], None]) -> None:
        """Answers to actions come from the owner, through the log; a ping is not held behind them."""
        answer()

    def attach(self, conn: Peer, seat: int | None, resume: int | None, chat_after: int | None = None) -> None:
        aud = self.audiences[audience_key(seat)]
        if seat is not None:
            old = self.holders.get(seat)
            self.holders[seat] = conn
            if old is not None and old is not conn:
                aud.conns.discard(old)
                old.close(CLOSE_TAKEN_OVER, "taken over by a new connection")
            self.store.send_command(self.rid, {"k": "hold", "s": seat, "h": self.store.holder_id(conn)})
        for frame in aud.welcome(self.rid, self.game, resume):
            conn.send(frame)
        history = self.chat.history(seat, chat_after)
        if history is not None:
            conn.send_frame(history)
        aud.conns.add(conn)
        if seat is None:
            self.watchers_moved()
        if self.contests is not None:
            self.contests.attached(conn, seat)

    def detach(self, conn: Peer) -> None:
        for aud in self.audiences.values():
            aud.conns.discard(conn)
        if conn.seat is None:
            self.watchers_moved()
        seat = conn.seat
        if seat is not None and self.holders.get(seat) is conn:
            del self.holders[seat]
            self.store.send_command(self.rid, {"k": "free", "s": seat, "h": self.store.holder_id(conn)})
        for p in self.pending.values():
            if p.conn is conn:
                p.conn = None
        if not any(aud.conns for aud in self.audiences.values()):
            self.idle_since = time.monotonic()

    def submit(self, seat: int | None, action: Any, conn: Any = None, act_id: int | None = None,
               seq: int | None = None, by: str = "player", aid: str | None = None) -> bool:
        self.forward(conn, act_id, {"k": "act", "s": seat, "a": action, "q": seq})
        return True

    def say(self, seat: int | None, name: str | None, text: str, conn: Peer | None = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        """To the owner, like an action: acked once its entry is relayed here (after its event)."""
        self.forward(conn, say_id, {"k": "say", "s": seat, "nm": name, "tx": text})
        return True

    def forward(self, conn: Peer | None, act_id: int | None, msg: dict[str, Any]) -> None:
        """Send a command to the owner under a fresh action id; its answer goes back to `conn`."""
        aid = self.store.next_id()
        msg["aid"] = aid
        self.pending[aid] = Pending(conn, act_id, msg, time.monotonic())
        self.store.send_command(self.rid, msg)

    def resend(self, all_of_them: bool = False, older_than: float = 1.0) -> bool:
        """Send again what the owner has not answered (lost, or the owner died); True if any is old."""
        now = time.monotonic()
        stuck = False
        for p in list(self.pending.values()):
            if p.ack_at is not None:
                continue
            if all_of_them or now - p.sent > older_than:
                stuck = stuck or now - p.sent > 2 * older_than
                p.sent, p.tries = now, p.tries + 1
                self.store.send_command(self.rid, p.msg)
        if all_of_them:
            self.hold_all()
        return stuck

    def hold_all(self) -> None:
        """Tell the owner again which seats this process's connections hold (it may be a new owner),
        and how many of its connections watch."""
        for seat, conn in self.holders.items():
            self.store.send_command(self.rid, {"k": "hold", "s": seat, "h": self.store.holder_id(conn), "re": True})
        if self.told_watchers or self.watchers():
            self._tell_watchers()

    def watchers(self) -> int:
        return len(self.audiences[audience_key(None)].conns)

    def watchers_moved(self) -> None:
        """Every connection of a room on Redis is a relay's, the owner's own process included, so the
        owner learns how many watch from each relay: once a moment after the count moves (a burst
        of spectators is one message), and again with the seats' periodic holds, so that a relay
        that died is forgotten (hub.tables.room.REMOTE_WATCH_S)."""
        if self.watch_due is None and not self.gone:
            self.watch_due = asyncio.get_running_loop().call_later(WATCH_TELL_S, self._tell_watchers)

    def _tell_watchers(self) -> None:
        if self.watch_due is not None:
            self.watch_due.cancel()
            self.watch_due = None
        if self.gone:
            return
        self.told_watchers = self.watchers()
        self.store.send_command(self.rid, {"k": "watch", "n": self.told_watchers, "h": self.store.inst})

    def idle(self) -> bool:
        return not self.pending and not any(aud.conns for aud in self.audiences.values())
