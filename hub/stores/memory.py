"""The embedded default: this process holds every room, and a change reaches sockets with no hop."""
from __future__ import annotations

from typing import Any

from hub.stores.base import Store, Target, no_room, not_finished
from hub.tables import replay
from hub.tables.seat import FINISHED


class MemoryStore(Store):
    kind = "memory"

    async def create(self, game: Any, seats: Any, options: Any, bots: Any, ip: str,
                     again: bool = False) -> dict[str, Any]:
        room = self.rooms.create(game, seats, options, bots, ip, again=again)
        return {"room": room.rid, "game": room.game.id, "seats": len(room.seats)}

    async def listing(self) -> list[dict[str, Any]]:
        return self.with_next_listed(self.rooms.listing())

    async def info(self, rid: str) -> dict[str, Any] | None:
        room = self.rooms.get(rid)
        return await self.with_next(rid, room.info() if room is not None else None)

    async def join(self, rid: str, name: str, seat: int | None, bot: bool = False,
                   token_hash: str | None = None) -> tuple[int, str]:
        room = self.rooms.get(rid)
        if room is None:
            raise no_room()
        return room.join(name, seat, token_hash=token_hash, bot=bot)

    async def replay(self, rid: str) -> dict[str, Any] | None:
        room = self.rooms.get(rid)
        if room is None:
            return None
        if room.status != FINISHED:
            raise not_finished()
        return replay.build(room)

    async def enter(self, rid: str) -> Target | None:
        return self.rooms.get(rid)

    def go_deaf(self, seconds: float) -> None:
        """Nothing to lose: no message crosses a process boundary here."""
