"""Worlds a Frenetic Village seat cannot tell from the true one, for the strong level
(rules/search.py).

What a seat sees: its own hand, every pile's top card (but a face-down declaring card), how many
cards each hand, pile and the draw pile hold, and the contest under way. A sample gives each card
seen a physical card of its kind, and deals the other 62 - seen cards at random among the other
hands, the piles under their tops and the draw pile. What the turn's flags are (a grabbed card that
may not be put away at once, a discard owed after "One card") follows from the phase and the last
log entry, which the view holds.
"""
from __future__ import annotations

import random

import rules.frenetic_village.bot as bot
import rules.frenetic_village.components as fc
from rules.engine import Action, View, json_copy
from rules.frenetic_village.state import OpenContest, State
from rules.search import normal_first


def _by_kind() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for card in range(fc.DECK_SIZE):
        out.setdefault(fc.kind_id(card), []).append(card)
    return out


#: The physical cards of each kind, in the deck table's order.
BY_KIND = _by_kind()


def seat_of(view: View) -> int:
    return int(view["seat"])


def sample(view: View, rng: random.Random) -> State:
    me = seat_of(view)
    players = view["players"]
    seats = len(players)
    left = {k: list(cards) for k, cards in BY_KIND.items()}
    for cards in left.values():
        rng.shuffle(cards)
    hand = [left[k].pop() for k in view["hand"]]
    tops = [None if p["top"] is None else left[p["top"]].pop() for p in players]
    unseen = sorted(c for cards in left.values() for c in cards)
    rng.shuffle(unseen)
    hands = [hand if s == me else [unseen.pop() for _ in range(p["hand"])] for s, p in enumerate(players)]
    piles = []
    for p, top in zip(players, tops, strict=True):
        under = [unseen.pop() for _ in range(p["pile"] - (top is not None))]
        piles.append(under + ([top] if top is not None else []))
    assert len(unseen) == view["draw_pile"], "every card is somewhere the view counts"
    phase = view["phase"]
    log = json_copy(view["log"])
    turn = int(view["turn"])
    grabbed = phase == "discard" and bool(log) and isinstance(log[-1], list) and log[-1][0] == "grabs"
    if turn == me:
        exclude = view["grabbed_slot"]
    else:
        exclude = len(hands[turn]) - 1 if grabbed else None
    c = view["contest"]
    contest = None if c is None else OpenContest(c["key"], c["pile"], c["placer"], tuple(c["eligible"]))
    seq = int(str(c["key"]).rsplit("-", 1)[-1]) if c is not None and str(c["key"]).rsplit("-", 1)[-1].isdigit() else 0
    return State(
        seats=seats, variant=view["variant"], battles=view["battles"] or 1, rng=random.Random(rng.getrandbits(64)),
        hands=hands, draw=unseen, piles=piles, phase=phase, turn=turn, exclude_slot=exclude,
        actions_allowed=phase != "discard", queue=[(p, p) for p in view["grabbable"]], contest=contest,
        contest_seq=seq, battle=int(view["battle"]), wins=[p["wins"] for p in players],
        scores=[p["score"] for p in players], last_battle=json_copy(view["last_battle"]),
        face_down=next((s for s, p in enumerate(players) if p["face_down"]), None),
        log=log, log_from=int(view["log_from"]), result=json_copy(view["result"]),
    )


def candidates(view: View, rng: random.Random, width: int) -> list[Action]:
    """The normal bot's choice first, then other legal moves at random."""
    return normal_first(view["legal"], bot.bot_action(view, rng), rng, width)


def cards_of(state: State) -> list[int]:
    """Every physical card wherever it lies (for the tests): each of the 62 once."""
    return sorted([c for h in state.hands for c in h] + list(state.draw) + [c for p in state.piles for c in p])
