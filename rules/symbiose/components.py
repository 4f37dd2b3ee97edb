"""Symbiose's components: four colours, four animals, the 36 cards chosen here (the rulebook lists
none; docs/symbiose.md gives the reasons) and which board each column of a Pond faces.

Each player's Pond is 2 rows x 4 columns, slot = row * 4 + col. Column 0 scores the board on the
player's left, column 3 the board on the right, columns 1 and 2 the player's own board.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

COLOURS = ("blue", "green", "orange", "purple")
ANIMALS = ("frog", "snail", "dragonfly", "fish")
ROUNDS = 8
POND = 8  # 2 rows x 4 columns
COLUMNS = 4
MODES = ("standard", "duel", "team")
RIVER = "river"

Target: TypeAlias = int | str  # a seat, or RIVER in duel mode


@dataclass(frozen=True)
class Card:
    colour: str
    animal: str
    kind: str  # "fixed" | "per_animal" | "per_colour"
    points: int
    counts: str = ""  # the animal or colour a conditional card counts

    @property
    def label(self) -> str:
        if self.kind == "fixed":
            return f"{self.points} points"
        return f"{self.points} per {self.counts}"

    def matches(self, other: Card) -> bool:
        """Whether `other` is one of the cards this conditional card counts."""
        if self.kind == "per_animal":
            return other.animal == self.counts
        return self.kind == "per_colour" and other.colour == self.counts


def _card(colour: str, animal: str, value: str) -> Card:
    """Parse the deck table's value column: "8", "2 per dragonfly" or "4 per orange"."""
    if " per " not in value:
        return Card(colour, animal, "fixed", int(value))
    points, counts = value.split(" per ")
    kind = "per_animal" if counts in ANIMALS else "per_colour"
    return Card(colour, animal, kind, int(points), counts)


# chosen here: the 36 cards (the rulebook lists none). 9 per colour and 9 per animal; every colour
# and every animal has 3 fixed, 3 per-animal and 3 per-colour cards. Each animal is counted by three
# cards worth 1, 2 and 3 a match, each colour too except orange, counted at 1, 1 and 4 so that the
# rulebook's "4 per orange" exists while every counted animal or colour is worth 6 in all. Fixed
# values run 3..8 twice, a low, a middle and a high one per colour. No card counts its own colour or
# animal. The rulebook's examples are here: "8 points", "2 per dragonfly", "4 per orange".
# docs/symbiose.md gives the reasons and the figures measured with it (bench/symbiose.py).
DECK_TABLE: tuple[tuple[str, str, str], ...] = (
    ("blue", "frog", "3"),
    ("blue", "frog", "2 per dragonfly"),
    ("blue", "frog", "3 per green"),
    ("blue", "snail", "5"),
    ("blue", "snail", "3 per fish"),
    ("blue", "dragonfly", "1 per snail"),
    ("blue", "dragonfly", "2 per purple"),
    ("blue", "fish", "1 per orange"),
    ("blue", "fish", "8"),
    ("green", "snail", "3"),
    ("green", "snail", "2 per fish"),
    ("green", "snail", "1 per orange"),
    ("green", "dragonfly", "6"),
    ("green", "dragonfly", "3 per frog"),
    ("green", "fish", "1 per dragonfly"),
    ("green", "fish", "2 per blue"),
    ("green", "frog", "3 per purple"),
    ("green", "frog", "7"),
    ("orange", "dragonfly", "4"),
    ("orange", "dragonfly", "2 per frog"),
    ("orange", "dragonfly", "1 per purple"),
    ("orange", "fish", "5"),
    ("orange", "fish", "3 per snail"),
    ("orange", "frog", "1 per fish"),
    ("orange", "frog", "2 per green"),
    ("orange", "snail", "3 per blue"),
    ("orange", "snail", "8"),
    ("purple", "fish", "4"),
    ("purple", "fish", "2 per snail"),
    ("purple", "fish", "1 per blue"),
    ("purple", "frog", "6"),
    ("purple", "frog", "3 per dragonfly"),
    ("purple", "snail", "1 per frog"),
    ("purple", "snail", "4 per orange"),
    ("purple", "dragonfly", "1 per green"),
    ("purple", "dragonfly", "7"),
)
DECK: tuple[Card, ...] = tuple(_card(*row) for row in DECK_TABLE)


def neighbours(seats: int, mode: str) -> list[tuple[Target, Target]]:
    """(left, right) board of each seat: what its column 0 and its column 3 score.

    Play runs in seat order, clockwise, so the next seat sits on your left. In duel the River
    sits as a third place in that circle (after seat 1), so it is seat 0's right and seat 1's
    left; in team mode both side columns face the partner across the table.
    """
    if mode == "team":
        return [((i + 2) % 4, (i + 2) % 4) for i in range(seats)]
    if mode == "duel":
        return [(1, RIVER), (RIVER, 0)]
    return [((i + 1) % seats, (i - 1) % seats) for i in range(seats)]


def team_of(seat: int, mode: str) -> int | None:
    return seat % 2 if mode == "team" else None


