"""Waterfall Park's rounds: Preparation, Exchange, Construction and Income, each phase begun and
ended as the rulebook orders it, and the game's end."""
from __future__ import annotations

import random

from rules.waterfall_park.components import (
    ATTRACTIONS,
    NUMBERS,
    ROUNDS,
    SCHEDULE,
    START_COINS,
    TILE_COUNTS,
)
from rules.waterfall_park.state import CONSTRUCTION, EXCHANGE, OVER, PREPARATION, State, empty_tiles


def setup(seats: int, seed: int, max_offers: int) -> State:
    rng = random.Random(seed)
    deck = list(NUMBERS)
    rng.shuffle(deck)
    tiles = [name for name in ATTRACTIONS for _ in range(TILE_COUNTS[name])]
    rng.shuffle(tiles)
    state = State(
        seats=seats,
        max_offers=max_offers,
        rng=rng,
        deck=deck,
        tile_deck=tiles,
        hands=[[] for _ in range(seats)],
        discards=[None] * seats,
        owner=[None] * len(NUMBERS),
        tile=[None] * len(NUMBERS),
        unbuilt=[empty_tiles() for _ in range(seats)],
        coins=[START_COINS] * seats,
        income=[[] for _ in range(seats)],
        ready=[False] * seats,
        offers_made=[0] * seats,
        earning=[0] * seats,
    )
    start_preparation(state)
    return state


def start_preparation(state: State) -> None:
    cards, discard, tiles = SCHEDULE[state.seats][state.round - 1]
    state.phase = PREPARATION
    state.ready = [False] * state.seats
    state.offers_made = [0] * state.seats
    for seat in range(state.seats):
        dealt = [state.deck.pop() for _ in range(min(cards, len(state.deck)))]
        state.hands[seat] = sorted(dealt)
    state.say("round", state.round, cards, discard)


def resolve_preparation(state: State) -> None:
    """Reveal the kept cards together, place bases, return discards; then the choices of those
    out of bases, if any, and the Attraction tiles."""
    state.pending = [[] for _ in range(state.seats)]
    state.placed = [[] for _ in range(state.seats)]
    for seat in range(state.seats):
        chosen = state.discards[seat] or ()
        kept = [c for c in state.hands[seat] if c not in chosen]
        state.deck.extend(chosen)
        state.hands[seat] = []
        state.discards[seat] = None
        for card in kept:
            if state.bases_left(seat) == 0:
                state.pending[seat].append(card)
                continue
            state.owner[card - 1] = seat
            state.box.append(card)
            state.placed[seat].append(card)
        if state.placed[seat]:
            state.say("takes", seat, list(state.placed[seat]))
    settle_pending(state)


def settle_pending(state: State) -> None:
    """Out of bases, "you can remove one of yours from an empty location ... and place it
    directly on a new location": each such card waits for its owner's choice (`move_base` or
    `return_card`), one at a time; a card with no empty location to take a base from goes back
    to the deck at once. When no card waits, the Attraction tiles are dealt."""
    for seat in range(state.seats):
        waiting = state.pending[seat]
        while waiting and not state.movable(seat):
            card = waiting.pop(0)
            state.deck.append(card)
            state.say("no_base", seat, card)
        state.ready[seat] = not waiting
    if all(state.ready):
        deal_tiles(state)


def deal_tiles(state: State) -> None:
    state.pending = []
    state.placed = []
    tiles = SCHEDULE[state.seats][state.round - 1][2]
    for seat in range(state.seats):
        dealt = [state.tile_deck.pop() for _ in range(min(tiles, len(state.tile_deck)))]
        for name in dealt:
            state.unbuilt[seat][name] += 1
        if dealt:
            state.say("reveals", seat, sorted(dealt, key=ATTRACTIONS.index))
    state.refresh_earning()
    state.phase = EXCHANGE
    state.ready = [False] * state.seats
    state.say("exchange")


def end_exchange(state: State) -> None:
    if state.offers:
        state.say("lapse", sorted(state.offers))
        state.offers.clear()
    state.phase = CONSTRUCTION
    state.ready = [not can_build(state, s) for s in range(state.seats)]
    state.say("construction")
    if all(state.ready):
        income(state)


def can_build(state: State, seat: int) -> bool:
    return any(state.unbuilt[seat].values()) and any(
        state.tile[n - 1] is None for n in state.owned(seat)
    )


def income(state: State) -> None:
    state.refresh_earning()
    for seat in range(state.seats):
        state.coins[seat] += state.earning[seat]
        state.income[seat].append(state.earning[seat])
    state.say("income", state.round, list(state.earning))
    if state.round == ROUNDS:
        finish(state)
        return
    state.round += 1
    state.rng.shuffle(state.deck)
    start_preparation(state)


def finish(state: State) -> None:
    state.phase = OVER
    state.ready = [True] * state.seats
    on_board = tiles_on_board(state)
    best = max(zip(state.coins, on_board, strict=True))
    state.winners = [
        s for s in range(state.seats) if (state.coins[s], on_board[s]) == best
    ]
    state.say("over", list(state.coins), list(state.winners))


def tiles_on_board(state: State) -> list[int]:
    out = [0] * state.seats
    for owner, tile in zip(state.owner, state.tile, strict=True):
        if owner is not None and tile is not None:
            out[owner] += 1
    return out

# ---- the engine face --------------------------------------------------------------
