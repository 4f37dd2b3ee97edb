"""The authoritative actor of one table.

Everything that changes a room runs to completion on the event loop without awaiting, so actions
are applied one at a time and the state needs no locks. After each change every audience's view is
recomputed, diffed and encoded once, then queued on its connections; an action's ack is queued after
the deltas it caused.
"""
from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import msgpack

from hub.logs import log
from hub.tables.audience import Audience, audience_key
from hub.tables.chat import SPECTATOR, TO_ALL, TO_SPECTATORS, ChatLog, deliver
from hub.tables.clock import Clock
from hub.tables.contests import ContestRunner
from hub.tables.delta import Shared
from hub.tables.frames import Encoded
from hub.tables.seat import BOT_NAMES, FINISHED, PLAYING, WAITING, RoomError, Seat, epoch_ms, epoch_ms_at
from hub.tokens import hash_token, matches, new_token
from rules.engine import Game, IllegalAction, declares_contests

if TYPE_CHECKING:
    from hub.tables.peer import Peer
    from hub.tables.table import House

#: `by` of an action a stand-in made for an absent player (metrics, the log entry, the replay)
STAND_IN = "stand_in"


class Replier(Protocol):
    """Who hears how an action went: a connection, or (with Redis) the process that forwarded it."""

    def error(self, act_id: Any, code: str, message: str) -> None: ...
    def send_frame(self, frame: dict[str, Any]) -> None: ...


class Journal(Protocol):
    """Where a room's changes go when they must be logged before anyone sees them (hub.stores.redis.owner)."""

    @property
    def busy(self) -> bool: ...

    def record(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> None: ...
    def presence_changed(self) -> None: ...
    def event(self, frame: Encoded) -> None: ...
    def contest(self, open_contest: Any) -> None: ...
    def after(self, fn: Callable[[], None]) -> None:
        """Run `fn` once what was recorded so far is shown to this process's connections."""

logger = logging.getLogger("hub.tables.room")

#: Another process's count of spectators stands this long after it last told it: three times the
#: period at which a relay says it again (hub.stores.redis.ownership.PRESENCE_S), so a process that
#: died stops counting.
REMOTE_WATCH_S = 15.0

#: Engine events the hub relays as `event` frames to every connection of a room, per game: only
#: kinds whose every field is public (docs/protocol.md). Waterfall Park's offers are public, and an
#: author must learn at once that an offer was declined, withdrawn, traded or voided.
RELAYED_EVENTS: dict[str, frozenset[str]] = {
    "waterfall_park": frozenset({"declined", "withdrawn", "trade", "void", "failed"}),
}

def keepable(action: Any) -> Any:
    """A private copy of an action for the replay log. Actions come from the network as any decoded
    value: one msgpack cannot hold (an integer past 64 bits from a JSON client) is refused here,
    before the engine sees it, rather than taking the connection down."""
    try:
        return msgpack.unpackb(msgpack.packb(action, use_bin_type=True), raw=False, strict_map_key=False)
    except (ValueError, TypeError, OverflowError):
        raise IllegalAction("bad_message", "the action holds a value out of range") from None


class Room:
    def __init__(self, rooms: House, rid: str, game: Game, seats: int, options: dict[str, Any],
                 hub_options: dict[str, Any], seed: int, bots: list[int]) -> None:
        self._fields(rooms, rid, game, seats, options, hub_options, seed)
        self.state: Any = game.setup(seats, seed, options)
        for b in bots:
            self.seats[b].name = BOT_NAMES[b % len(BOT_NAMES)]
            self.seats[b].bot = True
        self.refresh()
        if all(s.name is not None for s in self.seats):
            self.start()

    def _fields(self, rooms: House, rid: str, game: Game, seats: int, options: dict[str, Any],
                hub_options: dict[str, Any], seed: int) -> None:
        self.rooms = rooms
        self.settings = rooms.settings
        self.metrics = rooms.metrics
        self.rid = rid
        self.game = game
        self.options = options
        self.hub_options = hub_options
        self.seed = seed
        self.seats = [Seat(i) for i in range(seats)]
        self.status = WAITING
        self.created = time.monotonic()
        self.remote_watchers: dict[str, tuple[int, float]] = {}  # process -> (spectators, told at)
        # the next game of a finished room (play again): once the grace after it was made is over,
        # its free seats get bots (Rooms' tick, on the process holding it), so those who asked
        # are not kept waiting for those who did not; kept in the room's record
        self.again = False
        self.finished_at: float | None = None
        self.state = None
        self.audiences: dict[str, Audience] = {}
        for seat in [None, *range(seats)]:
            self.audiences[audience_key(seat)] = Audience(seat, self.settings.delta_history)
        self.deadline: int | None = None  # the spectators' deadline; each seat's own is in its view
        self.clock = Clock(self, float(hub_options.get("decision_seconds") or 0),
                           float(hub_options.get("bank_seconds") or 0))
        self._bot_handles: dict[int, asyncio.TimerHandle] = {}
        self.rng = random.Random(seed ^ 0x5EED)
        self.actions = 0
        self.log: list[tuple[int | None, dict[str, Any]]] = []  # every applied action, for replays
        # the actions (places in `log`) a stand-in made for an absent player, and how many per seat:
        # the table, the end screen and the replay say so rather than credit the absent with them
        self.stood_in: set[int] = set()
        self.stood_in_by_seat: list[int] = [0] * seats
        # timed contests, for games that declare them
        self.contests = ContestRunner(self) if declares_contests(game) else None
        self.journal: Journal | None = None  # None on the in-memory backend: changes go out at once
        self.abandoned = False  # ended because every human seated was away for --abandon-s
        self.alone_since: float | None = None  # monotonic time since when no human is connected
        self.chat = ChatLog(self.settings.chat_history)  # the last lines said at the table

    # ---- seats ---------------------------------------------------------------------------------

    @property
    def private(self) -> bool:
        return bool(self.hub_options.get("private"))

    def taken(self) -> int:
        return sum(1 for s in self.seats if s.name is not None)

    def join(self, name: str, seat: int | None, token_hash: str | None = None,
             jid: str | None = None, bot: bool = False) -> tuple[int, str]:
        """Seat a player; the token is made here unless the edge process made it and sent its hash.
        `bot`: a hub bot takes the seat (a next game's seat nobody asked for, after the grace)."""
        if self.status == FINISHED:
            raise RoomError("game_over", "this game has finished", 409)
        if seat is None:
            free = [s for s in self.seats if s.name is None]
            if not free:
                raise RoomError("room_full", "every seat is taken", 409)
            target = free[0]
        else:
            if not 0 <= seat < len(self.seats):
                raise RoomError("bad_seat", f"seat must be 0..{len(self.seats) - 1}", 400)
            target = self.seats[seat]
            if target.name is not None:
                raise RoomError("seat_taken", f"seat {seat} is taken", 409)
        token = new_token() if token_hash is None else ""
        target.name = name
        target.token_hash = hash_token(token) if token_hash is None else token_hash
        target.bot = bot
        # a player seated over HTTP is away until a connection holds the seat, like one who left
        target.dropped_at = None if bot else time.monotonic()
        log(logger, logging.INFO, "seat taken", room=self.rid, seat=target.index, bot=bot)
        self.refresh({"k": "join", "s": target.index, "nm": name, "th": target.token_hash, "jid": jid,
                      "bt": True if bot else None})
        if self.taken() == len(self.seats):
            self.start()
        return target.index, token

    def bots_for_free(self) -> None:
        """The grace after a next game was made is over: a seat nobody took (its player did not
        ask, and nobody came from the lobby) gets a hub bot."""
        self.again = False
        for s in self.seats:
            if s.name is None and self.status == WAITING:
                self.join(BOT_NAMES[s.index % len(BOT_NAMES)], s.index, bot=True)

    def seat_of(self, token: str) -> int | None:
        found = None
        for s in self.seats:
            # compare against every seat, so the time taken says nothing about which one matched
            if s.token_hash is not None and matches(token, s.token_hash):
                found = s.index
        return found

    def start(self) -> None:
        if self.status != WAITING:
            return
        self.status = PLAYING
        log(logger, logging.INFO, "room started", room=self.rid, game=self.game.id, seats=len(self.seats))
        # the game now waits for every seat: those whose players are not here get their grace from now
        for s in self.seats:
            if not s.bot and not s.here():
                self._dropped(s.index)
        self.refresh({"k": "start"})

    # ---- connections ---------------------------------------------------------------------------

    def attach(self, conn: Peer, seat: int | None, resume: int | None, chat_after: int | None = None) -> None:
        aud = self.audiences[audience_key(seat)]
        if seat is not None:
            s = self.seats[seat]
            old = s.conn
            s.conn = conn
            s.dropped_at = None
            if s.stand_in:
                s.stand_in = False
                self._cancel_bot(seat)
            if old is not None and old is not conn:
                aud.conns.discard(old)
                old.close(4009, "taken over by a new connection")
        for frame in aud.welcome(self.rid, self.game.id, resume):
            conn.send(frame)
        history = self.chat.history(seat, chat_after)
        if history is not None:
            conn.send_frame(history)
        aud.conns.add(conn)
        if seat is not None:  # after the welcome, so that the delta showing who is here follows it
            self.presence_moved()
        if self.contests is not None:
            self.contests.attached(conn, seat)

    def in_turn(self, answer: Callable[[], None]) -> None:
        """Everything submitted is answered at once here: nothing to wait for."""
        answer()

    async def authenticate(self, token: str) -> int | None:
        return self.seat_of(token)

    def detach(self, conn: Peer) -> None:
        for aud in self.audiences.values():
            aud.conns.discard(conn)
        seat = conn.seat
        if seat is not None and self.seats[seat].conn is conn:
            self.seats[seat].conn = None
            self._dropped(seat)
            self.presence_moved()

    def _dropped(self, seat: int) -> None:
        self.seats[seat].dropped_at = time.monotonic()
        if self.status == PLAYING:
            self.rooms.loop_call_later(self.settings.grace_s, self.grace_over, seat)

    def presence_moved(self) -> None:
        """Show who is here to every audience: a change of the views like any other (a journal logs
        it, so a replica shows the same). Seats only: a spectator coming or going changes no view,
        which would cost a delta to every connection of a watched table; the count of watchers is
        in the room's info and the lobby listing."""
        if self.status != FINISHED and self.rooms.rooms.get(self.rid) is self:
            self.refresh()

    def humans_here(self) -> bool:
        return any(s.here() for s in self.seats if not s.bot)

    def watchers(self) -> int:
        """This process's spectators, and those other processes relay (a store of many processes
        tells the room: `watched_from`), each process's count while it is fresh."""
        here = len(self.audiences[audience_key(None)].conns)
        if not self.remote_watchers:
            return here
        now = time.monotonic()
        for inst in [i for i, (_, at) in self.remote_watchers.items() if now - at > REMOTE_WATCH_S]:
            del self.remote_watchers[inst]
        return here + sum(n for n, _ in self.remote_watchers.values())

    def watched_from(self, inst: str, n: int) -> bool:
        """Process `inst` relays the room to `n` spectators (told again every few seconds); whether
        the count it had told before was another."""
        before = self.remote_watchers.get(inst, (0, 0.0))[0]
        if n:
            self.remote_watchers[inst] = (n, time.monotonic())
        else:
            self.remote_watchers.pop(inst, None)
        return n != before

    def presence(self) -> list[dict[str, Any]]:
        """Per seat: `here`, `away` (with `grace_until`, epoch ms, when the game waits for it), `bot`
        (a bot seat or a stand-in), or `empty`."""
        out: list[dict[str, Any]] = []
        for s in self.seats:
            if s.name is None:
                out.append({"presence": "empty"})
            elif s.bot or s.stand_in:
                out.append({"presence": "bot"})
            elif s.here():
                out.append({"presence": "here"})
            else:
                entry: dict[str, Any] = {"presence": "away"}
                if self.status == PLAYING and s.dropped_at is not None:
                    # from the moment kept, not from now: every view of a change says the same
                    entry["grace_until"] = epoch_ms_at(s.dropped_at + self.settings.grace_s)
                out.append(entry)
        return out

    def away_since(self, now: float) -> float | None:
        """Since when (monotonic) every human seated is away: the last of them left, or joined over
        HTTP and never connected; None while someone is here or nobody is seated."""
        if not self.deserted():
            return None
        return max((s.dropped_at for s in self.seats if s.name is not None and not s.bot and s.dropped_at is not None),
                   default=None)

    def gone(self, now: float) -> bool:
        """Whether every human seated has been away longer than the grace: a waiting room like this
        is not offered to newcomers."""
        since = self.away_since(now)
        return since is not None and now - since > self.settings.grace_s

    def abandoned_result(self, view: dict[str, Any]) -> dict[str, Any]:
        """The contract's result shape (winners, scores) for a game nobody finished: no winner, each
        seat's score as the view shows it (0 where it shows none), and `abandoned`."""
        players = {p.get("seat"): p for p in view.get("players") or [] if isinstance(p, dict)}
        scores = []
        for i in range(len(self.seats)):
            score = players.get(i, {}).get("score")
            scores.append(score if isinstance(score, int) and not isinstance(score, bool) else 0)
        return {"winners": [], "scores": scores, "abandoned": True}

    def abandon(self) -> None:
        """End a playing room nobody is at: its result says so, and its replay stays."""
        if self.status != PLAYING:
            return
        self.abandoned = True
        log(logger, logging.INFO, "room abandoned", room=self.rid, game=self.game.id, actions=self.actions)
        self._finish()
        self.refresh({"k": "abandon"})

    def hold(self, seat: int, holder: str) -> str | None:
        """With Redis: a connection on some process holds the seat now; returns the holder it replaced."""
        s = self.seats[seat]
        old, s.holder, s.dropped_at = s.holder, holder, None
        was_away = old is None or s.stand_in
        if s.stand_in:
            s.stand_in = False
            self._cancel_bot(seat)
        if old != holder and self.journal is not None:
            self.journal.presence_changed()
        if was_away:  # the views say who is here, on every process as in one
            self.presence_moved()
        return old

    def release(self, seat: int, holder: str | None = None) -> None:
        """With Redis: the seat's connection went away (`holder`, or whoever held it when None)."""
        s = self.seats[seat]
        if s.holder is None or (holder is not None and s.holder != holder):
            return
        s.holder = None
        self._dropped(seat)
        if self.journal is not None:
            self.journal.presence_changed()
        self.presence_moved()

    def grace_over(self, seat: int) -> None:
        s = self.seats[seat]
        if self.status != PLAYING or s.here() or s.dropped_at is None:
            return
        if time.monotonic() - s.dropped_at + 0.05 < self.settings.grace_s:
            return
        s.stand_in = True
        log(logger, logging.INFO, "a bot stands in for a dropped seat", room=self.rid, seat=seat)
        if self.journal is not None:
            self.journal.presence_changed()
        self.presence_moved()
        self._schedule_bots()

    def connected(self, seat: int) -> bool:
        return self.seats[seat].here()

    # ---- actions -------------------------------------------------------------------------------

    def submit(self, seat: int | None, action: Any, conn: Replier | None = None,
               act_id: int | None = None, seq: int | None = None, by: str = "player",
               aid: str | None = None) -> bool:
        """Apply one action for a seat (None = the hub itself); answer the connection that sent it.

        With a journal, the ack is not sent here: the log entry carries `aid`, the action id the
        edge process gave the act frame, and the edge acks once the entry is in the log.
        """
        code, message = self._refusal(seat, action)
        if code is None:
            started = time.perf_counter()
            try:
                kept = keepable(action)
                events = self.game.apply(self.state, seat, action)
            except IllegalAction as e:
                code, message = e.code, e.message
                if seat is not None and seq is not None and code in ("illegal", "not_your_turn"):
                    aud = self.audiences[audience_key(seat)]
                    if seq < aud.seq and aud.was_legal(seq, action):
                        code, message = "stale", "the game moved on before this action arrived"
            else:
                self.log.append((seat, kept))
                self.actions += 1
                if by == STAND_IN and seat is not None:
                    self.note_stood_in(len(self.log) - 1, seat)
                self.metrics.actions.labels(self.game.id, by).inc()
                self.refresh({"k": "act", "s": seat, "a": kept, "by": by, "aid": aid})
                self.relay_events(events)
                self.metrics.apply_seconds.observe(time.perf_counter() - started)
                if conn is not None and act_id is not None and self.journal is None:
                    conn.send_frame({"t": "ack", "id": act_id})
                return True
        if conn is not None:
            conn.error(act_id, code or "illegal", message)
        return False

    def _refusal(self, seat: int | None, action: Any) -> tuple[str | None, str]:
        if self.status == FINISHED:
            return "game_over", "the game is over"
        if self.status == WAITING:
            return "not_your_turn", "the game has not started: seats are still free"
        if not isinstance(action, dict):
            return "bad_message", "an action must be a map"
        if seat is not None and action.get("type") == "contest_result":
            return "unauthorized", "only the hub settles contests"
        return None, ""

    # ---- chat --------------------------------------------------------------------------------------

    def say(self, seat: int | None, name: str | None, text: str, conn: Replier | None = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        """A line said at the table, already checked (hub/tables/chat.py, `clean_text`). It changes
        no view; with a journal it is logged like any change, and goes out once it is in the log."""
        if seat is not None and not 0 <= seat < len(self.seats):
            if conn is not None:
                conn.error(say_id, "unauthorized", "no such seat")
            return False
        speaker = (self.seats[seat].name if seat is not None else name) or SPECTATOR
        apart = seat is None and self.hub_options.get("spectator_chat") == TO_SPECTATORS
        line = self.chat.new(seat, speaker, text, TO_SPECTATORS if apart else TO_ALL, self.actions, epoch_ms())
        self.metrics.chat_lines.inc()
        if self.journal is not None:
            self.journal.record({"k": "chat", "ln": line, "aid": aid}, [])
            return True
        deliver(self.audiences.values(), line)
        if conn is not None and say_id is not None:
            conn.send_frame({"t": "ack", "id": say_id})
        return True

    # ---- views and deltas ----------------------------------------------------------------------

    def compose(self, view: dict[str, Any], seat: int | None,
                presence: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The engine's view with the hub's parts. Kept as it is, without a copy: the engines build
        every view fresh, sharing no map or list with their state (tests/rules/test_views.py), so a
        later move cannot change a stored view under the next diff. The copy this replaced (a msgpack
        round trip per audience per change) was a quarter of a loaded hub's time. The views of one
        change may share what every audience sees alike (`Game.views`): what is set below on a
        player is the same for every audience."""
        players = view.get("players")
        if isinstance(players, list):
            for p in players:
                if isinstance(p, dict) and isinstance(p.get("seat"), int) and 0 <= p["seat"] < len(self.seats):
                    s = self.seats[p["seat"]]
                    p["name"] = s.name
                    p["bot"] = s.bot
                    if self.stood_in_by_seat[p["seat"]]:
                        p["stood_in"] = self.stood_in_by_seat[p["seat"]]
                    if self.clock.banked:
                        p["bank_ms"] = self.clock.bank_ms[p["seat"]]
        if isinstance(players, list) and self.status != FINISHED:  # a finished table waits for no one
            presence = self.presence() if presence is None else presence
            for p in players:
                if isinstance(p, dict) and isinstance(p.get("seat"), int) and 0 <= p["seat"] < len(self.seats):
                    p.update(presence[p["seat"]])
        if self.abandoned:
            view["abandoned"] = True
            view["result"] = self.abandoned_result(view)
        view["deadline"] = self.clock.deadline_for(seat)
        if self.status == WAITING:
            view["phase"] = "waiting"
            view["active"] = []
            view["legal"] = []
        return view

    def refresh(self, cause: dict[str, Any] | None = None) -> None:
        """Recompute every audience's view after a change and send what moved.

        `cause` says what changed (an action, a join, the start); a journal logs it with the deltas.
        """
        if self.status == PLAYING and not self.abandoned and self.game.result(self.state) is not None:
            self._finish()
        self._update_deadline()
        verify = self.settings.verify_deltas
        journal = self.journal
        changed: list[tuple[str, Encoded]] = []
        shared = Shared()
        auds = self._in_send_order(cause)
        views = self.game.views(self.state, [aud.seat for aud in auds])
        presence = self.presence()  # once: the views of a change may share their players' maps
        for aud, view in zip(auds, views, strict=True):
            delta = aud.update(self.compose(view, aud.seat, presence), verify, shared)
            if delta is not None:
                self.metrics.deltas.inc()
                self.metrics.delta_bytes.inc(len(delta.get("msgpack")))
                if journal is None:
                    aud.broadcast((delta,))
                else:
                    changed.append((aud.key, delta))
        if journal is not None:
            journal.record(cause, changed)
        if self.status == PLAYING:
            self._schedule_bots()
            if self.contests is not None:
                # a contest opens once the card is shown: its offers follow the delta that shows it
                if journal is None:
                    self.contests.check()
                else:
                    journal.after(self.contests.check)
        if journal is not None and self.contests is not None:  # edges offer contests to their sockets
            journal.contest(self.contests.open if self.status == PLAYING else None)

    def _in_send_order(self, cause: dict[str, Any] | None) -> list[Audience]:
        """The acting seat's audience last: every other connection's writer wakes, and so writes its
        delta, before the actor's, which carries the ack; when a player sees its ack, the others
        have been sent what the move changed."""
        auds = list(self.audiences.values())
        actor = cause.get("s") if cause is not None and cause.get("k") == "act" else None
        if isinstance(actor, int):
            key = audience_key(actor)
            auds.sort(key=lambda a: a.key == key)
        return auds

    def relay_events(self, events: Any) -> None:
        """What the engine says happened, as `event` frames after the deltas of the change, for the
        games whose events are public facts about a negotiation (RELAYED_EVENTS): a decline reaches
        the offer's author as a decline, not only as an offer gone from the view."""
        kinds = RELAYED_EVENTS.get(self.game.id)
        if not kinds or not isinstance(events, list):
            return
        for ev in events:
            if isinstance(ev, dict) and ev.get("kind") in kinds:
                self.send_event({**ev, "t": "event", "source": "game"})

    def send_event(self, frame: dict[str, Any]) -> None:
        enc = Encoded(frame)
        if self.journal is not None:
            self.journal.event(enc)
            return
        for aud in self.audiences.values():
            aud.broadcast((enc,))

    def _finish(self) -> None:
        self.status = FINISHED
        self.finished_at = time.monotonic()
        self.deadline = None
        self._cancel_deadline()
        for seat in list(self._bot_handles):
            self._cancel_bot(seat)
        log(logger, logging.INFO, "room finished", room=self.rid, game=self.game.id, actions=self.actions)
        self.rooms.loop_call_later(self.settings.finished_ttl_s, self.drop_if_held)

    def drop_if_held(self) -> None:
        """Drop this room, unless it is no longer the one this process holds under its id."""
        if self.rooms.rooms.get(self.rid) is self:
            self.rooms.drop(self.rid)

    # ---- timers --------------------------------------------------------------------------------

    def _update_deadline(self) -> None:
        """Decision times and banks live in hub.tables.clock; the room tells it what the game waits for."""
        if not self.clock.enabled:
            return
        active = frozenset(self.game.active(self.state)) if self.status == PLAYING else frozenset()
        if active:
            weight = getattr(self.game, "decision_weight", None)
            self.clock.update(active, self.game.view(self.state, None).get("phase"),
                              float(weight(self.state)) if callable(weight) else 1.0)
        else:
            self.clock.stop()
        self.deadline = self.clock.deadline_for(None)

    def _cancel_deadline(self) -> None:
        self.clock.stop()

    # ---- bots ----------------------------------------------------------------------------------

    def _plays_itself(self, seat: int) -> bool:
        """A bot's seat, or a stand-in's, while someone is at the table: a table whose humans have
        all gone waits for them (and ends as abandoned after --abandon-s) rather than being played
        out by bots in their names."""
        s = self.seats[seat]
        return (s.bot or s.stand_in) and not self.deserted()

    def deserted(self) -> bool:
        """Humans are seated and none of them is here."""
        return any(s.name is not None and not s.bot for s in self.seats) and not self.humans_here()

    def note_stood_in(self, index: int, seat: int) -> None:
        if index not in self.stood_in and 0 <= seat < len(self.stood_in_by_seat):
            self.stood_in.add(index)
            self.stood_in_by_seat[seat] += 1

    def _schedule_bots(self) -> None:
        delay = max(0, int(self.hub_options.get("bot_delay_ms", self.settings.bot_delay_ms))) / 1000
        for seat in self.game.active(self.state):
            if self._plays_itself(seat) and seat not in self._bot_handles and self.game.legal(self.state, seat):
                pause = delay * self.rng.uniform(0.6, 1.4) if delay else 0
                self._bot_handles[seat] = self.rooms.loop_call_later(pause, self._bot_move, seat)

    def drop_timers(self) -> None:
        """Cancel every timer the room holds (bots, the decision clock, an open contest): a room taken
        up from a store starts its own afresh (hub/tables/persist.py, `wake`)."""
        for seat in list(self._bot_handles):
            self._cancel_bot(seat)
        self.clock.adopt(None)
        if self.contests is not None:
            self.contests.close()

    def _cancel_bot(self, seat: int) -> None:
        h = self._bot_handles.pop(seat, None)
        if h is not None:
            h.cancel()

    def _bot_move(self, seat: int) -> None:
        self._bot_handles.pop(seat, None)
        if self.status != PLAYING or not self._plays_itself(seat):
            return
        if self.journal is not None and self.journal.busy:  # the last change is still being logged
            self._bot_handles[seat] = self.rooms.loop_call_later(0.01, self._bot_move, seat)
            return
        view = self.audiences[audience_key(seat)].view or {}
        action = self.game.bot_action(view, self.rng)
        if action is None:
            legal = self.game.legal(self.state, seat)
            action = legal[0] if legal else None
        if action is None:
            return
        by = "bot" if self.seats[seat].bot else STAND_IN
        if not self.submit(seat, action, by=by):
            legal = self.game.legal(self.state, seat)
            if legal:
                self.submit(seat, self.rng.choice(legal), by=by)

    # ---- lobby ---------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """What the lobby shows of this room, as plain data (kept in Redis for the other processes)."""
        res: Any = self.game.result(self.state) if self.status == FINISHED else None
        if self.abandoned:
            res = self.abandoned_result(self.game.view(self.state, None))
        now = time.monotonic()
        since = self.away_since(now)
        return {"presence": self.presence(), "watchers": self.watchers(),
                "away_since": None if since is None else epoch_ms() - int((now - since) * 1000),
                "grace_ms": int(self.settings.grace_s * 1000),
                "room": self.rid, "game": self.game.id, "seats": len(self.seats), "status": self.status,
                "options": self.options, "private": self.private, "result": res,
                "names": [s.name for s in self.seats], "bots": [s.bot for s in self.seats],
                "stand_in": [s.stand_in for s in self.seats], "connected": [s.here() for s in self.seats]}

    def summary(self) -> dict[str, Any]:
        return summary_of(self.meta())

    def info(self) -> dict[str, Any]:
        return info_of(self.meta())

    def close(self) -> None:
        self._cancel_deadline()
        for seat in list(self._bot_handles):
            self._cancel_bot(seat)
        for aud in self.audiences.values():
            for conn in list(aud.conns):
                conn.close(4004, "the room is gone")
            aud.release()
        self.log = []  # the same: what the collector would hold until its whole walk
        if self.contests is not None:
            self.contests.close()


def summary_of(meta: dict[str, Any]) -> dict[str, Any]:
    names = meta["names"]
    return {"room": meta["room"], "game": meta["game"], "seats": meta["seats"],
            "taken": sum(1 for n in names if n is not None), "status": meta["status"], "names": names,
            "presence": meta.get("presence"), "watchers": meta.get("watchers", 0),
            "joinable": meta["status"] == WAITING and not gone(meta) and None in names,
            # ended because its humans had all gone (--abandon-s): the lobby says so, not "finished"
            "abandoned": bool(isinstance(meta.get("result"), dict) and meta["result"].get("abandoned"))}


def gone(meta: dict[str, Any], now_ms: int | None = None) -> bool:
    """Whether a room's seated players have all been away longer than the grace, from its meta
    (any process reads it: a Redis room's meta is written by its owner when presence changes)."""
    since = meta.get("away_since")
    now_ms = epoch_ms() if now_ms is None else now_ms
    return isinstance(since, int) and now_ms - since > int(meta.get("grace_ms") or 0)


def listable(meta: dict[str, Any]) -> bool:
    """A room whose people have all gone is not offered: a waiting one to newcomers, a playing one to
    watchers (nothing is played there until someone comes back: Room.deserted)."""
    return not (meta["status"] in (WAITING, PLAYING) and gone(meta))


def info_of(meta: dict[str, Any]) -> dict[str, Any]:
    presence = meta.get("presence") or [{} for _ in meta["names"]]
    return {"room": meta["room"], "game": meta["game"], "status": meta["status"], "options": meta["options"],
            "private": meta["private"], "result": meta["result"], "watchers": meta.get("watchers", 0),
            "seats": [{"seat": i, "name": name, "bot": bot or stand_in, "connected": bot or here, **pres}
                      for i, (name, bot, stand_in, here, pres)
                      in enumerate(zip(meta["names"], meta["bots"], meta["stand_in"], meta["connected"],
                                       presence, strict=True))]}
