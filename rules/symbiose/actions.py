"""Whose turn it is in Symbiose, what they may do, and doing it: a first round of flips, then
eight rounds' worth of swaps with the River, each followed by a flip when a face-up card left."""
from __future__ import annotations

import random
from typing import Any

from rules.engine import Action, Event, IllegalAction
from rules.symbiose.components import DECK, POND, ROUNDS
from rules.symbiose.scoring import outcome, score
from rules.symbiose.state import State


def setup(seats: int, seed: int, mode: str) -> State:
    rng = random.Random(seed)
    order = list(range(len(DECK)))
    rng.shuffle(order)
    ponds = [order[i * POND:(i + 1) * POND] for i in range(seats)]
    rest = order[seats * POND:]
    river_size = 8 if mode == "duel" else 4
    river, deck = rest[:river_size], rest[river_size:]
    river_up = [i < 4 for i in range(river_size)]
    state = State(seats, mode, rng, deck, ponds, [[False] * POND for _ in range(seats)], river, river_up)
    state.say("start", mode, seats)
    return state


def seat_of(state: State) -> int:
    return state.turn % state.seats


def round_of(state: State) -> int:
    return min(state.turn // state.seats + 1, ROUNDS)


def active(state: State) -> list[int]:
    return [] if state.phase == "over" else [seat_of(state)]


def legal(state: State, seat: int) -> list[Action]:
    if state.phase == "over" or seat != seat_of(state):
        return []
    if state.phase == "swap":
        return [{"type": "swap", "river": j, "slot": i}
                for j in range(len(state.river)) for i in range(POND)]
    return [{"type": "flip", "slot": i} for i in range(POND) if not state.up[seat][i]]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse(state: State, seat: Any, action: Any) -> tuple[str, int, int]:
    """Validate an action completely; returns (type, slot, river) or raises."""
    if state.phase == "over":
        raise IllegalAction("game_over", "the game is over")
    if not _is_int(seat) or seat != seat_of(state):
        raise IllegalAction("not_your_turn", "it is not your turn")
    if not isinstance(action, dict):
        raise IllegalAction("bad_message", "an action is a map")
    kind = action.get("type")
    if kind == "flip":
        if set(action) != {"type", "slot"}:
            raise IllegalAction("bad_message", "a flip is {type, slot}")
    elif kind == "swap":
        if set(action) != {"type", "river", "slot"}:
            raise IllegalAction("bad_message", "a swap is {type, river, slot}")
    else:
        raise IllegalAction("bad_message", "type must be 'flip' or 'swap'")
    slot = action["slot"]
    if not _is_int(slot):
        raise IllegalAction("bad_message", "slot must be an integer")
    if not 0 <= slot < POND:
        raise IllegalAction("illegal", f"slot must lie in 0..{POND - 1}")
    if kind == "flip":
        if state.phase == "swap":
            raise IllegalAction("illegal", "now is the time to swap with the River")
        if state.up[seat][slot]:
            raise IllegalAction("illegal", "that card is already face up")
        return kind, slot, -1
    river = action["river"]
    if not _is_int(river):
        raise IllegalAction("bad_message", "river must be an integer")
    if not 0 <= river < len(state.river):
        raise IllegalAction("illegal", f"river must lie in 0..{len(state.river) - 1}")
    if state.phase != "swap":
        raise IllegalAction("illegal", "flip a face-down card of your pond first")
    return kind, slot, river


def apply(state: State, seat: int | None, action: Any) -> list[Event]:
    kind, slot, river = parse(state, seat, action)
    assert seat is not None
    if kind == "flip":
        state.up[seat][slot] = True
        state.say("flip", seat, slot, state.ponds[seat][slot])
        events: list[Event] = [{"type": "flip", "seat": seat, "slot": slot}]
        _end_turn(state)
        return events
    taken, given = state.river[river], state.ponds[seat][slot]
    was_up, river_was_up = state.up[seat][slot], state.river_up[river]
    state.ponds[seat][slot], state.up[seat][slot] = taken, True
    state.river[river], state.river_up[river] = given, True
    state.say("swap", seat, river, taken, river_was_up, slot, given, was_up)
    events = [{"type": "swap", "seat": seat, "slot": slot, "river": river}]
    if was_up and not all(state.up[seat]):
        state.phase = "forced_flip"
    else:
        _end_turn(state)
    return events


def _end_turn(state: State) -> None:
    state.turn += 1
    if state.turn >= ROUNDS * state.seats:
        _finish(state)
    else:
        state.phase = "flip" if state.turn < state.seats else "swap"


def _finish(state: State) -> None:
    """All cards are revealed for scoring. Every Pond card is up by now anyway (each turn
    turns exactly one more face up); only duel's River may still hold face-down cards."""
    state.phase = "over"
    for ups in state.up:
        ups[:] = [True] * POND
    state.river_up[:] = [True] * len(state.river)
    state.slot_points = score(state.ponds, state.river, state.mode)
    state.scores = [sum(points) for points in state.slot_points]
    state.say("scores", list(state.scores), outcome(state.scores, state.mode)["winners"])
