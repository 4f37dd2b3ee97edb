"""Components of Waterfall Park: the rulebook's figures, and what it leaves to the board's art.

The rulebook gives counts (78 locations, 72 tiles of 9 attractions, 24 bases a colour, 5 coins
each), the income tables and the 3- and 5-player aids. It does not give the board's layout, the
sizes of six of the nine attractions, the colour-blind symbols or the 4-player aid: those are
marked `chosen here` and docs/waterfall_park.md gives the reasons.
"""
from __future__ import annotations

from dataclasses import dataclass

GAME_ID = "waterfall_park"
ROUNDS = 4
START_COINS = 5
BASES = 24
DISCARD = 2
MIN_PLAYERS = 3
MAX_PLAYERS = 5


@dataclass(frozen=True)
class Location:
    """A space of the board; its Location card carries the same number."""

    number: int
    x: int
    y: int
    block: str


# chosen here: the park is a 15 x 9 grid of cells. Rectangular blocks of locations are separated
# by one-cell paths, so orthogonal neighbours always share a block. Block sizes vary (4, 6, 8, 9,
# 12) so that every attraction size fits somewhere, and the two 2 x 2 blocks only hold size 3-4
# attractions; the falls that name the park fill the gap in the bottom band and hold no location.
# (block id, x, y, width, height)
BLOCKS: tuple[tuple[str, int, int, int, int], ...] = (
    ("A", 0, 0, 3, 2), ("B", 4, 0, 4, 2), ("C", 9, 0, 2, 2), ("D", 12, 0, 3, 2),
    ("E", 0, 3, 3, 3), ("F", 4, 3, 2, 3), ("G", 7, 3, 4, 3), ("H", 12, 3, 3, 3),
    ("I", 0, 7, 4, 2), ("J", 9, 7, 2, 2), ("K", 12, 7, 3, 2),
)
# chosen here: the waterfall itself, (x, y, width, height); drawn, never built on.
WATERFALL = (5, 7, 3, 2)
BOARD_WIDTH = 15
BOARD_HEIGHT = 9


def _locations() -> tuple[Location, ...]:
    """Number the cells in reading order (top row first, left to right), as a player scans the board."""
    cells = sorted(
        (y, x, block)
        for block, bx, by, w, h in BLOCKS
        for y in range(by, by + h)
        for x in range(bx, bx + w)
    )
    return tuple(Location(i + 1, x, y, block) for i, (y, x, block) in enumerate(cells))


LOCATIONS: tuple[Location, ...] = _locations()
NUMBERS: tuple[int, ...] = tuple(loc.number for loc in LOCATIONS)
BY_CELL: dict[tuple[int, int], int] = {(loc.x, loc.y): loc.number for loc in LOCATIONS}
CELL: dict[int, tuple[int, int]] = {loc.number: (loc.x, loc.y) for loc in LOCATIONS}
NEIGHBOURS: dict[int, tuple[int, ...]] = {
    loc.number: tuple(
        sorted(
            BY_CELL[c]
            for c in ((loc.x + 1, loc.y), (loc.x - 1, loc.y), (loc.x, loc.y + 1), (loc.x, loc.y - 1))
            if c in BY_CELL
        )
    )
    for loc in LOCATIONS
}

# The 9 attractions and their maximum sizes. Fixed by the rulebook: Gift Shop 3 (6 tiles),
# Ghost Train 4 (8 tiles), Theater 5 (10 tiles); Ice Cream Stand 3 from the construction example.
# chosen here: Bar 3; Carousel and Bowling Alley 4; Circus and Pool 5 (three types per size).
GIFT_SHOP = "Gift Shop"
ICE_CREAM_STAND = "Ice Cream Stand"
BAR = "Bar"
GHOST_TRAIN = "Ghost Train"
CAROUSEL = "Carousel"
BOWLING_ALLEY = "Bowling Alley"
THEATER = "Theater"
CIRCUS = "Circus"
POOL = "Pool"
SIZES: dict[str, int] = {
    GIFT_SHOP: 3, ICE_CREAM_STAND: 3, BAR: 3,
    GHOST_TRAIN: 4, CAROUSEL: 4, BOWLING_ALLEY: 4,
    THEATER: 5, CIRCUS: 5, POOL: 5,
}
ATTRACTIONS: tuple[str, ...] = tuple(SIZES)
# "Each attraction is available in sufficient quantity to construct 2 attractions in the maximum size."
TILE_COUNTS: dict[str, int] = {name: 2 * size for name, size in SIZES.items()}

# Income tables printed on the board.
INCOMPLETE_INCOME: dict[int, int] = {1: 1, 2: 3, 3: 5, 4: 7}
COMPLETE_INCOME: dict[int, int] = {3: 6, 4: 9, 5: 12}

# Player aid: (Location cards dealt, discarded, Attraction tiles dealt) for rounds 1-4.
# 3 and 5 players come from the rulebook. chosen here: 4 players round 2-4 (round 1 is published).
# In both published aids the tiles a player receives over the game equal the locations it keeps
# (22 with 3 players, 13 with 5); 7/2/5 then 6/2/4 three times keeps that (17 and 17), stays between
# the two published aids, and leaves enough cards in the deck for round 4 (26 for a 24-card deal).
SCHEDULE: dict[int, tuple[tuple[int, int, int], ...]] = {
    3: ((7, 2, 6), (7, 2, 6), (8, 2, 5), (8, 2, 5)),
    4: ((7, 2, 5), (6, 2, 4), (6, 2, 4), (6, 2, 4)),
    5: ((5, 2, 4), (5, 2, 3), (5, 2, 3), (6, 2, 3)),
}

# Base colours in seat order, each with its colour-blind symbol.
# chosen here: the symbols (the rulebook pictures them but does not name them) and their glyphs.
COLOURS: tuple[tuple[str, str, str], ...] = (
    ("Pink", "heart", "\u2665"),
    ("Yellow", "star", "\u2605"),
    ("Blue", "circle", "\u25cf"),
    ("Green", "triangle", "\u25b2"),
    ("Red", "square", "\u25a0"),
)

# chosen here: room option `max_offers`, the open offers one player may have at once.
DEFAULT_MAX_OFFERS = 5
# chosen here: bounds that keep a hostile offer cheap to check (all far above what play needs).
MAX_TRANSFERS = 20
MAX_OFFER_COINS = 10_000
