"""A bot that reads only its own seat's view and plays for Score cards it can win.

It estimates each Pool's water and each player's influence from what it sees, counting an
unseen face-down card as an average card, and prefers plays that lead a Pool which is about to
spill over, weighted by the Score card's points. Cheap, and much better than random play.
"""
from __future__ import annotations

import random
from typing import Any

from rules.engine import Action, View
from rules.frenzy_falls.components import SPILL_AT
from rules.frenzy_falls.view import with_faces
from rules.search import normal_first

#: What a face-down card the bot cannot see is worth on average (the deck's means, rounded).
UNSEEN_WATER = 2.3
UNSEEN_INFLUENCE = 2.0


def _estimate(pool: dict[str, Any]) -> tuple[float, dict[int, float]]:
    score = pool.get("score")
    water = float(score["water"]) if score else 0.0
    influence: dict[int, float] = {}
    for card in pool["cards"]:
        seen = "water" in card
        water += card["water"] if seen else UNSEEN_WATER
        influence[card["seat"]] = influence.get(card["seat"], 0.0) + (
            card["influence"] if seen else UNSEEN_INFLUENCE)
    return water, influence


def _spill_chance(water: float) -> float:
    if water >= SPILL_AT:
        return 1.0
    if water >= SPILL_AT - 3:
        return 0.6
    if water >= SPILL_AT - 5:
        return 0.3
    return 0.15


def _worth(card: dict[str, Any]) -> tuple[float, float, float]:
    """(water, influence, bonus) a card brings; a PROXY will become a good card from hand."""
    if card["action"] == "PROXY":
        return 2.0, 3.0, 0.0
    return float(card["water"]), float(card["influence"]), 0.4 if card["action"] else 0.0


def _play_value(view: View, action: Action) -> float:
    me = view["seat"]
    pool = view["pools"][action["pool"]]
    if pool["score"] is None:
        return -10.0
    water, influence = _estimate(pool)
    cw, ci, bonus = _worth(view["hand"][action["card"]])
    mine = influence.get(me, 0.0) + ci
    other = max((v for s, v in influence.items() if s != me), default=0.0)
    chance = _spill_chance(water + cw)
    points = float(pool["score"]["points"])
    lead = mine - other
    if lead > 0:
        # Winning by a mile wastes influence that another Pool could use.
        return points * chance * (1 + min(lead, 3) / 6) - 0.15 * max(0.0, lead - 3) + bonus
    return -0.5 * points * chance + 0.1 * ci + bonus


def _card_value(card: dict[str, Any]) -> float:
    penalty = 0.5 if card["action"] is not None else 0.0
    return float(card["influence"] + 0.3 * card["water"] - penalty)


def bot_action(view: View, rng: random.Random) -> Action | None:
    legal: list[Action] = view.get("legal") or []
    if not legal:
        return None
    view = with_faces(view)
    me = view.get("seat")
    phase = view.get("phase")
    hand = view.get("hand") or []
    pools = view.get("pools") or []

    def best(value: Any) -> Action:
        scored = [(value(a) + rng.random() * 0.05, i) for i, a in enumerate(legal)]
        return legal[max(scored)[1]]

    if phase == "play":
        return best(lambda a: _play_value(view, a))
    if phase == "proxy":
        return best(lambda a: _card_value(hand[a["card"]]))
    if phase == "bump":
        pending = view["pending"]
        cards = pools[pending["pool"]]["cards"]

        def bump_value(a: Action) -> float:
            card = cards[pending["pos"] + (-1 if a["side"] == "left" else 1)]
            seen = float(card.get("influence", UNSEEN_INFLUENCE))
            return -seen if card["seat"] == me else seen
        return best(bump_value)
    if phase == "pull":
        def pull_value(a: Action) -> float:
            card = pools[a["pool"]]["cards"][a["pos"]]
            if card["seat"] == me:
                return 1.0 + float(card.get("influence", UNSEEN_INFLUENCE))
            return -1.0 + 0.2 * float(card.get("water", UNSEEN_WATER))
        return best(pull_value)
    if phase == "spill":
        pool = view["spill"]["pool"]
        return best(lambda a: _card_value(pools[pool]["cards"][a["pos"]]))
    if phase == "discard":
        weak = [i for i, c in enumerate(hand) if c["action"] is None and c["influence"] <= 1]
        for action in legal:
            if action["cards"] == weak:
                return action
    return rng.choice(legal)


def ranked(view: View, rng: random.Random, width: int) -> list[Action]:
    """Up to `width` moves worth a search's time (rules/search.py), best first: the plays this bot
    values most; in the other phases its own choice, then others at random."""
    legal: list[Action] = view.get("legal") or []
    if view.get("phase") == "play":
        seen = with_faces(view)
        values = [_play_value(seen, a) for a in legal]
        order = sorted(range(len(legal)), key=lambda k: -values[k])
        return [dict(legal[k]) for k in order[:width]]
    return normal_first(legal, bot_action(view, rng), rng, width)
