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


class Busy(Protocol):
    @property
    def busy(self) -> bool: ...
    def after(self, fn: Callable[[], None]) -> None: ...


class Table(Protocol):
    """A room (hub/tables/room.py), as its clock and its contests see it."""

    rid: str
    game: Game
    state: Any
    status: str
    seats: list[Seat]
    audiences: dict[str, Audience]
    hub_options: dict[str, Any]
    metrics: Metrics
    rng: random.Random

    @property
    def rooms(self) -> House: ...

    @property
    def journal(self) -> Busy | None: ...

    def submit(self, seat: int | None, action: Any, conn: Any = None, act_id: int | None = None,
               seq: int | None = None, by: str = "player", aid: str | None = None) -> bool: ...
    def refresh(self, cause: dict[str, Any] | None = None) -> None: ...
    def deserted(self) -> bool: ...
    def send_event(self, frame: dict[str, Any]) -> None: ...
