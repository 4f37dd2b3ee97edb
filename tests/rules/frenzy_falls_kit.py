"""Helpers for the Frenzy Falls tests: a table built from a literal layout, and conservation checks.

A card is written `<falls initial><face>`, with a trailing `?` while it lies face down:
`D0` is Desert's '0' (5 influence), `M3?` a face-down Mountain '3', `TBUMP` Tropical's BUMP.
Faces are taken out of the owner's real deck, so a layout can only use cards that exist, and the
rest of each deck goes to its draw pile: every deck still holds its 15 cards.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from rules.frenzy_falls import GAME, flow
from rules.frenzy_falls.components import ACTIONS, FALLS, SCORE_CARDS, WATERFALL_DECK, Card, ScoreCard
from rules.frenzy_falls.state import Player, Pool, PoolCard, State

INITIALS = {f[0]: seat for seat, f in enumerate(FALLS)}


def face(text: str) -> Card:
    """'3' is the number card with water 3; 'PROXY', 'BUMP', 'PULL' the action cards."""
    for card in WATERFALL_DECK:
        if (card.action == text) if text in ACTIONS else (card.action is None and str(card.water) == text):
            return card
    raise ValueError(f"no Waterfall card {text!r}")


def parse(token: str) -> PoolCard:
    up = not token.endswith("?")
    body = token.rstrip("?")
    return PoolCard(INITIALS[body[0]], face(body[1:]), up)


def score(water: int, points: int) -> ScoreCard:
    card = ScoreCard(water, points)
    assert card in SCORE_CARDS, f"{card} is not one of the chosen Score cards"
    return card


def build(seats: int, pools: Sequence[tuple[ScoreCard | None, Sequence[str]]],
          hands: Mapping[int, Sequence[str]] | None = None,
          score_deck: Sequence[ScoreCard] = (), first: int = 0) -> State:
    """A table at the start of the reveal (call `reveal`) with exactly this layout."""
    state: State = GAME.setup(seats, 0, {})
    remaining = [Counter(WATERFALL_DECK) for _ in range(seats)]

    def take(seat: int, card: Card) -> Card:
        assert remaining[seat][card] > 0, f"{FALLS[seat]} has no more {card}"
        remaining[seat][card] -= 1
        return card

    state.pools = []
    for score_card, tokens in pools:
        cards = [parse(t) for t in tokens]
        for pc in cards:
            take(pc.seat, pc.card)
        state.pools.append(Pool(score_card, cards))
    state.players = [Player(FALLS[s], []) for s in range(seats)]
    for seat, faces in (hands or {}).items():
        state.players[seat].hand = [take(seat, face(f)) for f in faces]
    for seat in range(seats):
        state.players[seat].deck = list(remaining[seat].elements())
    state.score_deck = list(score_deck)
    state.first = first
    state.turns = []
    state.log = []
    return state


def reveal(state: State) -> State:
    """Start the reveal the way the last card played would."""
    flow.next_turn(state)
    return state


def waterfall_cards(state: State, seat: int) -> list[Card]:
    p = state.players[seat]
    in_pools = [pc.card for pool in state.pools for pc in pool.cards if pc.seat == seat]
    return p.hand + p.deck + p.discard + in_pools


def assert_conserved(state: State, score_total: int) -> None:
    """Every deck holds its own 15 faces; no Score card appears or vanishes."""
    for seat in range(state.seats):
        assert Counter(waterfall_cards(state, seat)) == Counter(WATERFALL_DECK), f"seat {seat}"
    scores: list[ScoreCard] = list(state.score_deck)
    scores += [pool.score for pool in state.pools if pool.score is not None]
    for p in state.players:
        scores += p.won
    assert len(scores) == score_total
    assert not Counter(scores) - Counter(SCORE_CARDS)


def cards_in(state: State, pool: int) -> list[str]:
    """A Pool's cards written as in layouts, for compact assertions."""
    out = []
    for pc in state.pools[pool].cards:
        name = pc.card.action or str(pc.card.water)
        out.append(f"{FALLS[pc.seat][0]}{name}{'' if pc.up else '?'}")
    return out


def faces(cards: Iterable[Card]) -> list[str]:
    return sorted(c.action or str(c.water) for c in cards)
