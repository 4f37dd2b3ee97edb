"""What each audience sees of a Symbiose table: everything but `legal` is public, and a face-down
card is `null` to everyone."""
from __future__ import annotations

from typing import Any

import rules.symbiose.actions as actions
from rules.engine import View, json_copy
from rules.symbiose.components import COLUMNS, DECK, ROUNDS, neighbours, team_of
from rules.symbiose.scoring import outcome, showing
from rules.symbiose.state import State

GAME_ID = "symbiose"


def seat_view(public: View, state: State, seat: int | None) -> View:
    view = dict(public)
    view["legal"] = [] if seat is None else actions.legal(state, seat)
    return view


def public_view(state: State) -> View:
    sides = neighbours(state.seats, state.mode)
    over = state.scores is not None
    shown = None if over else showing(state)
    scoring = None
    if state.scores is not None and state.slot_points is not None:
        scoring = [_scoring_entry(state, s, state.slot_points[s]) for s in range(state.seats)]
    return {
        "game": GAME_ID,
        "mode": state.mode,
        "phase": state.phase,
        "round": actions.round_of(state),
        "rounds": ROUNDS,
        "players": [
            {"seat": s, "left": sides[s][0], "right": sides[s][1], "team": team_of(s, state.mode),
             "score": state.scores[s] if state.scores is not None else None,
             "showing": shown[s] if shown is not None else None}
            for s in range(state.seats)
        ],
        "active": actions.active(state),
        "legal": [],
        "deadline": None,
        "result": outcome(state.scores, state.mode) if state.scores is not None else None,
        "ponds": [[_slot_view(c, u) for c, u in zip(p, ups, strict=True)]
                  for p, ups in zip(state.ponds, state.up, strict=True)],
        "river": [_slot_view(c, u) for c, u in zip(state.river, state.river_up, strict=True)],
        "deck": len(state.deck),
        "scoring": scoring,
        "log": json_copy(state.log),
        "log_from": state.log_from,
    }


def _scoring_entry(state: State, seat: int, points: list[int]) -> dict[str, Any]:
    fixed = sum(p for c, p in zip(state.ponds[seat], points, strict=True) if DECK[c].kind == "fixed")
    columns = [points[col] + points[col + COLUMNS] for col in range(COLUMNS)]
    return {"seat": seat, "fixed": fixed, "columns": columns, "total": sum(points),
            "slots": list(points)}


def _slot_view(card: int, up: bool) -> int | None:
    """A face-up card is the id of its kind in the catalogue (its place in the deck table: every
    card is of a kind of its own, and it says nothing of the shuffle; a card never turns face down
    again, so following it leaks nothing); a face-down card is `null`, which carries nothing at all.
    A bare id rather than a map makes turning a card up one `replace` on the wire, not two."""
    return card if up else None


def catalogue() -> dict[str, Any]:
    """Every card of the deck table by its index, as the views (`ponds`, `river`) and the log name them."""
    return {"cards": {str(i): card_face(i) for i in range(len(DECK))}}


def card_face(index: int) -> dict[str, Any]:
    """What a card shows: its colour, its animal and its value."""
    card = DECK[index]
    value: dict[str, Any]
    if card.kind == "fixed":
        value = {"kind": "fixed", "points": card.points}
    elif card.kind == "per_animal":
        value = {"kind": "per_animal", "animal": card.counts, "points": card.points}
    else:
        value = {"kind": "per_colour", "colour": card.counts, "points": card.points}
    return {"colour": card.colour, "animal": card.animal, "value": value}
