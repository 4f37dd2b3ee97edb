"""Replays of finished games, rebuilt from the seed and the action log: the engine is deterministic.

A replay shows what a spectator saw, step by step: the first view, then one RFC 6902 patch per
action; a step a stand-in made for an absent player carries `by: "stand_in"`. Spectators' views
hold nothing hidden, so a replay reveals nothing a watcher did not see.
The chat lines the room kept come with it, each placed by `step`: the number of steps shown when it
was said (a viewer at step k shows the lines whose step is at most k).
"""
from __future__ import annotations

from typing import Any

from hub.tables.audience import diff
from hub.tables.bots import mark_log
from hub.tables.room import STAND_IN, Room


def spectator_view(room: Room, state: Any, stood_in: list[int] | None = None,
                   marks: list[int] | None = None) -> dict[str, Any]:
    """What a spectator saw: the engine's view with the players' names, how many of each seat's
    moves a stand-in had made by then and the log entries they wrote (as the live table showed it)."""
    view = room.game.view(state, None)
    mark_log(view, marks or [])
    for p in view.get("players") or []:
        if isinstance(p, dict) and isinstance(p.get("seat"), int) and 0 <= p["seat"] < len(room.seats):
            p["name"] = room.seats[p["seat"]].name
            p["bot"] = room.seats[p["seat"]].bot
            if room.seats[p["seat"]].bot:
                p["bot_level"] = room.seats[p["seat"]].level
            if stood_in and stood_in[p["seat"]]:
                p["stood_in"] = stood_in[p["seat"]]
    view["deadline"] = None
    return view


def build(room: Room) -> dict[str, Any]:
    state = room.game.setup(len(room.seats), room.seed, room.options)
    first = prev = spectator_view(room, state)
    steps: list[dict[str, Any]] = []
    shown = [0]  # after i actions, how many steps a replay shows
    stood_in = [0] * len(room.seats)
    # the room's marks as they stand at the end: at each step the view shows only entries written by
    # then, and the marks of later ones fall outside its window
    marks = room.bots.stood_in_log
    for i, (seat, action) in enumerate(room.log):
        room.game.apply(state, seat, dict(action))
        by_stand_in = i in room.bots.stood_in  # a stand-in acts for a seat: never the hub's own step
        if by_stand_in and seat is not None:
            stood_in[seat] += 1
        view = spectator_view(room, state, stood_in, marks)
        ops = diff(prev, view)
        if ops:
            # a move a bot made for an absent player says so (`by`), as the live table did
            steps.append({"seat": seat, "ops": ops, **({"by": STAND_IN} if by_stand_in else {})})
        shown.append(len(steps))
        prev = view
    chat = [dict(line, step=shown[min(max(0, int(line.get("move") or 0)), len(shown) - 1)])
            for line in room.chat.lines]
    return {"room": room.rid, "game": room.game.id, "view": first, "steps": steps, "final": prev, "chat": chat}
