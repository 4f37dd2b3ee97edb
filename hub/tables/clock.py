"""Time per decision and chess-clock banks: the room options `decision_seconds` and `bank_seconds`.

A decision starts when seats become active (a new phase, or new seats to act) and lasts while the
same phase waits for some of the same seats. Each active seat first has the decision's own time
(`decision_seconds`, scaled by the game's `decision_weight` when it has one); past it, its bank runs,
like a chess clock that runs only while the seat is to act. When both are used up, the hub plays the
game's `timeout_action` for that seat alone. With `bank_seconds` 0 the bank is empty, so every active
seat times out together at the decision's end, as before banks existed.

Views show each seat's own deadline (decision time plus what is left of its bank) when it is to act,
and the earliest deadline of the active seats to everyone else; with banks, `players[i].bank_ms` is
what seat i has left, charged when its decision ends, so views do not change every millisecond: a
client shows the seat's remaining bank as `min(bank_ms, deadline - now)`.
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub.logs import log

if TYPE_CHECKING:
    from hub.tables.table import Table

logger = logging.getLogger("hub.tables.clock")

#: A seat that ran out of time and must still act in the same decision gets this long again at least,
#: so a timeout action that leaves the seat active cannot spin.
RETRY_S = 1.0
#: Timers may fire a little early; a seat is due when this close to its deadline.
SLACK_S = 0.005


@dataclass
class Running:
    since: float      # monotonic seconds when the seat's decision began
    since_ms: int     # the same moment in epoch ms, for the view's deadline
    allowed: float    # the decision's own seconds for this seat


class Clock:
    def __init__(self, room: Table, decision_seconds: float, bank_seconds: float) -> None:
        self.room = room
        self.decision_s = max(0.0, decision_seconds)
        self.banked = bank_seconds > 0
        self.bank_ms = [int(bank_seconds * 1000)] * len(room.seats)
        self.running: dict[int, Running] = {}
        self._key: tuple[Any, frozenset[int]] | None = None
        self._handle: asyncio.TimerHandle | None = None

    @property
    def enabled(self) -> bool:
        return self.decision_s > 0 or self.banked

    # ---- what views show -----------------------------------------------------------------------

    def deadline_of(self, seat: int) -> int | None:
        r = self.running.get(seat)
        if r is None:
            return None
        return r.since_ms + int(r.allowed * 1000) + (self.bank_ms[seat] if self.banked else 0)

    def deadline_for(self, viewer: int | None) -> int | None:
        if viewer is not None and viewer in self.running:
            return self.deadline_of(viewer)
        times = [d for d in (self.deadline_of(s) for s in self.running) if d is not None]
        return min(times) if times else None

    # ---- fail-over (hub.stores.redis.owner journals the room's timer as a deadline and a decision key) ----------

    @property
    def key(self) -> tuple[Any, frozenset[int]] | None:
        return self._key

    def restore(self, key: tuple[Any, frozenset[int]] | None, deadline_ms: int | None) -> None:
        """Take up a decision rebuilt from the journal: its seats have what is left until its
        deadline. Banks are not journaled: after a fail-over they start full again."""
        self.running.clear()
        self._key = key
        if key is None or deadline_ms is None:
            return
        now, now_ms = time.monotonic(), int(time.time() * 1000)
        for seat in sorted(key[1]):
            bank = self.bank_ms[seat] if self.banked else 0
            left = max(0.0, (deadline_ms - now_ms - bank) / 1000)
            self.running[seat] = Running(now, now_ms, left)

    def adopt(self, handle: asyncio.TimerHandle | None) -> None:
        self._cancel()
        self._handle = handle

    def fire(self) -> None:
        self._fire()

    # ---- following the game --------------------------------------------------------------------

    def update(self, active: frozenset[int], phase: Any, weight: float) -> None:
        """After every change of the room: start, go on with, or end decisions."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not active:
            self.stop()
            return
        key = self._key
        if key is not None and key[0] == phase and active <= key[1]:
            for seat in [s for s in self.running if s not in active]:
                self._charge(seat, now)  # it acted: its clock stops
            for seat in active - set(self.running):
                self._begin(seat, now, max(RETRY_S, self.decision_s * weight))  # timed out, still to act
        else:
            for seat in list(self.running):
                self._charge(seat, now)
            for seat in sorted(active):
                self._begin(seat, now, self.decision_s * weight)
            self._key = (phase, active)
        self._arm(now)

    def stop(self) -> None:
        now = time.monotonic()
        for seat in list(self.running):
            self._charge(seat, now)
        self._key = None
        self._cancel()

    def _begin(self, seat: int, now: float, allowed: float) -> None:
        self.running[seat] = Running(now, int(time.time() * 1000), allowed)

    def _charge(self, seat: int, now: float) -> None:
        r = self.running.pop(seat)
        if self.banked:
            over = now - r.since - r.allowed
            if over > 0:
                self.bank_ms[seat] = max(0, self.bank_ms[seat] - int(over * 1000))

    def _due(self, seat: int) -> float:
        r = self.running[seat]
        return r.since + r.allowed + (self.bank_ms[seat] / 1000 if self.banked else 0)

    def _arm(self, now: float) -> None:
        self._cancel()
        if self.running:
            wait = max(0.0, min(self._due(s) for s in self.running) - now)
            self._handle = self.room.rooms.loop_call_later(wait, self._fire)

    def _cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        room = self.room
        if room.status != "playing":
            return
        journal = getattr(room, "journal", None)
        if journal is not None and journal.busy:  # the room's last change is still being logged
            self._handle = room.rooms.loop_call_later(0.01, self._fire)
            return
        if room.people.deserted():  # nobody is at the table: no move is made in their names (People.deserted)
            self._handle = room.rooms.loop_call_later(1.0, self._fire)
            return
        now = time.monotonic()
        due = [s for s in sorted(self.running) if self._due(s) <= now + SLACK_S]
        for seat in due:
            self._charge(seat, now)
            if self.banked:
                self.bank_ms[seat] = 0
        for seat in due:
            if room.status == "playing" and seat in room.game.active(room.state) and room.game.legal(room.state, seat):
                log(logger, logging.INFO, "decision timed out", room=room.rid, seat=seat)
                room.submit(seat, room.game.timeout_action(room.state, seat), by="timeout")
        if room.status == "playing" and self._handle is None:
            room.refresh()
