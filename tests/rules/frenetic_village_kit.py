"""Helpers for Frenetic Village tests: name cards, arrange hands and the draw pile, scramble secrets."""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import rules.frenetic_village.components as fc
from rules.engine import HUB
from rules.frenetic_village import GAME
from rules.frenetic_village.state import State


def army(race: str, value: int, copy: int = 0) -> int:
    ids = [i for i, c in enumerate(fc.CARDS) if c == ("army", fc.RACES.index(race), value)]
    return ids[copy]


def action(kind: str, copy: int = 0) -> int:
    ids = [i for i, c in enumerate(fc.CARDS) if c[0] == kind]
    return ids[copy]


WILD = action("wild")
WILD2 = action("wild", 1)


def new(seats: int = 3, seed: int = 0, **options: Any) -> State:
    return GAME.setup(seats, seed, GAME.check_options(seats, options))


def arrange(state: State, hands: Mapping[int, Sequence[int]] | None = None,
            top: Sequence[int] = (), piles: Mapping[int, Sequence[int]] | None = None) -> None:
    """Give the named seats these hands, put `top` on the draw pile (first = drawn first), and piles.

    Every other card keeps its place class: unnamed seats keep what they hold when it is free, and
    everything else goes into the draw pile below `top`, so the 62 cards are always conserved.
    """
    hands = dict(hands or {})
    piles = dict(piles or {})
    taken = {c for h in hands.values() for c in h} | set(top) | {c for p in piles.values() for c in p}
    assert len(taken) == len([c for h in hands.values() for c in h]) + len(top) + sum(
        len(p) for p in piles.values()), "a card was named twice"
    for s in range(state.seats):
        if s in hands:
            state.hands[s] = list(hands[s])
        else:
            keep = [c for c in state.hands[s] if c not in taken]
            taken |= set(keep)
            state.hands[s] = keep
    for s in range(state.seats):
        state.piles[s] = list(piles.get(s, []))
    rest = [c for c in range(fc.DECK_SIZE) if c not in taken]
    state.draw = rest + list(reversed(top))
    for s in range(state.seats):  # refill unnamed short hands from below the named top cards
        while s not in hands and len(state.hands[s]) < fc.HAND:
            state.hands[s].append(state.draw.pop(0))
    assert_conserved(state)


def assert_conserved(state: State) -> None:
    cards = sorted([c for h in state.hands for c in h] + state.draw + [c for p in state.piles for c in p])
    assert cards == list(range(fc.DECK_SIZE)), "the 62 cards must be conserved"


def act(state: State, seat: int | None, a: dict[str, Any]) -> list[dict[str, Any]]:
    return GAME.apply(state, seat, a)


def settle(state: State, winner: int | None = None) -> None:
    c = GAME.contest(state)
    assert c is not None, "a contest should be open"
    GAME.apply(state, HUB, {"type": "contest_result", "key": c.key, "winner": winner})


def settle_all(state: State) -> None:
    while GAME.contest(state) is not None:
        settle(state, None)


def scramble(state: State, viewer: int | None, rng: random.Random) -> None:
    """Permute every card the viewer cannot see: other hands, the draw pile, cards under pile tops."""
    places: list[tuple[list[int], int]] = []
    for s in range(state.seats):
        if s != viewer:
            places += [(state.hands[s], i) for i in range(len(state.hands[s]))]
    places += [(state.draw, i) for i in range(len(state.draw))]
    for s in range(state.seats):
        pile = state.piles[s]
        hidden_top = state.face_down == s and s != viewer
        under = len(pile) if hidden_top else len(pile) - 1
        places += [(pile, i) for i in range(max(0, under))]
    cards = [lst[i] for lst, i in places]
    rng.shuffle(cards)
    for (lst, i), c in zip(places, cards, strict=True):
        lst[i] = c
    state.rng = random.Random(rng.random())
