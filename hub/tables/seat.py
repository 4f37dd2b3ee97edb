"""A seat at a table, the room's statuses and the error every layer answers a refusal with.

Kept apart from the room so that what a room's parts (clock, contests) and the stores need to name
does not pull in the room actor itself.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hub.tables.peer import Peer

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
#: Bots go by names rather than numbers, which readers kept confusing with seat numbers.
BOT_NAMES = ("Ada (bot)", "Bram (bot)", "Cleo (bot)", "Dov (bot)", "Edda (bot)", "Finn (bot)", "Gala (bot)",
             "Hugo (bot)")


class RoomError(Exception):
    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


@dataclass
class Seat:
    index: int
    name: str | None = None
    token_hash: str | None = None
    bot: bool = False
    conn: Peer | None = None
    holder: str | None = None         # with Redis: the process and connection that hold the seat
    dropped_at: float | None = None   # monotonic time the player's connection went away
    stand_in: bool = False            # a bot plays for a player who left, until they come back
    level: str = "normal"             # how well the seat's bot plays (rules/levels.py); a stand-in's is normal

    def here(self) -> bool:
        return self.conn is not None or self.holder is not None


def epoch_ms() -> int:
    return int(time.time() * 1000)


#: Wall-clock seconds less monotonic seconds, taken once: a moment kept on the monotonic clock then
#: reads as the same epoch milliseconds at every call (a view built twice for one change must not
#: differ by the milliseconds between the two builds).
_EPOCH_OFFSET = time.time() - time.monotonic()


def epoch_ms_at(monotonic: float) -> int:
    return int((monotonic + _EPOCH_OFFSET) * 1000)
