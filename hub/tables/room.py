"""The authoritative actor of one table.

Everything that changes a room runs to completion on the event loop without awaiting, so actions
are applied one at a time and the state needs no locks. After each change every audience's view is
recomputed, diffed and encoded once, then queued on its connections; an action's ack is queued after
the deltas it caused.
"""
from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hub.logs import log
from hub.tables import chat as table_chat
from hub.tables.audience import Audience, audience_key
from hub.tables.bots import STAND_IN, Bots, log_total
from hub.tables.chat import ChatLog
from hub.tables.clock import Clock
from hub.tables.contests import ContestRunner
from hub.tables.delta import Shared
from hub.tables.frames import Encoded
from hub.tables.journal import Journal, Replier, keepable
from hub.tables.listing import abandoned_result, info_of, summary_of
from hub.tables.presence import People
from hub.tables.seat import BOT_NAMES, FINISHED, PLAYING, WAITING, RoomError, Seat, epoch_ms
from hub.tables.views import compose
from hub.tokens import hash_token, matches, new_token
from rules.engine import Game, IllegalAction, declares_contests
from rules.levels import NORMAL

if TYPE_CHECKING:
    from hub.tables.peer import Peer
    from hub.tables.table import House

logger = logging.getLogger("hub.tables.room")

__all__ = ["STAND_IN", "Journal", "Replier", "Room"]


class Room:
    """One table: its seats, its engine state and every audience's view, with named collaborators
    for who is here (`people`), the hub's players (`bots`), the clock (`clock`), the chat (`chat`)
    and timed contests (`contests`)."""

    def __init__(self, rooms: House, rid: str, game: Game, seats: int, options: dict[str, Any],
                 hub_options: dict[str, Any], seed: int, bots: list[int],
                 levels: Mapping[int, str] | None = None) -> None:
        self._fields(rooms, rid, game, seats, options, hub_options, seed)
        self.state: Any = game.setup(seats, seed, options)
        for b in bots:
            self.seats[b].name = BOT_NAMES[b % len(BOT_NAMES)]
            self.seats[b].bot = True
            self.seats[b].level = (levels or {}).get(b, NORMAL)
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
        self.rng = random.Random(seed ^ 0x5EED)
        self.actions = 0
        self.log: list[tuple[int | None, dict[str, Any]]] = []  # every applied action, for replays
        self.people = People(self)
        self.bots = Bots(self)
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
                self.people.dropped(s.index)
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
                self.bots.cancel(seat)
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
            self.people.dropped(seat)
            self.presence_moved()

    def presence_moved(self) -> None:
        """Show who is here to every audience: a change of the views like any other (a journal logs
        it, so a replica shows the same). Seats only: a spectator coming or going changes no view,
        which would cost a delta to every connection of a watched table; the count of watchers is
        in the room's info and the lobby listing."""
        if self.status != FINISHED and self.rooms.rooms.get(self.rid) is self:
            self.refresh()

    def abandon(self) -> None:
        """End a playing room nobody is at: its result says so, and its replay stays."""
        if self.status != PLAYING:
            return
        self.abandoned = True
        log(logger, logging.INFO, "room abandoned", room=self.rid, game=self.game.id, actions=self.actions)
        self._finish()
        self.refresh({"k": "abandon"})

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
                # which entries of the game's log a stand-in's move writes, to mark them as a bot's
                written_from = log_total(self.game, self.state) if by == STAND_IN else 0
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
                    self.bots.note_stood_in(len(self.log) - 1, seat,
                                            range(written_from, log_total(self.game, self.state)))
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

    def say(self, seat: int | None, name: str | None, text: str, conn: Replier | None = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        return table_chat.say(self, seat, name, text, conn, say_id, aid)

    # ---- views and deltas ----------------------------------------------------------------------

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
        presence = self.people.seats()  # once: the views of a change may share their players' maps
        for aud, view in zip(auds, views, strict=True):
            delta = aud.update(compose(self, view, aud.seat, presence), verify, shared)
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
            self.bots.schedule()
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
        games whose events are public facts about a negotiation (the game's `relayed_events`): a decline reaches
        the offer's author as a decline, not only as an offer gone from the view."""
        kinds = self.game.relayed_events
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
        self.clock.stop()
        self.bots.cancel_all()
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

    # ---- bots ----------------------------------------------------------------------------------

    def drop_timers(self) -> None:
        """Cancel every timer the room holds (bots, the decision clock, an open contest): a room taken
        up from a store starts its own afresh (hub/tables/persist.py, `wake`)."""
        self.bots.cancel_all()
        self.clock.adopt(None)
        if self.contests is not None:
            self.contests.close()

    # ---- lobby ---------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """What the lobby shows of this room, as plain data (kept in Redis for the other processes)."""
        res: Any = self.game.result(self.state) if self.status == FINISHED else None
        if self.abandoned:
            res = abandoned_result(self.game.view(self.state, None), len(self.seats))
        now = time.monotonic()
        since = self.people.away_since(now)
        return {"presence": self.people.seats(), "watchers": self.people.watchers(),
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
        self.clock.stop()
        self.bots.cancel_all()
        for aud in self.audiences.values():
            for conn in list(aud.conns):
                conn.close(4004, "the room is gone")
            aud.release()
        self.log = []  # the same: what the collector would hold until its whole walk
        if self.contests is not None:
            self.contests.close()

