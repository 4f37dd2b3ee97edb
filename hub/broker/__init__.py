"""Where rooms live: the one face the lobby and the sockets use, whatever the backend.

Two backends stand behind it. `memory` (the default) holds every room in this process and sends each
change straight to the connections; nothing here adds a hop to that path. `redis` lets any number
of processes share rooms: each room has one owner process that logs every change to Redis before
anyone sees it, and every process relays the owner's deltas to its own connections.
"""
from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Protocol

from hub.metrics import Metrics
from hub.room import RoomError
from hub.rooms import Rooms
from hub.settings import Settings

if TYPE_CHECKING:
    from hub.connection import Connection


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
    def attach(self, conn: Connection, seat: int | None, resume: int | None) -> None: ...
    def detach(self, conn: Connection) -> None: ...
    def submit(self, seat: int | None, action: Any, conn: Connection | None = None,
               act_id: int | None = None, seq: int | None = None, by: str = "player",
               aid: str | None = None) -> bool: ...


class Broker(abc.ABC):
    kind = ""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rooms = Rooms(settings, metrics)

    @property
    def conns(self) -> set[Connection]:
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
        """A finished game's replay (hub.replay); None for an unknown room, RoomError if unfinished."""

    @abc.abstractmethod
    async def enter(self, rid: str) -> Target | None:
        """The room a hello names, ready to attach connections; None when there is no such room."""


def make_broker(settings: Settings, metrics: Metrics) -> Broker:
    if settings.redis:
        from hub.broker.redis import RedisBroker

        return RedisBroker(settings, metrics)
    from hub.broker.memory import MemoryBroker

    return MemoryBroker(settings, metrics)
