"""What each audience sees of a Waterfall Park table: the park, the sites, the offers, the log and the
players are public; a seat adds its hand, its discards, its legal actions and its own coins."""
from __future__ import annotations

from typing import Any

import rules.waterfall_park.actions as actions
import rules.waterfall_park.flow as flow
import rules.waterfall_park.trade as trade
from rules.engine import Result, View, json_copy
from rules.waterfall_park.components import (
    ATTRACTIONS,
    BLOCKS,
    BOARD_HEIGHT,
    BOARD_WIDTH,
    COLOURS,
    COMPLETE_INCOME,
    GAME_ID,
    INCOMPLETE_INCOME,
    LOCATIONS,
    NUMBERS,
    ROUNDS,
    SCHEDULE,
    SIZES,
    TILE_COUNTS,
    WATERFALL,
)
from rules.waterfall_park.state import OVER, State


def result(state: State) -> Result | None:
    if state.phase != OVER or state.winners is None:
        return None
    return {"winners": list(state.winners), "scores": list(state.coins)}


def seat_view(public: View, state: State, seat: int | None) -> View:
    """The board, the sites, the offers, the log and the other players are public; a seat adds
    its hand, its discards, its legal actions and its own coins."""
    view = dict(public)
    me = seat if isinstance(seat, int) and 0 <= seat < state.seats else None
    if me is not None:
        chosen = state.discards[me]
        view["seat"] = me
        if state.phase != OVER:
            view["players"] = [dict(p, coins=state.coins[me]) if s == me else p
                               for s, p in enumerate(public["players"])]
        view["legal"] = actions.legal(state, me)
        view["hand"] = list(state.hands[me])
        view["discarded"] = list(chosen) if chosen is not None else None
    return view


def public_view(state: State, log: bool = True) -> View:
    """The spectators' view; without the `log` (an empty one) for a playout's bots, which never
    read it and spend most of a view's copying on it."""
    on_board = flow.tiles_on_board(state)
    players = [_player(state, s, on_board, state.phase == OVER) for s in range(state.seats)]
    return _public(state, on_board, players, log)


def _player(state: State, s: int, on_board: list[int], coins_shown: bool) -> dict[str, Any]:
    return {
        "seat": s,
        "colour": COLOURS[s][0],
        "symbol": COLOURS[s][1],
        "glyph": COLOURS[s][2],
        "coins": state.coins[s] if coins_shown else None,
        "income": list(state.income[s]),
        "earning": state.earning[s],
        "attractions": [
            {"tile": name, "locations": list(numbers), "size": len(numbers),
             "complete": len(numbers) == SIZES[name], "income": pay}
            for name, numbers, pay in state.attractions[s]
        ] if state.attractions else [],
        "locations": state.owner.count(s),
        "bases": state.bases_left(s),
        "built": on_board[s],
        "tiles": dict(state.unbuilt[s]),
        "cards": len(state.hands[s]),
        "waiting": list(state.pending[s]) if state.pending else [],
        "ready": state.ready[s],
        "offers_made": state.offers_made[s],
    }


def _public(state: State, on_board: list[int], players: list[dict[str, Any]], log: bool) -> View:
    result: dict[str, Any] | None = None
    if state.phase == OVER and state.winners is not None:
        result = {
            "winners": list(state.winners),
            "scores": list(state.coins),
            "tiles_on_board": on_board,
        }
    return {
        "game": GAME_ID,
        "phase": state.phase,
        "round": state.round,
        "rounds": ROUNDS,
        "seat": None,
        "players": players,
        "active": actions.active(state),
        "legal": [],
        "deadline": None,
        "result": result,
        "board": board_view(),
        "attractions": [
            {"name": k, "size": SIZES[k], "tiles": TILE_COUNTS[k]} for k in ATTRACTIONS
        ],
        "income_table": {
            "incomplete": [INCOMPLETE_INCOME[k] for k in sorted(INCOMPLETE_INCOME)],
            "complete": {str(k): v for k, v in sorted(COMPLETE_INCOME.items())},
        },
        "schedule": [
            {"round": r + 1, "cards": c, "discard": d, "tiles": t}
            for r, (c, d, t) in enumerate(SCHEDULE[state.seats])
        ],
        "sites": [
            {"owner": state.owner[n - 1], "tile": state.tile[n - 1]} for n in NUMBERS
        ],
        "deck": len(state.deck),
        "tile_deck": len(state.tile_deck),
        "hand": [],
        "discarded": None,
        "offers": {str(oid): trade.offer_view(state.offers[oid]) for oid in sorted(state.offers)},
        "max_offers": state.max_offers,
        "trades": state.trades,
        "log": json_copy(state.log) if log else [],
        "log_from": state.log_from,
    }


def board_view() -> dict[str, Any]:
    """The park's geometry, so a client can draw it: every location's number, cell and block."""
    x, y, w, h = WATERFALL
    return {
        "width": BOARD_WIDTH,
        "height": BOARD_HEIGHT,
        "locations": [{"n": loc.number, "x": loc.x, "y": loc.y, "block": loc.block} for loc in LOCATIONS],
        "blocks": [{"id": b, "x": bx, "y": by, "w": bw, "h": bh} for b, bx, by, bw, bh in BLOCKS],
        "waterfall": {"x": x, "y": y, "w": w, "h": h},
    }
