"""The hub's own players at a table: bot seats, and stand-ins for players away past their grace.

A bot sees only its seat's view (it cannot cheat) and moves after a human-like pause. While every
human seated is away, nobody moves in their names: the table waits, then ends as abandoned. Each
move a stand-in made is noted, so the table, the end screen and the replay do not credit the
absent player with it.
"""
from __future__ import annotations

import asyncio
import bisect
import logging
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from hub.logs import log
from hub.tables import thinking
from hub.tables.audience import audience_key
from hub.tables.seat import PLAYING
from rules import levels

if TYPE_CHECKING:
    from hub.tables.table import Table
    from rules.engine import Game

#: `by` of an action a stand-in made for an absent player (metrics, the log entry, the replay)
STAND_IN = "stand_in"
#: What a strong bot leaves of its seat's clock when it cuts its budget to fit: the move still has
#: to come back from the worker and be applied before the deadline.
CLOCK_MARGIN_S = 0.25
#: A table's strong bots make at most one offer (or counter-offer) in this many seconds: people
#: negotiate at the pace of talk, and a bot that proposes at search speed buries their own offers.
OFFER_EVERY_S = 60.0

logger = logging.getLogger("hub.bots")


class Bots:
    def __init__(self, room: Table) -> None:
        self.room = room
        self.handles: dict[int, asyncio.TimerHandle] = {}
        # strong bots thinking in the pool (hub/tables/thinking.py), by seat
        self.thinking: dict[int, Future[Any]] = {}
        # when a strong bot last made an offer at this table (time.monotonic), for OFFER_EVERY_S
        self.offered_at: float | None = None
        # the actions (places in the room's `log`) a stand-in made for an absent player, and how
        # many per seat
        self.stood_in: set[int] = set()
        self.stood_in_by_seat: list[int] = [0] * len(room.seats)
        # the numbers of the game's log entries those moves wrote, ascending (`log_from + i`)
        self.stood_in_log: list[int] = []

    def plays_itself(self, seat: int) -> bool:
        """A bot's seat, or a stand-in's, while someone is at the table: a table whose humans have
        all gone waits for them (and ends as abandoned after --abandon-s) rather than being played
        out by bots in their names."""
        s = self.room.seats[seat]
        return (s.bot or s.stand_in) and not self.room.people.deserted()

    def note_stood_in(self, index: int, seat: int, wrote: range = range(0)) -> None:
        """Action `index` of the room's log was a stand-in's for `seat`, and wrote the game's log
        entries numbered `wrote`."""
        if index not in self.stood_in and 0 <= seat < len(self.stood_in_by_seat):
            self.stood_in.add(index)
            self.stood_in_by_seat[seat] += 1
            self.note_log(wrote)

    def note_log(self, wrote: range) -> None:
        for n in wrote:
            if not self.stood_in_log or n > self.stood_in_log[-1]:
                self.stood_in_log.append(n)

    def schedule(self) -> None:
        room = self.room
        delay = max(0, int(room.hub_options.get("bot_delay_ms", room.settings.bot_delay_ms))) / 1000
        for seat in room.game.active(room.state):
            if (self.plays_itself(seat) and seat not in self.handles and seat not in self.thinking
                    and room.game.legal(room.state, seat)):
                pause = delay * room.rng.uniform(0.6, 1.4) if delay else 0
                self.handles[seat] = room.rooms.loop_call_later(pause, self.move, seat)

    def cancel(self, seat: int) -> None:
        h = self.handles.pop(seat, None)
        if h is not None:
            h.cancel()
        thought = self.thinking.pop(seat, None)
        if thought is not None:
            thought.cancel()

    def cancel_all(self) -> None:
        for seat in {*self.handles, *self.thinking}:
            self.cancel(seat)

    def move(self, seat: int) -> None:
        room = self.room
        self.handles.pop(seat, None)
        if room.status != PLAYING or not self.plays_itself(seat):
            return
        if room.journal is not None and room.journal.busy:  # the last change is still being logged
            self.handles[seat] = room.rooms.loop_call_later(0.01, self.move, seat)
            return
        view = room.audiences[audience_key(seat)].view or {}
        # a stand-in's seat is a player's, whose level is never set: it plays at the normal one
        level = room.seats[seat].level
        if level == levels.STRONG and room.seats[seat].bot:
            self.think(seat, view)
            return
        self.play(seat, levels.bot_action(room.game, view, room.rng, level))

    def think(self, seat: int, view: dict[str, Any]) -> None:
        """Hand the search to the pool; its move is played when it comes back, if the table is still
        where it was (nothing applied since), else the bot is asked again."""
        room = self.room
        budget = room.settings.bot_think_ms / 1000
        due = room.clock.deadline_for(seat)
        if due is not None:
            budget = max(0.0, min(budget, due / 1000 - time.time() - CLOCK_MARGIN_S))
        moved = room.actions
        propose = self.offered_at is None or time.monotonic() - self.offered_at >= OFFER_EVERY_S
        try:
            thought = thinking.submit(room.game.id, view, room.rng.getrandbits(64), budget, propose)
        except Exception as e:  # no pool to be had: the seat still moves, at the normal level
            log(logger, logging.WARNING, "a strong bot could not think", room=room.rid, error=repr(e))
            self.play(seat, levels.bot_action(room.game, view, room.rng, levels.NORMAL))
            return
        self.thinking[seat] = thought
        loop = asyncio.get_running_loop()

        def back(done: Future[Any]) -> None:
            loop.call_soon_threadsafe(self.thought, seat, done, moved)
        thought.add_done_callback(back)

    def thought(self, seat: int, done: Future[Any], moved: int) -> None:
        room = self.room
        if self.thinking.get(seat) is not done:
            return  # cancelled, or the table was dropped
        del self.thinking[seat]
        if room.status != PLAYING or not self.plays_itself(seat) or room.actions != moved:
            self.schedule()
            return
        try:
            action = done.result()
        except Exception as e:  # a worker that died: the seat still moves, at the normal level
            log(logger, logging.WARNING, "a strong bot's search failed", room=room.rid, error=repr(e))
            view = room.audiences[audience_key(seat)].view or {}
            action = levels.bot_action(room.game, view, room.rng, levels.NORMAL)
        if action is not None and action.get("type") == "offer":
            self.offered_at = time.monotonic()
        self.play(seat, action)

    def play(self, seat: int, action: dict[str, Any] | None) -> None:
        room = self.room
        if action is None:
            legal = room.game.legal(room.state, seat)
            action = legal[0] if legal else None
        if action is None:
            return
        by = "bot" if room.seats[seat].bot else STAND_IN
        if not room.submit(seat, action, by=by):
            legal = room.game.legal(room.state, seat)
            if legal:
                room.submit(seat, room.rng.choice(legal), by=by)


def log_total(game: Game, state: Any) -> int:
    """How many entries the game's log has had: the spectator's view numbers them from `log_from`."""
    view = game.view(state, None)
    log, start = view.get("log"), view.get("log_from")
    return (start if isinstance(start, int) else 0) + (len(log) if isinstance(log, list) else 0)


def mark_log(view: dict[str, Any], marks: list[int]) -> None:
    """`log_stood_in` of a view: the numbers of the entries shown that a stand-in's move wrote, so
    the Moves panel says which lines a bot played for an absent player (absent while none)."""
    log, start = view.get("log"), view.get("log_from")
    if not marks or not isinstance(log, list) or not isinstance(start, int):
        return
    shown = marks[bisect.bisect_left(marks, start):bisect.bisect_left(marks, start + len(log))]
    if shown:
        view["log_stood_in"] = shown
