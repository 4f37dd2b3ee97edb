"""Worlds a Symbiose seat cannot tell from the true one, for the strong level (rules/search.py).

A Symbiose card never turns face down again, so what nobody has seen is exactly the face-down
cards: the face-down Pond and River slots and the undealt deck. A sample deals the cards not face
up anywhere at random among those places, each card once.
"""
from __future__ import annotations

import random

import rules.symbiose.bot as bot
from rules.engine import Action, View, json_copy
from rules.symbiose.components import DECK, POND
from rules.symbiose.state import State


def seat_of(view: View) -> int:
    """Only the seat to move has `legal`: a bot is asked only then."""
    return int(view["active"][0])


def sample(view: View, rng: random.Random) -> State:
    seats = len(view["ponds"])
    seen = {c for pond in view["ponds"] for c in pond if c is not None}
    seen.update(c for c in view["river"] if c is not None)
    unseen = sorted(set(range(len(DECK))) - seen)
    rng.shuffle(unseen)
    ponds = [[c if c is not None else unseen.pop() for c in pond] for pond in view["ponds"]]
    up = [[c is not None for c in pond] for pond in view["ponds"]]
    river = [c if c is not None else unseen.pop() for c in view["river"]]
    river_up = [c is not None for c in view["river"]]
    seat = int(view["active"][0]) if view["active"] else 0
    turn = (int(view["round"]) - 1) * seats + seat
    state = State(seats, view["mode"], random.Random(rng.getrandbits(64)), unseen, ponds, up, river, river_up,
                  turn=turn, phase=view["phase"], log=json_copy(view["log"]), log_from=int(view["log_from"]))
    assert len(unseen) == view["deck"] and all(len(p) == POND for p in ponds)
    return state


def candidates(view: View, rng: random.Random, width: int) -> list[Action]:
    """Every flip (the first round's are few), else the swaps the greedy estimate ranks best."""
    legal: list[Action] = view["legal"]
    if legal[0]["type"] == "flip":
        return [dict(a) for a in legal]
    return bot.ranked(view, width)
