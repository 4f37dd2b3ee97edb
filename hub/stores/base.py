"""The one face of a store that the edge uses, whatever store runs (hub/stores/__init__.py picks one).

The lobby's calls (create, list, join, replay) and `enter`, which gives a connection the room its
hello names: the room itself where this process holds it, or a relay of it (`Target`).
"""
from __future__ import annotations

import abc
import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from hub.metrics import Metrics
from hub.settings import Settings
from hub.stores.quota import SeatQuota
from hub.tables.rooms import Rooms
from hub.tables.seat import FINISHED, RoomError, epoch_ms
from hub.tokens import matches

if TYPE_CHECKING:
    from hub.tables.peer import Peer

logger = logging.getLogger("hub.stores")


def not_finished() -> RoomError:
    return RoomError("not_finished", "a replay is served once the game has finished", 409)


def no_room() -> RoomError:
    return RoomError("no_room", "no such room", 404)


def unavailable(why: str = "the room store does not answer; try again shortly") -> RoomError:
    return RoomError("unavailable", why, 503)


@dataclass
class Finished:
    """What a room's next game is made from: the same game, seats, options (the game's and the
    hub's) and bots; and who sat where, to seat each player who asks in their own seat again."""

    status: str
    game: str
    seats: int
    options: dict[str, Any]
    bots: list[int]
    names: list[str | None]
    token_hashes: list[str | None]
    levels: dict[int, str] = field(default_factory=dict)  # the bots' that are not normal

    def seat_of(self, token: str) -> int | None:
        found = None
        for i, th in enumerate(self.token_hashes):  # every seat compared, as Room.seat_of does
            if th is not None and i not in self.bots and matches(token, th):
                found = i
        return found


def finished_of(room: Any) -> Finished:
    """A held room's Finished (hub.tables.room.Room)."""
    return Finished(room.status, room.game.id, len(room.seats), {**room.options, **room.hub_options},
                    [s.index for s in room.seats if s.bot], [s.name for s in room.seats],
                    [s.token_hash for s in room.seats], {s.index: s.level for s in room.seats if s.bot})


class Grabs(Protocol):
    """A room's timed contests as a connection reaches them: the process's own (hub/tables/contests.py)
    or a relay's (hub/stores/redis/edge_contests.py)."""

    def grab(self, conn: Peer, act_id: int, action: dict[str, Any]) -> None: ...
    def seen(self, conn: Peer, nonce: Any) -> None: ...


class Target(Protocol):
    """What a connection talks to once its hello named a room: the room itself, or a relay of it."""

    rid: str

    @property
    def contests(self) -> Grabs | None: ...

    async def authenticate(self, token: str) -> int | None: ...
    def attach(self, conn: Peer, seat: int | None, resume: int | None, chat_after: int | None = None) -> None:
        """Welcome a connection (at `resume` where it can), then send it the chat lines it hears
        (those after line `chat_after` when the client holds the ones before)."""
    def detach(self, conn: Peer) -> None: ...
    def submit(self, seat: int | None, action: Any, conn: Peer | None = None,
               act_id: int | None = None, seq: int | None = None, by: str = "player",
               aid: str | None = None) -> bool: ...
    def say(self, seat: int | None, name: str | None, text: str, conn: Peer | None = None,
            say_id: int | None = None, aid: str | None = None) -> bool:
        """A chat line, already checked by the edge: acked once every connection was sent it."""
    def in_turn(self, answer: Callable[[], None]) -> None:
        """Run `answer` once what was submitted before it has been answered."""


class Store(abc.ABC):
    kind = ""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rooms = Rooms(settings, metrics)
        self.next_rooms: dict[str, asyncio.Future[str]] = {}  # finished room -> its next (one process)
        self._chores: set[asyncio.Task[None]] = set()

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
    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str,
                     again: bool = False) -> dict[str, Any]:
        """The 201 body of POST /api/rooms; RoomError on a refusal. `again`: the next game of a
        finished room (its free seats get bots once the grace is over: Room.again)."""

    @abc.abstractmethod
    async def listing(self) -> list[dict[str, Any]]: ...

    @abc.abstractmethod
    async def info(self, rid: str) -> dict[str, Any] | None: ...

    @abc.abstractmethod
    async def join(self, rid: str, name: str, seat: int | None, bot: bool = False,
                   token_hash: str | None = None) -> tuple[int, str]:
        """(seat, token); RoomError on a refusal, no_room() for an unknown room. With `token_hash` the
        seat is held by a token the player already has (play again), and the answer's token is ""."""

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
                    games.append(dict(room.summary(), finished=finished, result=room.meta()["result"]))
        games.sort(key=lambda g: -int(g["finished"]))
        page = games[:max(1, limit)]
        return {"games": page, "next": page[-1]["finished"] if len(games) > len(page) else None}

    def seat_quota(self, joins_per_min: int, seats: int) -> SeatQuota:
        """The count of joins and seats per address that the lobby holds joins to: this process's
        own here (one process serves the store); a store shared by processes shares it."""
        return SeatQuota(joins_per_min, seats)

    # ---- play again ----------------------------------------------------------------------------

    async def finished(self, rid: str) -> Finished | None:
        """The room a next game is made from, where this process holds it; None if unknown."""
        room = self.rooms.get(rid)
        return finished_of(room) if room is not None else None

    def next_held(self, rid: str) -> str | None:
        """The next room of `rid` as this process knows it without asking anyone else: made here
        (a store that keeps rooms across a restart also knows the links it brought back)."""
        fut = self.next_rooms.get(rid)
        return fut.result() if fut is not None and fut.done() and not fut.cancelled() else None

    async def next_of(self, rid: str) -> str | None:
        """The room made to play a finished room's game again, once someone asked for one."""
        return self.next_held(rid)

    def with_next_listed(self, listing: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The finished rooms of a listing of rooms held here say where their game went on
        (`next_room`), so the lobby leads on to the next table; read from this process, no I/O: a
        listed room is held here, and so is its link."""
        for entry in listing:
            if entry.get("status") == FINISHED:
                entry["next_room"] = self.next_held(entry["room"])
        return listing

    async def link_next(self, rid: str, make: Callable[[], Awaitable[str]]) -> str:
        """The next room of `rid`: made by `make` for the first caller, the same one for every later
        caller (one process: a future per finished room; Redis overrides this across processes)."""
        fut = self.next_rooms.get(rid)
        if fut is None:
            for old in [r for r, f in self.next_rooms.items() if f.done() and r not in self.rooms.rooms]:
                del self.next_rooms[old]  # rooms no longer held: their links are in a file, or gone with them
            fut = asyncio.get_running_loop().create_future()
            self.next_rooms[rid] = fut
            try:
                made = await make()
            except BaseException as e:
                del self.next_rooms[rid]  # the next caller tries again
                fut.set_exception(e)
                fut.exception()  # retrieved: the waiters re-raise it themselves
                raise
            fut.set_result(made)
            self.linked(rid, made)
            return made
        return await asyncio.shield(fut)

    async def with_next(self, rid: str, info: dict[str, Any] | None) -> dict[str, Any] | None:
        """A finished room's info says where its game goes on: `next_room`, null until someone asks."""
        if info is not None and info.get("status") == FINISHED:
            info["next_room"] = await self.next_of(rid)
        return info

    def linked(self, rid: str, nxt: str) -> None:
        """A store that keeps rooms beyond the process writes the link down here (memory keeps none)."""
        return None

    async def again(self, rid: str, token: Any) -> dict[str, Any]:
        """Play again: the seated player holding `token` in the finished room `rid` has the same seat
        of its next room, under the same token. The first who asks makes that room and seats every
        player of the finished game in their own seat at once, each under the token they hold: a
        player who has not come yet is away there, and a stand-in plays for them until they come
        (their seat is never given to a bot or a stranger for good); so every later ask, and a
        returning player's, finds their seat."""
        if not isinstance(token, str) or not token:
            raise RoomError("bad_request", "play again needs the seat's token")
        fin = await self.finished(rid)
        if fin is None:
            raise no_room()
        if fin.status != FINISHED:
            raise RoomError("not_finished", "a next game is offered once this one has finished", 409)
        seat = fin.seat_of(token)
        name = fin.names[seat] if seat is not None else None
        if seat is None or name is None:
            raise RoomError("unauthorized", "this token holds no seat of that room", 403)

        async def make() -> str:
            bots = [{"seat": b, "level": fin.levels.get(b, "normal")} for b in fin.bots]
            made = await self.create(fin.game, fin.seats, fin.options, bots, "", again=True)
            nxt = str(made["room"])
            for i, (player, held) in enumerate(zip(fin.names, fin.token_hashes, strict=True)):
                if player is not None and held is not None and i not in fin.bots:
                    await self.join(nxt, player, i, token_hash=held)
            return nxt

        nxt = await self.link_next(rid, make)
        return {"room": nxt, "seat": seat, "token": token}

    @abc.abstractmethod
    async def enter(self, rid: str) -> Target | None:
        """The room a hello names, ready to attach connections; None when there is no such room."""
