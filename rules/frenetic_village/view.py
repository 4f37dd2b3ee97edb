"""What each audience sees of a Frenetic Village table: all but a seat's hand, legal actions and
grabbed slot is public; a face-down declaring card shows nothing."""
from __future__ import annotations

import rules.frenetic_village.actions as actions
import rules.frenetic_village.components as fc
from rules.engine import View, json_copy
from rules.frenetic_village.components import GAME_ID
from rules.frenetic_village.state import State


def seat_view(public: View, state: State, seat: int | None) -> View:
    """All but a seat's hand, legal actions and grabbed slot is public. A card shown is the id of its
    kind ("humans-3", "skulls"), the same for every copy, and the catalogue says what it shows."""
    view = dict(public)
    own = seat if seat is not None and isinstance(seat, int) and 0 <= seat < state.seats else None
    if own is not None:
        view["seat"] = own
        view["legal"] = actions.legal(state, own)
        view["hand"] = [fc.kind_id(x) for x in state.hands[own]]
        view["grabbed_slot"] = state.exclude_slot if own == state.turn else None
    return view


def public_view(state: State, log: bool = True) -> View:
    """Everything every audience sees; without `log` (a playout's bots never read it), an empty one."""
    players = []
    for s in range(state.seats):
        pile = state.piles[s]
        down = state.face_down == s
        players.append({
            "seat": s, "hand": len(state.hands[s]), "pile": len(pile),
            "top": fc.kind_id(pile[-1]) if pile and not down else None, "face_down": down,
            "wins": state.wins[s], "score": state.scores[s],
        })
    c = state.contest
    contest = None if c is None else {
        "key": c.key, "pile": c.pile, "placer": c.placer, "eligible": list(c.eligible),
        "card": fc.kind_id(state.piles[c.pile][-1]),
    }
    return {
        "game": GAME_ID,
        "phase": state.phase,
        "variant": state.variant,
        "battle": state.battle,
        "battles": state.battles if state.variant in ("lowest_total", "battle_points") else None,
        "players": players,
        "active": actions.active(state),
        "legal": [],
        "deadline": None,
        "result": json_copy(state.result),
        "turn": state.turn,
        "seat": None,
        "hand": [],
        "grabbed_slot": None,
        "draw_pile": len(state.draw),
        "contest": contest,
        "grabbable": [p for p, _ in state.queue],
        "last_battle": json_copy(state.last_battle),
        "log": json_copy(state.log) if log else [],
        "log_from": state.log_from,
    }
