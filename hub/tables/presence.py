"""Who is at a table: each seat here, away (with the grace it has left), a bot or empty; the
spectators of this process and of the others that relay the room; and whether the humans seated
have all gone, which stops bots playing in their names and, after a while, abandons the table."""
from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from hub.logs import log
from hub.tables.audience import audience_key
from hub.tables.seat import PLAYING, epoch_ms_at

if TYPE_CHECKING:
    from hub.tables.table import Table

#: Another process's count of spectators stands this long after it last told it: three times the
#: period at which a relay says it again (hub.stores.redis.ownership.PRESENCE_S), so a process that
#: died stops counting.
REMOTE_WATCH_S = 15.0

logger = logging.getLogger("hub.tables.room")


class People:
    def __init__(self, room: Table) -> None:
        self.room = room
        self.remote_watchers: dict[str, tuple[int, float]] = {}  # process -> (spectators, told at)

    def hold(self, seat: int, holder: str) -> str | None:
        """With Redis: a connection on some process holds the seat now; returns the holder it replaced."""
        room = self.room
        s = room.seats[seat]
        old, s.holder, s.dropped_at = s.holder, holder, None
        was_away = old is None or s.stand_in
        if s.stand_in:
            s.stand_in = False
            room.bots.cancel(seat)
        if old != holder and room.journal is not None:
            room.journal.presence_changed()
        if was_away:  # the views say who is here, on every process as in one
            room.presence_moved()
        return old

    def release(self, seat: int, holder: str | None = None) -> None:
        """With Redis: the seat's connection went away (`holder`, or whoever held it when None)."""
        room = self.room
        s = room.seats[seat]
        if s.holder is None or (holder is not None and s.holder != holder):
            return
        s.holder = None
        self.dropped(seat)
        if room.journal is not None:
            room.journal.presence_changed()
        room.presence_moved()

    def grace_over(self, seat: int) -> None:
        room = self.room
        s = room.seats[seat]
        if room.status != PLAYING or s.here() or s.dropped_at is None:
            return
        if time.monotonic() - s.dropped_at + 0.05 < room.settings.grace_s:
            return
        s.stand_in = True
        log(logger, logging.INFO, "a bot stands in for a dropped seat", room=room.rid, seat=seat)
        if room.journal is not None:
            room.journal.presence_changed()
        room.presence_moved()
        room.bots.schedule()

    def dropped(self, seat: int) -> None:
        room = self.room
        room.seats[seat].dropped_at = time.monotonic()
        if room.status == PLAYING:
            room.rooms.loop_call_later(room.settings.grace_s, self.grace_over, seat)

    def seats(self) -> list[dict[str, Any]]:
        """Per seat: `here`, `away` (with `grace_until`, epoch ms, when the game waits for it), `bot`
        (a bot seat or a stand-in), or `empty`."""
        room = self.room
        out: list[dict[str, Any]] = []
        for s in room.seats:
            if s.name is None:
                out.append({"presence": "empty"})
            elif s.bot or s.stand_in:
                out.append({"presence": "bot"})
            elif s.here():
                out.append({"presence": "here"})
            else:
                entry: dict[str, Any] = {"presence": "away"}
                if room.status == PLAYING and s.dropped_at is not None:
                    # from the moment kept, not from now: every view of a change says the same
                    entry["grace_until"] = epoch_ms_at(s.dropped_at + room.settings.grace_s)
                out.append(entry)
        return out

    def humans_here(self) -> bool:
        return any(s.here() for s in self.room.seats if not s.bot)

    def deserted(self) -> bool:
        """Humans are seated and none of them is here."""
        return any(s.name is not None and not s.bot for s in self.room.seats) and not self.humans_here()

    def away_since(self, now: float) -> float | None:
        """Since when (monotonic) every human seated is away: the last of them left, or joined over
        HTTP and never connected; None while someone is here or nobody is seated."""
        if not self.deserted():
            return None
        return max((s.dropped_at for s in self.room.seats
                    if s.name is not None and not s.bot and s.dropped_at is not None), default=None)

    def gone(self, now: float) -> bool:
        """Whether every human seated has been away longer than the grace: a waiting room like this
        is not offered to newcomers."""
        since = self.away_since(now)
        return since is not None and now - since > self.room.settings.grace_s

    def watchers(self) -> int:
        """This process's spectators, and those other processes relay (a store of many processes
        tells the room: `watched_from`), each process's count while it is fresh."""
        here = len(self.room.audiences[audience_key(None)].conns)
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
