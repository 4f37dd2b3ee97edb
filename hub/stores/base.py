"""The one face of a store that the edge uses, whatever store runs (hub/stores/__init__.py picks one).

The lobby's calls (create, list, join, replay) and `enter`, which gives a connection the room its
hello names: the room itself where this process holds it, or a relay of it (`Target`).
"""
from __future__ import annotations

import abc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from hub.metrics import Metrics
from hub.settings import Settings
from hub.tables.rooms import Rooms
from hub.tables.seat import FINISHED, RoomError, epoch_ms

if TYPE_CHECKING:
    from hub.tables.peer import Peer


def not_finished() -> RoomError:
    return RoomError("not_finished", "a replay is served once the game has finished", 409)


def no_room() -> RoomError:
    return RoomError("no_room", "no such room", 404)


def unavailable(why: str = "the room store does not answer; try again shortly") -> RoomError:
    return RoomError("unavailable", why, 503)


class Target(Protocol):
    """What a connection talks to once its hello named a room: the room itself, or a relay of it."""

    rid: str
    contests: Any

    async def authenticate(self, token: str) -> int | None: ...
    def attach(self, conn: Peer, seat: int | None, resume: int | None) -> None: ...
    def detach(self, conn: Peer) -> None: ...
    def submit(self, seat: int | None, action: Any, conn: Peer | None = None,
               act_id: int | None = None, seq: int | None = None, by: str = "player",
               aid: str | None = None) -> bool: ...
    def in_turn(self, answer: Callable[[], None]) -> None:
        """Run `answer` once what was submitted before it has been answered."""


class Store(abc.ABC):
    kind = ""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rooms = Rooms(settings, metrics)

    @property
    def conns(self) -> set[Peer]:
        return self.rooms.conns

    @property
    def up(self) -> bool:
        """False while the backend cannot be reached (never, in memory)."""
        return True

    @abc.abstractmethod
    def go_deaf(self, seconds: float) -> None:
        """Test hook (--debug-hooks): lose every message from other processes for a while."""

    def games(self) -> list[dict[str, Any]]:
        return self.rooms.games()

    async def start(self) -> None:
        await self.rooms.start()

    async def stop(self) -> None:
        await self.rooms.stop()

    @abc.abstractmethod
    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str) -> dict[str, Any]:
        """The 201 body of POST /api/rooms; RoomError on a refusal."""

    @abc.abstractmethod
    async def listing(self) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def info(self, rid: str) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def join(self, rid: str, name: str, seat: int | None) -> tuple[int, str]:
        """(seat, token); RoomError on a refusal, no_room() for an unknown room."""

    @abc.abstractmethod
    async def replay(self, rid: str) -> dict[str, Any] | None:
        """A finished game's replay (hub.tables.replay); None for an unknown room, RoomError if unfinished."""

    async def history(self, before_ms: int | None, limit: int) -> dict[str, Any]:
        """Finished public games, newest first, `limit` at a time before `before_ms` (a page's `next`).
        Stores that keep no history list the finished games they still hold."""
        games = []
        for room in self.rooms.rooms.values():
            if room.status == FINISHED and not room.private and room.finished_at is not None:
                finished = epoch_ms() - int((time.monotonic() - room.finished_at) * 1000)
                if before_ms is None or finished < before_ms:
                    games.append(dict(room.summary(), finished=finished,
                                      result=room.game.result(room.state)))
        games.sort(key=lambda g: -int(g["finished"]))
        page = games[:max(1, limit)]
        return {"games": page, "next": page[-1]["finished"] if len(games) > len(page) else None}

    @abc.abstractmethod
    async def enter(self, rid: str) -> Target | None:
        """The room a hello names, ready to attach connections; None when there is no such room."""
