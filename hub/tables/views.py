"""Each audience's view of a table: the engine's view with what the hub adds (names, bots, who is
here, moves a bot made for the absent, clocks, an abandoned game's result)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hub.tables.bots import mark_log
from hub.tables.listing import abandoned_result
from hub.tables.seat import FINISHED, WAITING

if TYPE_CHECKING:
    from hub.tables.table import Table


def compose(room: Table, view: dict[str, Any], seat: int | None,
            presence: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The engine's view with the hub's parts. Kept as it is, without a copy: the engines build
    every view fresh, sharing no map or list with their state (tests/rules/test_views.py), so a
    later move cannot change a stored view under the next diff. The copy this replaced (a msgpack
    round trip per audience per change) was a quarter of a loaded hub's time. The views of one
    change may share what every audience sees alike (`Game.views`): what is set below on a
    player is the same for every audience."""
    seats, clock, stood_in = room.seats, room.clock, room.bots.stood_in_by_seat
    players = view.get("players")
    mine = [p for p in players if isinstance(p, dict) and isinstance(p.get("seat"), int)
            and 0 <= p["seat"] < len(seats)] if isinstance(players, list) else []
    for p in mine:
        s = seats[p["seat"]]
        p["name"] = s.name
        p["bot"] = s.bot
        if s.bot:
            p["bot_level"] = s.level
        if stood_in[p["seat"]]:
            p["stood_in"] = stood_in[p["seat"]]
        if clock.banked:
            p["bank_ms"] = clock.bank_ms[p["seat"]]
    if mine and room.status != FINISHED:  # a finished table waits for no one
        presence = room.people.seats() if presence is None else presence
        for p in mine:
            p.update(presence[p["seat"]])
    mark_log(view, room.bots.stood_in_log)
    if room.abandoned:
        view["abandoned"] = True
        view["result"] = abandoned_result(view, len(seats))
    view["deadline"] = clock.deadline_for(seat)
    if room.status == WAITING:
        view["phase"] = "waiting"
        view["active"] = []
        view["legal"] = []
    return view
