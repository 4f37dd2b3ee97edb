"""The course of a Frenetic Village battle: dealing, turns, the draw pile running short, the
contests that follow each card put away, and when the game ends."""
from __future__ import annotations

import rules.frenetic_village.components as fc
from rules.frenetic_village.components import FIVE_WINS
from rules.frenetic_village.state import OpenContest, State


def start_battle(state: State, starter: int) -> None:
    deck = list(range(fc.DECK_SIZE))
    state.rng.shuffle(deck)
    state.hands = [[deck.pop() for _ in range(fc.HAND)] for _ in range(state.seats)]
    state.draw = deck
    state.piles = [[] for _ in range(state.seats)]
    state.queue = []
    state.contest = None
    state.face_down = None
    begin_turn(state, starter)
    state.say("battle", state.battle, starter)


def begin_turn(state: State, seat: int) -> None:
    state.turn = seat
    state.phase = "draw"
    state.exclude_slot = None
    state.actions_allowed = True


def draw_one(state: State, seat: int) -> None:
    if not state.draw:
        cards = [c for pile in state.piles for c in pile]
        state.rng.shuffle(cards)
        state.draw = cards
        state.piles = [[] for _ in range(state.seats)]
        state.queue = []
        state.say("reshuffled")
    if state.draw:  # always true: at most 41 of the 62 cards are ever in hands
        state.hands[seat].append(state.draw.pop())


def at_least(state: State, n: int) -> None:
    """Make sure the draw pile holds n cards: if not, every discard pile is shuffled in under it.

    The rulebook refills the pile from the discard piles when it runs out; a Skulls or "cards to
    the deck" victim must draw cards that are new, so the refill comes before their own cards go
    in. At most 41 of the 62 cards are in hands, so the piles always have enough.
    """
    if len(state.draw) >= n:
        return
    cards = [c for pile in state.piles for c in pile]
    state.rng.shuffle(cards)
    state.draw[0:0] = cards
    state.piles = [[] for _ in range(state.seats)]
    state.queue = []
    state.face_down = None
    state.say("short")


def short(state: State) -> list[int]:
    return [s for s in range(state.seats) if len(state.hands[s]) < fc.HAND]


def after_placement(state: State) -> None:
    state.exclude_slot = None
    while state.queue:
        pile, placer = state.queue[0]
        eligible = tuple(s for s in range(state.seats) if s != placer and state.hands[s])
        if eligible:
            state.contest_seq += 1
            state.contest = OpenContest(f"grab-{state.contest_seq}", pile, placer, eligible)
            state.phase = "grab"
            return
        state.queue.pop(0)  # nobody could put another card away after a grab
    end_chain(state)


def end_chain(state: State) -> None:
    state.contest = None
    state.exclude_slot = None
    if short(state):
        state.phase = "refill"
        state.actions_allowed = True
        return
    begin_turn(state, (state.turn + 1) % state.seats)


def over(state: State, winner: int) -> bool:
    if state.variant == "single":
        return True
    if state.variant == "five_wins":
        return state.wins[winner] >= FIVE_WINS
    return state.battle >= state.battles
