"""Frenetic Village's deck and its three winning combinations, shared by the engine and its bot.

The rulebook names the card types but gives no counts, races or values; the deck below (`DECK`,
marked `chosen_here`) is this project's, explained in docs/frenetic_village.md. A card is an int
0..61 inside the engine; views only ever show its face (see `face`), so two copies of the same card
look alike and no card can be followed through a hand, the draw pile or a shuffle.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Deck:
    """What the 62 cards are. The rulebook gives the total, the kinds and the two wildcards only."""

    chosen_here: bool  # True: not the rulebook's list (it has none); docs/frenetic_village.md says why
    copies: Mapping[str, int]  # race -> copies of each of its army cards
    values: tuple[int, ...]
    actions: Mapping[str, int]
    wildcards: int


# chosen here: five races, the least that lets the "invincible ladder" (five races in a row) exist,
# of unequal sizes: four Humans of each value 1..5, three Elves, one each for the three other
# races (50 army cards). With one card per race and value 1..10 the ladder ended nine battles in
# ten between bots; with this deck each combination ends more than a sixth of them at every table
# size (`python -m bench.frenetic_odds`, docs/frenetic_village.md).
# Ten action cards, the harsher ones rarer, and the rulebook's two wildcards make the 62.
DECK = Deck(
    chosen_here=True,
    copies={"humans": 4, "elves": 3, "dwarves": 1, "orcs": 1, "goblins": 1},
    values=(1, 2, 3, 4, 5),
    actions={"skulls": 2, "palla_paca_card": 2, "palla_paca_hand": 2, "two_cards": 2, "three_cards": 1,
             "one_card": 1},
    wildcards=2,  # the rulebook: "A player may hold both wildcards in hand."
)
RACES: tuple[str, ...] = tuple(DECK.copies)
VALUES: tuple[int, ...] = DECK.values
ACTION_COUNTS: dict[str, int] = dict(DECK.actions)
WILDCARDS = DECK.wildcards
ACTIONS: tuple[str, ...] = tuple(ACTION_COUNTS)

NAMES: dict[str, str] = {
    "skulls": "Skulls",
    "palla_paca_card": '"Pallá pacá" card',
    "palla_paca_hand": '"Pallá pacá" hand',
    "two_cards": "Two cards to the deck",
    "three_cards": "Three cards to the deck",
    "one_card": "One card",
    "wild": "Wildcard",
}
COMBINATION_NAMES: dict[str, str] = {
    "race_straight": "5 consecutive cards of the same race",
    "five_of_a_value": "5 cards of the same value",
    "invincible_ladder": "invincible ladder",
}

# chosen here: what a card counts in the "lowest_total" and "battle_points" variants.
WILD_POINTS = VALUES[-1]  # as much as the highest army card: a wildcard left in hand costs the most
ACTION_POINTS = 3  # the middle army value


def build(deck: Deck) -> tuple[tuple[str, int, int], ...]:
    """The cards of a deck, each as (kind, race index or -1, value or 0)."""
    cards: list[tuple[str, int, int]] = []
    for race, copies in enumerate(deck.copies.values()):
        for value in deck.values:
            cards.extend(("army", race, value) for _ in range(copies))
    for kind, count in deck.actions.items():
        cards.extend((kind, -1, 0) for _ in range(count))
    cards.extend(("wild", -1, 0) for _ in range(deck.wildcards))
    return tuple(cards)


#: card id -> (kind, race index or -1, value or 0)
CARDS: tuple[tuple[str, int, int], ...] = build(DECK)
DECK_SIZE = len(CARDS)
assert DECK_SIZE == 62, "the rulebook's deck has 62 cards"

HAND = 5
RUN = 5  # length of a straight or a ladder
STARTS: tuple[int, ...] = tuple(range(VALUES[0], VALUES[-1] - RUN + 2))  # first values of a run


def kind(card: int) -> str:
    return CARDS[card][0]


def points(card: int) -> int:
    k, _, value = CARDS[card]
    if k == "army":
        return value
    return WILD_POINTS if k == "wild" else ACTION_POINTS


def face(card: int) -> dict[str, Any]:
    """What a face-up card shows: no id, so identical faces are indistinguishable."""
    k, race, value = CARDS[card]
    if k == "army":
        return {"kind": "army", "race": RACES[race], "value": value,
                "name": f"{RACES[race].capitalize()} {value}"}
    return {"kind": k, "name": NAMES[k]}


def name(card: int) -> str:
    return str(face(card)["name"])


def kind_id(card: int) -> str:
    """The card's kind in the catalogue: "humans-3" for an army card, else its kind ("skulls",
    "wild"). Every card of a kind has the same id, so the id follows no physical card."""
    k, race, value = CARDS[card]
    return f"{RACES[race]}-{value}" if k == "army" else k


def catalogue() -> dict[str, dict[str, Any]]:
    """Every kind of card by its id, as the views and the log name them."""
    out: dict[str, dict[str, Any]] = {}
    for card in range(DECK_SIZE):
        shown = face(card)
        out.setdefault(kind_id(card), {k: v for k, v in shown.items() if k != "name"})
    return out


# --- combinations -------------------------------------------------------------------------------

Army = tuple[int, int]  # (race index, value)


def combination_of(army: Sequence[Army], wilds: int) -> str | None:
    """The combination five cards make (army cards plus wildcards), or None.

    The three combinations exclude each other once three army cards are present, and with only two
    wildcards there always are, so the answer is unique.
    """
    if len(army) + wilds != HAND or wilds > WILDCARDS:
        return None
    races = {r for r, _ in army}
    values = [v for _, v in army]
    distinct = len(set(values)) == len(values)
    run = distinct and max(values) - min(values) < RUN
    if len(races) == 1 and run:
        return "race_straight"
    if len(set(values)) == 1:
        return "five_of_a_value"
    if run and len(races) == len(army):
        return "invincible_ladder"
    return None


def split(cards: Iterable[int]) -> tuple[list[Army], int, int]:
    """Army cards as (race, value), the number of wildcards, the number of action cards."""
    army: list[Army] = []
    wilds = actions = 0
    for c in cards:
        k, race, value = CARDS[c]
        if k == "army":
            army.append((race, value))
        elif k == "wild":
            wilds += 1
        else:
            actions += 1
    return army, wilds, actions


def combination(cards: Sequence[int]) -> str | None:
    army, wilds, actions = split(cards)
    if actions or len(cards) != HAND:
        return None
    return combination_of(army, wilds)


def winning_slots(hand: Sequence[int]) -> list[int]:
    """Slots of a hand that can go face down so that the other five cards win."""
    if len(hand) != HAND + 1:
        return []
    return [i for i in range(len(hand)) if combination([c for j, c in enumerate(hand) if j != i])]


# --- partial combinations, for the bot ----------------------------------------------------------

def _matching(cards: Sequence[Army]) -> int:
    """Largest set of cards with pairwise different races and different values (bipartite match)."""
    match_of_value: dict[int, int] = {}  # value -> race

    def augment(race: int, seen: set[int]) -> bool:
        for r, v in cards:
            if r != race or v in seen:
                continue
            seen.add(v)
            if v not in match_of_value or augment(match_of_value[v], seen):
                match_of_value[v] = race
                return True
        return False

    return sum(1 for race in sorted({r for r, _ in cards}) if augment(race, set()))


def progress(army: Sequence[Army], wilds: int) -> tuple[int, int]:
    """How close cards are to a combination: (cards of the best template, flexibility).

    A template is one concrete target: a race's run from a start value, a value, or a ladder window.
    The first figure counts the cards (wildcards included, at most five) that fit the best template;
    the second sums squares over every template, so that among equal bests the bot keeps the hand
    with more ways to finish.
    """
    return _progress(tuple(sorted(army)), wilds)


@functools.lru_cache(maxsize=1 << 16)
def _progress(army: tuple[Army, ...], wilds: int) -> tuple[int, int]:
    """`progress` of a sorted hand: the bots ask of the same few hands again and again (a search's
    playouts most of all), and the answer does not depend on the cards' order."""
    counts: list[int] = []
    for v in VALUES:
        counts.append(sum(1 for _, w in army if w == v))
    for start in STARTS:
        window = [(r, v) for r, v in army if start <= v < start + RUN]
        for race in range(len(RACES)):  # distinct values: a second copy of a card adds nothing
            counts.append(len({v for r, v in window if r == race}))
        counts.append(_matching(window))
    best = min(HAND, max(counts) + min(wilds, WILDCARDS))
    return best, sum(c * c for c in counts)


GAME_ID = "frenetic_village"
VARIANTS: tuple[str, ...] = ("single", "five_wins", "lowest_total", "battle_points")
FIVE_WINS = 5  # the rulebook's "whoever wins 5 battles"

SENT_BACK = {"two_cards": 2, "three_cards": 3}
PLAY_ORDER: tuple[str, ...] = ("skulls", "three_cards", "two_cards", "one_card", "palla_paca_card",
                               "palla_paca_hand")
