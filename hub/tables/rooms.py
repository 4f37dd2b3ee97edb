"""Every room this process holds, and the lobby's rules for making them."""
from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hub.logs import log
from hub.metrics import Metrics
from hub.settings import Settings
from hub.tables import thinking
from hub.tables.room import Room
from hub.tables.seat import FINISHED, PLAYING, WAITING, RoomError
from hub.tokens import new_room_id
from rules import levels
from rules.engine import Game, IllegalAction, Option, declares_contests
from rules.levels import NORMAL
from rules.registry import GAMES

if TYPE_CHECKING:
    from hub.tables.peer import Peer

logger = logging.getLogger("hub.tables.rooms")


def hub_options(settings: Settings, game: Game) -> dict[str, Option]:
    """Options every game's rooms take, beside the game's own."""
    specs: dict[str, Option] = {
        "bot_delay_ms": {"default": settings.bot_delay_ms, "min": 0, "max": 10000,
                         "doc": "pause before a bot moves, in ms (human pace by default)"},
        "decision_seconds": {"default": 0, "min": 0, "max": 3600,
                             "doc": "time per decision; 0 = untimed. On timeout the game's default move is played"},
        "bank_seconds": {"default": 0, "min": 0, "max": 36000,
                         "doc": "each seat's chess-clock bank, drawn on once a decision's own time is used up; "
                                "at zero the game's default move is played"},
        "private": {"default": False, "choices": [False, True], "doc": "not listed in the lobby"},
        "spectator_chat": {"default": "table", "choices": ["table", "spectators"],
                           "doc": "who hears the spectators' chat: the whole table, or spectators only"},
    }
    if declares_contests(game):
        specs["grab_window_ms"] = {"default": settings.grab_window_ms, "min": 300, "max": 5000,
                                   "doc": "how long a grab contest stays open at most, in ms"}
    return specs


def check_hub_options(specs: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, spec in specs.items():
        value = given.get(key, spec.get("default"))
        if "choices" in spec and value not in spec["choices"]:
            raise RoomError("bad_option", f"option {key!r} must be one of {spec['choices']}")
        if "min" in spec and (
            not isinstance(value, int) or isinstance(value, bool) or not spec["min"] <= value <= spec["max"]
        ):
            raise RoomError("bad_option", f"option {key!r} must be an integer in {spec['min']}..{spec['max']}")
        out[key] = value
    return out


#: The ticker's period, and how many of its ticks make one look at the rooms.
TICK_S = 0.2
ROOM_TICKS = 5

class Rooms:
    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rooms: dict[str, Room] = {}
        self.conns: set[Peer] = set()
        self._created_by_ip: dict[str, deque[float]] = defaultdict(deque)
        self._ticker: asyncio.Task[None] | None = None
        self.on_drop: Callable[[Room], None] | None = None

    # ---- the lobby -----------------------------------------------------------------------------

    def games(self) -> list[dict[str, Any]]:
        out = []
        for g in GAMES.values():
            options = {k: dict(v) for k, v in [*g.options.items(), *hub_options(self.settings, g).items()]}
            out.append({"id": g.id, "name": g.name, "description": g.description,
                        "min_players": g.min_players, "max_players": g.max_players, "options": options,
                        "bot_levels": list(levels.levels_for(g.id))})
        return out

    def create(self, game_id: Any, seats: Any, options: Any, bots: Any, ip: str = "", again: bool = False) -> Room:
        room = self.build(game_id, seats, options, bots, ip, again)
        self.rooms[room.rid] = room
        return room

    def build(self, game_id: Any, seats: Any, options: Any, bots: Any, ip: str = "", again: bool = False) -> Room:
        """A new room by the lobby's rules, not yet held here. Its bots and timers fire from the event
        loop, so whatever the caller adds to it before its next await is there before they do."""
        game = GAMES.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise RoomError("bad_game", f"unknown game {game_id!r}; known: {sorted(GAMES)}")
        if not isinstance(seats, int) or isinstance(seats, bool) or not game.min_players <= seats <= game.max_players:
            raise RoomError("bad_seats", f"{game.name} seats {game.min_players} to {game.max_players} players")
        if options is None:
            options = {}
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise RoomError("bad_option", "options must be a map of names to values")
        bot_seats, levels = bot_specs(bots, seats, game.id)
        specs = hub_options(self.settings, game)
        hub_opts = check_hub_options(specs, options)
        game_given = {k: v for k, v in options.items() if k not in specs}
        try:
            game_opts = game.check_options(seats, game_given)
        except IllegalAction as e:
            raise RoomError("bad_option", e.message) from None
        if self.live() >= self.settings.max_rooms:
            raise RoomError("busy", "this hub holds as many rooms as it may", 503)
        self._rate_limit(ip)
        rid = new_room_id()
        seed = secrets.randbits(63)
        room = Room(self, rid, game, seats, game_opts, hub_opts, seed, bot_seats, levels)
        room.again = again
        log(logger, logging.INFO, "room created", room=rid, game=game.id, seats=seats, bots=len(bot_seats))
        return room

    def _rate_limit(self, ip: str) -> None:
        if not ip or self.settings.rooms_per_ip_per_min <= 0:
            return
        now = time.monotonic()
        q = self._created_by_ip[ip]
        while q and now - q[0] > 60:
            q.popleft()
        if len(q) >= self.settings.rooms_per_ip_per_min:
            raise RoomError("rate_limited", "too many rooms created from this address; wait a minute", 429)
        q.append(now)

    def live(self) -> int:
        """Rooms still waiting or playing: finished ones are only read, and never keep a new room out."""
        return sum(1 for r in self.rooms.values() if r.status != FINISHED)

    def get(self, rid: Any) -> Room | None:
        return self.rooms.get(rid) if isinstance(rid, str) else None

    def listing(self) -> list[dict[str, Any]]:
        now = time.monotonic()  # a room whose people have all gone is not offered (room.listable)
        return [r.summary() for r in self.rooms.values()
                if not r.private and not (r.status in (WAITING, PLAYING) and r.people.gone(now))]

    def drop(self, rid: str) -> None:
        room = self.rooms.pop(rid, None)
        if room is not None:
            room.close()
            if self.on_drop is not None:
                self.on_drop(room)
            log(logger, logging.INFO, "room dropped", room=rid)

    def _look_after(self, room: Room, now: float) -> None:
        """Rooms nobody is at. A playing one whose humans have all been away for --abandon-s ends as
        abandoned, scored as it stands (its bots and stand-ins wait meanwhile: People.deserted), however
        many watch; a waiting one expires, unless someone watches. A room of bots only plays to its
        end by itself."""
        if room.status == PLAYING and not all(s.bot for s in room.seats):
            since = room.people.away_since(now)
            if (since is not None and now - since >= self.settings.abandon_s
                    and getattr(room.journal, "busy", False) is False):
                room.abandon()
            return
        if (room.status == FINISHED or room.people.humans_here() or room.people.watchers() > 0
                or all(s.bot for s in room.seats)):
            room.alone_since = None
            return
        if room.alone_since is None:
            room.alone_since = now
        if now - room.alone_since < self.settings.abandon_s:
            return
        if room.status == WAITING and room.people.gone(now):
            self.drop(room.rid)

    # ---- time ----------------------------------------------------------------------------------

    def loop_call_later(self, delay: float, fn: Callable[..., Any], *args: Any) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(delay, fn, *args)

    async def start(self) -> None:
        self._ticker = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        for rid in list(self.rooms):
            self.drop(rid)
        thinking.shutdown()

    async def _tick(self) -> None:
        """One loop for the whole process: server pings, idle connections, stale rooms, gauges.

        Connections are looked at five times a second, so that their pings, each at its own phase,
        go out a few at a time rather than in a burst per second; rooms once a second."""
        n = 0
        while True:
            await asyncio.sleep(TICK_S)
            n += 1
            try:
                self._tick_once(time.monotonic(), rooms=n % ROOM_TICKS == 0)
            except Exception:  # noqa: BLE001 - the ticker must outlive any one bad room
                logger.exception("tick failed")

    def _tick_once(self, now: float, rooms: bool = True) -> None:
        """A function of its own, so that its loop variables (the last room, the last connection)
        do not stay alive in the ticker's frame after they are dropped."""
        for conn in list(self.conns):
            conn.tick(now)
        if not rooms:
            return
        for rid, room in list(self.rooms.items()):
            if room.status == WAITING and now - room.created > self.settings.waiting_ttl_s:
                self.drop(rid)
                continue
            if room.again and room.status == WAITING and now - room.created >= self.settings.grace_s:
                room.bots_for_free()
            self._look_after(room, now)
        counts = {WAITING: 0, PLAYING: 0, FINISHED: 0}
        for room in self.rooms.values():
            counts[room.status] += 1
        for status, n in counts.items():
            self.metrics.rooms.labels(status).set(n)


def bot_specs(bots: Any, seats: int, game_id: str) -> tuple[list[int], dict[int, str]]:
    """The bot seats a room is made with, and the level of each that is not normal: `bots` lists
    seats (normal bots) or `{"seat": n, "level": "easy"}` (docs/protocol.md)."""
    if bots is None:
        bots = []
    if not isinstance(bots, list):
        raise RoomError("bad_bots", f"bots must list distinct seats 0..{seats - 1}")
    chosen: dict[int, str] = {}
    for b in bots:
        seat, level = (b.get("seat"), b.get("level", NORMAL)) if isinstance(b, dict) else (b, NORMAL)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats or seat in chosen:
            raise RoomError("bad_bots", f"bots must list distinct seats 0..{seats - 1}")
        try:
            chosen[seat] = levels.check(level, game_id)
        except ValueError as e:
            raise RoomError("bad_bots", str(e)) from None
    return sorted(chosen), {s: lv for s, lv in chosen.items() if lv != NORMAL}
