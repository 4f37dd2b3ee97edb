"""What a room's parts need of the room, and what a room needs of the process that holds it.

The clock and the contest runner belong to one room and call back into it; the room belongs to the
process's `Rooms` and asks it for timers and to be dropped. Naming those needs here, as protocols,
lets each module import only what lies below it: `room` imports `clock` and `contests`, `rooms`
imports `room`, and none of them imports its caller.
"""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from hub.metrics import Metrics
from hub.settings import Settings
from hub.tables.audience import Audience
from hub.tables.journal import Journal
from hub.tables.seat import Seat
from rules.engine import Game


class House(Protocol):
    """The process's rooms (hub/tables/rooms.py), as a room sees them."""

    settings: Settings
    metrics: Metrics

    @property
    def rooms(self) -> Mapping[str, object]: ...

    def loop_call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> asyncio.TimerHandle: ...
    def drop(self, rid: str) -> None: ...


class Gathering(Protocol):
    """Who is at the table (hub/tables/presence.py)."""

    def deserted(self) -> bool: ...
    def seats(self) -> list[dict[str, Any]]: ...


class Players(Protocol):
    """The hub's players at the table (hub/tables/bots.py)."""

    @property
    def stood_in_by_seat(self) -> list[int]: ...
    @property
    def stood_in_log(self) -> list[int]: ...

    def cancel(self, seat: int) -> None: ...
    def schedule(self) -> None: ...


class Timing(Protocol):
    """The table's clock (hub/tables/clock.py), as its views show it."""

    @property
    def banked(self) -> bool: ...
    @property
    def bank_ms(self) -> list[int]: ...

    def deadline_for(self, seat: int | None) -> int | None: ...


class Lines(Protocol):
    """The table's chat (hub/tables/chat.py)."""

    def new(self, seat: int | None, name: str, text: str, to: str, move: int, now_ms: int) -> dict[str, Any]: ...


class Table(Protocol):
    """A room (hub/tables/room.py), as its collaborators see it: the clock, the contests, who is
    here, the bots, the views and the chat."""

    rid: str
    game: Game
    state: Any
    status: str
    seats: list[Seat]
    audiences: dict[str, Audience]
    hub_options: dict[str, Any]
    metrics: Metrics
    settings: Settings
    rng: random.Random
    abandoned: bool
    actions: int

    @property
    def rooms(self) -> House: ...

    @property
    def journal(self) -> Journal | None: ...

    @property
    def people(self) -> Gathering: ...

    @property
    def bots(self) -> Players: ...

    @property
    def clock(self) -> Timing: ...

    @property
    def chat(self) -> Lines: ...

    def presence_moved(self) -> None: ...

    def submit(self, seat: int | None, action: Any, conn: Any = None, act_id: int | None = None,
               seq: int | None = None, by: str = "player", aid: str | None = None) -> bool: ...
    def refresh(self, cause: dict[str, Any] | None = None) -> None: ...
    def send_event(self, frame: dict[str, Any]) -> None: ...
