"""The components of Frenzy Falls.

The rulebook lists 90 Waterfall cards in six decks of 15 and 32 Score cards but prints no faces,
so every face below is chosen here (docs/frenzy_falls.md gives the reasons and the measured
effect on play). Only the counts and the player-count chart come from the rulebook.
"""
from __future__ import annotations

from dataclasses import dataclass

PROXY = "PROXY"
BUMP = "BUMP"
PULL = "PULL"
ACTIONS = (PROXY, BUMP, PULL)

#: A Pool spills over when its water, the Score card's included, reaches this.
SPILL_AT = 10
HAND_SIZE = 5

#: The six Waterfall types, one per seat in seat order (seat 0 plays Mountain Falls).
FALLS = ("Mountain", "Glacier", "Desert", "Forest", "Coastal", "Tropical")

#: Score cards in the draw deck, by player count (from the rulebook's setup chart).
SCORE_DECK_SIZE = {2: 10, 3: 12, 4: 14, 5: 16, 6: 20}


@dataclass(frozen=True)
class Card:
    """A Waterfall card's face. Faces carry no identity: two '2' cards are the same card."""

    water: int
    influence: int
    action: str | None = None


@dataclass(frozen=True)
class ScoreCard:
    water: int
    points: int


def _cards(water: int, influence: int, count: int, action: str | None = None) -> list[Card]:
    return [Card(water, influence, action)] * count


# chosen here: the 15 faces of every Waterfall deck (the same in all six). On every number card
# water + influence = 5, so a card either pushes a Pool towards its spillover or wins it, never
# both; the '0' with 5 influence, the '1' with 4 and the '2' with 3 are the cards the rulebook's
# examples need. Action cards are weak in themselves (a PROXY is discarded as it resolves).
# Measured with bench/frenzy_falls_stats.py; docs/frenzy_falls.md has the figures.
WATERFALL_DECK: tuple[Card, ...] = tuple(
    _cards(0, 5, 1)
    + _cards(1, 4, 2)
    + _cards(2, 3, 3)
    + _cards(3, 2, 2)
    + _cards(4, 1, 2)
    + _cards(5, 0, 1)
    + _cards(0, 1, 1, PROXY)
    + _cards(1, 1, 2, BUMP)
    + _cards(1, 1, 1, PULL)
)


def _score(water: int, points: int, count: int) -> list[ScoreCard]:
    return [ScoreCard(water, points)] * count


# chosen here: the 32 Score cards. A low water value makes a Pool slow to spill, so those cards
# are worth more; the water-0 card is the one the cascade example starts Pool 1 with.
SCORE_CARDS: tuple[ScoreCard, ...] = tuple(
    _score(0, 5, 4)
    + _score(1, 4, 6)
    + _score(2, 4, 4)
    + _score(2, 3, 4)
    + _score(3, 3, 5)
    + _score(4, 2, 5)
    + _score(5, 1, 4)
)

assert len(WATERFALL_DECK) == 15 and len(SCORE_CARDS) == 32
# A Pool holding only its Score card never spills, so every spillover has cards to settle.
assert all(s.water < SPILL_AT for s in SCORE_CARDS)


#: Every kind of Waterfall card and of Score card, in the decks' order: a card's kind is its place
#: here (the catalogue's id), the same for every card of that face.
FACES: tuple[Card, ...] = tuple(dict.fromkeys(WATERFALL_DECK))
SCORE_FACES: tuple[ScoreCard, ...] = tuple(dict.fromkeys(SCORE_CARDS))


_FACE_IDS = {card: i for i, card in enumerate(FACES)}
_SCORE_IDS = {card: i for i, card in enumerate(SCORE_FACES)}


def face_id(card: Card) -> int:
    return _FACE_IDS[card]


def score_id(card: ScoreCard) -> int:
    return _SCORE_IDS[card]


def catalogue() -> dict[str, dict[str, dict[str, int | str | None]]]:
    """Every kind of Waterfall card (`cards`) and of Score card (`scores`) by its id."""
    return {
        "cards": {str(i): {"water": c.water, "influence": c.influence, "action": c.action}
                  for i, c in enumerate(FACES)},
        "scores": {str(i): {"water": s.water, "points": s.points} for i, s in enumerate(SCORE_FACES)},
    }


def pool_count(seats: int) -> int:
    """One Pool per player, three with two players."""
    return 3 if seats == 2 else seats


def plays_per_round(seats: int) -> int:
    """Each player plays two cards a round, three with two players."""
    return 3 if seats == 2 else 2
