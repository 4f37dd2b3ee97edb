"""The greedy Symbiose bot, from a view only: the swap that most raises its side's expected score
against its rivals', a face-down card counted at a card's mean worth."""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from rules.engine import Action, View
from rules.symbiose.components import COLUMNS, DECK, RIVER, Target


def bot_action(view: View, rng: random.Random) -> Action | None:
    legal = view.get("legal") or []
    if not legal:
        return None
    if legal[0]["type"] == "flip":
        return dict(rng.choice(legal))
    return greedy(view, rng, rival_weight=None)



#: What the bot guesses a face-down card is worth to its owner (about a card's mean in play).
HIDDEN_GUESS = 4.5
#: A face-down card matches a given animal or colour with this chance (9 of 36).
MATCH_CHANCE = 0.25


def _card_from_view(slot: int | None) -> int | None:
    return None if slot is None else int(slot)


def _tables() -> tuple[list[int | None], list[list[float]], list[float]]:
    """Per card: its points if it is fixed; what it earns from each other card it may face; what it
    earns from a face-down one. Every figure is a small integer or a quarter of one, so sums of them
    are exact and the greedy bot's ties come out the same in any order."""
    fixed: list[int | None] = []
    rows: list[list[float]] = []
    hidden: list[float] = []
    for card in DECK:
        fixed.append(card.points if card.kind == "fixed" else None)
        rows.append([float(card.points) if card.kind != "fixed" and card.matches(o) else 0.0 for o in DECK])
        hidden.append(card.points * MATCH_CHANCE)
    return fixed, rows, hidden


_FIXED, _EARNS, _EARNS_HIDDEN = _tables()


def _estimate(boards: Mapping[Target, Sequence[int | None]], seat: int,
              sides: tuple[Target, Target]) -> float:
    """Expected score of a seat: known cards exactly, a face-down card as HIDDEN_GUESS and as a
    MATCH_CHANCE match for every condition that counts it."""
    total = 0.0
    for slot, card in enumerate(boards[seat]):
        if card is None:
            total += HIDDEN_GUESS
            continue
        fixed = _FIXED[card]
        if fixed is not None:
            total += fixed
            continue
        col = slot % COLUMNS
        target = sides[0] if col == 0 else sides[1] if col == COLUMNS - 1 else seat
        earns, hidden = _EARNS[card], _EARNS_HIDDEN[card]
        for other in boards[target]:
            total += hidden if other is None else earns[other]
    return total


def greedy(view: View, rng: random.Random | None, rival_weight: float | None) -> Action:
    """The swap that most raises (own side's estimate - rival_weight x rivals' estimate).

    rival_weight None means: a fair share, 1 / number of rivals. A face-down river card is a
    gamble the greedy bot declines while it can. Ties go to the first listed swap without an rng,
    to a random one with it.
    """
    legal: list[Action] = view["legal"]
    values = _values(view, rival_weight)
    known = [(a, v) for a, v in zip(legal, values, strict=True) if view["river"][a["river"]] is not None]
    if not known:
        return dict(legal[0] if rng is None else rng.choice(legal))
    top = max(v for _, v in known)
    best = [a for a, v in known if abs(v - top) <= 1e-9]
    choice = best[0] if rng is None else rng.choice(best)
    return dict(choice)


def ranked(view: View, width: int) -> list[Action]:
    """The `width` swaps the greedy estimate likes best, best first (a face-down river card counted
    at a card's mean): the strong level's candidates (rules/search.py)."""
    legal: list[Action] = view["legal"]
    values = _values(view, None)
    order = sorted(range(len(legal)), key=lambda k: -values[k])
    return [dict(legal[k]) for k in order[:width]]


def _values(view: View, rival_weight: float | None) -> list[float]:
    legal: list[Action] = view["legal"]
    players = view["players"]
    seats = len(players)
    me = _own_seat(view)
    sides: list[tuple[Target, Target]] = [(p["left"], p["right"]) for p in players]
    boards: dict[Target, list[int | None]] = {
        s: [_card_from_view(slot) for slot in pond] for s, pond in enumerate(view["ponds"])}
    boards[RIVER] = [_card_from_view(slot) for slot in view["river"]]
    team = view.get("mode") == "team"
    friends = {s for s in range(seats) if s % 2 == me % 2} if team else {me}
    rivals = [s for s in range(seats) if s not in friends]
    weight = rival_weight if rival_weight is not None else 1.0 / max(1, len(rivals))
    river_cards = [_card_from_view(slot) for slot in view["river"]]
    own = boards[me]
    values = []
    for action in legal:
        j, i = action["river"], action["slot"]
        old_own, old_river = own[i], boards[RIVER][j]
        own[i] = river_cards[j]
        boards[RIVER][j] = old_own
        value = sum(_estimate(boards, s, sides[s]) for s in friends)
        value -= weight * sum(_estimate(boards, s, sides[s]) for s in rivals)
        own[i], boards[RIVER][j] = old_own, old_river
        values.append(value)
    return values


def _own_seat(view: View) -> int:
    """The seat a view belongs to: the active seat, since only the active seat has legal actions."""
    active: list[int] = view["active"]
    return active[0]
