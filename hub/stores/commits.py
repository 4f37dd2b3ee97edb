"""The commit core both durable stores share: one room's changes become log entries in the order the
room made them, and the room takes its next command only once its last entry is written.

The room (hub.tables.room) stays the authoritative actor; a store's journal sits where its deltas
would have gone. What differs between the stores is only where an entry goes (the SQLite file's
one writer, or a Redis script through the ordered writer) and who hears of it once it is there;
the line of commands, the numbering of entries and the reading of a change into an entry are here.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hub.tables.frames import Encoded
from hub.tables.persist import entry_of, pack
from hub.tables.room import Room
from hub.tables.seat import FINISHED


@dataclass(frozen=True)
class Entry:
    """A change read into a log entry: its number, the entry and its bytes, and what it did to the
    room's status (a store writes the lobby's row when the status moved)."""

    n: int
    entry: dict[str, Any]
    blob: bytes
    changed: list[tuple[str, Encoded]]
    status_moved: bool
    finished_now: bool


class CommitLine:
    """The line of one room's commands, held while an entry is being written."""

    def __init__(self, room: Room, n: int) -> None:
        self.room = room
        self.rid = room.rid
        self.n = n  # the last entry recorded
        self.inflight = 0
        self.inbox: deque[Callable[[], None]] = deque()
        self.gone = False
        self._status = room.status

    @property
    def busy(self) -> bool:
        return self.inflight > 0

    def command(self, fn: Callable[[], None]) -> None:
        """Run a command now, or once the room's last change is written."""
        if self.busy or self.inbox:
            self.inbox.append(fn)
        else:
            fn()

    def drain(self) -> None:
        while self.inbox and not self.busy and not self.gone:
            self.inbox.popleft()()

    def entry(self, cause: dict[str, Any] | None, changed: list[tuple[str, Encoded]]) -> Entry | None:
        """The next entry for a change the room recorded, or None when there is nothing to write."""
        if self.gone or (cause is None and not changed):
            return None
        room = self.room
        self.n += 1
        entry = entry_of(room, self.n, cause, changed)
        moved = room.status != self._status
        finished_now = room.status == FINISHED and self._status != FINISHED
        self._status = room.status
        return Entry(self.n, entry, pack(entry), changed, moved, finished_now)
