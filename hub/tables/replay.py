"""Replays of finished games, rebuilt from the seed and the action log: the engine is deterministic.

A replay shows what a spectator saw, step by step: the first view, then one RFC 6902 patch per
action. Spectators' views hold nothing hidden, so a replay reveals nothing a watcher did not see.
"""
from __future__ import annotations

from typing import Any

from hub.tables.audience import diff
from hub.tables.room import Room


def spectator_view(room: Room, state: Any) -> dict[str, Any]:
    view = room.game.view(state, None)
    for p in view.get("players") or []:
        if isinstance(p, dict) and isinstance(p.get("seat"), int) and 0 <= p["seat"] < len(room.seats):
            p["name"] = room.seats[p["seat"]].name
            p["bot"] = room.seats[p["seat"]].bot
    view["deadline"] = None
    return view


def build(room: Room) -> dict[str, Any]:
    state = room.game.setup(len(room.seats), room.seed, room.options)
    first = prev = spectator_view(room, state)
    steps: list[dict[str, Any]] = []
    for seat, action in room.log:
        room.game.apply(state, seat, dict(action))
        view = spectator_view(room, state)
        ops = diff(prev, view)
        if ops:
            steps.append({"seat": seat, "ops": ops})
        prev = view
    return {"room": room.rid, "game": room.game.id, "view": first, "steps": steps, "final": prev}
