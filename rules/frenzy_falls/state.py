"""The state of one Frenzy Falls table: plain dataclasses that rules/snapshot.py writes and reads back."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rules.engine import LogKinds, entry
from rules.frenzy_falls.components import Card, ScoreCard

#: Every kind of log entry, with its arguments (docs/protocol.md). Pools are numbered from 0; a card
#: is its kind's id in the catalogue (`cards`, `scores`), None for a card moved face down.
LOG_KINDS: LogKinds = {
    "begins": ("first",),
    "reshuffles": ("seat",),
    "round": ("round", "first"),
    "no_card": ("seat",),
    "plays": ("seat", "pool"),
    "reveal_begins": (),
    "pass": ("pass",),
    "reveals": ("pool", "seat", "card"),
    "proxy_stays": ("seat",),
    "bump_nothing": (),
    "pull_nothing": (),
    "proxy": ("seat", "card"),
    "bump": ("owner", "card", "to"),
    "pull": ("owner", "card", "from", "to"),
    "spills": ("pool", "water", "seat", "score", "influence"),
    "new_score": ("pool", "score"),
    "last_round": (),
    "winner_discards": ("seat", "cards", "pool"),
    "rest_discarded": ("cards", "pool"),
    "cascade_discards": ("seat", "card"),
    "cascade": ("seat", "card", "to"),
    "round_ends": ("round", "hand"),
    "refills": ("seat", "discarded", "drawn"),
    "over": ("round", "winners"),
}

#: Once an action is done the log keeps up to LOG_KEEP entries, dropping the oldest LOG_TRIM at once
#: (as often as needed): most moves then only append to the view's log (one small `add`), where a
#: window sliding by one would also `remove` each time. It keeps LOG_KEEP - LOG_TRIM + 1 (31) to
#: LOG_KEEP (50) entries.
LOG_KEEP = 50
LOG_TRIM = 20


@dataclass
class PoolCard:
    """A Waterfall card lying in a Pool. `seat` is its owner (the card back is public)."""

    seat: int
    card: Card
    up: bool


@dataclass
class Pool:
    """A Score card and the Waterfall cards to its right; `score` is None once it cannot be replaced."""

    score: ScoreCard | None
    cards: list[PoolCard] = field(default_factory=list)

    def water(self) -> int:
        """The whole water total, face-down cards included (what the spillover check counts)."""
        base = self.score.water if self.score is not None else 0
        return base + sum(pc.card.water for pc in self.cards)


@dataclass
class Player:
    falls: str
    deck: list[Card]
    hand: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    won: list[ScoreCard] = field(default_factory=list)

    def points(self) -> int:
        return sum(s.points for s in self.won)


@dataclass
class Pending:
    """A decision the reveal is waiting for: `kind` is the phase name, `seat` the one who decides.

    For proxy, bump and pull, (`pool`, `pos`) is the action card; for spill, `pool` is the Pool
    that spilled over.
    """

    kind: str
    seat: int
    pool: int
    pos: int = 0


@dataclass
class Spill:
    """A spillover between steps 3 and 4: `movers` still have to move one card each, in order."""

    pool: int
    winner: int
    movers: list[int]


@dataclass
class State:
    seats: int
    rng: random.Random
    players: list[Player]
    pools: list[Pool]
    score_deck: list[ScoreCard]
    first: int
    round: int = 1
    phase: str = "play"
    #: Seats still to play a card this round, in turn order (the play phase).
    turns: list[int] = field(default_factory=list)
    #: The Pool the reveal is at, and which pass over the Pools this is (1 = the first).
    cursor: int = 0
    passes: int = 0
    pending: Pending | None = None
    spill: Spill | None = None
    #: Round-end choices already made (seat -> hand indices), hidden until every seat has chosen.
    discards: dict[int, list[int]] = field(default_factory=dict)
    end_triggered: bool = False
    log: list[Any] = field(default_factory=list)
    log_total: int = 0
    #: Spillovers per finished or running round, for the figures in docs (public anyway).
    spills_by_round: list[int] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def note(self, kind: str, *args: Any) -> None:
        """Write a log entry. The trim waits for `trim_log`, once the action is over, so that every
        entry an action wrote is still there to be returned as its events."""
        self.log.append(entry(LOG_KINDS, kind, args))
        self.log_total += 1

    def trim_log(self) -> None:
        while len(self.log) > LOG_KEEP:
            del self.log[:LOG_TRIM]

    def name(self, seat: int) -> str:
        return self.players[seat].falls
