"""The table of one game: plain data that rules/snapshot.py writes and reads back, with its own seeded RNG."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rules.engine import LogKinds, log_entry
from rules.waterfall_park.components import ATTRACTIONS, BASES, BY_CELL, CELL, NUMBERS, SIZES
from rules.waterfall_park.income import Cell, best_split, part_income

PREPARATION = "preparation"
EXCHANGE = "exchange"
CONSTRUCTION = "construction"
OVER = "over"

#: Every kind of log entry, with its arguments (docs/protocol.md). `transfers` is a list of
#: [giver, receiver, locations, {tile: count}, coins]; `tiles` a list of attraction names.
LOG_KINDS: LogKinds = {
    "round": ("round", "cards", "discard"),
    "chosen": ("seat",),
    "takes": ("seat", "locations"),
    "no_base": ("seat", "location"),
    "reveals": ("seat", "tiles"),
    "exchange": (),
    "base_moved": ("seat", "from", "to"),
    "card_returned": ("seat", "location"),
    "offer": ("offer", "seat", "transfers"),
    "countered": ("seat", "offer"),
    "accepts": ("seat", "offer"),
    "declines": ("seat", "offer"),
    "withdraws": ("seat", "offer"),
    "fails": ("offer",),
    "trade": ("offer", "transfers"),
    "void": ("offer", "seat"),
    "ready": ("seat",),
    "unready": ("seat",),
    "lapse": ("offers",),
    "construction": (),
    "builds": ("seat", "tile", "location"),
    "done": ("seat",),
    "income": ("round", "earnings"),
    "over": ("coins", "winners"),
}


@dataclass(frozen=True)
class Transfer:
    """What one party of an offer gives to one other party."""

    giver: int
    receiver: int
    locations: tuple[int, ...]
    tiles: tuple[tuple[str, int], ...]  # (attraction, count), in ATTRACTIONS order, counts > 0
    coins: int


@dataclass
class Offer:
    """An open proposal; it executes the moment every party has accepted."""

    id: int
    author: int
    transfers: tuple[Transfer, ...]
    accepted: list[int]

    @property
    def parties(self) -> list[int]:
        return sorted({t.giver for t in self.transfers} | {t.receiver for t in self.transfers})


def empty_tiles() -> dict[str, int]:
    return {name: 0 for name in ATTRACTIONS}


@dataclass
class State:
    seats: int
    max_offers: int
    rng: random.Random
    round: int = 1
    phase: str = PREPARATION
    deck: list[int] = field(default_factory=list)  # Location cards, face down
    tile_deck: list[str] = field(default_factory=list)  # Attraction tiles, face down
    hands: list[list[int]] = field(default_factory=list)  # Location cards in hand, sorted
    discards: list[tuple[int, int] | None] = field(default_factory=list)  # chosen, not yet revealed
    # After the reveal, kept cards still waiting for their owner, out of bases, to move a base to
    # them or let them go back to the deck; and the cards placed in this reveal (whose bases stay).
    pending: list[list[int]] = field(default_factory=list)
    placed: list[list[int]] = field(default_factory=list)
    box: list[int] = field(default_factory=list)  # Location cards used and put back in the box
    owner: list[int | None] = field(default_factory=list)  # by location number - 1
    tile: list[str | None] = field(default_factory=list)  # by location number - 1
    unbuilt: list[dict[str, int]] = field(default_factory=list)  # face up in front of each player
    coins: list[int] = field(default_factory=list)  # face down
    income: list[list[int]] = field(default_factory=list)  # announced, per round
    ready: list[bool] = field(default_factory=list)  # done with the current phase
    offers: dict[int, Offer] = field(default_factory=dict)
    next_offer: int = 1
    offers_made: list[int] = field(default_factory=list)  # this round, per seat
    trades: int = 0
    earning: list[int] = field(default_factory=list)  # what the board would pay each player now
    # How that pay is split, per player: (attraction, its locations sorted, income), sorted.
    attractions: list[list[tuple[str, tuple[int, ...], int]]] = field(default_factory=list)
    log: list[Any] = field(default_factory=list)
    winners: list[int] | None = None
    log_from: int = 0  # entries dropped from the front of `log`

    def say(self, kind: str, *args: Any) -> None:
        self.log_from += log_entry(self.log, LOG_KINDS, kind, args)

    def owned(self, seat: int) -> list[int]:
        return [i + 1 for i, owner in enumerate(self.owner) if owner == seat]

    def movable(self, seat: int) -> list[int]:
        """The seat's empty locations whose base it may move, out of bases: not placed this reveal."""
        placed = self.placed[seat] if self.placed else []
        return [n for n in self.owned(seat) if self.tile[n - 1] is None and n not in placed]

    def bases_left(self, seat: int) -> int:
        return BASES - self.owner.count(seat)

    def built(self, seat: int) -> dict[Cell, str]:
        out: dict[Cell, str] = {}
        for n in NUMBERS:
            name = self.tile[n - 1]
            if self.owner[n - 1] == seat and name is not None:
                out[CELL[n]] = name
        return out

    def refresh_earning(self) -> None:
        """Recompute each player's attractions, the best split of its tiles, and what they pay;
        called whenever the board changes."""
        self.attractions = [self.split(s) for s in range(self.seats)]
        self.earning = [sum(pay for _, _, pay in parts) for parts in self.attractions]

    def split(self, seat: int) -> list[tuple[str, tuple[int, ...], int]]:
        built = tuple((n, name) for n in NUMBERS if self.owner[n - 1] == seat and (name := self.tile[n - 1]))
        return list(split_of(built))


@lru_cache(maxsize=1 << 14)
def split_of(built: tuple[tuple[int, str], ...]) -> tuple[tuple[str, tuple[int, ...], int], ...]:
    """The best split of a player's built tiles, given as (location, attraction) in location order:
    a pure function of them, memoised because a build changes one player's tiles and the others'
    splits (and every split a bot's look-ahead meets again) need not be found afresh."""
    by_type: dict[str, list[Cell]] = {}
    for number, name in built:
        by_type.setdefault(name, []).append(CELL[number])
    out = [
        (name, tuple(sorted(BY_CELL[c] for c in part)), part_income(len(part), SIZES[name]))
        for name, cells in by_type.items()
        for part in best_split(cells, SIZES[name])
    ]
    return tuple(sorted(out, key=lambda a: a[1]))

