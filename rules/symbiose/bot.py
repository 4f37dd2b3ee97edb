"""The greedy Symbiose bot, from a view only: the swap that most raises its side's expected score
against its rivals', a face-down card counted at a card's mean worth."""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from rules.engine import Action, View
from rules.symbiose.components import COLUMNS, DECK, RIVER, Card, Target


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


def _card_from_view(slot: int | None) -> Card | None:
    return None if slot is None else DECK[int(slot)]


def _estimate(boards: Mapping[Target, Sequence[Card | None]], seat: int,
              sides: tuple[Target, Target]) -> float:
    """Expected score of a seat: known cards exactly, a face-down card as HIDDEN_GUESS and as a
    MATCH_CHANCE match for every condition that counts it."""
    total = 0.0
    for slot, card in enumerate(boards[seat]):
        if card is None:
            total += HIDDEN_GUESS
        elif card.kind == "fixed":
            total += card.points
        else:
            col = slot % COLUMNS
            target = sides[0] if col == 0 else sides[1] if col == COLUMNS - 1 else seat
            hits = 0.0
            for other in boards[target]:
                hits += MATCH_CHANCE if other is None else float(card.matches(other))
            total += card.points * hits
    return total


def greedy(view: View, rng: random.Random | None, rival_weight: float | None) -> Action:
    """The swap that most raises (own side's estimate - rival_weight x rivals' estimate).

    rival_weight None means: a fair share, 1 / number of rivals. Ties go to the first listed
    swap without an rng, to a random one with it.
    """
    legal: list[Action] = view["legal"]
    players = view["players"]
    seats = len(players)
    me = _own_seat(view)
    sides: list[tuple[Target, Target]] = [(p["left"], p["right"]) for p in players]
    boards: dict[Target, list[Card | None]] = {
        s: [_card_from_view(slot) for slot in pond] for s, pond in enumerate(view["ponds"])}
    boards[RIVER] = [_card_from_view(slot) for slot in view["river"]]
    team = view.get("mode") == "team"
    friends = {s for s in range(seats) if s % 2 == me % 2} if team else {me}
    rivals = [s for s in range(seats) if s not in friends]
    weight = rival_weight if rival_weight is not None else 1.0 / max(1, len(rivals))
    river_cards = [_card_from_view(slot) for slot in view["river"]]

    best: list[Action] = []
    best_value = float("-inf")
    own = boards[me]
    for action in legal:
        j, i = action["river"], action["slot"]
        taken = river_cards[j]
        if taken is None:
            continue  # a face-down river card is a gamble the greedy bot declines while it can
        old_own, old_river = own[i], boards[RIVER][j]
        own[i] = taken
        boards[RIVER][j] = old_own
        value = sum(_estimate(boards, s, sides[s]) for s in friends)
        value -= weight * sum(_estimate(boards, s, sides[s]) for s in rivals)
        own[i], boards[RIVER][j] = old_own, old_river
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif abs(value - best_value) <= 1e-9:
            best.append(action)
    if not best:
        best = legal
    choice = best[0] if rng is None else rng.choice(best)
    return dict(choice)


def _own_seat(view: View) -> int:
    """The seat a view belongs to: the active seat, since only the active seat has legal actions."""
    active: list[int] = view["active"]
    return active[0]
